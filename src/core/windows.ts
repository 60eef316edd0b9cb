import { invalidArgument } from './errors.js';
import { MAX_EVENT_TIME } from './timestamps.js';

/**
 * A window: the half-open interval `[start, end)` of event (or processing)
 * time. The global window spans all time.
 */
export interface Window {
  readonly start: number;
  readonly end: number;
}

/** The last timestamp that belongs to a window: when event time passes it, the window is complete. */
export function maxTimestamp(window: Window): number {
  return window.end - 1;
}

/**
 * When an event-time window ending at `end` is dropped: its last millisecond plus the allowed
 * lateness, but never past the largest event time (unless the window itself ends beyond it), as
 * Flink keeps the sum from overflowing `Long.MAX_VALUE`. Beyond that bound times are not exact,
 * and no watermark short of the last one could clean the window up anyway.
 */
export function windowCleanupTime(end: number, allowedLateness: number): number {
  const max = end - 1;
  return Math.max(max, Math.min(max + allowedLateness, MAX_EVENT_TIME));
}

/**
 * Windows that records name themselves, as the rows of SQL's window table functions carry
 * `window_start` and `window_end`: each record belongs to the one window `windowOf` returns.
 * Of one key, windows that end together must start together (true of tumbling, hopping and
 * cumulating windows, and of sessions).
 */
export interface RecordWindows<T> {
  readonly windowOf: (record: T) => Window;
  /** The end of `windowOf(record)`, read without making the window (per record, on the hot path). */
  readonly endOf?: (record: T) => number;
}

/** The record windows of the two inputs of a window join. */
export interface RecordWindowsOfSides<L, R> {
  readonly left: RecordWindows<L>;
  readonly right: RecordWindows<R>;
}

export const GLOBAL_WINDOW: Window = Object.freeze({
  start: Number.NEGATIVE_INFINITY,
  end: Number.POSITIVE_INFINITY,
});

export type TimeDomain = 'event-time' | 'processing-time';

/** The gap of a dynamic session window for a record (declared as a method so assigners stay assignable). */
export type GapFunction<T> = { gap(value: T): number }['gap'];

/**
 * A clock other than the instant itself on which processing-time windows are laid out, such
 * as a time zone's wall clock (Flink SQL's processing-time windows in a session time zone):
 * a record joins the windows of the clock's reading when it arrives, and a window fires at
 * the instant its last millisecond is due.
 */
export interface WindowClock {
  /** The clock's reading at the instant `ms` (epoch ms). */
  readonly readingAt: (ms: number) => number;
  /** The instant at which the reading `time` is due; never decreases as `time` grows. */
  readonly dueAt: (time: number) => number;
}

/** How records are grouped into windows. Build with {@link Windows}. */
export type WindowAssigner<T = unknown> =
  | {
      readonly kind: 'tumbling';
      readonly size: number;
      readonly offset: number;
      readonly timeDomain: TimeDomain;
      /** Processing time only: the clock the windows are laid out on (the instant without it). */
      readonly clock?: WindowClock;
    }
  | {
      readonly kind: 'sliding';
      readonly size: number;
      readonly slide: number;
      readonly offset: number;
      readonly timeDomain: TimeDomain;
      /** Processing time only: the clock the windows are laid out on (the instant without it). */
      readonly clock?: WindowClock;
    }
  | {
      /** Windows `[start, start + k * step)` for k = 1 .. maxSize / step, starts aligned to maxSize. */
      readonly kind: 'cumulative';
      readonly maxSize: number;
      readonly step: number;
      readonly offset: number;
      readonly timeDomain: TimeDomain;
      /** Processing time only: the clock the windows are laid out on (the instant without it). */
      readonly clock?: WindowClock;
    }
  | {
      readonly kind: 'session';
      /** Gap in ms, or a function giving the gap of each record (dynamic gap). */
      readonly gap: number | GapFunction<T>;
      readonly timeDomain: TimeDomain;
    }
  | { readonly kind: 'global'; readonly timeDomain: 'event-time' };

function positive(name: string, n: number): number {
  if (!Number.isFinite(n) || n <= 0 || !Number.isInteger(n)) {
    throw invalidArgument(`${name} must be a positive whole number of ms, got ${n}`);
  }
  return n;
}

function offsetWithin(offset: number, period: number): number {
  if (!Number.isInteger(offset) || Math.abs(offset) >= period) {
    throw invalidArgument(
      `window offset must be a whole number of ms smaller than ${period}, got ${offset}: |offset| must be below ${period} ms (the size of tumbling windows, the slide of sliding ones, the max size of cumulative ones)`,
    );
  }
  return offset;
}

