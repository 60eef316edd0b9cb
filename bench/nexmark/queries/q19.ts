/**
 * q19, auction top-10 price: per auction, the 10 highest bids with their rank (equal prices
 * ranked in arrival order). The SQL's `ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price
 * DESC) <= 10` with the row number selected is Weir's top-N with rank numbers: a bid entering
 * the top 10 moves the bids below it down a rank (`-U` old rank, `+U` new rank, as Flink emits).
 */

import type { Bid } from '../../../src/connectors/nexmark/index.js';
import type { Ranked } from '../../../src/index.js';
import { bids } from './common.js';
import type { UpdatingNexmarkQuery } from './query.js';

export const q19: UpdatingNexmarkQuery<Ranked<Bid>> = {
  name: 'q19',
  title: 'auction top-10 price: the 10 highest bids per auction with their rank (top-N)',
  deterministic: true,
  updating: true,
  build: (events) =>
    bids(events)
      .keyBy((b) => b.auction, 'auction')
      .topN({ n: 10, compare: (x, y) => y.price - x.price, rankNumber: true }),
  toRow: ({ rank, row: b }) => [
    b.auction,
    b.bidder,
    b.price,
    b.channel,
    b.url,
    b.dateTime,
    b.extra,
    rank,
  ],
};
