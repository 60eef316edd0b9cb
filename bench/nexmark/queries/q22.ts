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

/**
 * `SPLIT_INDEX(s, '/', first)` to `SPLIT_INDEX(s, '/', first + 2)` (tokens from 0, split at
 * every '/', null past the last token) in one scan: the separators are found with `indexOf`
 * and only the three tokens asked for are cut. `split('/')` would cut every token of the url
 * into a new array, and costs V8 several times as much.
 */
export function threeTokens(
  s: string,
  first: number,
): [string | null, string | null, string | null] {
  let start = 0;
  for (let k = 0; k < first; k++) {
    const slash = s.indexOf('/', start);
    if (slash < 0) return [null, null, null];
    start = slash + 1;
  }
  const tokens: [string | null, string | null, string | null] = [null, null, null];
  for (let k = 0; k < 3; k++) {
    const slash = s.indexOf('/', start);
    if (slash < 0) {
      tokens[k] = s.slice(start);
      break;
    }
    tokens[k] = s.slice(start, slash);
    start = slash + 1;
  }
  return tokens;
}

export const q22: NexmarkQuery<Q22Row> = {
  name: 'q22',
  title: 'url directories: first three path segments',
  deterministic: true,
  build: (events) =>
    bids(events).map((b): Q22Row => {
      const dirs = threeTokens(b.url, 3);
      return {
        auction: b.auction,
        bidder: b.bidder,
        price: b.price,
        channel: b.channel,
        dir1: dirs[0],
        dir2: dirs[1],
        dir3: dirs[2],
      };
    }),
  toRow: (r) => [r.auction, r.bidder, r.price, r.channel, r.dir1, r.dir2, r.dir3],
};
