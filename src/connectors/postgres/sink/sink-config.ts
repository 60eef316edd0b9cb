/**
 * Options shared by the PostgreSQL sinks, their validation, loading the
 * target table's description, and turning records into mutations.
 */
import type pg from 'pg';
import { describeRecord, WeirError } from '../../../core/errors.js';
import type { ConfigOf, OptionsOf } from '../../shared/config.js';
import type { ChangeEvent, ChangeRecord } from '../cdc/envelope.js';
import type { upsertSinkSchema } from '../config.js';
import { type PostgresConnection, parseTableName, qualified } from '../connection.js';
import type { ReconnectSettings } from '../reconnect.js';
import type { Row } from '../values.js';
import {
  COLUMNS_QUERY,
  type SinkMutation,
  type SinkTable,
  UNIQUE_KEYS_QUERY,
} from './sink-table.js';

/** A record the database (or validation) rejected, handed to a dead letter. */
export interface RejectedRecord<T> {
  readonly record: T;
  readonly mutation: SinkMutation;
  /** The database's reason (or why it could not be sent), naming the constraint or column where known. */
  readonly error: string;
  /** SQLSTATE, when the database rejected it. */
  readonly code: string | undefined;
  readonly table: string;
}

/**
 * What a sink does with a row the database rejects (a type mismatch, a
 * violated constraint, an unknown column): `'fail'` the job (default) with
 * an error naming the record, or hand it to `deadLetter` and go on.
 */
export type RejectedRowPolicy<T> =
  | 'fail'
  | { readonly deadLetter: (rejected: RejectedRecord<T>) => void };

/** Options of the PostgreSQL sinks. */
export type PostgresSinkOptions<T> = Omit<
  OptionsOf<typeof upsertSinkSchema>,
  'toMutation' | 'onRejected'
> & {
  /**
   * The change a record makes. Default: CDC change records (envelope or
   * flattened; deletes and tombstones delete), otherwise the record is the row to upsert.
   */
  readonly toMutation?: (record: T) => SinkMutation | null | undefined;
  /** See {@link RejectedRowPolicy}. */
  readonly onRejected?: RejectedRowPolicy<T>;
};

/** */
export interface SinkConfig<T> {
  readonly connection: PostgresConnection;
  readonly table: { readonly schema: string; readonly table: string };
  /** Empty: rows are appended, without a key (the `append` option). */
  readonly keyColumns: readonly string[] | undefined;
  readonly toMutation: (record: T) => SinkMutation | null | undefined;
  readonly onRejected: RejectedRowPolicy<T>;
  readonly maxBatchSize: number;
  readonly reconnect: ReconnectSettings;
  readonly onWarning: (message: string) => void;
}

/**
 * The settings every PostgreSQL sink shares, from its validated
 * options `o` (see `upsertSinkSchema`) and the user's functions in `options`.
 */
export function sinkConfig<T>(
  o: ConfigOf<typeof upsertSinkSchema>,
  options: PostgresSinkOptions<T>,
): SinkConfig<T> {
  return {
    connection: o.connection,
    table: parseTableName(o.table),
    keyColumns: o.append ? [] : o.keyColumns,
    toMutation: options.toMutation ?? (defaultMutation as (record: T) => SinkMutation | null),
    onRejected: options.onRejected ?? 'fail',
    maxBatchSize: o.maxBatchSize,
    reconnect: o.reconnect,
    onWarning: o.onWarning,
  };
}

function isChangeEvent(v: unknown): v is ChangeEvent {
  return (
    v !== null &&
    typeof v === 'object' &&
    'op' in v &&
    'source' in v &&
    ('after' in v || 'before' in v)
  );
}

function withoutDeleted(row: Row): Row {
  if (!('__deleted' in row)) return row;
  const { __deleted: _d, ...rest } = row;
  return rest;
}

/**
 * The default record-to-mutation rule:
 * - a {@link ChangeRecord} from `postgresCdc`: creates, reads and updates
 *   upsert `after`; deletes and tombstones delete the key; truncates are
 *   ignored (a sink does not empty its table);
 * - a flattened record: `__deleted: true` deletes, otherwise upserts;
 * - anything else: the record is the row to upsert.
 */
