import type { WeirError } from '../../../core/errors.js';
import { NO_TIMESTAMP } from '../../../core/record-batch.js';
import { decodeTime, encodeTime, type Json } from '../../../core/snapshot.js';
import { invalidTimestamp, isEventTime } from '../../../core/timestamps.js';
import type {
  TimestampAssigner,
  WatermarkGenerator,
  WatermarkOutput,
  WatermarkStrategy,
} from '../../../core/watermarks.js';

/**
 * Event time of one partition: its own watermark generator (so a
 * partition that lags does not have its records declared late by a faster
 * one), and whether it is idle.
 */
export class PartitionTime<T> implements WatermarkOutput {
  watermark = Number.NEGATIVE_INFINITY;
  /** The generator called markIdle (until its next record). */
  private markedIdle = false;
  lastRecordAt: number;
  /** Records seen since the reader opened. */
  private records = 0;

  constructor(
    private readonly generator: WatermarkGenerator<T> | undefined,
    now: number,
  ) {
    this.lastRecordAt = now;
  }

  emitWatermark(time: number): void {
    if (time > this.watermark) this.watermark = time;
    this.markedIdle = false;
  }

  markIdle(): void {
    this.markedIdle = true;
  }

  onRecord(value: T, timestamp: number, now: number): void {
    this.lastRecordAt = now;
    this.records++;
    this.markedIdle = false;
    this.generator?.onEvent(value, timestamp, this);
  }

  /** Whether a record of the partition has come since this reader opened. */
  get hadRecord(): boolean {
    return this.records > 0;
  }

  periodic(): void {
    this.generator?.onPeriodicEmit?.(this);
  }

  /**
   * The partition's event-time progress for a checkpoint: its watermark and
   * its generator's memory. A restored partition that gets no new record
   * then still holds nothing back, as in the uninterrupted run, where before
   * its watermark started again from nothing and stalled the job's.
   */
  snapshot(): Json {
    return {
      watermark: encodeTime(this.watermark),
      generator: this.generator?.snapshot?.() ?? null,
    };
  }

  restore(state: Json): void {
    if (state === null || typeof state !== 'object' || Array.isArray(state)) return;
    if (state.watermark !== undefined) this.watermark = decodeTime(state.watermark);
    if (state.generator !== undefined && state.generator !== null)
      this.generator?.restore?.(state.generator);
  }

  /**
   * Idle when its generator says so, or when it is caught up with the end of the partition, has
   * had no records for the idleness timeout, and `emitted` (the source's watermark so far) has
   * reached its own watermark. That last condition goes beyond Flink, whose idleness timer looks
   * at records only: there a source's watermark moves while some partitions are idle and others
   * not, and when all go idle at once (a topic read to its end in one go, empty partitions beside
   * it) the watermark of their last records is never emitted and no window fires. Here a
   * partition whose watermark is ahead stays counted until the source's watermark reaches it,
   * so once every partition is idle the watermark is the highest of theirs, as it is in Flink
   * whenever they go idle one by one.
   */
  idle(caughtUp: boolean, now: number, idlenessMs: number | undefined, emitted: number): boolean {
    if (this.markedIdle) return true;
    return (
      idlenessMs !== undefined &&
      caughtUp &&
      now - this.lastRecordAt >= idlenessMs &&
      (this.generator === undefined || this.watermark <= emitted)
    );
  }
}

/**
 * Wakes a waiting source task when one of its partitions' idleness timeouts runs out: no record
 * does then, and without a wake-up the source would not work its watermark and idleness out
 * again (a topic read to its end with an empty partition beside it would keep every window
 * waiting).
 */
export class IdleTimeoutAlarm {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly wake: () => void) {}

  /** Arms for the first timeout after `now` among `times`, unless already armed. */
  arm<T>(times: Iterable<PartitionTime<T>>, idlenessMs: number | undefined, now: number): void {
    if (idlenessMs === undefined || this.timer !== undefined) return;
    let next = Number.POSITIVE_INFINITY;
    for (const time of times) {
      const at = time.lastRecordAt + idlenessMs;
      if (at > now && at < next) next = at;
    }
    if (next === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, next - now);
    this.timer.unref();
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** The parts of a strategy the source uses. */
export interface SourceTimeSpec<T> {
  readonly assigner: TimestampAssigner<T> | undefined;
  readonly createGenerator: (() => WatermarkGenerator<T>) | undefined;
  readonly idlenessMs: number | undefined;
}

/** */
export function sourceTimeSpec<T>(
  strategy: WatermarkStrategy<T> | undefined,
): SourceTimeSpec<T> | undefined {
  if (strategy === undefined) return undefined;
  const spec = strategy.toSpec();
  return {
    assigner: spec.timestampAssigner,
    createGenerator: spec.createGenerator,
    idlenessMs: spec.idlenessMs,
  };
}

/**
 * What gave a Kafka source's records their event time, for the
 * error that refuses one that is not a safe integer.
 */
export function stamper(assigner: TimestampAssigner<never> | undefined): string {
  return assigner === undefined ? 'Kafka record timestamp is' : 'timestamp assigner returned';
}

/**
 * Stamps a decoded record with its event time (the assigner's, else Kafka's).
 * Returns the time, or, when it is not an event time (NaN, `undefined`, beyond
 * the safe-integer range), the `INVALID_TIMESTAMP` error the source then
 * treats under its bad-record policy, so no such record reaches an operator.
 * An assigner that throws fails the job (the exception propagates).
 */
export function stampRecord<T>(
  assigner: TimestampAssigner<T> | undefined,
  value: T,
  kafkaTimestamp: number,
  operatorId: string,
): number | WeirError {
  const ts = assigner === undefined ? kafkaTimestamp : assigner(value, kafkaTimestamp);
  if (isEventTime(ts) || ts === NO_TIMESTAMP) return ts;
  return invalidTimestamp(operatorId, stamper(assigner), value, ts);
}
