/** The user-facing types of top-N, deduplication and table views. */
import type { Key } from './key-groups.js';
import type { Window } from './windows.js';

/** Orders rows: negative when `a` ranks before `b`. Rows that compare equal keep arrival order. */
export type RankComparator<T> = (a: T, b: T) => number;

/** A row with its rank (1 = first) within its partition. */
export interface Ranked<T> {
  readonly rank: number;
  readonly row: T;
}

/** One row of a window's final ranking. */
export interface WindowRanked<K extends Key, T> extends Ranked<T> {
  readonly key: K;
  readonly window: Window;
}

/** Which row of a key survives. */
export type KeepRow = 'first' | 'last';

/**
 * What "first" and "last" are measured by: `event-time` (the record's
 * timestamp; ties go to the later arrival for `last`, the earlier for
 * `first`) or `arrival` (the order records reach the operator, Flink's
 * processing-time deduplication).
 */
export type DeduplicateOrder = 'event-time' | 'arrival';

/** What a table view emits: its upsert or retract changelog, or plain inserts. */
export type ViewOutput = 'upsert' | 'retract' | 'insert-only';
