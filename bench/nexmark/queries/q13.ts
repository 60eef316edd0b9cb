/**
 * q13, bounded side input join: every bid with the value its `auction % 10000` has in a static
 * side table (bench/nexmark/side-input.ts, the same CSV file the Flink peer reads). The SQL is
 * a processing-time lookup join against a table that never changes; on Weir it is a lookup join
 * against an in-memory table of the file's rows (an inner join: a bid whose key is missing has
 * no result).
 */

import type { Bid } from '../../../src/connectors/nexmark/index.js';
import { InMemoryLookupTable } from '../../../src/index.js';
import { readSideInput, SIDE_INPUT_ROWS, sideInputFile } from '../side-input.js';
import { bids } from './common.js';
import type { NexmarkQuery } from './query.js';

/** A row of q13. */
export interface Q13Row {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly dateTime: number;
  readonly value: string;
}

export const q13: NexmarkQuery<Q13Row> = {
  name: 'q13',
  title: 'bounded side input join: bids with a static table on auction % 10000',
  deterministic: true,
  build: (events) =>
    bids(events).lookupJoin(
      new InMemoryLookupTable(readSideInput(sideInputFile()), { name: 'side_input' }),
      {
        // The table is in memory, so the join runs synchronously (no async I/O round trips).
        key: (b: Bid) => b.auction % SIDE_INPUT_ROWS,
        select: (b: Bid, value: string): Q13Row => ({
          auction: b.auction,
          bidder: b.bidder,
          price: b.price,
          dateTime: b.dateTime,
          value,
        }),
      },
    ),
  toRow: (r) => [r.auction, r.bidder, r.price, r.dateTime, r.value],
};
