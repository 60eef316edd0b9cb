import { describeRecord, userFunctionFailed, WeirError } from '../../../core/errors.js';
import { MAX_WATERMARK, MIN_WATERMARK } from '../../../core/messages.js';
import { Operator, type SnapshotContext } from '../../../core/operator.js';
import { NO_TIMESTAMP, type RecordBatch } from '../../../core/record-batch.js';
import {
  decodeTime,
  encodeTime,
  type Json,
  type OperatorSnapshot,
  type RestoredState,
} from '../../../core/snapshot.js';
import { invalidTimestamp, isEventTime } from '../../../core/timestamps.js';
import type {
  TimestampAssigner,
  WatermarkGenerator,
  WatermarkOutput,
  WatermarkStrategySpec,
} from '../../../core/watermarks.js';

/** Settings of a {@link TimestampsAndWatermarksOperator} that come from the job rather than the strategy. */
export interface TimestampsAndWatermarksOptions {
  /**
   * The periodic watermark interval (ms of processing time) for strategies
   * that set none with `withPeriodicInterval`: the environment's
   * auto-watermark interval. Undefined: `onPeriodicEmit` runs after batches only.
   */
  readonly periodicIntervalMs?: number | undefined;
}

/**
 * Gives records their event time and generates watermarks, per subtask.
 * Upstream watermarks are replaced by this operator's own, except the final
 * one at end of input (a generator with `onUpstreamWatermark` derives its own from them).
 *
 * A watermark the generator emits from `onEvent` splits the batch right after
 * that record. `onPeriodicEmit` runs after every batch and, with a periodic
 * interval, from a processing-time timer while no batch has arrived for that
 * long. Event times must be numbers within the safe-integer range.
 */
export class TimestampsAndWatermarksOperator<T> extends Operator<T, T> implements WatermarkOutput {
  private generator: WatermarkGenerator<T> | undefined;
  private readonly assigner: TimestampAssigner<T> | undefined;
  private lastWatermark = MIN_WATERMARK;
  private idle = false;
  private lastActivity = 0;
  private idleCheckScheduled = false;
  // Set while a batch is being scanned, so a punctuated watermark splits it.
  private batch: RecordBatch<T> | undefined;
  private newTimestamps: number[] = [];
  private flushedUpTo = 0;
  private position = 0;

  private readonly periodicIntervalMs: number | undefined;
  // Processing time of the last onPeriodicEmit call made by the timer.
  private lastTimerEmit = 0;

  constructor(
    private readonly spec: WatermarkStrategySpec<T>,
    options: TimestampsAndWatermarksOptions = {},
  ) {
    super();
    this.assigner = spec.timestampAssigner;
    this.periodicIntervalMs = spec.periodicIntervalMs ?? options.periodicIntervalMs;
  }

  private restored: { watermark: number; generator: Json } | undefined;

  /** Union state: each subtask's last watermark and generator memory. */
  override snapshotState(_context: SnapshotContext): OperatorSnapshot {
    return {
      union: [
        {
          subtask: this.context.subtaskIndex,
          watermark: encodeTime(this.lastWatermark),
          generator: this.generator?.snapshot?.() ?? null,
        },
      ],
    };
  }

  /**
   * Resumes with this subtask's own progress when the parallelism is
   * unchanged; otherwise with the lowest watermark and no generator memory.
   */
  override initializeState(state: RestoredState): void {
    const entries = state.union as { subtask: number; watermark: Json; generator: Json }[];
    if (entries.length === 0) return;
    const own =
      entries.length === this.context.parallelism
        ? entries.find((e) => e.subtask === this.context.subtaskIndex)
        : undefined;
    if (own !== undefined) {
      this.restored = { watermark: decodeTime(own.watermark), generator: own.generator };
    } else {
      const lowest = Math.min(...entries.map((e) => decodeTime(e.watermark)));
      this.restored = { watermark: lowest, generator: null };
    }
  }

