/**
 * q9, winning bids: per auction, the highest of its bids timed within its lifetime (the
 * earliest on equal prices, the first to arrive on equal prices and times), with the auction's
 * columns. The SQL is a regular join followed by `ROW_NUMBER() ... <= 1` per auction, an
 * updating result: whenever a better bid arrives, the auction's row is replaced (`-U` the old,
 * `+U` the new); Weir's top-N with n = 1 inserts the new row and deletes the old.
 */

import { type AuctionBid, auctionBids } from './auction-bids.js';
import { auctionColumns } from './common.js';
import type { UpdatingNexmarkQuery } from './query.js';

/** Negative when `x` ranks before `y`: higher price, then earlier time (then arrival order). */
function byPriceThenTime([, x]: AuctionBid, [, y]: AuctionBid): number {
  return y.price - x.price || x.dateTime - y.dateTime;
}

export const q9: UpdatingNexmarkQuery<AuctionBid> = {
  name: 'q9',
  title: 'winning bids: the highest bid within each auction (regular join, top-1)',
  deterministic: true,
  updating: true,
  build: (events) =>
    auctionBids(events)
      .keyBy(([a]) => a.id, 'auction id')
      .topN({ n: 1, compare: byPriceThenTime }),
  toRow: ([a, b]) => [...auctionColumns(a), b.auction, b.bidder, b.price, b.dateTime, b.extra],
};
