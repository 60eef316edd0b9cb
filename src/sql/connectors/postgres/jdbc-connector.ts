/**
 * The `jdbc` SQL connector for PostgreSQL, with the option names of Flink's JDBC connector
 * (`url`, `table-name`, `username`, `password`). As a sink it upserts on the declared PRIMARY
 * KEY (`PostgresUpsertSink`), or appends with plain INSERTs for a table without one;
 * `sink.delivery-guarantee` = `exactly-once` writes each checkpoint's rows in one prepared
 * transaction, committed when the checkpoint completes (`PostgresTransactionalSink`). As a
 * source it reads the table once (bounded; `scan.partition.*` splits the read), and it looks
 * rows up by any key columns for lookup joins. Column types are checked as Flink's PostgreSQL
 * dialect checks them.
 */
import * as v from 'valibot';
import type { StreamEnvironment } from '../../../api/stream-environment.js';
import type { DataStream } from '../../../api/streams.js';
import type { PgValue } from '../../../connectors/postgres/index.js';
import {
  PostgresTransactionalSink,
  PostgresUpsertSink,
  type SinkMutation,
} from '../../../connectors/postgres/index.js';
import { isChange } from '../../../core/changelog.js';
import type { Sink } from '../../../core/sink.js';
import type { CatalogTable, TableColumn } from '../../catalog/catalog.js';
import { sqlError } from '../../sql-error.js';
import { formatType, isInteger, type LogicalType, MAX_LENGTH } from '../../types/logical-type.js';
import type { Row, SqlConnector, SqlLookupSource } from '../connector.js';
import { toText } from '../formats/field-values.js';
import { lookupCache, lookupMaxRetries, lookupOptionEntries } from '../lookup-options.js';
import { choice, duration, flag, parseSqlOptions, text, wholeNumber } from '../sql-options.js';
import { JdbcRowsLookup, JdbcScanSource, type ScanPartitioning } from './jdbc-read.js';

const { optional } = v;

/** A whole number, negative too, as text (the bounds of `scan.partition.*`). */
const integer = () => v.pipe(v.string(), v.regex(/^-?\d+$/, 'must be a whole number'));

const PARTITION_OPTIONS = [
  'scan.partition.column',
  'scan.partition.num',
  'scan.partition.lower-bound',
  'scan.partition.upper-bound',
] as const;

/** Flink's default `scan.fetch-size` is the driver's (all rows at once); Weir reads in rounds. */
const DEFAULT_FETCH_SIZE = 1000;

type PartitionOptions = { readonly [K in (typeof PARTITION_OPTIONS)[number]]?: string | undefined };

const jdbcOptions = {
  connector: 'jdbc',
  entries: {
    url: text("a URL such as 'jdbc:postgresql://host:5432/database'"),
    'table-name': text('a table name'),
    username: optional(text('a user name')),
    password: optional(text('a password')),
    driver: optional(text('a driver class name')),
    'sink.buffer-flush.max-rows': optional(wholeNumber()),
    // Weir writes each batch as it comes, so a row is never held longer than the interval.
    'sink.buffer-flush.interval': optional(duration()),
    // Weir retries a write by time (a lost connection, up to 60 s of outage), not by count.
    'sink.max-retries': optional(wholeNumber()),
    'scan.partition.column': optional(text('a column name')),
    'scan.partition.num': optional(wholeNumber()),
    'scan.partition.lower-bound': optional(integer()),
    'scan.partition.upper-bound': optional(integer()),
    'scan.fetch-size': optional(wholeNumber()),
    'scan.auto-commit': optional(flag()),
    // Weir filters the rows it reads; either policy gives the same rows.
    'filter.handling.policy': optional(choice(['ALWAYS', 'NEVER'])),
    'sink.delivery-guarantee': optional(choice(['at-least-once', 'exactly-once'])),
    'sink.transaction-prefix': optional(text('a prefix of prepared transaction names')),
    ...lookupOptionEntries,
    'connection.max-retry-timeout': optional(duration()),
  },
  rules: [
    {
      check: (o: PartitionOptions) =>
        PARTITION_OPTIONS.every(
          (k) => (o[k] === undefined) === (o[PARTITION_OPTIONS[0]] === undefined),
        ),
      message: `the options ${PARTITION_OPTIONS.join(', ')} must all be given, or none`,
    },
    {
      check: (o: PartitionOptions) =>
        o['scan.partition.lower-bound'] === undefined ||
        o['scan.partition.upper-bound'] === undefined ||
        BigInt(o['scan.partition.lower-bound']) <= BigInt(o['scan.partition.upper-bound']),
      message: "'scan.partition.lower-bound' must not be larger than 'scan.partition.upper-bound'",
    },
    {
      check: (o: PartitionOptions) =>
        o['scan.partition.num'] === undefined || Number(o['scan.partition.num']) > 0,
      message: "'scan.partition.num' must be at least 1",
    },
  ],
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
    case 'ARRAY':
      // An array parameter of a PostgreSQL array column (Flink's dialect maps ARRAY so).
      return (value as readonly unknown[]).map((e) => pgValue(e, type.element));
    case 'ROW':
    case 'MAP':
      return JSON.stringify(value);
    default:
      return toText(value, type);
  }
}

