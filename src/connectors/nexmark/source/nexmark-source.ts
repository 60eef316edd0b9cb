/**
 * The Nexmark event stream as a Weir {@link Source}: deterministic, splittable, with event time
 * attached by the source itself.
 */

import type { RecordBatch } from '../../../core/record-batch.js';
import type { PollStatus, Source, SourceContext, SourceReader } from '../../../core/source.js';
import { type NexmarkConfig, nexmarkConfig } from '../config.js';
import type { NexmarkEvent } from '../model.js';
import { nexmarkEventsInto } from './generator.js';

/** Options of {@link NexmarkSource}. */
export interface NexmarkSourceOptions {
  /**
   * Generator parameters; missing fields take the reference defaults. `maxEvents` bounds the
   * stream; unbounded when it is `Infinity` (the default).
   */
  readonly config?: Partial<NexmarkConfig>;
  /** Shown in plans, errors and metrics. Default `'nexmark'`. */
  readonly name?: string;
}

/**
 * Nexmark events from {@link nexmarkEvent}. Subtask `s` of `P` generates the global indexes
 * `s, s+P, s+2P, ...` (the split of {@link NexmarkGenerator}), so the union over all subtasks
 * is the sequential stream at any parallelism. Every record carries its event time
 * (`dateTime`) as its timestamp, non-decreasing per subtask: use a watermark strategy without
 * a timestamp assigner (e.g. `WatermarkStrategy.forBoundedOutOfOrderness(b)`). Batches have
 * exactly `batchSize` records (except the last), so watermarks are deterministic. The
 * checkpointed position is the next global index of the subtask.
 */
export class NexmarkSource implements Source<NexmarkEvent> {
  readonly name: string;
  readonly bounded: boolean;
  readonly parallelizable = true;
  /** The complete, validated generator config. */
  readonly config: NexmarkConfig;

  constructor(options: NexmarkSourceOptions = {}) {
    this.config = nexmarkConfig(options.config);
    this.bounded = Number.isFinite(this.config.maxEvents);
    this.name = options.name ?? 'nexmark';
  }

  createReader(context: SourceContext): SourceReader<NexmarkEvent> {
    const config = this.config;
    const { subtaskIndex, parallelism, batchSize } = context;
    const restored = context.restoredPosition;
    let next = typeof restored === 'number' ? restored : subtaskIndex;
    if (!Number.isSafeInteger(next) || next < 0 || next % parallelism !== subtaskIndex) {
      throw new RangeError(
        `nexmark source: restored position ${String(restored)} is not an index of subtask ${subtaskIndex} of ${parallelism}`,
      );
    }
    const end = config.maxEvents;
    return {
      open() {},
      poll(): RecordBatch<NexmarkEvent> | PollStatus {
        if (next >= end) return 'end';
        const count = Math.min(batchSize, Math.ceil((end - next) / parallelism));
        // Sized once, written by index: no growing arrays per batch.
        const values = new Array<NexmarkEvent>(count);
        const timestamps = new Array<number>(count);
        nexmarkEventsInto(config, next, parallelism, count, values, timestamps);
        next += count * parallelism;
        return { values, timestamps, keys: undefined };
      },
      available: () => Promise.resolve(),
      snapshot: () => next,
      close() {},
    };
  }
}
