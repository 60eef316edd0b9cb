import type { Key } from './key-groups.js';
import type { OutputTag } from './output-tag.js';
import type { Window } from './windows.js';

/**
 * When a window result was produced, relative to event time:
 * - `early`: before the watermark passed the end of the window (a trigger fired early);
 * - `on-time`: the firing when the watermark passed the end of the window;
 * - `late`: after that, because a late record (within the allowed lateness) changed it.
 */
export type FiringTiming = 'early' | 'on-time' | 'late';

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

/** What a window function learns about the firing. */
export interface WindowContext {
  readonly window: Window;
  readonly timing: FiringTiming;
  readonly isUpdate: boolean;
  currentWatermark(): number;
  currentProcessingTime(): number;
  output<S>(tag: OutputTag<S>, value: S): void;
}

/** Sees all records of a window (or the pre-aggregated result) when it fires. */
export interface ProcessWindowFunction<IN, OUT, K extends Key> {
  process(
    key: K,
    context: WindowContext,
    elements: readonly IN[],
    out: import('./functions.js').Collector<OUT>,
  ): void;
}
