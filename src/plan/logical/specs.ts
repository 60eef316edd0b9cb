/**
 * Specs and user-function types that the runtime's operators define and
 * logical nodes carry. The API reaches them here, through the planner layer,
 * so it never imports an operator module itself.
 */
export type {
  CoGroupWindowFunction,
  IntervalJoinContext,
  JoinedRow,
  JoinType,
  ProcessJoinFunction,
} from '../../core/joins.js';
export type {
  DeduplicateOrder,
  KeepRow,
  RankComparator,
  Ranked,
  ViewOutput,
  WindowRanked,
} from '../../core/ranking.js';
export type { RegularJoinSpec } from '../../runtime/operators/changelog/regular-join.js';
export type { UpdatingAggregateSpec } from '../../runtime/operators/changelog/updating-aggregate.js';
export type { BroadcastJoinSpec } from '../../runtime/operators/joins/broadcast-join.js';
export type { IntervalJoinSpec } from '../../runtime/operators/joins/interval-join.js';
export type { TimeIntervalJoinSpec } from '../../runtime/operators/joins/time-interval-join.js';
export type { DeduplicateSpec } from '../../runtime/operators/keyed/deduplicate.js';
export {
  type FixedWindows,
  fixedWindowsOf,
  type KeyedWindows,
  keyedWindowsOf,
} from '../../runtime/operators/keyed/fixed-windows.js';
export type { TopNSpec } from '../../runtime/operators/keyed/top-n.js';
