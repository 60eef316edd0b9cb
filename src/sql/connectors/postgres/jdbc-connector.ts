/**
 * The `jdbc` SQL connector for PostgreSQL, with the option names of Flink's JDBC connector
 * (`url`, `table-name`, `username`, `password`). As a sink it upserts on the declared PRIMARY
 * KEY (`PostgresUpsertSink`); `sink.delivery-guarantee` = `exactly-once` writes each
 * checkpoint's rows in one prepared transaction, committed when the checkpoint completes
 * (`PostgresTransactionalSink`). It also gives a lookup table keyed by one column, for lookup
 * joins.
 */
import { optional } from 'valibot';
import type { PgValue } from '../../../connectors/postgres/index.js';
import {
  type PostgresLookupRow,
  PostgresLookupTable,
  PostgresTransactionalSink,
  PostgresUpsertSink,
  type SinkMutation,
} from '../../../connectors/postgres/index.js';
import { isChange } from '../../../core/changelog.js';
import type { Key } from '../../../core/key-groups.js';
import type { Sink } from '../../../core/sink.js';
import type { CatalogTable, TableColumn } from '../../catalog/catalog.js';
import { nanosOfMillis } from '../../expressions/functions/precise-time.js';
import { sqlError } from '../../sql-error.js';
import { isPreciseTimestamp, type LogicalType } from '../../types/logical-type.js';
import type { Row, SqlConnector, SqlLookupSource } from '../connector.js';
import { fromJson, toText } from '../formats/field-values.js';
import { lookupCache, lookupMaxRetries, lookupOptionEntries } from '../lookup-options.js';
import { choice, duration, parseSqlOptions, text, wholeNumber } from '../sql-options.js';

const jdbcOptions = {
  connector: 'jdbc',
  entries: {
    url: text("a URL such as 'jdbc:postgresql://host:5432/database'"),
    'table-name': text('a table name'),
    username: optional(text('a user name')),
    password: optional(text('a password')),
    driver: optional(text('a driver class name')),
    'sink.buffer-flush.max-rows': optional(wholeNumber()),
    'sink.delivery-guarantee': optional(choice(['at-least-once', 'exactly-once'])),
    'sink.transaction-prefix': optional(text('a prefix of prepared transaction names')),
    ...lookupOptionEntries,
    'connection.max-retry-timeout': optional(duration()),
  },
} as const;

function parseJdbcOptions(table: CatalogTable) {
  return parseSqlOptions(jdbcOptions, table);
}

/** `jdbc:postgresql://host:port/db?params` with the user and password in it, as `pg` takes it. */
function connectionUrl(table: CatalogTable, o: ReturnType<typeof parseJdbcOptions>): string {
  const at = table.options.get('url')?.at;
  if (!o.url.startsWith('jdbc:postgresql://'))
    sqlError(
      `option 'url' must start with 'jdbc:postgresql://' (Weir's jdbc connector speaks to PostgreSQL), got '${o.url}'`,
      at,
    );
  let url: URL;
  try {
    url = new URL(o.url.slice('jdbc:'.length));
  } catch {
    return sqlError(`option 'url' is not a URL: '${o.url}'`, at);
  }
  if (o.username !== undefined) url.username = encodeURIComponent(o.username);
  if (o.password !== undefined) url.password = encodeURIComponent(o.password);
  return url.toString();
}

function pgValue(value: unknown, type: LogicalType): PgValue {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'CHAR':
    case 'VARCHAR':
      return value as PgValue;
    case 'BINARY':
    case 'VARBINARY':
      return value as Uint8Array;
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      return JSON.stringify(value);
    default:
      return toText(value, type);
  }
}

function stored(table: CatalogTable): TableColumn[] {
  return table.columns.filter((c) => c.computed === undefined);
}

