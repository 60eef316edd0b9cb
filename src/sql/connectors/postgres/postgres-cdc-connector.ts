/**
 * The `postgres-cdc` SQL connector, with Flink CDC's option names: the changes of one
 * PostgreSQL table through logical replication (`pgoutput`), read by `PostgresCdcSource`: a
 * snapshot of the table first (`scan.startup.mode` = `initial`), then every committed change,
 * resuming from the slot's position after a restore. The table is an upsert changelog on its
 * PRIMARY KEY (Flink CDC's `changelog-mode` = `upsert`): a create or snapshot read upserts
 * `after`, an update upserts `after`, a delete deletes the key of `before`, so no table needs
 * REPLICA IDENTITY FULL.
 */
import { optional } from 'valibot';
import type { StreamEnvironment } from '../../../api/stream-environment.js';
import {
  type ChangeEvent,
  type ChangeRecord,
  type PostgresCdcOptions,
  postgresCdc,
} from '../../../connectors/postgres/index.js';
import type { Change } from '../../../core/changelog.js';
import type { Collector } from '../../../core/functions.js';
import type { CatalogTable, TableColumn } from '../../catalog/catalog.js';
import { sqlError } from '../../sql-error.js';
import type { LogicalType } from '../../types/logical-type.js';
import type { ChangelogSource, Row, SqlConnector } from '../connector.js';
import { FieldError, fromJson } from '../formats/field-values.js';
import {
  checkMetadataColumns,
  isMillisTimestamp,
  isString,
  type MetadataKey,
} from '../metadata-columns.js';
import { choice, duration, parseSqlOptions, text, wholeNumber } from '../sql-options.js';

const cdcOptions = {
  connector: 'postgres-cdc',
  entries: {
    hostname: text('a host name'),
    port: optional(wholeNumber()),
    username: text('a user name'),
    password: text('a password'),
    'database-name': text('a database name'),
    'schema-name': text('a schema name'),
    'table-name': text('a table name'),
    'slot.name': text("a replication slot name (lower-case letters, digits and '_')"),
    'decoding.plugin.name': optional(choice(['pgoutput'])),
    'scan.startup.mode': optional(choice(['initial', 'latest-offset'])),
    'changelog-mode': optional(choice(['upsert'])),
    'scan.snapshot.fetch.size': optional(wholeNumber()),
    'heartbeat.interval.ms': optional(duration()),
    'debezium.publication.name': optional(text('a publication name')),
  },
  rules: [
    {
      check: (o: { 'slot.name': string }) => /^[a-z0-9_]{1,63}$/.test(o['slot.name']),
      message: "'slot.name' must be 1-63 lower-case letters, digits or '_' (PostgreSQL's rule)",
    },
  ],
} as const;

function parseCdcOptions(table: CatalogTable) {
  return parseSqlOptions(cdcOptions, table);
}

function stored(table: CatalogTable): TableColumn[] {
  return table.columns.filter((c) => c.computed === undefined);
}

/** Flink CDC's METADATA keys of `postgres-cdc`: where and when each change was made. */
const CDC_METADATA: Readonly<Record<string, MetadataKey<ChangeEvent>>> = {
  table_name: { accepts: isString, type: 'STRING', value: (e) => e.source.table },
  schema_name: { accepts: isString, type: 'STRING', value: (e) => e.source.schema },
  database_name: { accepts: isString, type: 'STRING', value: (e) => e.source.db },
  // The commit time of the change's transaction; 0 for a row read by the snapshot, as Flink CDC.
  op_ts: {
    accepts: isMillisTimestamp,
    type: 'TIMESTAMP_LTZ(3)',
    value: (e) => (e.source.snapshot === 'false' ? e.source.ts_ms : 0),
  },
};

function checkTable(table: CatalogTable): void {
  if (table.primaryKey === undefined || table.primaryKey.length === 0)
    sqlError(
      "connector 'postgres-cdc' needs a PRIMARY KEY (...) NOT ENFORCED: the table's key, by which changes upsert and delete rows",
      table.at,
    );
  checkMetadataColumns(table, 'postgres-cdc', CDC_METADATA);
  for (const c of table.columns)
    if (c.metadata !== undefined && table.primaryKey?.includes(c.name))
      sqlError(
        `PRIMARY KEY column '${c.name}' is METADATA: the key must be columns of the captured table`,
        table.at,
      );
}

/**
 * Widens rows of the physical columns to every stored column, the METADATA columns filled
 * from the change's event; undefined when the table has no METADATA column.
 */
