/**
 * The join q4 and q9 start with: auctions with their bids timed between the auction's opening
 * and its expiry, both included (`B.dateTime BETWEEN A.dateTime AND A.expires`). Not a time
 * window (the expiry is a column), so Flink runs it as a regular join; so does this one.
 */

import type { Auction, Bid, NexmarkEvent } from '../../../src/connectors/nexmark/index.js';
import type { DataStream } from '../../../src/index.js';
import { auctionIdOf } from './common.js';
import { innerJoin } from './inner-join.js';

/** An auction and one of its bids within its lifetime. */
export interface AuctionBid {
  readonly auction: Auction;
  readonly bid: Bid;
}

const duringAuction = innerJoin<NexmarkEvent, Auction, Bid, AuctionBid>({
  left: (e) => (e.type === 'auction' ? e.auction : undefined),
  right: (e) => (e.type === 'bid' ? e.bid : undefined),
  on: (a, b) => a.dateTime <= b.dateTime && b.dateTime <= a.expires,
  join: (auction, bid) => ({ auction, bid }),
});

/** The join of the auctions and bids among `events`. */
export function auctionBids(events: DataStream<NexmarkEvent>): DataStream<AuctionBid> {
  return events
    .filter((e) => e.type !== 'person')
    .name('auctions, bids')
    .keyBy(auctionIdOf, 'auction id')
    .process(duringAuction)
    .name('auction ⋈ bid during the auction');
}
