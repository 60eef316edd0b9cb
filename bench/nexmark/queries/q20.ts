/**
 * q20, expand bid with auction: every bid on an auction of category 10, with the auction's
 * columns. A regular inner join of bids with auctions on the auction id; the category filter
 * applies to auctions before the join (as Flink's planner pushes it down), every bid is kept.
 */

import type { Auction, Bid, NexmarkEvent } from '../../../src/connectors/nexmark/index.js';
import { auctionColumns, auctionIdOf } from './common.js';
import { innerJoin } from './inner-join.js';
import type { NexmarkQuery } from './query.js';

/** A row of q20: the bid's columns, then the auction's (but its id). */
export interface Q20Row {
  readonly bid: Bid;
  readonly auction: Auction;
}

function relevant(e: NexmarkEvent): boolean {
  return e.type === 'bid' || (e.type === 'auction' && e.auction.category === 10);
}

const bidJoin = innerJoin<NexmarkEvent, Bid, Auction, Q20Row>({
  left: (e) => (e.type === 'bid' ? e.bid : undefined),
  right: (e) => (e.type === 'auction' ? e.auction : undefined),
  join: (bid, auction) => ({ bid, auction }),
});

export const q20: NexmarkQuery<Q20Row> = {
  name: 'q20',
  title: 'expand bid with auction: bids on category-10 auctions (regular join)',
  deterministic: true,
  build: (events) =>
    events
      .filter(relevant)
      .name('bids, category 10 auctions')
      .keyBy(auctionIdOf, 'auction id')
      .process(bidJoin)
      .name('bid ⋈ auction'),
  toRow: ({ bid: b, auction: a }) => [
    b.auction,
    b.bidder,
    b.price,
    b.channel,
    b.url,
    b.dateTime,
    b.extra,
    // The auction's columns but its id (the join key, already there as the bid's auction).
    ...auctionColumns(a).slice(1),
  ],
};
