/** The user-facing types of regular, interval and window joins. */
import type { Collector } from './functions.js';
import type { Key } from './key-groups.js';
import type { OutputTag } from './output-tag.js';
import type { Window } from './windows.js';

/** Which rows of a regular join are kept without a match (padded with null). */
export type JoinType = 'inner' | 'left' | 'right' | 'full';

/** A joined row: `[left, right]`, with null for the missing side of an outer join. */
export type JoinedRow<L, R> = readonly [L | null, R | null];

/** What an interval join function learns about a joined pair. */
export interface IntervalJoinContext<K extends Key> {
  readonly key: K;
  readonly leftTimestamp: number;
  readonly rightTimestamp: number;
  /** The output's timestamp: the larger of the two. */
  readonly timestamp: number;
  /** Emits to a side output. */
  output<S>(tag: OutputTag<S>, value: S): void;
}

/** Called once per joined pair. */
export type ProcessJoinFunction<K extends Key, L, R, OUT> = (
  left: L,
  right: R,
  context: IntervalJoinContext<K>,
  out: Collector<OUT>,
) => void;

/** Called once per fired window and key that holds records of either side. */
export type CoGroupWindowFunction<K extends Key, L, R, OUT> = (
  lefts: readonly L[],
  rights: readonly R[],
  out: Collector<OUT>,
  context: { readonly key: K; readonly window: Window },
) => void;

/** A flag for each side of a two-input join. */
export interface JoinSides {
  readonly left: boolean;
  readonly right: boolean;
}