export function defaultMutation(record: unknown): SinkMutation | null {
  if (record === null || typeof record !== 'object') return null;
  const r = record as Partial<ChangeRecord<unknown>>;
  if ('topic' in r && 'value' in r && 'key' in r) {
    const key = (r.key ?? null) as Row | null;
    const value = r.value;
    if (value === null || value === undefined) return key === null ? null : { kind: 'delete', key };
    if (isChangeEvent(value)) {
      if (value.op === 't') return null;
      if (value.op === 'd') return { kind: 'delete', key: key ?? value.before ?? {} };
      return value.after === null ? null : { kind: 'upsert', row: value.after };
    }
    return defaultMutation(value);
  }
  const row = record as Row & { __deleted?: unknown };
  if (row.__deleted === true || row.__deleted === 'true')
    return { kind: 'delete', key: withoutDeleted(row) };
  return { kind: 'upsert', row: withoutDeleted(row) };
}

interface ColumnRow {
  name: string;
  type: string;
  base: string;
  category: string;
  typname: string;
  typmod: number;
  notnull: boolean;
}

/** Loads the target table; fails clearly if it is missing or has no usable key. */
export async function loadSinkTable(
  client: pg.Client,
  name: { readonly schema: string; readonly table: string },
  keyColumns: readonly string[] | undefined,
  operatorId: string,
): Promise<SinkTable> {
  const q = qualified(name);
  const display = `${name.schema}.${name.table}`;
  const columns = await client.query<ColumnRow>(COLUMNS_QUERY, [q]);
  if (columns.rows.length === 0) {
    throw new WeirError('SINK_FAILED', `sink '${operatorId}': table ${display} does not exist`, {
      operatorId,
      domain: 'user',
    });
  }
  const keys = await client.query<{ primary: boolean; columns: string[] }>(UNIQUE_KEYS_QUERY, [q]);
  let key: readonly string[];
  if (keyColumns !== undefined && keyColumns.length === 0) {
    // No key: rows are appended with plain INSERTs (Flink's jdbc sink of a table without one).
    key = [];
  } else if (keyColumns === undefined) {
    const pk = keys.rows.find((k) => k.primary);
    if (pk === undefined) {
      throw new WeirError(
        'SINK_FAILED',
        `sink '${operatorId}': table ${display} has no primary key; give keyColumns (the columns of a unique index) to upsert into it`,
        { operatorId, domain: 'user' },
      );
    }
    key = pk.columns;
  } else {
    for (const k of keyColumns) {
      if (!columns.rows.some((c) => c.name === k)) {
        throw new WeirError(
          'SINK_FAILED',
          `sink '${operatorId}': table ${display} has no column "${k}" (keyColumns)`,
          {
            operatorId,
            domain: 'user',
          },
        );
      }
    }
    const set = [...keyColumns].sort().join(',');
    if (!keys.rows.some((k) => [...k.columns].sort().join(',') === set)) {
      throw new WeirError(
        'SINK_FAILED',
        `sink '${operatorId}': keyColumns (${keyColumns.join(', ')}) of table ${display} are not the columns of a unique index or primary key, which ON CONFLICT needs`,
        { operatorId, domain: 'user' },
      );
    }
    key = keyColumns;
  }
  return {
    schema: name.schema,
    table: name.table,
    qualified: q,
    columns: columns.rows.map((c) => ({
      name: c.name,
      type: c.type,
      baseType: c.base,
      category: c.category,
      typeName: c.typname,
      typeMod: c.typmod,
      notNull: c.notnull,
    })),
    keyColumns: key,
  };
}

/** The error a job fails with when the database rejects a record under the `'fail'` policy. */
export function rejectedError<T>(operatorId: string, rejected: RejectedRecord<T>): WeirError {
  const shown = describeRecord(rejected.record);
  return new WeirError(
    'SINK_FAILED',
    `sink '${operatorId}': table ${rejected.table} rejected record ${shown}: ${rejected.error} ` +
      `(set onRejected to { deadLetter } to continue past rejected records)`,
    { operatorId, record: shown, domain: 'user', retriable: false },
  );
}
