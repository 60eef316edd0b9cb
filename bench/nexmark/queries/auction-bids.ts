/**
 * The join q4 and q9 start with: auctions with their bids timed between the auction's opening
 * and its expiry, both included (`B.dateTime BETWEEN A.dateTime AND A.expires`). Not a time
 * window (the expiry is a column), so Flink runs it as a regular join keeping both inputs for
 * the whole run (the reference sets no state TTL); so does Weir's.
 */

import type { Auction, Bid, NexmarkEvent } from '../../../src/connectors/nexmark/index.js';
import type { DataStream } from '../../../src/index.js';
import { auctions, bids, insertedRows } from './common.js';

/** An auction and one of its bids within its lifetime. */
export type AuctionBid = readonly [Auction, Bid];

/** The join of the auctions and bids among `events` (insert-only: an inner join of appends). */
export function auctionBids(events: DataStream<NexmarkEvent>): DataStream<AuctionBid> {
  const joined = auctions(events)
    .toChangelog()
    .regularJoin(bids(events).toChangelog(), {
      leftKey: (a) => a.id,
      rightKey: (b) => b.auction,
      where: (a, b) => a.dateTime <= b.dateTime && b.dateTime <= a.expires,
      unboundedState: true,
    });
  return insertedRows(joined);
}
