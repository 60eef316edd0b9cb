/** q0, pass-through: every bid, projected to five columns. Measures the engine's overhead. */
import { bids } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q0. */
export interface Q0Row {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly dateTime: number;
  readonly extra: string;
}

export const q0: NexmarkQuery<Q0Row> = {
  name: 'q0',
  title: 'pass-through: every bid, projected',
  deterministic: true,
  build: (events) =>
    bids(events).map(
      (b): Q0Row => ({
        auction: b.auction,
        bidder: b.bidder,
        price: b.price,
        dateTime: b.dateTime,
        extra: b.extra,
      }),
    ),
  toRow: (r) => [r.auction, r.bidder, r.price, r.dateTime, r.extra],
};
