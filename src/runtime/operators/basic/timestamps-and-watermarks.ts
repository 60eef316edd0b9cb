import { describeRecord, userFunctionFailed, WeirError } from '../../../core/errors.js';
import { MAX_WATERMARK, MIN_WATERMARK } from '../../../core/messages.js';
import { Operator, type SnapshotContext } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import {
  decodeTime,
  encodeTime,
  type Json,
  type OperatorSnapshot,
  type RestoredState,
} from '../../../core/snapshot.js';
import type {
  TimestampAssigner,
  WatermarkGenerator,
  WatermarkOutput,
  WatermarkStrategySpec,
} from '../../../core/watermarks.js';

/**
 * Gives records their event time and generates watermarks, per subtask.
 * Upstream watermarks are replaced by this operator's own, except the final
 * one at end of input.
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

  constructor(private readonly spec: WatermarkStrategySpec<T>) {
    super();
    this.assigner = spec.timestampAssigner;
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
    this.scheduleIdleCheck();
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, timestamps } = batch;
    const n = values.length;
    const out = new Array<number>(n);
    this.batch = batch;
    this.newTimestamps = out;
    this.flushedUpTo = 0;
    const assigner = this.assigner;
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
      }
      if (typeof ts !== 'number' || !Number.isFinite(ts)) throw this.invalidTimestamp(ts, value);
      out[i] = ts;
      this.position = i + 1;
      if (generator !== undefined) {
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
    generator?.onPeriodicEmit(this);
  }

  private invalidTimestamp(ts: unknown, value: T): WeirError {
    const { operatorId } = this.context;
    const record = describeRecord(value);
    const message =
      this.assigner === undefined
        ? `operator '${operatorId}' received record ${record} without an event time; give the watermark strategy a timestamp assigner (withTimestampAssigner) or use a source that attaches timestamps`
        : `timestamp assigner in operator '${operatorId}' returned ${typeof ts === 'number' ? String(ts) : describeRecord(ts)} for record ${record}; event time must be a finite number of epoch milliseconds`;
    return new WeirError('INVALID_TIMESTAMP', message, { operatorId, record });
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

  emitWatermark(time: number): void {
    if (!(time > this.lastWatermark)) return;
    // A punctuated watermark follows exactly the records scanned so far.
    this.flushRecords(this.position);
    this.lastWatermark = time;
    this.idle = false;
    this.output.emitWatermark(time);
  }

  markIdle(): void {
    if (this.idle) return;
    this.idle = true;
    this.output.emitIdle();
  }

  override processWatermark(time: number): void {
    if (time === MAX_WATERMARK) {
      this.lastWatermark = time;
      this.output.emitWatermark(time);
    }
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
}
