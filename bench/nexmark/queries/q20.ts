/**
 * q20, expand bid with auction: every bid on an auction of category 10, with the auction's
 * columns. A regular inner join of bids with auctions on the auction id keeping both inputs for
 * the whole run; the category filter applies to auctions before the join (as Flink's planner
 * pushes it down), every bid is kept.
 */

import type { Auction, Bid } from '../../../src/connectors/nexmark/index.js';
import { auctionColumns, auctions, bids, insertedRows } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q20: the bid's columns, then the auction's (but its id). */
export type Q20Row = readonly [Bid, Auction];

export const q20: NexmarkQuery<Q20Row> = {
  name: 'q20',
  title: 'expand bid with auction: bids on category-10 auctions (regular join)',
  deterministic: true,
  build: (events) =>
    insertedRows(
      bids(events)
        .toChangelog()
        .regularJoin(
          auctions(events)
            .filter((a) => a.category === 10)
            .toChangelog(),
          { leftKey: (b: Bid) => b.auction, rightKey: (a: Auction) => a.id, unboundedState: true },
        ),
    ),
  toRow: ([b, a]) => [
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
