/**
 * Options of the PostgreSQL connectors, declared once: each schema gives
 * the options type and its validation when the connector is created (a
 * mistake fails then, not when the job runs).
 */
import * as v from 'valibot';
import { fn, nonEmptyString, type OptionsOf, oneOf, positiveInt } from '../shared/config.js';
import { emitPostgresWarning, postgresReconnectEntry } from './reconnect.js';
import { type ObjectConnection, sslProblem } from './tls.js';

const CONNECTION_RULE =
  'must be a postgres:// URL or an object with host, port, user, password, database';

/** Where the database is: a `postgres://` URL, or its parts. */
export const connectionSchema = v.pipe(
  v.union(
    [
      v.pipe(v.string(), v.minLength(1)),
      v.object({
        connectionString: v.optional(v.string()),
        host: v.optional(v.string()),
        port: v.optional(v.number()),
        user: v.optional(v.string()),
        password: v.optional(v.string()),
        database: v.optional(v.string()),
        /** Application name shown in `pg_stat_activity`. */
        applicationName: v.optional(v.string()),
        /** Extra server settings for the connector's sessions, e.g. `-c wal_sender_timeout=30s`. */
        sessionOptions: v.optional(v.string()),
        /**
         * TLS as libpq's `sslmode`: `'disable'`, `'require'` (encrypted, not
         * verified), `'verify-ca'` or `'verify-full'` (default when another
         * `ssl*` setting is given). See docs/connectors/postgres.md.
         */
        sslMode: v.optional(v.string()),
        /** PEM file of the CA(s) that signed the server certificate; `'system'` for the CAs Node trusts. */
        sslRootCert: v.optional(v.string()),
        /** PEM file of a client certificate (with `sslKey`). */
        sslCert: v.optional(v.string()),
        /** PEM file of the client certificate's key. */
        sslKey: v.optional(v.string()),
        /** Password of an encrypted `sslKey`. */
        sslPassword: v.optional(v.string()),
      }),
    ],
    CONNECTION_RULE,
  ),
  v.check(
    (c) => sslProblem(c) === undefined,
    (issue) => sslProblem(issue.input as string | ObjectConnection) ?? 'has unusable TLS settings',
  ),
);

/** Where the database is: a `postgres://` URL, or its parts. */
export type PostgresConnection = string | OptionsOf<v.ObjectSchema<ConnectionEntries, undefined>>;
type ConnectionEntries = Extract<
  (typeof connectionSchema)['pipe'][0]['options'][number],
  { type: 'object' }
>['entries'];

/** A number >= 0 (`Infinity` allowed: "never"). */
const atLeastZero = v.pipe(
  v.number('must be a number >= 0'),
  v.minValue(0, 'must be a number >= 0'),
);

/** How column values become event values. Every field has Debezium's default except `decimal` (`string`). */
export const typeMappingSchema = v.object({
  /** Default `'string'`. */
  decimal: v.optional(oneOf(['string', 'double']), 'string'),
  /** Default `'number'`. */
  int8: v.optional(oneOf(['number', 'bigint', 'string']), 'number'),
  /** Default `'bytes'` (a `Uint8Array`). */
  binary: v.optional(oneOf(['bytes', 'base64', 'hex']), 'bytes'),
  /** Default `'adaptive'`. */
  timePrecision: v.optional(
    oneOf(['adaptive', 'adaptive_time_microseconds', 'connect']),
    'adaptive',
  ),
  /** Default `'numeric'`. */
  interval: v.optional(oneOf(['numeric', 'string']), 'numeric'),
  /** Default `'json'`. */
  hstore: v.optional(oneOf(['json', 'map']), 'json'),
  /**
   * Stands for a TOASTed value that did not change in an update (the server
   * does not send it unless the table has REPLICA IDENTITY FULL). Default
   * Debezium's `'__debezium_unavailable_value'`.
   */
  unavailableValuePlaceholder: v.optional(v.string(), '__debezium_unavailable_value'),
});

/**
 * How column values become event values (the `types` option of the CDC source and lookup table).
 * @interface
 */
export type TypeMappingOptions = OptionsOf<typeof typeMappingSchema>;

