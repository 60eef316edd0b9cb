/** q11, user sessions: the number of bids of each bidder per session (10 s inactivity gap). */

import { Windows } from '../../../src/index.js';
import { bids, countRecords } from './common.js';
import type { NexmarkQuery } from './query.js';

/** Session gap of q11. */
export const Q11_GAP_MS = 10_000;

/** A row of q11: a bidder's session, `[starttime, endtime)` = first bid to last bid + gap. */
export interface Q11Row {
  readonly bidder: number;
  readonly bidCount: number;
  readonly starttime: number;
  readonly endtime: number;
}

export const q11: NexmarkQuery<Q11Row> = {
  name: 'q11',
  title: 'user sessions: bids per bidder session',
  deterministic: true,
  build: (events) =>
    bids(events)
      // Only the bidder crosses the shuffle (the event time travels with the record), as
      // Flink's planner prunes the columns a query does not read.
      .map((b) => b.bidder)
      .keyBy((bidder) => bidder, 'bidder')
      .window(Windows.session(Q11_GAP_MS))
      .aggregate(countRecords<number>())
      .map(
        (r): Q11Row => ({
          bidder: r.key,
          bidCount: r.value,
          starttime: r.window.start,
          endtime: r.window.end,
        }),
      ),
  toRow: (r) => [r.bidder, r.bidCount, r.starttime, r.endtime],
};
