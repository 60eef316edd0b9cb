/**
 * q12, processing-time windows: the number of bids of each bidder per 10 s of wall-clock time.
 * Nondeterministic (depends on how fast events flow): benchmarked, never compared.
 */

import type { Bid } from '../../../src/connectors/nexmark/index.js';
import { Windows } from '../../../src/index.js';
import { bids, countRecords } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q12: a bidder's count in the wall-clock window `[starttime, endtime)`. */
export interface Q12Row {
  readonly bidder: number;
  readonly bidCount: number;
  readonly starttime: number;
  readonly endtime: number;
}

export const q12: NexmarkQuery<Q12Row> = {
  name: 'q12',
  title: 'processing-time windows: bids per bidder per 10 s of wall-clock time',
  deterministic: false,
  build: (events) =>
    bids(events)
      .keyBy((b) => b.bidder, 'bidder')
      .window(Windows.tumblingProcessingTime(10_000))
      .aggregate(countRecords<Bid>())
      .map(
        (r): Q12Row => ({
          bidder: r.key,
          bidCount: r.value,
          starttime: r.window.start,
          endtime: r.window.end,
        }),
      ),
  toRow: (r) => [r.bidder, r.bidCount, r.starttime, r.endtime],
};