/** Receives warnings: retries after a lost connection, a slot retaining much WAL. Default `process.emitWarning`. */
const warningEntry = v.optional(fn<(message: string) => void>(), () => emitPostgresWarning);

/** Prefix of the logical messages the heartbeat writes (skipped by the source). */
export const HEARTBEAT_PREFIX = 'weir_heartbeat';

/** Schema of the CDC source's options. */
export const cdcSchema = v.object({
  connection: connectionSchema,
  /** Tables to capture: `'orders'` (schema `public`) or `'shop.orders'`. */
  tables: v.pipe(
    v.array(v.string('must be table names'), 'must list at least one table'),
    v.minLength(1, 'must list at least one table'),
  ),
  /**
   * The replication slot (created if missing): lower-case letters, digits
   * and `_`. It keeps the WAL the source has not confirmed; drop it (see
   * `dropReplicationSlot`) when the pipeline is retired.
   */
  slotName: v.pipe(
    v.string("must be 1-63 lower-case letters, digits or '_'"),
    v.regex(/^[a-z0-9_]{1,63}$/, "must be 1-63 lower-case letters, digits or '_'"),
  ),
  /** The publication (created for `tables` if missing, extended if it lacks some). Default `<slotName>_publication`. */
  publicationName: v.optional(
    v.pipe(
      v.string('must be a name of 1-63 characters'),
      v.minLength(1, 'must be a name of 1-63 characters'),
      v.maxLength(63, 'must be a name of 1-63 characters'),
    ),
  ),
  /** Create or extend the publication. Default true; when false it must exist and cover the tables. */
  createPublication: v.optional(v.boolean('must be true or false'), true),
  /** Logical name of the source, Debezium's `topic.prefix`: in `source.name` and topics. Default `'weir'`. */
  name: v.optional(v.string('must be a string'), 'weir'),
  /**
   * `'initial'` (default): on a fresh start (no checkpoint to restore) read
   * every table first (`op: 'r'`), then stream changes from exactly the
   * snapshot's point; an existing slot of this name is dropped and created
   * anew for that. `'never'`: only stream, from the slot's position (created
   * if missing).
   */
  snapshot: v.optional(oneOf(['initial', 'never']), 'initial'),
  /** Rows fetched per round trip while snapshotting. Default 10,000. */
  snapshotFetchSize: v.optional(positiveInt(), 10_000),
  /** Emit a tombstone (a record with a null value) after each delete. Default false. */
  tombstonesOnDelete: v.optional(v.boolean('must be true or false'), false),
  /** Emit `op: 't'` events for TRUNCATE. Default true. */
  truncateEvents: v.optional(v.boolean('must be true or false'), true),
  /** How column types become values. */
  types: v.optional(typeMappingSchema, {}),
  /**
   * Every this many ms, write a tiny logical message into the WAL
   * (`pg_logical_emit_message`) so that the slot's position moves on even
   * when the captured tables are idle. Default 0 (off).
   */
  heartbeatIntervalMs: v.optional(atLeastZero, 0),
  /** The statement the heartbeat runs. Default `SELECT pg_logical_emit_message(false, 'weir_heartbeat', '')`. */
  heartbeatQuery: v.optional(
    v.string('must be a string'),
    `SELECT pg_logical_emit_message(false, '${HEARTBEAT_PREFIX}', '')`,
  ),
  /** Time between standby status updates sent while streaming. Default 10,000 ms. */
  statusIntervalMs: v.optional(positiveInt(), 10_000),
  /** Time between slot lag measurements (the `weir_postgres_slot_*` gauges). Default 5,000 ms; 0 turns them off. */
  slotLagIntervalMs: v.optional(atLeastZero, 5_000),
  /** Warn (once per crossing) when the slot retains more WAL than this. Default 1 GiB. */
  slotLagWarningBytes: v.optional(atLeastZero, 1024 ** 3),
  onWarning: warningEntry,
  /**
   * How a lost connection is retried (a database restart, a failover):
   * streaming resumes from the position of the last record emitted, so
   * nothing is lost or repeated. Default: up to 60 s of outage.
   */
  reconnect: postgresReconnectEntry,
  /** Replication data buffered before the source stops reading from the server. Default 16 MiB. */
  maxBufferedBytes: v.optional(positiveInt(), 16 * 1024 * 1024),
  /**
   * Event time is the commit time. The watermark trails the newest commit
   * time by this much (commit timestamps of concurrent transactions can be
   * slightly out of commit order). Default 0 (watermark = newest commit - 1 ms).
   */
  watermarkDelayMs: v.optional(atLeastZero, 0),
  /** After this long without changes (and caught up), the source is idle for event time. Default: never idle. */
  idleTimeoutMs: v.optional(atLeastZero, Number.POSITIVE_INFINITY),
});

