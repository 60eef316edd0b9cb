/** q2, selection: the bids on every 123rd auction (`MOD(auction, 123) = 0`). */
import { bids } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q2. */
export interface Q2Row {
  readonly auction: number;
  readonly price: number;
}

export const q2: NexmarkQuery<Q2Row> = {
  name: 'q2',
  title: 'selection: bids on every 123rd auction',
  deterministic: true,
  build: (events) =>
    bids(events)
      .filter((b) => b.auction % 123 === 0)
      .map((b): Q2Row => ({ auction: b.auction, price: b.price })),
  toRow: (r) => [r.auction, r.price],
};
