/** q22, url directories: the first three path segments of each bid's url. */
import { bids } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q22. */
export interface Q22Row {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly channel: string;
  readonly dir1: string | null;
  readonly dir2: string | null;
  readonly dir3: string | null;
}

export const q22: NexmarkQuery<Q22Row> = {
  name: 'q22',
  title: 'url directories: first three path segments',
  deterministic: true,
  build: (events) =>
    bids(events).map((b): Q22Row => {
      // SPLIT_INDEX(url, '/', i): the i-th token (from 0) splitting at every '/', or null.
      const parts = b.url.split('/');
      return {
        auction: b.auction,
        bidder: b.bidder,
        price: b.price,
        channel: b.channel,
        dir1: parts[3] ?? null,
        dir2: parts[4] ?? null,
        dir3: parts[5] ?? null,
      };
    }),
  toRow: (r) => [r.auction, r.bidder, r.price, r.channel, r.dir1, r.dir2, r.dir3],
};
