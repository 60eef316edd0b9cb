import type { Collector } from './functions.js';
import type { Key } from './key-groups.js';
import type { OutputTag } from './output-tag.js';
import type { KeyedStateStore } from './state.js';
import type { Window } from './windows.js';

/**
 * When a window result was produced, relative to event time:
 * - `early`: before the watermark passed the end of the window (a trigger fired early);
 * - `on-time`: the firing when the watermark passed the end of the window;
 * - `late`: after that, because a late record (within the allowed lateness) changed it.
 */
export type FiringTiming = 'early' | 'on-time' | 'late';

/**
 * The one key of `windowAll` and `countWindowAll`: every record is in the same group, so window
 * functions and results see this key (Flink's all-window functions have none).
 */
export const ALL_WINDOWS_KEY = 'all';
export type AllWindowsKey = typeof ALL_WINDOWS_KEY;

/** The result of one window for one key, with the window's bounds. */
export interface WindowResult<K extends Key, R> {
  readonly key: K;
  readonly window: Window;
  readonly value: R;
  readonly timing: FiringTiming;
  /**
   * True when this result replaces one emitted earlier for the same key and
   * window (an early firing followed by more data, or a late update). Consumers
   * that keep results should overwrite, not add.
   */
  readonly isUpdate: boolean;
}

/**
 * What a window function sees of its window, when it fires and when the window is cleaned up
 * (Flink's `ProcessWindowFunction.Context`).
 */
export interface WindowFunctionContext {
  readonly window: Window;
  currentWatermark(): number;
  currentProcessingTime(): number;
  output<S>(tag: OutputTag<S>, value: S): void;
  /**
   * Keyed state of this key and window: it outlives firings (an early, on-time and late
   * firing of a window see the same state) and is dropped when the window is cleaned up, after
   * `clear`. Not available for merging (session) windows, as in Flink.
   */
  windowState(): KeyedStateStore;
  /** Keyed state of this key, shared by all its windows and never dropped by the runtime. */
  globalState(): KeyedStateStore;
}

/** What a window function learns about the firing. */
export interface WindowContext extends WindowFunctionContext {
  readonly timing: FiringTiming;
  readonly isUpdate: boolean;
}

/** What `ProcessWindowFunction.clear` sees: the window being cleaned up, and its key. */
export interface WindowClearContext<K extends Key> extends WindowFunctionContext {
  readonly key: K;
}

/**
 * Sees all records of a window (or the pre-aggregated result) when it fires. The runtime
 * makes one instance per subtask (`Object.create(fn)`).
 */
export interface ProcessWindowFunction<IN, OUT, K extends Key> {
  process(key: K, context: WindowContext, elements: readonly IN[], out: Collector<OUT>): void;
  /**
   * Called once per key and window when the window is cleaned up (the watermark passed its
   * end plus the allowed lateness, a processing-time window ended, or end of input), as
   * Flink's `clear`: the place to clean up what `process` kept. Window state still left
   * afterwards is dropped by the runtime.
   */
  clear?(context: WindowClearContext<K>): void;
}
