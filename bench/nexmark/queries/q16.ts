/**
 * q16, channel statistics per day: q15's counts per channel and UTC day, plus the latest
 * `HH:mm` seen. One tumbling day window per channel (see q15 for how this relates to the
 * SQL's unwindowed grouping).
 */
import { Windows } from '../../../src/index.js';
import { type BidStats, bidStats, statsColumns } from './bid-stats.js';
import { bids, DAY_MS, formatDay, formatMinute } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q16. */
export interface Q16Row {
  readonly channel: string;
  readonly day: string;
  readonly minute: string;
  readonly stats: BidStats;
}

export const q16: NexmarkQuery<Q16Row> = {
  name: 'q16',
  title: 'channel statistics per day (count-distinct with filters)',
  deterministic: true,
  build: (events) =>
    bids(events)
      .keyBy((b) => b.channel, 'channel')
      .window(Windows.tumbling(DAY_MS))
      .aggregate(bidStats)
      .map(
        (r): Q16Row => ({
          channel: r.key,
          day: formatDay(r.window.start),
          // MAX(DATE_FORMAT(dateTime, 'HH:mm')) within one day = the minute of the latest bid.
          minute: formatMinute(r.value.lastTime),
          stats: r.value,
        }),
      ),
  toRow: (r) => [r.channel, r.day, r.minute, ...statsColumns(r.stats)],
};
