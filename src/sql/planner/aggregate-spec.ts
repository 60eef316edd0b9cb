/**
 * What every SQL aggregate call compiles to: its accumulator (JSON data, or an object that
 * writes itself as JSON) and how rows fold into it. aggregates.ts and more-aggregates.ts build them.
 */
import type { Row } from '../connectors/connector.js';
import type { Expr } from '../parser/ast.js';
import type { SourcePosition } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';
import type { SeenState } from './distinct-seen.js';

/**
 * COUNT(DISTINCT): the values seen, and how many (so a result costs no counting). In JSON (a
 * checkpoint) `seen` is an object; see distinct-seen.ts.
 */
export type DistinctState = SeenState<number>;

/**
 * COUNT(DISTINCT x) calls that differ only in their FILTER: each distinct value once, with a
 * bit per call that has seen it, and each call's count (Flink shares this state too).
 */
export type SharedDistinctState = SeenState<number[]>;

/** SUM and AVG DISTINCT: each distinct value by its text. */
export interface DistinctValues {
  values: Record<string, number | string | boolean>;
}

export type AccState =
  | null
  | number
  | string
  | boolean
  | DistinctState
  | SharedDistinctState
  | DistinctValues
  | [number | string, number];

export interface AggregateSpec {
  readonly init: () => AccState;
  readonly add: (state: AccState, row: Row) => AccState;
  /** Takes an added row back out (an updating aggregation over a changelog); not every aggregate can. */
  readonly retract?: (state: AccState, row: Row) => AccState;
  readonly merge: (a: AccState, b: AccState) => AccState;
  /**
   * Merges `b` into `a`, which it may update in place (a group's own accumulator, which
   * nothing else holds); without it, `merge`. Distinct states grow with their values, so
   * copying them on every merge would cost time in the size of the group's state.
   */
  readonly mergeInto?: (a: AccState, b: AccState) => AccState;
  /**
   * A shared COUNT(DISTINCT) state's step after its calls' FILTERs and its argument: the
   * non-NULL value `v`, counted by the calls whose bits are set in `mask` (call i: bit i).
   * Generated adds compute the mask and the argument inline, then call it.
   */
  readonly addDistinct?: (state: AccState, v: unknown, mask: number) => AccState;
  readonly result: (state: AccState) => unknown;
  readonly type: LogicalType;
  /**
   * False when the aggregate is not split into two phases: a TypeScript aggregate function
   * without merge (whose `merge` throws), or one whose result depends on arrival order.
   */
  readonly mergeable?: false;
}

export interface AggregateCallAst {
  readonly name: string;
  readonly args: readonly Expr[];
  readonly star: boolean;
  readonly distinct: boolean;
  readonly filter: Expr | undefined;
  readonly at: SourcePosition;
}

/** Wraps an `add` (or `retract`) so it applies only to rows the call's FILTER keeps. */
export type Guard = (add: AggregateSpec['add']) => AggregateSpec['add'];
