import { describeRecord, WeirError } from '../../core/errors.js';
import type { AggregateFunction, Collector, ReduceFunction } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { OutputTag } from '../../core/output-tag.js';
import { NO_TIMESTAMP } from '../../core/record-batch.js';
import type { KeyedStateStore } from '../../core/state.js';
import { MAX_EVENT_TIME } from '../../core/timestamps.js';
import type {
  FiringTiming,
  ProcessWindowFunction,
  WindowClearContext,
  WindowContext,
  WindowResult,
} from '../../core/window-result.js';
import type { Window } from '../../core/windows.js';

/**
 * How a window's contents are kept: records fold into an accumulator. Every
 * window function is expressed this way; a function that needs all records
 * (`process`) uses a list as its accumulator.
 */
export interface WindowAggregation<IN, ACC, R> {
  create(): ACC;
  /** `timestamp` is the record's event time, passed by the general window operator only. */
  add(value: IN, accumulator: ACC, timestamp?: number): ACC;
  /** Combines two accumulators without modifying `b` (slices are shared by windows). */
  merge: ((a: ACC, b: ACC) => ACC) | undefined;
  /**
   * Accumulators are small and worth folding before an exchange (a reduce or
   * an aggregate with `merge`; not a list of all records).
   */
  readonly foldsLocally?: boolean;
  result(accumulator: ACC): R;
  /**
   * Present for windows with an evictor, and used instead of `result` when the window fires:
   * evicts, passes the result over the remaining records to `emit` (not called when none
   * remain), evicts again, and returns what the window keeps (undefined when nothing).
   */
  fireEvicting?(
    accumulator: ACC,
    window: Window,
    context: FiringContext,
    emit: (result: R) => void,
  ): ACC | undefined;
}

const EMPTY: unique symbol = Symbol('empty');
type Reduced<T> = T | typeof EMPTY;

export function reduceAggregation<T>(fn: ReduceFunction<T>): WindowAggregation<T, Reduced<T>, T> {
  return {
    create: () => EMPTY,
    add: (value, acc) => (acc === EMPTY ? value : fn(acc, value)),
    merge: (a, b) => (a === EMPTY ? b : b === EMPTY ? a : fn(a, b)),
    result: (acc) => acc as T,
    foldsLocally: true,
  };
}

export function aggregateAggregation<IN, ACC, R>(
  fn: AggregateFunction<IN, ACC, R>,
): WindowAggregation<IN, ACC, R> {
  const merge = fn.merge;
  return {
    create: () => fn.createAccumulator(),
    add: (value, acc) => fn.add(value, acc),
    merge: merge === undefined ? undefined : (a, b) => merge.call(fn, a, b),
    result: (acc) => fn.getResult(acc),
    foldsLocally: merge !== undefined,
  };
}

export function listAggregation<T>(): WindowAggregation<T, T[], T[]> {
  return {
    create: () => [],
    add: (value, acc) => {
      acc.push(value);
      return acc;
    },
    merge: (a, b) => {
      for (const v of b) a.push(v);
      return a;
    },
    result: (acc) => acc,
  };
}

/**
 * Keeps the records and evicts all but the last `keep` before each firing,
 * then applies `inner` to what remains (count windows with a slide).
 */
export function evictingAggregation<IN, ACC, R>(
  inner: WindowAggregation<IN, ACC, R>,
  keep: number,
): WindowAggregation<IN, IN[], R> {
  return {
    create: () => [],
    add: (value, acc) => {
      acc.push(value);
      return acc;
    },
    merge: (a, b) => a.concat(b),
    result: (list) => {
      if (list.length > keep) list.splice(0, list.length - keep);
      let acc = inner.create();
      for (const v of list) acc = inner.add(v, acc);
      return inner.result(acc);
    },
  };
}

/** Turns a fired window into output records. */
export interface WindowFiring<K extends Key, R, OUT> {
  emit(
    key: K,
    window: Window,
    result: R,
    timing: FiringTiming,
    isUpdate: boolean,
    context: FiringContext,
    out: Collector<OUT>,
  ): void;
  /**
   * Present when the user's function has `clear`: called when a (key, window) is cleaned up.
   * Only the general window operator calls it (the planner sends such windows there).
   */
  clear?(key: K, window: Window, context: FiringContext, out: Collector<OUT>): void;
}

