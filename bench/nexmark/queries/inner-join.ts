/**
 * A regular inner join of two insert-only streams, as Flink SQL runs one without state TTL:
 * every row of either side is kept for the whole run, and each arriving row is joined with
 * every kept row of the other side with the same key that satisfies the condition. The output
 * is insert-only, and the same rows in any arrival order. Both sides come as one stream (the
 * Nexmark events), keyed by the join key; `left`/`right` say which side a record is on.
 */

import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  ListState,
} from '../../../src/index.js';

/** The two sides of a join within one input stream, and what a match produces. */
export interface InnerJoinSpec<IN, L, R, OUT> {
  /** The record as a left-side row, or undefined when it is not one. */
  left(record: IN): L | undefined;
  /** The record as a right-side row, or undefined when it is not one. */
  right(record: IN): R | undefined;
  /** The non-equi part of the join condition; default: every pair with equal keys matches. */
  on?(left: L, right: R): boolean;
  join(left: L, right: R): OUT;
}

interface InnerJoinFunction<IN, L, R, OUT> extends KeyedProcessFunction<number, IN, OUT> {
  lefts?: ListState<L>;
  rights?: ListState<R>;
}

/** The join as a keyed process function over both sides, keyed by the join key. */
export function innerJoin<IN, L, R, OUT>(
  spec: InnerJoinSpec<IN, L, R, OUT>,
): KeyedProcessFunction<number, IN, OUT> {
  const on = spec.on ?? (() => true);
  const fn: InnerJoinFunction<IN, L, R, OUT> = {
    open(context: KeyedRuntimeContext) {
      this.lefts = context.state.getListState<L>('left rows');
      this.rights = context.state.getListState<R>('right rows');
    },
    processElement(record: IN, _ctx: KeyedProcessContext<number>, out: Collector<OUT>) {
      const l = spec.left(record);
      if (l !== undefined) {
        for (const r of this.rights!.get()) if (on(l, r)) out.collect(spec.join(l, r));
        this.lefts!.add(l);
        return;
      }
      const r = spec.right(record);
      if (r === undefined) {
        throw new Error(`inner join: record is on neither side: ${JSON.stringify(record)}`);
      }
      for (const left of this.lefts!.get()) if (on(left, r)) out.collect(spec.join(left, r));
      this.rights!.add(r);
    },
  };
  return fn;
}
