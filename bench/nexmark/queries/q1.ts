/** q1, currency conversion: every bid with its price converted to euro (`0.908 * price`). */
import { bids, euroDecimal } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q1; `price` is in euro cents (a double; the SQL type is DECIMAL(24, 3)). */
export interface Q1Row {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly dateTime: number;
  readonly extra: string;
}

export const q1: NexmarkQuery<Q1Row> = {
  name: 'q1',
  title: 'currency conversion: bid prices in euro',
  deterministic: true,
  build: (events) =>
    bids(events).map(
      (b): Q1Row => ({
        auction: b.auction,
        bidder: b.bidder,
        price: b.price * 0.908,
        dateTime: b.dateTime,
        extra: b.extra,
      }),
    ),
  toRow: (r) => [r.auction, r.bidder, euroDecimal(r.price), r.dateTime, r.extra],
};