function tumbling(size: number, offset: number, timeDomain: TimeDomain): WindowAssigner<never> {
  positive('tumbling window size', size);
  return { kind: 'tumbling', size, offset: offsetWithin(offset, size), timeDomain };
}

function sliding(
  size: number,
  slide: number,
  offset: number,
  timeDomain: TimeDomain,
): WindowAssigner<never> {
  positive('sliding window size', size);
  positive('sliding window slide', slide);
  if (slide > size) {
    throw invalidArgument(
      `sliding window slide (${slide} ms) must not exceed its size (${size} ms); records between windows would be lost`,
    );
  }
  return { kind: 'sliding', size, slide, offset: offsetWithin(offset, slide), timeDomain };
}

function cumulative(
  maxSize: number,
  step: number,
  offset: number,
  timeDomain: TimeDomain,
): WindowAssigner<never> {
  positive('cumulative window max size', maxSize);
  positive('cumulative window step', step);
  if (maxSize % step !== 0) {
    throw invalidArgument(
      `cumulative window max size (${maxSize} ms) must be a multiple of its step (${step} ms)`,
    );
  }
  return { kind: 'cumulative', maxSize, step, offset: offsetWithin(offset, maxSize), timeDomain };
}

/** Constructors of window assigners. Sizes are milliseconds (see `Time`). */
export const Windows = {
  /** Fixed-size, non-overlapping event-time windows aligned to the epoch (plus `offset`). */
  tumbling: (size: number, offset = 0) => tumbling(size, offset, 'event-time'),
  /** Windows of `size` starting every `slide`; a record belongs to `size / slide` of them. */
  sliding: (size: number, slide: number, offset = 0) => sliding(size, slide, offset, 'event-time'),
  /**
   * Windows that grow by `step` from a start aligned to `maxSize` (plus `offset`) until they
   * span `maxSize`, as Flink SQL's CUMULATE: a record belongs to every window of its period
   * that ends after it. Each window fires once, when event time passes its end.
   */
  cumulative: (maxSize: number, step: number, offset = 0) =>
    cumulative(maxSize, step, offset, 'event-time'),
  /** Per-key activity sessions that close after `gap` without records; overlapping sessions merge. */
  session: (gap: number): WindowAssigner<never> => ({
    kind: 'session',
    gap: positive('session gap', gap),
    timeDomain: 'event-time',
  }),
  /** Sessions whose gap depends on the record. */
  dynamicSession: <T>(gap: (value: T) => number): WindowAssigner<T> => ({
    kind: 'session',
    gap,
    timeDomain: 'event-time',
  }),
  /** One window per key for all time; results come only from a trigger (or end of input). */
  global: (): WindowAssigner<never> => ({ kind: 'global', timeDomain: 'event-time' }),
  tumblingProcessingTime: (size: number, offset = 0) => tumbling(size, offset, 'processing-time'),
  slidingProcessingTime: (size: number, slide: number, offset = 0) =>
    sliding(size, slide, offset, 'processing-time'),
  /** Cumulative windows on the wall clock: a record joins the windows its arrival time falls in. */
  cumulativeProcessingTime: (maxSize: number, step: number, offset = 0) =>
    cumulative(maxSize, step, offset, 'processing-time'),
  sessionProcessingTime: (gap: number): WindowAssigner<never> => ({
    kind: 'session',
    gap: positive('session gap', gap),
    timeDomain: 'processing-time',
  }),
  /** Processing-time sessions whose gap depends on the record (Flink's `ProcessingTimeSessionWindows.withDynamicGap`). */
  dynamicSessionProcessingTime: <T>(gap: (value: T) => number): WindowAssigner<T> => ({
    kind: 'session',
    gap,
    timeDomain: 'processing-time',
  }),
} as const;

/** Start of the tumbling/sliding window period containing `timestamp` (handles negatives). */
export function windowStart(timestamp: number, offset: number, period: number): number {
  const r = (timestamp - offset) % period;
  return timestamp - (r < 0 ? r + period : r);
}

/** End (exclusive) of the slice of length `pane` holding `timestamp`. */
export function sliceEndOf(timestamp: number, offset: number, pane: number): number {
  return windowStart(timestamp, offset, pane) + pane;
}

/** The cumulative windows holding `timestamp`, shortest first. */
export function cumulativeWindowsOf(
  timestamp: number,
  maxSize: number,
  step: number,
  offset: number,
): Window[] {
  const start = windowStart(timestamp, offset, maxSize);
  const windows: Window[] = [];
  for (let end = windowStart(timestamp, offset, step) + step; end <= start + maxSize; end += step) {
    windows.push({ start, end });
  }
  return windows;
}
