/**
 * Nexmark generator configuration. A config is plain, JSON-serialisable data (so it can be
 * shipped to worker subtasks as is); {@link nexmarkConfig} fills in defaults and validates.
 * Defaults follow the reference Nexmark generator (nexmark/nexmark `NexmarkConfiguration`,
 * itself derived from Apache Beam's Nexmark suite).
 */

/** Full set of generator parameters. Build one with {@link nexmarkConfig}. */
export interface NexmarkConfig {
  /**
   * PRNG seed. Any integer; only its value modulo 2^32 is used. Event `i` is a pure function of
   * `(seed mod 2^32, i)` and the rest of this config.
   */
  readonly seed: number;
  /** Event time of event number 0, in epoch ms. Default 2015-07-15T00:00:00Z (as in Beam). */
  readonly baseTime: number;
  /**
   * Event-time rate, in events per second over the whole (unsplit) stream: event `i` has time
   * `baseTime + floor(i * 1000 / eventsPerSecond)`. A positive integer. Default 10 000 — the
   * reference `firstEventRate` (an inter-event delay of 100 µs).
   */
  readonly eventsPerSecond: number;
  /** Number of events in the stream (indexes `0 .. maxEvents-1`). `Infinity` = unbounded. */
  readonly maxEvents: number;
  /** Relative share of person events in each cycle of `totalProportion` events. Default 1. */
  readonly personProportion: number;
  /** Relative share of auction events. Default 3. */
  readonly auctionProportion: number;
  /** Relative share of bid events. Default 46. */
  readonly bidProportion: number;
  /** Number of most recent people considered active for cold bidder/seller picks. Default 1000. */
  readonly numActivePeople: number;
  /** Number of most recent auctions considered in flight for cold auction picks. Default 100. */
  readonly numInFlightAuctions: number;
  /** A bid is for a hot auction with probability `1 - 1/hotAuctionRatio`. Default 2. */
  readonly hotAuctionRatio: number;
  /** A bid is by a hot bidder with probability `1 - 1/hotBiddersRatio`. Default 4. */
  readonly hotBiddersRatio: number;
  /** An auction is by a hot seller with probability `1 - 1/hotSellersRatio`. Default 4. */
  readonly hotSellersRatio: number;
  /** Target average size in bytes of a person record (reached via `extra`). Default 200. */
  readonly avgPersonByteSize: number;
  /** Target average size in bytes of an auction record. Default 500. */
  readonly avgAuctionByteSize: number;
  /** Target average size in bytes of a bid record. Default 100. */
  readonly avgBidByteSize: number;
  /**
   * Average auction length in ms, or `null` (default) to derive it as the reference does: twice
   * the event-time span the stream needs to open `numInFlightAuctions` further auctions, so that
   * on average about `numInFlightAuctions` auctions are open at any time.
   */
  readonly avgAuctionLengthMs: number | null;
  /** Number of non-hot bid channels (`channel-0 .. channel-{n-1}`), each with a fixed URL. */
  readonly numChannels: number;
}

/** Default event time of event 0: 2015-07-15T00:00:00Z, the fixed base time used by Beam. */
export const DEFAULT_BASE_TIME = Date.UTC(2015, 6, 15);

/** Reference defaults for every {@link NexmarkConfig} field. */
export const DEFAULT_NEXMARK_CONFIG: NexmarkConfig = Object.freeze({
  seed: 0,
  baseTime: DEFAULT_BASE_TIME,
  eventsPerSecond: 10_000,
  maxEvents: Number.POSITIVE_INFINITY,
  personProportion: 1,
  auctionProportion: 3,
  bidProportion: 46,
  numActivePeople: 1000,
  numInFlightAuctions: 100,
  hotAuctionRatio: 2,
  hotBiddersRatio: 4,
  hotSellersRatio: 4,
  avgPersonByteSize: 200,
  avgAuctionByteSize: 500,
  avgBidByteSize: 100,
  avgAuctionLengthMs: null,
  numChannels: 10_000,
});

function requireInt(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(
      `nexmark config: ${name} must be an integer in [${min}, ${max}], got ${value}`,
    );
  }
}

