/**
 * q9, winning bids: per auction, the highest of its bids timed within its lifetime (the
 * earliest on equal prices, the first to arrive on equal prices and times), with the auction's
 * columns. The SQL is a regular join followed by `ROW_NUMBER() ... <= 1` per auction, an
 * updating result: whenever a better bid arrives, the auction's row is replaced (`-U` the old,
 * `+U` the new). Top-1 without the row number is an updating aggregation keeping the best bid.
 */

import type { RetractableAggregateFunction } from '../../../src/index.js';
import { type AuctionBid, auctionBids } from './auction-bids.js';
import { auctionColumns } from './common.js';
import type { UpdatingNexmarkQuery } from './query.js';

/** Whether `x` ranks before `y`: higher price, then earlier time (equal: the earlier arrival stays). */
function better([, x]: AuctionBid, [, y]: AuctionBid): boolean {
  return x.price > y.price || (x.price === y.price && x.dateTime < y.dateTime);
}

/** The best bid so far: an updating aggregation over an insert-only input needs no retract. */
const winningBid: RetractableAggregateFunction<AuctionBid, AuctionBid | undefined, AuctionBid> = {
  createAccumulator: () => undefined,
  add: (x, best) => (best === undefined || better(x, best) ? x : best),
  getResult: (best) => best!,
};

export const q9: UpdatingNexmarkQuery<AuctionBid> = {
  name: 'q9',
  title: 'winning bids: the highest bid within each auction (regular join, top-1)',
  deterministic: true,
  updating: true,
  build: (events) =>
    auctionBids(events)
      .keyBy(([a]) => a.id, 'auction id')
      .updatingAggregate(winningBid)
      .mapRows((r) => r.value),
  toRow: ([a, b]) => [...auctionColumns(a), b.auction, b.bidder, b.price, b.dateTime, b.extra],
};