  override open(): void {
    this.generator = this.spec.createGenerator?.();
    if (this.restored !== undefined) {
      this.lastWatermark = this.restored.watermark;
      if (this.restored.generator !== null) this.generator?.restore?.(this.restored.generator);
      this.restored = undefined;
    }
    this.lastActivity = this.context.processingTime.clock.now();
    this.lastTimerEmit = this.lastActivity;
    this.scheduleIdleCheck();
    if (this.periodicIntervalMs !== undefined && this.generator?.onPeriodicEmit !== undefined) {
      this.schedulePeriodicEmit(
        this.periodicIntervalMs,
        this.lastActivity + this.periodicIntervalMs,
      );
    }
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, timestamps } = batch;
    const n = values.length;
    const assigner = this.assigner;
    // Without an assigner the source's timestamps stand: they are checked, not copied (batches
    // are never written to downstream, so the array can be shared).
    const out = assigner === undefined ? timestamps : new Array<number>(n);
    this.batch = batch;
    this.newTimestamps = out;
    this.flushedUpTo = 0;
    const generator = this.generator;
    for (let i = 0; i < n; i++) {
      const value = values[i] as T;
      let ts: number;
      if (assigner === undefined) ts = timestamps[i]!;
      else {
        try {
          ts = assigner(value, timestamps[i]!);
        } catch (cause) {
          throw userFunctionFailed(this.context.operatorId, 'timestamp assigner', value, cause);
        }
        out[i] = ts;
      }
      // Refuses non-numbers, NaN, ±Infinity (NO_TIMESTAMP among them) and times beyond the safe range.
      if (!isEventTime(ts)) throw this.invalidTimestamp(ts, value);
      if (generator !== undefined) {
        // A watermark emitted now goes out after this record (see emitWatermark).
        this.position = i + 1;
        try {
          generator.onEvent(value, ts, this);
        } catch (cause) {
          throw userFunctionFailed(this.context.operatorId, 'watermark generator', value, cause);
        }
      }
    }
    this.flushRecords(n);
    this.batch = undefined;
    this.idle = false;
    this.lastActivity = this.context.processingTime.clock.now();
    this.scheduleIdleCheck();
    generator?.onPeriodicEmit?.(this);
  }

  private invalidTimestamp(ts: unknown, value: T): WeirError {
    const { operatorId } = this.context;
    if (this.assigner !== undefined) {
      return invalidTimestamp(operatorId, 'timestamp assigner returned', value, ts);
    }
    if (ts !== NO_TIMESTAMP) {
      return invalidTimestamp(operatorId, 'source attached event time', value, ts);
    }
    const record = describeRecord(value);
    return new WeirError(
      'INVALID_TIMESTAMP',
      `operator '${operatorId}' received record ${record} without an event time; give the watermark strategy a timestamp assigner (withTimestampAssigner) or use a source that attaches timestamps`,
      { operatorId, record },
    );
  }

  /** Emits the scanned records not yet emitted, up to (excluding) index `end`. */
  private flushRecords(end: number): void {
    const batch = this.batch;
    if (batch === undefined || end <= this.flushedUpTo) return;
    const whole = this.flushedUpTo === 0 && end === batch.values.length;
    this.output.emit(
      whole
        ? { values: batch.values, timestamps: this.newTimestamps, keys: batch.keys }
        : {
            values: batch.values.slice(this.flushedUpTo, end),
            timestamps: this.newTimestamps.slice(this.flushedUpTo, end),
            keys: batch.keys?.slice(this.flushedUpTo, end),
          },
    );
    this.flushedUpTo = end;
  }

  /** From the generator: lower watermarks are ignored; from `onEvent`, it follows that record. */
  emitWatermark(time: number): void {
    if (!(time > this.lastWatermark)) return;
    // A punctuated watermark follows exactly the records scanned so far.
    this.flushRecords(this.position);
    this.lastWatermark = time;
    this.idle = false;
    this.output.emitWatermark(time);
  }

  /** From the generator or upstream: downstream stops waiting for this subtask. */
  markIdle(): void {
    if (this.idle) return;
    this.idle = true;
    this.output.emitIdle();
  }

  override processWatermark(time: number): void {
    if (time === MAX_WATERMARK) {
      this.lastWatermark = time;
      this.output.emitWatermark(time);
    } else this.generator?.onUpstreamWatermark?.(time, this);
  }

  override processIdle(): void {
    this.markIdle();
  }

  private scheduleIdleCheck(): void {
    const timeout = this.spec.idlenessMs;
    if (timeout === undefined || this.idleCheckScheduled || this.idle) return;
    this.idleCheckScheduled = true;
    this.context.processingTime.schedule(this.lastActivity + timeout, (now) => {
      this.idleCheckScheduled = false;
      if (this.lastWatermark === MAX_WATERMARK) return;
      if (now - this.lastActivity >= timeout) this.markIdle();
      else this.scheduleIdleCheck();
    });
  }

  /**
   * Calls `onPeriodicEmit` once `interval` has passed since the last call,
   * counting the call after each batch. While batches flow the timer finds a
   * recent call and only re-arms, so on bounded input it adds nothing. As with
   * Flink's idleness, a stream idle by timeout gets no periodic calls.
   */
  private schedulePeriodicEmit(interval: number, at: number): void {
    this.context.processingTime.schedule(at, () => {
      if (this.lastWatermark === MAX_WATERMARK) return;
      const now = this.context.processingTime.clock.now();
      const timeout = this.spec.idlenessMs;
      if (timeout !== undefined && now - this.lastActivity >= timeout) {
        this.schedulePeriodicEmit(interval, now + interval);
        return;
      }
      if (now - Math.max(this.lastActivity, this.lastTimerEmit) >= interval) {
        this.lastTimerEmit = now;
        this.generator?.onPeriodicEmit?.(this);
      }
      // Strictly after now: the last call was less than `interval` ago.
      this.schedulePeriodicEmit(
        interval,
        Math.max(this.lastActivity, this.lastTimerEmit) + interval,
      );
    });
  }
}
