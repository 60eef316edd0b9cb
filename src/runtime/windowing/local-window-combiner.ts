import { userFunctionFailed, WeirError } from '../../core/errors.js';
import type { Key } from '../../core/key-groups.js';
import { MIN_WATERMARK } from '../../core/messages.js';
import { Operator, type SnapshotContext } from '../../core/operator.js';
import { BatchBuilder, type RecordBatch } from '../../core/record-batch.js';
import {
  decodeTime,
  encodeTime,
  type Json,
  type OperatorSnapshot,
  type RestoredState,
} from '../../core/snapshot.js';
import { MAX_EVENT_TIME } from '../../core/timestamps.js';
import type { Counter } from '../../metrics/registry.js';
import type { WindowAggregation } from './window-aggregation.js';

/**
 * What the local half of a two-phase window sends across the exchange: the
 * accumulator of one key's records in one slice, or a record it did not fold.
 */
export type LocalWindowElement<IN, ACC> = SlicePartial<ACC> | UnfoldedRecord<IN>;

export interface SlicePartial<ACC> {
  readonly key: Key;
  /** End of the slice (exclusive). */
  readonly sliceEnd: number;
  readonly accumulator: ACC;
}

export interface UnfoldedRecord<IN> {
  readonly key: Key;
  readonly record: IN;
  readonly sliceEnd?: undefined;
}

export interface LocalWindowCombinerSpec<IN, ACC> {
  /** Slice length: gcd(size, slide) of the windows downstream. */
  readonly pane: number;
  readonly offset: number;
  readonly aggregation: WindowAggregation<IN, ACC, unknown>;
  /** The key of the downstream `keyBy`. */
  readonly selectKey: (value: IN) => Key;
  /**
   * Decided by the planner once it knows the parallelism. True: the
   * exchange carries {@link LocalWindowElement}s; false: the records
   * themselves pass unchanged (a single subtask on each side spares nothing).
   */
  readonly folding: boolean;
  /** Flush everything once this many (key, slice) accumulators are held. */
  readonly maxEntries: number;
}

/**
 * The local half of a two-phase window aggregation: before the keyed
 * exchange, records of the same key and slice are folded into one
 * accumulator, so the exchange moves one partial per key and slice instead
 * of every record (Flink's planner does the same for SQL window aggregates).
 * When the plan runs a single subtask on each side (`folding` off), records
 * pass unchanged and unwrapped.
 *
 * Results do not change, because everything still travels on one channel per
 * subtask, in order with the watermarks, and a partial always reaches the
 * window operator before the watermark that could fire a window containing it:
 *   - only records whose slice ends after this subtask's watermark are
 *     folded; the rest (possibly late) go on as {@link UnfoldedRecord}s, at
 *     the place they had in the stream, and the window operator decides
 *     about them as if there were no combiner;
 *   - a slice is flushed before a watermark at or past its last timestamp is
 *     forwarded, and the window operator's watermark is at most this channel's;
 *   - everything is flushed before a checkpoint barrier, at end of input, and
 *     when the input turns idle. An idle channel stops counting in the
 *     downstream watermark, which may then pass this subtask's, so after
 *     idleness nothing more is folded.
 * The watermark and whether the input was idle are checkpointed: records
 * replayed after a restore are folded only if they were foldable before.
 */
export class LocalWindowCombiner<IN, ACC> extends Operator<IN, LocalWindowElement<IN, ACC> | IN> {
  /** Slice end -> key -> accumulator. */
  private readonly slices = new Map<number, Map<Key, ACC>>();
  private entries = 0;
  private watermark = MIN_WATERMARK;
  /** Fold nothing any more: records go on as {@link UnfoldedRecord}s. */
  private passThrough = false;
  /** The input has been idle: the downstream watermark may have passed this one. */
  private wasIdle = false;
  private restoredProgress = false;
  private readonly pending = new BatchBuilder<LocalWindowElement<IN, ACC>>();
  private foldedRecords!: Counter;

  constructor(private readonly spec: LocalWindowCombinerSpec<IN, ACC>) {
    super();
  }

  override open(): void {
    // Restored without progress of its own (say from a job without this
    // operator): the window operator's watermark is unknown, so fold nothing.
    if (this.context.restored && !this.restoredProgress) this.passThrough = true;
    this.foldedRecords = this.context.metrics.counter(
      'weir_window_local_folded_records_total',
      'Records folded into a per-slice partial before the keyed exchange',
    );
  }

