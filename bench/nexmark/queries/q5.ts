/**
 * q5, hot items: for every 10 s window sliding by 2 s, the auctions with the most bids (all of
 * them on a tie). Two keyed stages, as the SQL plan: a sliding count per auction, then per
 * window the maximum and the auctions reaching it.
 */

import {
  type Collector,
  type ProcessWindowFunction,
  type WindowContext,
  type WindowResult,
  Windows,
} from '../../../src/index.js';
import { bids, countRecords } from './common.js';
import type { NexmarkQuery } from './query.js';

/** Window size and slide of q5. */
export const Q5_SIZE_MS = 10_000;
export const Q5_SLIDE_MS = 2_000;

/** A row of q5: an auction with the most bids in some window, and that count. */
export interface Q5Row {
  readonly auction: number;
  readonly num: number;
}

/** Per window (keyed by its end), the auctions whose count is the window's maximum. */
const hottest: ProcessWindowFunction<WindowResult<number, number>, Q5Row, number> = {
  process(
    _windowEnd: number,
    _context: WindowContext,
    counts: readonly WindowResult<number, number>[],
    out: Collector<Q5Row>,
  ): void {
    let max = 0;
    for (const c of counts) if (c.value > max) max = c.value;
    for (const c of counts) if (c.value >= max) out.collect({ auction: c.key, num: c.value });
  },
};

export const q5: NexmarkQuery<Q5Row> = {
  name: 'q5',
  title: 'hot items: most-bid auctions per sliding window',
  deterministic: true,
  build: (events) =>
    bids(events)
      // Only the auction crosses the shuffle (the event time travels with the record), as
      // Flink's planner prunes the columns a query does not read.
      .map((b) => b.auction)
      .keyBy((auction) => auction, 'auction')
      .window(Windows.sliding(Q5_SIZE_MS, Q5_SLIDE_MS))
      .aggregate(countRecords<number>())
      // Each count is stamped with its window's end - 1, so a tumbling window of one slide,
      // keyed by the window end, holds exactly the counts of one sliding window.
      .keyBy((c) => c.window.end, 'window end')
      .window(Windows.tumbling(Q5_SLIDE_MS))
      .process(hottest),
  toRow: (r) => [r.auction, r.num],
};
