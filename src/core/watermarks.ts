import { invalidArgument } from './errors.js';
import type { Json } from './snapshot.js';

/** Where a watermark generator sends its decisions. */
export interface WatermarkOutput {
  /** Promises that no record with a timestamp `<= time` follows. Lower values are ignored. */
  emitWatermark(time: number): void;
  /** The stream has nothing to say for now; downstream stops waiting for it. */
  markIdle(): void;
}

/**
 * Decides watermarks from the records seen. One instance runs per subtask.
 *
 * - `onEvent` runs for every record. A watermark it emits takes effect at that
 *   record's position (punctuated watermarks): the records before it, this one
 *   included, go out first, then the watermark, then the rest of the batch.
 * - `onPeriodicEmit`, if present, runs after every batch and, with
 *   {@link WatermarkStrategy.withPeriodicInterval}, also on a processing-time
 *   interval while no batch arrives. A generator without it is purely punctuated.
 *
 * Batches of bounded sources have a fixed size, so a generator whose watermark
 * depends only on the records it has seen gives the same watermarks every run.
 */
export interface WatermarkGenerator<T> {
  onEvent(value: T, timestamp: number, output: WatermarkOutput): void;
  /**
   * Emits the watermark the records seen so far allow. Called again without
   * new records (from the interval timer) it should emit nothing new unless it
   * reads processing time: that keeps bounded jobs deterministic.
   */
  onPeriodicEmit?(output: WatermarkOutput): void;
  /**
   * If present, upstream watermarks are not dropped but handed here (the final one at end of
   * input still passes unchanged): a generator that re-expresses the event time it is given,
   * such as a shift to a local wall clock, emits its own watermark for each upstream one.
   */
  onUpstreamWatermark?(watermark: number, output: WatermarkOutput): void;
  /**
   * The generator's memory (e.g. the largest timestamp seen), for checkpoints:
   * a restored job then emits the watermarks the uninterrupted one would have.
   */
  snapshot?(): Json;
  restore?(state: Json): void;
}

/** Extracts the event time (epoch ms) of a record; `recordTimestamp` is what the source attached, if anything. */
export type TimestampAssigner<T> = (value: T, recordTimestamp: number) => number;

/**
 * Watermarks after a bounded delay: the watermark trails the largest timestamp
 * seen by `maxOutOfOrderness` (minus 1 ms, so a record exactly that late is on time).
 */
class BoundedOutOfOrdernessGenerator<T> implements WatermarkGenerator<T> {
  private maxTimestamp = Number.NEGATIVE_INFINITY;
  constructor(private readonly bound: number) {}
  onEvent(_value: T, timestamp: number): void {
    if (timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
  }
  onPeriodicEmit(output: WatermarkOutput): void {
    if (this.maxTimestamp !== Number.NEGATIVE_INFINITY) {
      output.emitWatermark(this.maxTimestamp - this.bound - 1);
    }
  }
  snapshot(): Json {
    return Number.isFinite(this.maxTimestamp) ? this.maxTimestamp : null;
  }
  restore(state: Json): void {
    if (typeof state === 'number') this.maxTimestamp = state;
  }
}

/** The parts of a strategy, as read by the runtime. */
export interface WatermarkStrategySpec<T> {
  readonly createGenerator: (() => WatermarkGenerator<T>) | undefined;
  readonly timestampAssigner: TimestampAssigner<T> | undefined;
  readonly idlenessMs: number | undefined;
  /** Processing time between calls of `onPeriodicEmit` while the input is quiet; none when undefined. */
  readonly periodicIntervalMs: number | undefined;
}

/**
 * How a stream's records get event times and how event time advances.
 * Immutable: each `with...` returns a new strategy.
 */
export class WatermarkStrategy<T> {
  private constructor(private readonly spec: WatermarkStrategySpec<T>) {}

  /** Records arrive at most `maxOutOfOrdernessMs` later than the latest one seen. */
  static forBoundedOutOfOrderness<T>(maxOutOfOrdernessMs: number): WatermarkStrategy<T> {
    if (!Number.isFinite(maxOutOfOrdernessMs) || maxOutOfOrdernessMs < 0) {
      throw invalidArgument(
        `maxOutOfOrderness must be a finite number >= 0, got ${maxOutOfOrdernessMs}`,
      );
    }
    return new WatermarkStrategy<T>({
      createGenerator: () => new BoundedOutOfOrdernessGenerator<T>(maxOutOfOrdernessMs),
      timestampAssigner: undefined,
      idlenessMs: undefined,
      periodicIntervalMs: undefined,
    });
  }

  /** Timestamps never decrease (per source subtask). */
  static forMonotonousTimestamps<T>(): WatermarkStrategy<T> {
    return WatermarkStrategy.forBoundedOutOfOrderness<T>(0);
  }

  /** A custom watermark generator; one instance is created per subtask. */
  static forGenerator<T>(createGenerator: () => WatermarkGenerator<T>): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>({
      createGenerator,
      timestampAssigner: undefined,
      idlenessMs: undefined,
      periodicIntervalMs: undefined,
    });
  }

  /** Timestamps only, no watermarks (event time never advances before end of input). */
  static noWatermarks<T>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>({
      createGenerator: undefined,
      timestampAssigner: undefined,
      idlenessMs: undefined,
      periodicIntervalMs: undefined,
    });
  }

  /** Takes each record's event time from `assigner` instead of the timestamp its source attached. */
  withTimestampAssigner(assigner: TimestampAssigner<T>): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>({ ...this.spec, timestampAssigner: assigner });
  }

  /**
   * Marks the stream idle after `ms` of processing time without records, so an
   * input with no traffic does not hold back event time downstream. It becomes
   * active again with its next record.
   */
  withIdleness(ms: number): WatermarkStrategy<T> {
    if (!Number.isFinite(ms) || ms <= 0) {
      throw invalidArgument(`idleness timeout must be a positive number of ms, got ${ms}`);
    }
    return new WatermarkStrategy<T>({ ...this.spec, idlenessMs: ms });
  }

  /**
   * Also calls the generator's `onPeriodicEmit` every `ms` of processing time
   * while no batch arrives (Flink's auto-watermark interval), so a generator
   * that reads the wall clock can advance event time on a quiet input. It is
   * still called after every batch, as without an interval: on bounded input,
   * where batches follow each other without pause, the timer only repeats the
   * call the last batch made, and a generator that does not read processing
   * time emits nothing new from it.
   */
  withPeriodicInterval(ms: number): WatermarkStrategy<T> {
    if (!Number.isFinite(ms) || ms <= 0) {
      throw invalidArgument(
        `periodic watermark interval must be a positive number of ms, got ${ms}`,
      );
    }
    return new WatermarkStrategy<T>({ ...this.spec, periodicIntervalMs: ms });
  }

  /** @internal */
  toSpec(): WatermarkStrategySpec<T> {
    return this.spec;
  }
}