/**
 * Return a complete, validated, frozen config: {@link DEFAULT_NEXMARK_CONFIG} overlaid with
 * `overrides`. Throws `RangeError` on out-of-range values.
 */
export function nexmarkConfig(overrides: Partial<NexmarkConfig> = {}): NexmarkConfig {
  const d = DEFAULT_NEXMARK_CONFIG;
  // Built in a fixed key order so every config object has the same hidden class.
  const c: NexmarkConfig = {
    seed: overrides.seed ?? d.seed,
    baseTime: overrides.baseTime ?? d.baseTime,
    eventsPerSecond: overrides.eventsPerSecond ?? d.eventsPerSecond,
    maxEvents: overrides.maxEvents ?? d.maxEvents,
    personProportion: overrides.personProportion ?? d.personProportion,
    auctionProportion: overrides.auctionProportion ?? d.auctionProportion,
    bidProportion: overrides.bidProportion ?? d.bidProportion,
    numActivePeople: overrides.numActivePeople ?? d.numActivePeople,
    numInFlightAuctions: overrides.numInFlightAuctions ?? d.numInFlightAuctions,
    hotAuctionRatio: overrides.hotAuctionRatio ?? d.hotAuctionRatio,
    hotBiddersRatio: overrides.hotBiddersRatio ?? d.hotBiddersRatio,
    hotSellersRatio: overrides.hotSellersRatio ?? d.hotSellersRatio,
    avgPersonByteSize: overrides.avgPersonByteSize ?? d.avgPersonByteSize,
    avgAuctionByteSize: overrides.avgAuctionByteSize ?? d.avgAuctionByteSize,
    avgBidByteSize: overrides.avgBidByteSize ?? d.avgBidByteSize,
    avgAuctionLengthMs:
      overrides.avgAuctionLengthMs === undefined
        ? d.avgAuctionLengthMs
        : overrides.avgAuctionLengthMs,
    numChannels: overrides.numChannels ?? d.numChannels,
  };
  validateNexmarkConfig(c);
  return Object.freeze(c);
}

/** Throw `RangeError` if any field of `c` is out of range. */
export function validateNexmarkConfig(c: NexmarkConfig): void {
  requireInt('seed', c.seed, Number.MIN_SAFE_INTEGER);
  requireInt('baseTime', c.baseTime, Number.MIN_SAFE_INTEGER);
  requireInt('eventsPerSecond', c.eventsPerSecond, 1, 2 ** 40);
  if (c.maxEvents !== Number.POSITIVE_INFINITY) requireInt('maxEvents', c.maxEvents, 0);
  requireInt('personProportion', c.personProportion, 1, 1 << 20);
  requireInt('auctionProportion', c.auctionProportion, 1, 1 << 20);
  requireInt('bidProportion', c.bidProportion, 1, 1 << 20);
  requireInt('numActivePeople', c.numActivePeople, 1, 2 ** 31);
  requireInt('numInFlightAuctions', c.numInFlightAuctions, 1, 2 ** 31);
  requireInt('hotAuctionRatio', c.hotAuctionRatio, 1, 2 ** 31);
  requireInt('hotBiddersRatio', c.hotBiddersRatio, 1, 2 ** 31);
  requireInt('hotSellersRatio', c.hotSellersRatio, 1, 2 ** 31);
  requireInt('avgPersonByteSize', c.avgPersonByteSize, 0, 1 << 30);
  requireInt('avgAuctionByteSize', c.avgAuctionByteSize, 0, 1 << 30);
  requireInt('avgBidByteSize', c.avgBidByteSize, 0, 1 << 30);
  if (c.avgAuctionLengthMs !== null)
    requireInt('avgAuctionLengthMs', c.avgAuctionLengthMs, 1, 2 ** 50);
  requireInt('numChannels', c.numChannels, 1, 1 << 24);
}

/** Events per proportion cycle: `personProportion + auctionProportion + bidProportion`. */
export function totalProportion(c: NexmarkConfig): number {
  return c.personProportion + c.auctionProportion + c.bidProportion;
}
