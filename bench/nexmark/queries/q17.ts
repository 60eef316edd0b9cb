/**
 * q17, auction statistics per day: per auction and UTC day, bid counts per price rank and
 * min/max/avg/sum of prices (`AVG` of a BIGINT is a BIGINT: the quotient truncated). One
 * tumbling day window per auction (see q15 for how this relates to the SQL).
 */

import type { Bid } from '../../../src/connectors/nexmark/index.js';
import { type AggregateFunction, Windows } from '../../../src/index.js';
import { bids, DAY_MS, formatDay, priceRank } from './common.js';
import type { NexmarkQuery } from './query.js';

/** Accumulator and result of q17's aggregate (mutated in place; tumbling windows only). */
interface AuctionStats {
  readonly bids: [number, number, number];
  min: number;
  max: number;
  sum: number;
}

/** A row of q17. */
export interface Q17Row {
  readonly auction: number;
  readonly day: string;
  readonly totalBids: number;
  readonly rank1Bids: number;
  readonly rank2Bids: number;
  readonly rank3Bids: number;
  readonly minPrice: number;
  readonly maxPrice: number;
  readonly avgPrice: number;
  readonly sumPrice: number;
}

const auctionStats: AggregateFunction<Bid, AuctionStats, AuctionStats> = {
  createAccumulator: () => ({
    bids: [0, 0, 0],
    min: Number.POSITIVE_INFINITY,
    max: Number.NEGATIVE_INFINITY,
    sum: 0,
  }),
  add(b, acc) {
    acc.bids[priceRank(b.price)]++;
    if (b.price < acc.min) acc.min = b.price;
    if (b.price > acc.max) acc.max = b.price;
    acc.sum += b.price;
    return acc;
  },
  getResult: (acc) => acc,
};

export const q17: NexmarkQuery<Q17Row> = {
  name: 'q17',
  title: 'auction statistics per day (min/max/avg/sum, filtered counts)',
  deterministic: true,
  build: (events) =>
    bids(events)
      .keyBy((b) => b.auction, 'auction')
      .window(Windows.tumbling(DAY_MS))
      .aggregate(auctionStats)
      .map((r): Q17Row => {
        const [r1, r2, r3] = r.value.bids;
        const total = r1 + r2 + r3;
        return {
          auction: r.key,
          day: formatDay(r.window.start),
          totalBids: total,
          rank1Bids: r1,
          rank2Bids: r2,
          rank3Bids: r3,
          minPrice: r.value.min,
          maxPrice: r.value.max,
          avgPrice: Math.trunc(r.value.sum / total),
          sumPrice: r.value.sum,
        };
      }),
  toRow: (r) => [
    r.auction,
    r.day,
    r.totalBids,
    r.rank1Bids,
    r.rank2Bids,
    r.rank3Bids,
    r.minPrice,
    r.maxPrice,
    r.avgPrice,
    r.sumPrice,
  ],
};
