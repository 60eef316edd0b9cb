/**
 * The aggregate of q15 and q16: bid counts, distinct bidders and distinct auctions, in total and
 * per price rank (the SQL's `COUNT(*) FILTER (...)` and `COUNT(DISTINCT ...) FILTER (...)`).
 */

import type { Bid } from '../../../src/connectors/nexmark/index.js';
import type { AggregateFunction } from '../../../src/index.js';
import { priceRank } from './common.js';

/** Counts over one group's bids; `rankN` = with `priceRank(price) = N - 1`. */
export interface BidStats {
  readonly totalBids: number;
  readonly rank1Bids: number;
  readonly rank2Bids: number;
  readonly rank3Bids: number;
  readonly totalBidders: number;
  readonly rank1Bidders: number;
  readonly rank2Bidders: number;
  readonly rank3Bidders: number;
  readonly totalAuctions: number;
  readonly rank1Auctions: number;
  readonly rank2Auctions: number;
  readonly rank3Auctions: number;
  /** Latest event time among the bids (q16 reports its minute). */
  readonly lastTime: number;
}

/**
 * Accumulator: bid counts per rank, and per distinct bidder and auction the set of ranks it
 * was seen with (a bit mask), so a record costs one map lookup per distinct-count family.
 * Mutated in place; used with tumbling windows only (no merge).
 */
export interface BidStatsAccumulator {
  readonly bids: [number, number, number];
  readonly bidders: Map<number, number>;
  readonly auctions: Map<number, number>;
  lastTime: number;
}

function mark(seen: Map<number, number>, id: number, bit: number): void {
  const mask = seen.get(id);
  if (mask === undefined) seen.set(id, bit);
  else if ((mask & bit) === 0) seen.set(id, mask | bit);
}

function distinct(seen: Map<number, number>): [number, number, number, number] {
  let r1 = 0;
  let r2 = 0;
  let r3 = 0;
  for (const mask of seen.values()) {
    if (mask & 1) r1++;
    if (mask & 2) r2++;
    if (mask & 4) r3++;
  }
  return [seen.size, r1, r2, r3];
}

/** The q15/q16 aggregate function. */
export const bidStats: AggregateFunction<Bid, BidStatsAccumulator, BidStats> = {
  createAccumulator: () => ({
    bids: [0, 0, 0],
    bidders: new Map(),
    auctions: new Map(),
    lastTime: Number.NEGATIVE_INFINITY,
  }),
  add(b, acc) {
    const rank = priceRank(b.price);
    acc.bids[rank]++;
    const bit = 1 << rank;
    mark(acc.bidders, b.bidder, bit);
    mark(acc.auctions, b.auction, bit);
    if (b.dateTime > acc.lastTime) acc.lastTime = b.dateTime;
    return acc;
  },
  getResult(acc) {
    const [r1, r2, r3] = acc.bids;
    const bidders = distinct(acc.bidders);
    const auctions = distinct(acc.auctions);
    return {
      totalBids: r1 + r2 + r3,
      rank1Bids: r1,
      rank2Bids: r2,
      rank3Bids: r3,
      totalBidders: bidders[0],
      rank1Bidders: bidders[1],
      rank2Bidders: bidders[2],
      rank3Bidders: bidders[3],
      totalAuctions: auctions[0],
      rank1Auctions: auctions[1],
      rank2Auctions: auctions[2],
      rank3Auctions: auctions[3],
      lastTime: acc.lastTime,
    };
  },
};

/** The twelve count columns of q15/q16, in SQL order. */
export function statsColumns(s: BidStats): number[] {
  return [
    s.totalBids,
    s.rank1Bids,
    s.rank2Bids,
    s.rank3Bids,
    s.totalBidders,
    s.rank1Bidders,
    s.rank2Bidders,
    s.rank3Bidders,
    s.totalAuctions,
    s.rank1Auctions,
    s.rank2Auctions,
    s.rank3Auctions,
  ];
}
