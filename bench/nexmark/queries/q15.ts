/**
 * q15, bidding statistics per day: bids, distinct bidders and distinct auctions, in total and
 * per price rank. The SQL groups by the formatted day without a window and emits an update per
 * change; here each UTC day is a tumbling event-time window keyed by the day, emitting the
 * day's final row when the watermark passes its end. The final table is the same.
 */
import { Windows } from '../../../src/index.js';
import { type BidStats, bidStats, statsColumns } from './bid-stats.js';
import { bids, DAY_MS, formatDay } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q15. */
export interface Q15Row {
  readonly day: string;
  readonly stats: BidStats;
}

export const q15: NexmarkQuery<Q15Row> = {
  name: 'q15',
  title: 'bidding statistics per day (count-distinct with filters)',
  deterministic: true,
  build: (events) =>
    bids(events)
      .keyBy((b) => Math.floor(b.dateTime / DAY_MS), 'day')
      .window(Windows.tumbling(DAY_MS))
      .aggregate(bidStats)
      .map((r): Q15Row => ({ day: formatDay(r.window.start), stats: r.value })),
  toRow: (r) => [r.day, ...statsColumns(r.stats)],
};