/**
 * The stored columns, named as PostgreSQL knows them: Flink's PostgreSQL dialect writes names
 * unquoted, so the server folds a plain name to lower case (`cTag` is column `ctag`).
 */
function stored(table: CatalogTable): TableColumn[] {
  return table.columns
    .filter((c) => c.computed === undefined)
    .map((c) => ({ ...c, name: pgName(c.name) }));
}

function pgName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_$]*$/.test(name) ? name.toLowerCase() : name;
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
  const key = table.primaryKey;
  const options = {
    connection,
    table: o['table-name'],
    // Without a PRIMARY KEY, Flink's jdbc sink appends with plain INSERTs.
    ...(key === undefined ? { append: true } : { keyColumns: key.map(pgName) }),
    toMutation: mutationOf(rowToRecord(columns)),
    ...(o['sink.buffer-flush.max-rows'] === undefined
      ? {}
      : { maxBatchSize: Math.max(1, Number(o['sink.buffer-flush.max-rows'])) }),
  };
  const written =
    o['sink.delivery-guarantee'] === 'exactly-once'
      ? new PostgresTransactionalSink<Row>({
          ...options,
          ...(o['sink.transaction-prefix'] === undefined
            ? {}
            : { transactionPrefix: o['sink.transaction-prefix'] }),
        })
      : (new PostgresUpsertSink<Row>(options) as unknown as Sink<Row>);
  if (key !== undefined) return written;
  // An append-only sink, so an updating query into it is refused when planned, as in Flink.
  return Object.assign(Object.create(written) as Sink<Row>, { accepts: 'insert-only' as const });
}

/** The bounded scan of the table (Flink's jdbc source), its ranges read in parallel when partitioned. */
function source(table: CatalogTable, env: StreamEnvironment): DataStream<Row> {
  const o = parseJdbcOptions(table);
  const columns = stored(table);
  const given = o['scan.partition.column'];
  const column = given === undefined ? undefined : pgName(given);
  let partitioning: ScanPartitioning | undefined;
  if (column !== undefined) {
    const c = columns.find((x) => x.name === column);
    if (c === undefined || !isInteger(c.type))
      sqlError(
        `option 'scan.partition.column' must name an integer column of table '${table.name}', got '${given}'`,
        table.options.get('scan.partition.column')?.at,
      );
    partitioning = {
      column,
      num: Number(o['scan.partition.num']),
      lowerBound: BigInt(o['scan.partition.lower-bound'] as string),
      upperBound: BigInt(o['scan.partition.upper-bound'] as string),
    };
  }
  const fetchSize = Number(o['scan.fetch-size'] ?? DEFAULT_FETCH_SIZE);
  return env.fromSource(
    new JdbcScanSource({
      name: table.name,
      connection: connectionUrl(table, o),
      table: o['table-name'],
      columns,
      fetchSize: fetchSize === 0 ? DEFAULT_FETCH_SIZE : fetchSize,
      partitioning,
    }),
  );
}

/** The table's rows by the lookup join's key columns (every `column = value` of its ON). */
function lookupRows(
  table: CatalogTable,
  keyColumns: readonly string[],
): SqlLookupSource<readonly Row[]> {
  const o = parseJdbcOptions(table);
  const cache = lookupCache(o, table);
  return {
    table: new JdbcRowsLookup(
      connectionUrl(table, o),
      o['table-name'],
      stored(table),
      keyColumns.map(pgName),
    ),
    maxRetries: lookupMaxRetries(o),
    ...(cache === undefined ? {} : { cache }),
  };
}

/** Flink's PostgreSQL dialect: the types it reads and writes, and the TIMESTAMP precisions. */
function checkTypes(table: CatalogTable): void {
  for (const c of table.columns.filter((x) => x.computed === undefined)) {
    const t = c.type;
    const unsupported =
      !SUPPORTED_TYPES.has(t.kind) || (t.kind === 'VARBINARY' && t.length !== MAX_LENGTH);
    if (unsupported)
      sqlError(`The PostgreSQL dialect doesn't support type: ${formatType(t)}.`, table.at);
    if (t.kind === 'TIMESTAMP_LTZ') sqlError(`Unsupported type:${formatType(t)}`, table.at);
    if (t.kind === 'TIMESTAMP' && t.precision > 6)
      sqlError(
        `The precision of field '${c.name}' is out of the TIMESTAMP precision range [0, 6] supported by PostgreSQL dialect.`,
        table.at,
      );
  }
}

const SUPPORTED_TYPES: ReadonlySet<LogicalType['kind']> = new Set([
  'CHAR',
  'VARCHAR',
  'BOOLEAN',
  'VARBINARY',
  'DECIMAL',
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'DATE',
  'TIME',
  'TIMESTAMP',
  'TIMESTAMP_LTZ',
  'ARRAY',
]);

export const jdbcConnector: SqlConnector = {
  name: 'jdbc',
  lookupRows,
  source,
  options: [],
  validate(table) {
    const o = parseJdbcOptions(table);
    connectionUrl(table, o);
    checkTypes(table);
    const metadata = table.columns.find((c) => c.metadata !== undefined);
    if (metadata !== undefined)
      sqlError(
        `connector 'jdbc' has no metadata; column '${metadata.name}' cannot be METADATA`,
        table.at,
      );
  },
  sink,
};
