import type { EvictableElements, Evictor, TimestampedValue } from '../../core/evictors.js';
import { NO_TIMESTAMP } from '../../core/record-batch.js';
import { decodeTime, encodeTime, type Json } from '../../core/snapshot.js';
import type { Window } from '../../core/windows.js';
import type { FiringContext, WindowAggregation } from './window-aggregation.js';

/**
 * A record as a window with an evictor keeps it: the value and its event time, the time
 * encoded as snapshots store it (JSON has no infinities), so the contents stay JSON data.
 */
export type StoredElement<T> = [value: T, timestamp: Json];

/** The records of a window during one firing, removable by an evictor. */
class Elements<T> implements EvictableElements<T> {
  constructor(public items: TimestampedValue<T>[]) {}

  get size(): number {
    return this.items.length;
  }
  [Symbol.iterator](): IterableIterator<TimestampedValue<T>> {
    return this.items.values();
  }
  removeIf(predicate: (element: TimestampedValue<T>) => boolean): number {
    const before = this.items.length;
    this.items = this.items.filter((e) => !predicate(e));
    return before - this.items.length;
  }
}

/**
 * The contents of a window with an evictor (Flink's EvictingWindowOperator): every record
 * with its timestamp, and, when the window fires, `evictBefore`, the window function's
 * aggregation (`inner`) over what remains, then `evictAfter`; the window keeps what is left.
 * `result` (queries of a queryable window) applies `inner` to all records held.
 */
export function evictingContents<IN, ACC, R>(
  inner: WindowAggregation<IN, ACC, R>,
  evictor: Evictor<IN>,
): WindowAggregation<IN, StoredElement<IN>[], R> {
  const fold = (values: Iterable<IN>): R => {
    let acc = inner.create();
    for (const v of values) acc = inner.add(v, acc);
    return inner.result(acc);
  };
  return {
    create: () => [],
    add: (value, acc, timestamp = NO_TIMESTAMP) => {
      acc.push([value, encodeTime(timestamp)]);
      return acc;
    },
    // Sessions: the merged window holds the records of the merged ones, oldest window first.
    merge: (a, b) => a.concat(b),
    result: (acc) => fold(acc.map((e) => e[0])),
    fireEvicting(acc, window: Window, context: FiringContext, emit) {
      const elements = new Elements<IN>(
        acc.map(([value, t]) => ({ value, timestamp: decodeTime(t) })),
      );
      evictor.evictBefore?.(elements, elements.size, window, context);
      if (elements.size > 0) emit(fold(elements.items.map((e) => e.value)));
      evictor.evictAfter?.(elements, elements.size, window, context);
      if (elements.size === 0) return undefined;
      return elements.items.map((e) => [e.value, encodeTime(e.timestamp)]);
    },
  };
}
