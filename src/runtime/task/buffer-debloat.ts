/**
 * Buffer debloating: a channel's queued data is bounded by the time its
 * consumer needs to drain it, not only by a batch count. Under backpressure a
 * checkpoint barrier waits behind everything queued before it on every
 * channel of its path; with full channels of 8 batches of 1,024 records in
 * front of a sink taking a few hundred records a second that is tens of
 * seconds per exchange.
 * Each consuming task measures how fast it takes records off each input
 * channel and lets the producer queue only what that rate drains within the
 * target time (at least one batch, so data always moves; never more than the
 * channel's batch capacity).
 */
import type { ChannelEnd } from './channel.js';

/** The default time the data queued on a channel may take to drain (ms). */
export const DEFAULT_DEBLOAT_TARGET_MS = 1000;
/** How often a consuming task measures its channels' drain rates (ms). */
export const DEBLOAT_PERIOD_MS = 100;
/** Time constant of the drain rate's moving average (ms): smooths a consumer that takes batches in bursts. */
export const DRAIN_RATE_TIME_CONSTANT_MS = 2000;
/**
 * A channel's record limit grows per period to at most twice what it was or
 * what the consumer took in the period, whichever is more: it starts at one
 * batch and grows as the consumer proves its rate.
 */
export const MAX_LIMIT_GROWTH = 2;

/**
 * Records a channel may hold so that a consumer taking `recordsPerSecond`
 * drains them within `targetMs`. At least 1: the channel also always admits
 * one batch when it holds none, so a slow consumer slows the flow but never
 * stops it.
 */
export function debloatedRecordLimit(recordsPerSecond: number, targetMs: number): number {
  if (!(recordsPerSecond > 0)) return 1;
  return Math.max(1, Math.floor((recordsPerSecond * targetMs) / 1000));
}

/**
 * The next drain rate estimate (records per second) after `records` were
 * taken in `elapsedMs`: an exponentially weighted moving average whose
 * weight follows the sample's length, so uneven sampling periods count by the
 * time they cover. Estimates start at 0: the first moments of a job (empty
 * channels, a sink taking its first batch at once) say little about its
 * sustained rate.
 */
export function nextDrainRate(
  previous: number,
  records: number,
  elapsedMs: number,
  timeConstantMs = DRAIN_RATE_TIME_CONSTANT_MS,
): number {
  const sample = (records * 1000) / elapsedMs;
  const weight = 1 - Math.exp(-elapsedMs / timeConstantMs);
  return previous + weight * (sample - previous);
}

/**
 * A channel's next record limit: what the rate drains within the target,
 * but at most {@link MAX_LIMIT_GROWTH} times the previous limit or the
 * records `drained` in the last period, whichever is more. A falling rate
 * lowers the limit at once; a rising one lifts it within a period or a few,
 * so a burst at start-up does not fill every channel to its capacity before
 * the real rate is known, while a fast consumer has full channels at once.
 */
export function nextRecordLimit(
  previousLimit: number,
  recordsPerSecond: number,
  targetMs: number,
  drained = 0,
): number {
  return Math.min(
    debloatedRecordLimit(recordsPerSecond, targetMs),
    Math.max(1, previousLimit, drained) * MAX_LIMIT_GROWTH,
  );
}

/**
 * The debloating of one task's input channels. The task calls {@link tick}
 * at the start of its steps with a time it read anyway; every
 * {@link DEBLOAT_PERIOD_MS} the drain rate of each channel is updated and
 * its record limit set. Channel ends that do not support a limit are
 * skipped. Costs nothing per record.
 */
export class InputDebloater {
  private readonly channels: ChannelEnd<unknown>[];
  private readonly lastConsumed: number[];
  private readonly rates: number[];
  private readonly limits: number[];
  private lastAt: number | undefined;

  constructor(
    channels: readonly ChannelEnd<unknown>[],
    private readonly targetMs: number,
  ) {
    this.channels = channels.filter((c) => c.setRecordLimit !== undefined);
    this.lastConsumed = this.channels.map(() => 0);
    this.rates = this.channels.map(() => 0);
    // Slow start: one batch per channel, growing as the rate is measured. A
    // slow consumer would otherwise face full channels from the first moment,
    // and the first checkpoints would wait behind them.
    this.limits = this.channels.map(() => 1);
    for (const c of this.channels) c.setRecordLimit!(1);
  }

  /** The current drain rate estimate of each bounded channel (records per second), for tests and metrics. */
  get drainRates(): readonly number[] {
    return this.rates;
  }

  tick(now: number): void {
    const last = this.lastAt;
    // The first tick only starts the clock: the time before the task first ran says nothing about its rate.
    if (last === undefined) {
      this.lastAt = now;
      for (let i = 0; i < this.channels.length; i++)
        this.lastConsumed[i] = this.channels[i]!.consumedRecords ?? 0;
      return;
    }
    const elapsed = now - last;
    if (elapsed < DEBLOAT_PERIOD_MS) return;
    this.lastAt = now;
    for (let i = 0; i < this.channels.length; i++) {
      const channel = this.channels[i]!;
      const consumed = channel.consumedRecords ?? 0;
      const drained = consumed - this.lastConsumed[i]!;
      const rate = nextDrainRate(this.rates[i]!, drained, elapsed);
      const limit = nextRecordLimit(this.limits[i]!, rate, this.targetMs, drained);
      this.lastConsumed[i] = consumed;
      this.rates[i] = rate;
      this.limits[i] = limit;
      channel.setRecordLimit!(limit);
    }
  }
}