/** Services a window function can use while a window fires. */
export interface FiringContext {
  currentWatermark(): number;
  currentProcessingTime(): number;
  emitSide<S>(tag: OutputTag<S>, value: S): void;
  /** The window function's keyed state of `key` in `window`. */
  windowState(key: Key, window: Window): KeyedStateStore;
  /** The window function's keyed state of `key`, shared by its windows. */
  globalState(key: Key): KeyedStateStore;
}

/** Emits `WindowResult` records. */
export function resultFiring<K extends Key, R>(): WindowFiring<K, R, WindowResult<K, R>> {
  return {
    emit(key, window, value, timing, isUpdate, _ctx, out) {
      out.collect({ key, window, value, timing, isUpdate });
    },
  };
}

/** Calls a user window function with the records (or a pre-aggregated result as a one-element list). */
export function processFiring<K extends Key, IN, OUT>(
  fn: ProcessWindowFunction<IN, OUT, K>,
  wrapSingle: boolean,
): WindowFiring<K, unknown, OUT> {
  const instance = Object.create(fn) as ProcessWindowFunction<IN, OUT, K>;
  const firing: WindowFiring<K, unknown, OUT> = {
    emit(key, window, result, timing, isUpdate, ctx, out) {
      const context: WindowContext = {
        window,
        timing,
        isUpdate,
        currentWatermark: () => ctx.currentWatermark(),
        currentProcessingTime: () => ctx.currentProcessingTime(),
        output: (tag, value) => ctx.emitSide(tag, value),
        windowState: () => ctx.windowState(key, window),
        globalState: () => ctx.globalState(key),
      };
      // A copy: the window's own list keeps growing with later (late) records,
      // and the function may emit the array it is given.
      const elements = wrapSingle ? [result as IN] : (result as readonly IN[]).slice();
      instance.process(key, context, elements, out);
    },
  };
  if (typeof fn.clear !== 'function') return firing;
  firing.clear = (key, window, ctx) => {
    const context: WindowClearContext<K> = {
      key,
      window,
      currentWatermark: () => ctx.currentWatermark(),
      currentProcessingTime: () => ctx.currentProcessingTime(),
      output: (tag, value) => ctx.emitSide(tag, value),
      windowState: () => ctx.windowState(key, window),
      globalState: () => ctx.globalState(key),
    };
    instance.clear!(context);
  };
  return firing;
}

/**
 * A record reached an event-time window without a usable event time: none
 * (no timestamp assigner upstream) or +Infinity (the stamp of global and count
 * window results, whose window never ends).
 */
export function invalidEventTime(operatorId: string, value: unknown, ts: number): WeirError {
  const record = describeRecord(value);
  const why =
    ts === NO_TIMESTAMP
      ? 'without a timestamp; call assignTimestampsAndWatermarks before windowing'
      : ts === Number.POSITIVE_INFINITY
        ? `with event time ${ts}; results of global and count windows are stamped +Infinity, so give them new timestamps with assignTimestampsAndWatermarks before windowing them by event time`
        : `with timestamp ${typeof ts === 'number' ? String(ts) : describeRecord(ts)}, which is not an event time (a whole number of epoch milliseconds between -${MAX_EVENT_TIME} and ${MAX_EVENT_TIME}); the source or assigner that stamped it must give a valid one`;
  return new WeirError(
    'INVALID_TIMESTAMP',
    `event-time window '${operatorId}' received record ${record} ${why}`,
    { operatorId, record },
  );
}

// The ids of the last few windows asked for: records mostly fall into the same few windows, and
// formatting two numbers into a fresh string per record (then hashing it in the window map) was
// a quarter of a processing-time window job's CPU.
const RECENT = 4;
const recentStarts = new Float64Array(RECENT).fill(Number.NaN);
const recentEnds = new Float64Array(RECENT).fill(Number.NaN);
const recentIds: string[] = new Array<string>(RECENT).fill('');
let nextSlot = 0;

/** Window identity inside one key, for maps and timers. */
export function windowId(window: Window): string {
  const { start, end } = window;
  for (let i = 0; i < RECENT; i++) {
    if (recentStarts[i] === start && recentEnds[i] === end) return recentIds[i]!;
  }
  const id = `${start}:${end}`;
  recentStarts[nextSlot] = start;
  recentEnds[nextSlot] = end;
  recentIds[nextSlot] = id;
  nextSlot = (nextSlot + 1) % RECENT;
  return id;
}
