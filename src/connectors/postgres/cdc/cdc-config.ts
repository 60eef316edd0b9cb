/**
 * Options of the PostgreSQL CDC source, and their validation (a mistake
 * fails when the source is created, not when the job runs).
 */
import { describeRecord, invalidArgument } from '../../../core/errors.js';
import {
  checkConnection,
  type PostgresConnection,
  parseTableName,
  type TableName,
} from '../connection.js';
import {
  type ResolvedTypeMapping,
  resolveTypeMapping,
  type TypeMappingOptions,
} from '../values.js';

/** Options of {@link postgresCdc}. */
export interface PostgresCdcOptions {
  readonly connection: PostgresConnection;
  /** Tables to capture: `'orders'` (schema `public`) or `'shop.orders'`. */
  readonly tables: readonly string[];
  /**
   * The replication slot (created if missing): lower-case letters, digits
   * and `_`. It keeps the WAL the source has not confirmed; drop it (see
   * `dropReplicationSlot`) when the pipeline is retired.
   */
  readonly slotName: string;
  /** The publication (created for `tables` if missing, extended if it lacks some). Default `<slotName>_publication`. */
  readonly publicationName?: string;
  /** Create or extend the publication. Default true; when false it must exist and cover the tables. */
  readonly createPublication?: boolean;
  /** Logical name of the source, Debezium's `topic.prefix`: in `source.name` and topics. Default `'weir'`. */
  readonly name?: string;
  /**
   * `'initial'` (default): on a fresh start (no checkpoint to restore) read
   * every table first (`op: 'r'`), then stream changes from exactly the
   * snapshot's point; an existing slot of this name is dropped and created
   * anew for that. `'never'`: only stream, from the slot's position (created
   * if missing).
   */
  readonly snapshot?: 'initial' | 'never';
  /** Rows fetched per round trip while snapshotting. Default 10,000. */
  readonly snapshotFetchSize?: number;
  /** Emit a tombstone (a record with a null value) after each delete. Default false. */
  readonly tombstonesOnDelete?: boolean;
  /** Emit `op: 't'` events for TRUNCATE. Default true. */
  readonly truncateEvents?: boolean;
  /** How column types become values. */
  readonly types?: TypeMappingOptions;
  /**
   * Every this many ms, write a tiny logical message into the WAL
   * (`pg_logical_emit_message`) so that the slot's position moves on even
   * when the captured tables are idle. Default 0 (off).
   */
  readonly heartbeatIntervalMs?: number;
  /** The statement the heartbeat runs. Default `SELECT pg_logical_emit_message(false, 'weir_heartbeat', '')`. */
  readonly heartbeatQuery?: string;
  /** Time between standby status updates sent while streaming. Default 10,000 ms. */
  readonly statusIntervalMs?: number;
  /** Time between slot lag measurements (the `weir_postgres_slot_*` gauges). Default 5,000 ms; 0 turns them off. */
  readonly slotLagIntervalMs?: number;
  /** Warn (once per crossing) when the slot retains more WAL than this. Default 1 GiB. */
  readonly slotLagWarningBytes?: number;
  /** Receives warnings. Default `process.emitWarning`. */
  readonly onWarning?: (message: string) => void;
  /** Replication data buffered before the source stops reading from the server. Default 16 MiB. */
  readonly maxBufferedBytes?: number;
  /**
   * Event time is the commit time. The watermark trails the newest commit
   * time by this much (commit timestamps of concurrent transactions can be
   * slightly out of commit order). Default 0 (watermark = newest commit - 1 ms).
   */
  readonly watermarkDelayMs?: number;
  /** After this long without changes (and caught up), the source is idle for event time. Default: never idle. */
  readonly idleTimeoutMs?: number;
}

/** @internal Validated options with defaults. */
export interface CdcConfig {
  readonly connection: PostgresConnection;
  readonly tables: readonly TableName[];
  readonly slotName: string;
  readonly publicationName: string;
  readonly createPublication: boolean;
  readonly name: string;
  readonly snapshot: 'initial' | 'never';
  readonly snapshotFetchSize: number;
  readonly tombstonesOnDelete: boolean;
  readonly truncateEvents: boolean;
  readonly types: ResolvedTypeMapping;
  readonly heartbeatIntervalMs: number;
  readonly heartbeatQuery: string;
  readonly statusIntervalMs: number;
  readonly slotLagIntervalMs: number;
  readonly slotLagWarningBytes: number;
  readonly onWarning: (message: string) => void;
  readonly maxBufferedBytes: number;
  readonly watermarkDelayMs: number;
  readonly idleTimeoutMs: number;
}