function metadataWidener(
  columns: readonly TableColumn[],
): ((changes: Change<Row>[], event: ChangeEvent) => Change<Row>[]) | undefined {
  const keys = columns.map((c) =>
    c.metadata === undefined ? undefined : CDC_METADATA[c.metadata.key],
  );
  if (keys.every((k) => k === undefined)) return undefined;
  return (changes, event) =>
    changes.map(({ kind, value }) => {
      const row: Row = new Array(keys.length);
      let next = 0;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        row[i] = key === undefined ? value[next++] : key.value(event);
      }
      return { kind, value: row };
    });
}

/**
 * A value of a change event (Debezium's representation of the column type) as a SQL value:
 * DATE arrives as days since the epoch and BYTEA as bytes, which JSON values never are.
 */
function sqlValue(value: unknown, type: LogicalType, field: string): unknown {
  if (type.kind === 'DATE' && typeof value === 'number') return value;
  if ((type.kind === 'BINARY' || type.kind === 'VARBINARY') && value instanceof Uint8Array)
    return value;
  return fromJson(value, type, field);
}

/** The row of `columns` in a change's image; `image` (`after`, `before`) names it in errors. */
function imageRow(
  image: Readonly<Record<string, unknown>>,
  columns: readonly TableColumn[],
  name: string,
  complete: boolean,
): Row {
  return columns.map((c) => {
    if (complete && !(c.name in image))
      throw new FieldError(`${name}.${c.name}`, 'is not a column of the captured table');
    return sqlValue(image[c.name] ?? null, c.type, `${name}.${c.name}`);
  });
}

/** The upsert changes of one change event. */
function changesOf(
  event: ChangeEvent,
  columns: readonly TableColumn[],
  keyColumns: readonly TableColumn[],
): Change<Row>[] {
  switch (event.op) {
    case 'c':
    case 'r':
    case 'u':
      return [
        {
          kind: event.op === 'u' ? '+U' : '+I',
          value: imageRow(event.after ?? {}, columns, 'after', true),
        },
      ];
    case 'd': {
      // Without REPLICA IDENTITY FULL only the key columns of `before` are set.
      const before = event.before ?? {};
      const row: Row = new Array<unknown>(columns.length).fill(null);
      for (const [i, c] of columns.entries()) {
        const value = before[c.name] ?? null;
        row[i] =
          keyColumns.includes(c) || value !== null
            ? sqlValue(value, c.type, `before.${c.name}`)
            : null;
      }
      return [{ kind: '-D', value: row }];
    }
    default:
      return [];
  }
}

function changelogSource(table: CatalogTable, env: StreamEnvironment): ChangelogSource {
  const o = parseCdcOptions(table);
  checkTable(table);
  const columns = stored(table);
  const physical = columns.filter((c) => c.metadata === undefined);
  const keyColumns = physical.filter((c) => table.primaryKey?.includes(c.name));
  const widen = metadataWidener(columns);
  const options: PostgresCdcOptions = {
    connection: {
      host: o.hostname,
      port: Number(o.port ?? 5432),
      user: o.username,
      password: o.password,
      database: o['database-name'],
    },
    tables: [`${o['schema-name']}.${o['table-name']}`],
    slotName: o['slot.name'],
    ...(o['debezium.publication.name'] === undefined
      ? {}
      : { publicationName: o['debezium.publication.name'] }),
    snapshot: o['scan.startup.mode'] === 'latest-offset' ? 'never' : 'initial',
    truncateEvents: false,
    ...(o['scan.snapshot.fetch.size'] === undefined
      ? {}
      : { snapshotFetchSize: Math.max(1, Number(o['scan.snapshot.fetch.size'])) }),
    ...(o['heartbeat.interval.ms'] === undefined
      ? {}
      : { heartbeatIntervalMs: o['heartbeat.interval.ms'] }),
    name: table.name,
  };
  const source = postgresCdc(options);
  const where = `${o['schema-name']}.${o['table-name']}`;
  const decode = (record: ChangeRecord<ChangeEvent>, out: Collector<Change<Row>>): void => {
    const event = record.value;
    if (event === null) return;
    let list: Change<Row>[];
    try {
      list = changesOf(event, physical, keyColumns);
      if (widen !== undefined) list = widen(list, event);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `table '${table.name}': change of ${where} (op '${event.op}', LSN ${event.source.lsn ?? 'snapshot'}): ${reason}`,
      );
    }
    for (const c of list) out.collect(c);
  };
  const changes = env
    .fromSource(source)
    .flatMap(decode)
    .name(`${table.name}: postgres-cdc changes`);
  return { changes, mode: 'upsert' };
}

export const postgresCdcConnector: SqlConnector = {
  name: 'postgres-cdc',
  options: [],
  validate(table) {
    parseCdcOptions(table);
    checkTable(table);
  },
  changelogSource,
  // Each value is read by fromJson, which refuses NULL for a NOT NULL column (a delete's
  // non-key columns excepted): a bad change names the table, op and LSN.
  checksNotNull: true,
};