/**
 * Options of `postgresCdc`.
 * @interface
 */
export type PostgresCdcOptions = OptionsOf<typeof cdcSchema>;

/** Entries of the options every PostgreSQL sink shares. */
export const sinkEntries = {
  connection: connectionSchema,
  /** Target table, `'name'` (schema `public`) or `'schema.name'`. */
  table: v.string('must be a table name'),
  /** Conflict target: columns of a unique index. Default: the primary key. */
  keyColumns: v.optional(
    v.pipe(
      v.array(v.string(), 'must be a non-empty list of column names'),
      v.minLength(1, 'must be a non-empty list of column names'),
    ),
  ),
  /**
   * Appends every row with a plain INSERT, for a table without a key (no `keyColumns`, no
   * ON CONFLICT; a delete is rejected). Default false.
   */
  append: v.optional(v.boolean('must be true or false'), false),
  /**
   * The change a record makes. Default: CDC change records (envelope or
   * flattened; deletes and tombstones delete), otherwise the record is the row to upsert.
   */
  toMutation: v.optional(fn<(record: never) => unknown>()),
  /** See `RejectedRowPolicy`. */
  onRejected: v.optional(
    v.union(
      [v.literal('fail'), v.object({ deadLetter: fn<(rejected: never) => void>() })],
      "must be 'fail' or { deadLetter: function }",
    ),
    'fail',
  ),
  /** Most records written per flush. Default 5,000. */
  maxBatchSize: v.optional(positiveInt(), 5_000),
  /** How a lost connection is retried (a database restart, a failover). Default: up to 60 s of outage. */
  reconnect: postgresReconnectEntry,
  onWarning: warningEntry,
};

/** Schema of the upsert sink's options. */
export const upsertSinkSchema = v.object(sinkEntries);

/** Schema of the transactional sink's options. */
export const transactionalSinkSchema = v.object({
  ...sinkEntries,
  /**
   * Prefix of the prepared transactions' names (`<prefix>:<subtask>:<checkpoint>:<token>`).
   * Recovery rolls back prepared transactions with this prefix that no
   * checkpoint names, so no two jobs may share it. Default
   * `weir:<schema>.<table>:<operator id>`.
   */
  transactionPrefix: v.optional(
    v.pipe(
      v.string('must be a string of 1-150 bytes'),
      v.check(
        (s) => s.length > 0 && Buffer.byteLength(s) <= 150,
        'must be a string of 1-150 bytes',
      ),
    ),
  ),
  /** Longest wait for the database while sealing a transaction at a barrier. Default 60,000 ms. */
  prepareTimeoutMs: v.optional(
    v.pipe(v.number('must be positive'), v.gtValue(0, 'must be positive')),
    60_000,
  ),
});

/** Schema of the lookup table's options. */
export const lookupTableSchema = v.object({
  connection: connectionSchema,
  /** `table`, `schema.table` or `"Quoted"."Names"` (schema `public` when omitted). */
  table: nonEmptyString('must be a table name'),
  /** The column looked up; it should be unique (a primary key): several rows for one key fail the lookup. */
  keyColumn: nonEmptyString('must be a column name'),
  /** Columns to read. Default: all of them. */
  columns: v.optional(v.array(v.string('must be column names'), 'must be a list of column names')),
  /** Turns a row into the value joined. Default: the row object as `pg` returns it. */
  row: v.optional(fn<(row: never) => unknown>()),
  /** Connections per subtask. Default 4. */
  poolSize: v.optional(positiveInt('must be a whole number >= 1'), 4),
  /** How a lookup retries after a lost connection (a database restart). Default: up to 60 s of outage. */
  reconnect: postgresReconnectEntry,
  onWarning: warningEntry,
});