  processBatch(batch: RecordBatch<IN>): void {
    // One phase (the plan found nothing to spare): the records go on as they are.
    if (!this.spec.folding) {
      this.output.emit(batch);
      return;
    }
    const { values, timestamps } = batch;
    const { pane, offset, aggregation, selectKey } = this.spec;
    const add = aggregation.add;
    const wm = this.passThrough ? Number.POSITIVE_INFINITY : this.watermark;
    let folded = 0;
    // Consecutive records mostly share a slice: look it up once per run of them.
    let cachedEnd = Number.NaN;
    let cached: Map<Key, ACC> | undefined;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const ts = timestamps[i]!;
        const value = values[i]!;
        // sliceEndOf(ts, offset, pane), inline as in the window operator's loop.
        const r = (ts - offset) % pane;
        const sliceEnd = ts - (r < 0 ? r + pane : r) + pane;
        const key = selectKey(value);
        // Not an event time (none, NaN, beyond the safe range) or possibly
        // late: the window operator decides (and refuses the bad ones).
        if (!(sliceEnd - 1 > wm && ts >= -MAX_EVENT_TIME && ts <= MAX_EVENT_TIME)) {
          this.pending.push({ key, record: value }, ts);
          continue;
        }
        let slice = cached;
        if (sliceEnd !== cachedEnd) {
          slice = this.slices.get(sliceEnd);
          if (slice === undefined) {
            slice = new Map();
            this.slices.set(sliceEnd, slice);
          }
          cached = slice;
          cachedEnd = sliceEnd;
        }
        const acc = slice!.get(key);
        if (acc === undefined) {
          this.entries++;
          slice!.set(key, add(value, aggregation.create()));
        } else slice!.set(key, add(value, acc));
        folded++;
      }
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw userFunctionFailed(
        this.context.operatorId,
        'key selector or window function',
        values[i],
        cause,
      );
    }
    this.foldedRecords.inc(folded);
    if (this.entries >= this.spec.maxEntries) this.flushUpTo(Number.POSITIVE_INFINITY);
    this.emitPending();
  }

  override processWatermark(time: number): void {
    if (time > this.watermark) {
      this.watermark = time;
      this.flushUpTo(time);
    }
    this.output.emitWatermark(time);
  }

  override processIdle(): void {
    this.flushUpTo(Number.POSITIVE_INFINITY);
    this.wasIdle = true;
    this.passThrough = true;
    this.output.emitIdle();
  }

  override endInput(): void {
    this.flushUpTo(Number.POSITIVE_INFINITY);
  }

  /** Flushes before the barrier (the caller forwards it after the snapshots): the partials belong to this checkpoint. */
  override snapshotState(_context: SnapshotContext): OperatorSnapshot {
    this.flushUpTo(Number.POSITIVE_INFINITY);
    return {
      union: [
        {
          subtask: this.context.subtaskIndex,
          watermark: encodeTime(this.watermark),
          wasIdle: this.wasIdle,
        },
      ],
    };
  }

  /**
   * This subtask's own progress when the parallelism is unchanged; otherwise
   * the lowest watermark of all, and idle if any was: both only make folding
   * rarer, never wrong.
   */
  override initializeState(state: RestoredState): void {
    const entries = state.union as { subtask: number; watermark: Json; wasIdle: boolean }[];
    if (entries.length === 0) return;
    this.restoredProgress = true;
    const own =
      entries.length === this.context.parallelism
        ? entries.find((e) => e.subtask === this.context.subtaskIndex)
        : undefined;
    let watermark = Number.POSITIVE_INFINITY;
    for (const e of own === undefined ? entries : [own]) {
      watermark = Math.min(watermark, decodeTime(e.watermark));
      if (e.wasIdle) this.wasIdle = true;
    }
    this.watermark = watermark;
    if (this.wasIdle) this.passThrough = true;
  }

  private emitPending(): void {
    const batch = this.pending.take();
    if (batch !== undefined) this.output.emit(batch);
  }

  /** Emits every slice whose last timestamp is at or before `time`, oldest first. */
  private flushUpTo(time: number): void {
    if (this.entries > 0) {
      const ends = [...this.slices.keys()].filter((end) => end - 1 <= time).sort((a, b) => a - b);
      for (const sliceEnd of ends) {
        const slice = this.slices.get(sliceEnd)!;
        for (const [key, accumulator] of slice)
          this.pending.push({ key, sliceEnd, accumulator }, sliceEnd - 1);
        this.entries -= slice.size;
        this.slices.delete(sliceEnd);
      }
    }
    this.emitPending();
  }
}
