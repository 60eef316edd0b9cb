/**
 * Top-1 per key as Flink SQL's `ROW_NUMBER() ... <= 1` (without the row number) or `MAX`
 * emits it over an insert-only input: the first row of a key is inserted, and a later row that
 * ranks strictly better replaces it (`-U` the old row, `+U` the new); on a tie the row that
 * arrived first stays.
 */

import {
  type Change,
  Changes,
  type Collector,
  type KeyedProcessContext,
  type KeyedProcessFunction,
  type KeyedRuntimeContext,
  type ValueState,
} from '../../../src/index.js';

interface TopOneFunction<T> extends KeyedProcessFunction<number, T, Change<T>> {
  best?: ValueState<T>;
}

/** The best row per key by `better(x, y)` (x ranks strictly before y), as a changelog. */
export function topOne<T>(
  better: (x: T, y: T) => boolean,
): KeyedProcessFunction<number, T, Change<T>> {
  const fn: TopOneFunction<T> = {
    open(context: KeyedRuntimeContext) {
      this.best = context.state.getValueState<T>('best row');
    },
    processElement(x: T, _ctx: KeyedProcessContext<number>, out: Collector<Change<T>>) {
      const best = this.best!;
      const prev = best.value();
      if (prev === undefined) out.collect(Changes.insert(x));
      else if (better(x, prev)) {
        out.collect(Changes.updateBefore(prev));
        out.collect(Changes.updateAfter(x));
      } else return;
      best.update(x);
    },
  };
  return fn;
}
