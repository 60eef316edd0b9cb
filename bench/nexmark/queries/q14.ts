/**
 * q14, calculation: bids whose euro price is strictly between 1,000,000 and 50,000,000 cents,
 * with a time-of-day class (by UTC hour) and the number of 'c' characters in `extra` (a UDF
 * in the SQL version).
 */
import type { Bid } from '../../../src/connectors/nexmark/index.js';
import { bids, euroDecimal, hourOfDay } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q14; `price` is in euro cents. */
export interface Q14Row {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly bidTimeType: 'dayTime' | 'nightTime' | 'otherTime';
  readonly dateTime: number;
  readonly extra: string;
  readonly cCounts: number;
}

/** `dayTime` for hours 8-18, `nightTime` for 0-6 and 20-23, `otherTime` for 7 and 19. */
export function bidTimeType(time: number): Q14Row['bidTimeType'] {
  const hour = hourOfDay(time);
  if (hour >= 8 && hour <= 18) return 'dayTime';
  if (hour <= 6 || hour >= 20) return 'nightTime';
  return 'otherTime';
}

/**
 * How many times `char` (one UTF-16 unit) occurs in `s`. `indexOf` scans natively; a
 * `charCodeAt` loop costs several times as much on `extra`, a slice of the generator's pool
 * (each call unwraps the slice).
 */
export function countChar(s: string, char: string): number {
  const c = char.charAt(0);
  if (c === '') return 0;
  let n = 0;
  for (let i = s.indexOf(c); i >= 0; i = s.indexOf(c, i + 1)) n++;
  return n;
}

/** `0.908 * price` in (1e6, 5e7), decided exactly in integers: 908 * price in (1e9, 5e10). */
function inRange(b: Bid): boolean {
  const milli = b.price * 908;
  return milli > 1_000_000_000 && milli < 50_000_000_000;
}

export const q14: NexmarkQuery<Q14Row> = {
  name: 'q14',
  title: 'calculation: price filter, time-of-day class, character count',
  deterministic: true,
  build: (events) =>
    bids(events)
      .filter(inRange)
      .map(
        (b): Q14Row => ({
          auction: b.auction,
          bidder: b.bidder,
          price: b.price * 0.908,
          bidTimeType: bidTimeType(b.dateTime),
          dateTime: b.dateTime,
          extra: b.extra,
          cCounts: countChar(b.extra, 'c'),
        }),
      ),
  toRow: (r) => [
    r.auction,
    r.bidder,
    euroDecimal(r.price),
    r.bidTimeType,
    r.dateTime,
    r.extra,
    r.cCounts,
  ],
};
