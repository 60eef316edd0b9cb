import { DeterministicRandom } from '../../util/random.js';

/** One page view of the demo's click stream. */
export interface Click {
  readonly index: number;
  readonly user: string;
  readonly page: string;
  /** Event time, epoch ms: when the click happened, not when it arrives. */
  readonly timestamp: number;
}

export const PAGES = ['/home', '/product', '/search', '/cart', '/help', '/checkout'] as const;
/** Relative popularity of {@link PAGES}, so counts differ visibly per page. */
const PAGE_WEIGHTS = [30, 25, 20, 10, 10, 5] as const;
const TOTAL_WEIGHT = PAGE_WEIGHTS.reduce((a, b) => a + b, 0);

/** Users are active for 2 to 8 seconds, then never again (a visit). */
const MIN_ACTIVE_S = 2;
const MAX_ACTIVE_S = 8;
const USER_SEED = 0x5e551;

export interface ClickStreamShape {
  /** Event time of click 0 (epoch ms); click i happens at start + i / rate seconds. */
  readonly startTime: number;
  readonly ratePerSecond: number;
  /** Ordinary clicks arrive up to this much after they happened. */
  readonly maxOutOfOrdernessMs: number;
  /** Fraction of clicks that arrive a little later than the bound (within the allowed lateness). */
  readonly stragglerFraction: number;
  /** How far past the bound a straggler may be. */
  readonly stragglerExtraMs: number;
  /** Fraction of clicks that arrive much too late, after their windows are gone (from `lateDelayMs[0]` into the stream on). */
  readonly lateFraction: number;
  readonly lateDelayMs: readonly [min: number, max: number];
}

/**
 * The generator of the demo's click stream. Every click is a pure function of
 * its index (and the shape), so the stream is the same at any parallelism.
 * Event time follows the index at the configured rate, so with a rate-limited
 * source it tracks the wall clock and watermark lag is meaningful. Each
 * click is delayed: most within the out-of-orderness bound, a few slightly
 * beyond it, and a few far beyond it (late data).
 *
 * Users arrive at a steady pace and stay 2–8 s, so each user's clicks form
 * one session that ends: session windows close while the demo runs.
 */
export function clickGenerator(
  shape: ClickStreamShape,
): (index: number, random: DeterministicRandom) => Click {
  const usersPerSecond = Math.min(50, Math.max(0.6, shape.ratePerSecond / 1000));
  // Per-user attributes come from the user number alone, not from the click's random stream.
  const userRandom = new DeterministicRandom();
  const activeSeconds = (user: number): number =>
    MIN_ACTIVE_S + (MAX_ACTIVE_S - MIN_ACTIVE_S) * userRandom.reseed(USER_SEED, user).next();
  const arrival = (user: number): number => user / usersPerSecond - MAX_ACTIVE_S;
  const window = Math.ceil(MAX_ACTIVE_S * usersPerSecond);

  /** A user active at `t` seconds after start, found by rejection sampling over recent arrivals. */
  const pickUser = (t: number, random: DeterministicRandom): number => {
    const newest = Math.floor((t + MAX_ACTIVE_S) * usersPerSecond);
    const oldest = Math.max(0, newest - window);
    for (let attempt = 0; attempt < 8; attempt++) {
      const user = random.between(oldest, newest);
      const from = arrival(user);
      if (from <= t && t < from + activeSeconds(user)) return user;
    }
    return newest; // arrived within the last 1/usersPerSecond s: always active
  };

  const pickPage = (random: DeterministicRandom): string => {
    let r = random.int(TOTAL_WEIGHT);
    for (let i = 0; i < PAGES.length; i++) {
      r -= PAGE_WEIGHTS[i]!;
      if (r < 0) return PAGES[i]!;
    }
    return PAGES[0];
  };

  /** How long after it happened a click that happened `offsetMs` after the start arrives. */
  const delay = (offsetMs: number, random: DeterministicRandom): number => {
    const r = random.next();
    const bound = shape.maxOutOfOrdernessMs;
    const [lateMin, lateMax] = shape.lateDelayMs;
    if (r < shape.lateFraction && offsetMs >= lateMin) {
      return random.between(lateMin, Math.min(lateMax, offsetMs));
    }
    if (r < shape.lateFraction + shape.stragglerFraction) {
      return random.between(bound + 1, bound + shape.stragglerExtraMs);
    }
    return random.int(bound + 1);
  };

  return (index, random) => {
    const offsetMs = Math.floor((index * 1000) / shape.ratePerSecond);
    const user = pickUser(offsetMs / 1000, random);
    return {
      index,
      user: `user-${String(user % 10_000).padStart(4, '0')}`,
      page: pickPage(random),
      // Nothing happened before the start: a window from before it would hold only stray clicks.
      timestamp: Math.max(shape.startTime, shape.startTime + offsetMs - delay(offsetMs, random)),
    };
  };
}
