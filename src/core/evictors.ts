import { invalidArgument } from './errors.js';
import type { Window } from './windows.js';

/** A record held by a window, with its event time (-Infinity if it has none). */
export interface TimestampedValue<T> {
  readonly value: T;
  readonly timestamp: number;
}

/**
 * The records of a window as an evictor sees them: in arrival order (sessions that merged
 * hold their windows' records oldest window first). Removing records changes what the
 * window function sees and what the window keeps.
 */
export interface EvictableElements<T> extends Iterable<TimestampedValue<T>> {
  /** How many records the window holds now. */
  readonly size: number;
  /** Removes every record for which `predicate` returns true; returns how many were removed. */
  removeIf(predicate: (element: TimestampedValue<T>) => boolean): number;
}

/** What an evictor may read while a window fires. */
export interface EvictorContext {
  /** The operator's current event time (watermark); -Infinity before the first one. */
  currentWatermark(): number;
  currentProcessingTime(): number;
}

/**
 * Removes records from a window when it fires (Flink's `Evictor`): `evictBefore` runs before
 * the window function, `evictAfter` after it. A window with an evictor keeps every record
 * (no incremental aggregation); what an evictor removes is gone from the window for good.
 * An evictor keeps no fields: the runtime shares it between windows and keys.
 */
export interface Evictor<T, W extends Window = Window> {
  evictBefore?(
    elements: EvictableElements<T>,
    size: number,
    window: W,
    context: EvictorContext,
  ): void;
  evictAfter?(
    elements: EvictableElements<T>,
    size: number,
    window: W,
    context: EvictorContext,
  ): void;
}

/** Options of the built-in evictors. */
export interface EvictorOptions {
  /** Evict after the window function instead of before it (default false). */
  readonly doEvictAfter?: boolean;
}

/** How far apart two records are, for {@link Evictors.delta}. */
export type DeltaFunction<T> = (oldValue: T, newValue: T) => number;

function phase<T>(
  evict: (elements: EvictableElements<T>, size: number) => void,
  options: EvictorOptions | undefined,
): Evictor<T> {
  return options?.doEvictAfter === true
    ? { evictAfter: (elements, size) => evict(elements, size) }
    : { evictBefore: (elements, size) => evict(elements, size) };
}

function count<T>(maxCount: number, options?: EvictorOptions): Evictor<T> {
  if (!Number.isInteger(maxCount) || maxCount < 0) {
    throw invalidArgument(`count evictor needs a whole number >= 0, got ${maxCount}`);
  }
  return phase<T>((elements, size) => {
    if (size <= maxCount) return;
    let toEvict = size - maxCount;
    elements.removeIf(() => toEvict-- > 0);
  }, options);
}

function time<T>(windowSizeMs: number, options?: EvictorOptions): Evictor<T> {
  if (!Number.isFinite(windowSizeMs) || windowSizeMs < 0) {
    throw invalidArgument(`time evictor needs a number of ms >= 0, got ${windowSizeMs}`);
  }
  return phase<T>((elements) => {
    let max = Number.NEGATIVE_INFINITY;
    for (const e of elements) if (e.timestamp > max) max = e.timestamp;
    // Records without event time: nothing to compare, as Flink's TimeEvictor.
    if (max === Number.NEGATIVE_INFINITY) return;
    const cutoff = max - windowSizeMs;
    elements.removeIf((e) => e.timestamp <= cutoff);
  }, options);
}

function delta<T>(
  threshold: number,
  deltaFunction: DeltaFunction<T>,
  options?: EvictorOptions,
): Evictor<T> {
  if (Number.isNaN(threshold)) throw invalidArgument('delta evictor needs a threshold, got NaN');
  if (typeof deltaFunction !== 'function') {
    throw invalidArgument('delta evictor needs a function (oldValue, newValue) => number');
  }
  return phase<T>((elements) => {
    let last: TimestampedValue<T> | undefined;
    for (const e of elements) last = e;
    if (last === undefined) return;
    const newest = last.value;
    elements.removeIf((e) => deltaFunction(e.value, newest) >= threshold);
  }, options);
}

/** The built-in evictors, as Flink's `CountEvictor`, `TimeEvictor` and `DeltaEvictor`. */
export const Evictors = {
  /** Keeps the last `maxCount` records (the oldest are removed first). */
  count,
  /**
   * Keeps the records whose timestamp is within `windowSizeMs` of the newest record's:
   * removes those at or before `max timestamp - windowSizeMs`.
   */
  time,
  /**
   * Removes every record whose `deltaFunction(record, newest)` is at or above `threshold`,
   * the newest being the last record of the window.
   */
  delta,
} as const;
