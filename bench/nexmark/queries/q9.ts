/**
 * q9, winning bids: per auction, the highest of its bids timed within its lifetime (the
 * earliest on equal prices, the first to arrive on equal prices and times), with the auction's
 * columns. The SQL is a regular join followed by `ROW_NUMBER() ... <= 1` per auction, an
 * updating result: whenever a better bid arrives, the auction's row is replaced (`-U` the old,
 * `+U` the new).
 */

import { type AuctionBid, auctionBids } from './auction-bids.js';
import { auctionColumns } from './common.js';
import type { UpdatingNexmarkQuery } from './query.js';
import { topOne } from './top-one.js';

/** Whether `x` ranks before `y`: higher price, then earlier time (equal: the earlier arrival stays). */
function better(x: AuctionBid, y: AuctionBid): boolean {
  return (
    x.bid.price > y.bid.price || (x.bid.price === y.bid.price && x.bid.dateTime < y.bid.dateTime)
  );
}

export const q9: UpdatingNexmarkQuery<AuctionBid> = {
  name: 'q9',
  title: 'winning bids: the highest bid within each auction (regular join, top-1)',
  deterministic: true,
  updating: true,
  build: (events) =>
    auctionBids(events)
      .keyBy((x) => x.auction.id, 'auction id')
      .process(topOne(better))
      .name('top-1 per auction'),
  toRow: ({ auction: a, bid: b }) => [
    ...auctionColumns(a),
    b.auction,
    b.bidder,
    b.price,
    b.dateTime,
    b.extra,
  ],
};
