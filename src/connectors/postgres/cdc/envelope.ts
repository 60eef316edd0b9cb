/**
 * Change events in Debezium's PostgreSQL envelope, and the flattened form
 * (Debezium's `ExtractNewRecordState` with deletes rewritten).
 */
import type { Row } from '../values.js';

/** Debezium's operation codes: create, update, delete, read (snapshot), truncate. */
export type ChangeOperation = 'c' | 'u' | 'd' | 'r' | 't';

/** Where a change came from: Debezium's `io.debezium.connector.postgresql.Source`. */
export interface SourceInfo {
  /** Version of Weir that produced the event. */
  readonly version: string;
  readonly connector: 'postgresql';
  /** The logical name of the source (Debezium's `topic.prefix`), option `name`. */
  readonly name: string;
  /** Commit time of the transaction (snapshot: the time the snapshot was taken), epoch milliseconds. */
  readonly ts_ms: number;
  /** The same in microseconds. */
  readonly ts_us: number;
  /** `'true'` for snapshot reads, `'last'` for the last one, `'false'` for streamed changes. */
  readonly snapshot: 'true' | 'last' | 'false';
  readonly db: string;
  /** JSON array of two decimal LSN strings: the last committed LSN and this event's LSN (either may be null). */
  readonly sequence: string;
  readonly schema: string;
  readonly table: string;
  /** Transaction id. */
  readonly txId: number | null;
  /** WAL position of the change (snapshot: the slot's consistent point). */
  readonly lsn: number | null;
  /** Always null (as Debezium with `xmin.fetch.interval.ms` 0). */
  readonly xmin: null;
}

/** A change to one row (or a truncated table) in Debezium's envelope. */
export interface ChangeEvent {
  /**
   * The row before the change. Null for creates and reads, and for updates
   * of tables without REPLICA IDENTITY FULL; for deletes without it, only
   * the key columns are set (the others are null).
   */
  readonly before: Row | null;
  /** The row after the change; null for deletes and truncates. */
  readonly after: Row | null;
  readonly source: SourceInfo;
  readonly op: ChangeOperation;
  /** When Weir processed the event, epoch milliseconds. */
  readonly ts_ms: number;
}

/** A row after a change, flattened: the `after` image, or for deletes the `before` image, plus `__deleted`. */
export type FlatRow = Row & { readonly __deleted: boolean };

/**
 * One record of a CDC source: Debezium's key/value pair. `key` holds the
 * primary-key columns (null for tables without a primary key and for
 * truncates); a null `value` is a tombstone (emitted after a delete when
 * `tombstonesOnDelete` is set).
 */
export interface ChangeRecord<V = ChangeEvent> {
  /** `<name>.<schema>.<table>`, Debezium's topic name. */
  readonly topic: string;
  readonly key: Row | null;
  readonly value: V | null;
}

/** The key columns of a row, or null when the table has none. */
export function keyOf(row: Row, keyColumns: readonly string[]): Row | null {
  if (keyColumns.length === 0) return null;
  const key: Record<string, Row[string]> = {};
  for (const c of keyColumns) key[c] = row[c] ?? null;
  return key;
}

/** Whether two rows agree on the key columns (compared as JSON-like values). */
export function sameKey(a: Row, b: Row, keyColumns: readonly string[]): boolean {
  for (const c of keyColumns) if (!sameValue(a[c] ?? null, b[c] ?? null)) return false;
  return true;
}

function sameValue(a: Row[string], b: Row[string]): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => sameValue(v, b[i] ?? null));
  }
  return false;
}

/** The flattened form of an event; undefined for truncates (which have no row). */
export function flatten(event: ChangeEvent): FlatRow | undefined {
  if (event.op === 't') return undefined;
  if (event.op === 'd') return { ...(event.before ?? {}), __deleted: true };
  return { ...(event.after ?? {}), __deleted: false };
}