/** A SQL row as the column-to-value object the PostgreSQL sinks write. */
function rowToRecord(columns: readonly TableColumn[]): (row: Row) => Record<string, PgValue> {
  return (row) => {
    const out: Record<string, PgValue> = {};
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i] as TableColumn;
      out[c.name] = pgValue(row[i], c.type);
    }
    return out;
  };
}

/**
 * What a row (or a change of one, from an updating query) does to the table: inserts and
 * updates upsert by the key, deletes delete; an update's old row (`-U`) is replaced by its
 * new one, so it writes nothing.
 */
function mutationOf(
  toRecord: (row: Row) => Record<string, PgValue>,
): (record: unknown) => SinkMutation | null {
  return (record) => {
    if (isChange(record)) {
      if (record.kind === '-U') return null;
      const row = toRecord(record.value as Row);
      return record.kind === '-D' ? { kind: 'delete', key: row } : { kind: 'upsert', row };
    }
    return { kind: 'upsert', row: toRecord(record as Row) };
  };
}

function sink(table: CatalogTable): Sink<Row> {
  const o = parseJdbcOptions(table);
  const connection = connectionUrl(table, o);
  const columns = stored(table);
  const options = {
    connection,
    table: o['table-name'],
    ...(table.primaryKey === undefined ? {} : { keyColumns: [...table.primaryKey] }),
    toMutation: mutationOf(rowToRecord(columns)),
    ...(o['sink.buffer-flush.max-rows'] === undefined
      ? {}
      : { maxBatchSize: Math.max(1, Number(o['sink.buffer-flush.max-rows'])) }),
  };
  if (o['sink.delivery-guarantee'] === 'exactly-once') {
    return new PostgresTransactionalSink<Row>({
      ...options,
      ...(o['sink.transaction-prefix'] === undefined
        ? {}
        : { transactionPrefix: o['sink.transaction-prefix'] }),
    });
  }
  return new PostgresUpsertSink<Row>(options) as unknown as Sink<Row>;
}

/** A PostgreSQL value as `pg` returns it, as a SQL value of `type`. */
function fromPg(value: unknown, type: LogicalType, field: string): unknown {
  // A Date holds milliseconds; a TIMESTAMP(p > 3) holds epoch nanoseconds (types/values.ts).
  if (value instanceof Date)
    return isPreciseTimestamp(type) ? nanosOfMillis(value.getTime()) : value.getTime();
  return fromJson(value, type, field);
}

/**
 * The table as a lookup table on `keyColumn`: each key's row, as a SQL row of the table's
 * columns. For lookup joins (`FOR SYSTEM_TIME AS OF`).
 */
export function jdbcLookupTable(
  table: CatalogTable,
  keyColumn: string,
): PostgresLookupTable<Key, Row> {
  const o = parseJdbcOptions(table);
  const columns = stored(table);
  if (!columns.some((c) => c.name === keyColumn))
    sqlError(`table '${table.name}' has no column '${keyColumn}' to look rows up by`, table.at);
  return new PostgresLookupTable<Key, Row>({
    connection: connectionUrl(table, o),
    table: o['table-name'],
    keyColumn,
    columns: columns.map((c) => c.name),
    row: (r: PostgresLookupRow) => columns.map((c) => fromPg(r[c.name], c.type, c.name)),
  });
}

function lookup(table: CatalogTable, keyColumn: string): SqlLookupSource {
  const o = parseJdbcOptions(table);
  const cache = lookupCache(o, table);
  return {
    table: jdbcLookupTable(table, keyColumn),
    maxRetries: lookupMaxRetries(o),
    ...(cache === undefined ? {} : { cache }),
  };
}

export const jdbcConnector: SqlConnector = {
  name: 'jdbc',
  lookup,
  options: [],
  validate(table) {
    const o = parseJdbcOptions(table);
    connectionUrl(table, o);
    const metadata = table.columns.find((c) => c.metadata !== undefined);
    if (metadata !== undefined)
      sqlError(
        `connector 'jdbc' has no metadata; column '${metadata.name}' cannot be METADATA`,
        table.at,
      );
  },
  sink,
};
