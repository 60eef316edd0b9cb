/**
 * Specs and user-function types that the runtime's operators define and
 * logical nodes carry. The API reaches them here, through the planner layer,
 * so it never imports an operator module itself.
 */
export type {
  JoinedRow,
  JoinType,
  RegularJoinSpec,
} from '../../runtime/operators/changelog/regular-join.js';
export type { ViewOutput } from '../../runtime/operators/changelog/table-view.js';
export type { UpdatingAggregateSpec } from '../../runtime/operators/changelog/updating-aggregate.js';
export type { BroadcastJoinSpec } from '../../runtime/operators/joins/broadcast-join.js';
export type {
  IntervalJoinContext,
  IntervalJoinSpec,
  ProcessJoinFunction,
} from '../../runtime/operators/joins/interval-join.js';
export type { CoGroupWindowFunction } from '../../runtime/operators/joins/window-join.js';
export type {
  DeduplicateOrder,
  DeduplicateSpec,
  KeepRow,
} from '../../runtime/operators/keyed/deduplicate.js';
export {
  type FixedWindows,
  fixedWindowsOf,
} from '../../runtime/operators/keyed/fixed-windows.js';
export type {
  RankComparator,
  Ranked,
  TopNSpec,
  WindowRanked,
} from '../../runtime/operators/keyed/top-n.js';
