/**
 * q18, last bid: per bidder and auction, the bid with the latest time (on equal times the one
 * that arrived last). The SQL's `ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY
 * dateTime DESC) <= 1` is Flink's keep-last deduplication by event time, and so is Weir's:
 * each key's first bid is inserted, a later one replaces it (`-U` old, `+U` new).
 */

import type { Bid } from '../../../src/connectors/nexmark/index.js';
import { bids } from './common.js';
import type { UpdatingNexmarkQuery } from './query.js';

export const q18: UpdatingNexmarkQuery<Bid> = {
  name: 'q18',
  title: 'last bid per bidder and auction (keep-last deduplication)',
  deterministic: true,
  updating: true,
  build: (events) =>
    bids(events)
      .keyBy((b) => `${b.bidder}/${b.auction}`, 'bidder, auction')
      .deduplicate({ keep: 'last', order: 'event-time' }),
  toRow: (b) => [b.auction, b.bidder, b.price, b.channel, b.url, b.dateTime, b.extra],
};