/** Prefix of the logical messages the heartbeat writes (skipped by the source). */
export const HEARTBEAT_PREFIX = 'weir_heartbeat';

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !(v >= 0)) {
    throw invalidArgument(`postgresCdc: ${name} must be a number >= 0, got ${describeRecord(v)}`);
  }
  return v;
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) {
    throw invalidArgument(
      `postgresCdc: ${name} must be a positive whole number, got ${describeRecord(v)}`,
    );
  }
  return v;
}

function oneOf<T extends string>(
  name: string,
  value: T | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  const v = value ?? fallback;
  if (!allowed.includes(v)) {
    throw invalidArgument(
      `postgresCdc: ${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describeRecord(v)}`,
    );
  }
  return v;
}

const SLOT_NAME = /^[a-z0-9_]{1,63}$/;

/** @internal Validates options and applies defaults. */
export function cdcConfig(options: PostgresCdcOptions): CdcConfig {
  if (options === null || typeof options !== 'object') {
    throw invalidArgument('postgresCdc needs an options object');
  }
  const connection = checkConnection(options.connection, 'postgresCdc');
  if (!Array.isArray(options.tables) || options.tables.length === 0) {
    throw invalidArgument('postgresCdc: tables must list at least one table');
  }
  const tables = options.tables.map((t: unknown) => {
    if (typeof t !== 'string')
      throw invalidArgument(`postgresCdc: table names must be strings, got ${describeRecord(t)}`);
    return parseTableName(t);
  });
  const seen = new Set<string>();
  for (const t of tables) {
    const k = `${t.schema}.${t.table}`;
    if (seen.has(k)) throw invalidArgument(`postgresCdc: table ${k} is listed twice`);
    seen.add(k);
  }
  if (typeof options.slotName !== 'string' || !SLOT_NAME.test(options.slotName)) {
    throw invalidArgument(
      `postgresCdc: slotName must be 1-63 lower-case letters, digits or '_', got ${describeRecord(options.slotName)}`,
    );
  }
  const publicationName = options.publicationName ?? `${options.slotName}_publication`;
  if (
    typeof publicationName !== 'string' ||
    publicationName.length === 0 ||
    publicationName.length > 63
  ) {
    throw invalidArgument(
      `postgresCdc: publicationName must be a name of 1-63 characters, got ${describeRecord(publicationName)}`,
    );
  }
  const types = options.types ?? {};
  oneOf('types.decimal', types.decimal, ['string', 'double'], 'string');
  oneOf('types.int8', types.int8, ['number', 'bigint', 'string'], 'number');
  oneOf('types.binary', types.binary, ['bytes', 'base64', 'hex'], 'bytes');
  oneOf(
    'types.timePrecision',
    types.timePrecision,
    ['adaptive', 'adaptive_time_microseconds', 'connect'],
    'adaptive',
  );
  oneOf('types.interval', types.interval, ['numeric', 'string'], 'numeric');
  oneOf('types.hstore', types.hstore, ['json', 'map'], 'json');
  const onWarning =
    options.onWarning ??
    ((message: string) => process.emitWarning(message, { code: 'WEIR_POSTGRES' }));
  if (typeof onWarning !== 'function')
    throw invalidArgument('postgresCdc: onWarning must be a function');
  return {
    connection,
    tables,
    slotName: options.slotName,
    publicationName,
    createPublication: options.createPublication ?? true,
    name: options.name ?? 'weir',
    snapshot: oneOf('snapshot', options.snapshot, ['initial', 'never'], 'initial'),
    snapshotFetchSize: positiveInt('snapshotFetchSize', options.snapshotFetchSize, 10_000),
    tombstonesOnDelete: options.tombstonesOnDelete ?? false,
    truncateEvents: options.truncateEvents ?? true,
    types: resolveTypeMapping(types),
    heartbeatIntervalMs: nonNegative('heartbeatIntervalMs', options.heartbeatIntervalMs, 0),
    heartbeatQuery:
      options.heartbeatQuery ?? `SELECT pg_logical_emit_message(false, '${HEARTBEAT_PREFIX}', '')`,
    statusIntervalMs: positiveInt('statusIntervalMs', options.statusIntervalMs, 10_000),
    slotLagIntervalMs: nonNegative('slotLagIntervalMs', options.slotLagIntervalMs, 5_000),
    slotLagWarningBytes: nonNegative('slotLagWarningBytes', options.slotLagWarningBytes, 1024 ** 3),
    onWarning,
    maxBufferedBytes: positiveInt('maxBufferedBytes', options.maxBufferedBytes, 16 * 1024 * 1024),
    watermarkDelayMs: nonNegative('watermarkDelayMs', options.watermarkDelayMs, 0),
    idleTimeoutMs: nonNegative('idleTimeoutMs', options.idleTimeoutMs, Number.POSITIVE_INFINITY),
  };
}
