/**
 * q13, bounded side input join: every bid with the value its `auction % 10000` has in a static
 * side table (bench/nexmark/side-input.ts, the same CSV file the Flink peer reads). The SQL is
 * a processing-time lookup join against a table that never changes, so each subtask loads the
 * table into memory when it opens and looks every bid up there (what Flink's lookup function
 * does too); a bid whose key is missing has no match (an inner join).
 */

import type { Bid } from '../../../src/connectors/nexmark/index.js';
import type { Collector, ProcessFunction } from '../../../src/index.js';
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

interface SideInputLookup extends ProcessFunction<Bid, Q13Row> {
  table?: Map<number, string>;
}

function lookup(path: string): SideInputLookup {
  return {
    open() {
      this.table = readSideInput(path);
    },
    processElement(b: Bid, _ctx, out: Collector<Q13Row>) {
      const value = this.table!.get(b.auction % SIDE_INPUT_ROWS);
      if (value === undefined) return;
      out.collect({
        auction: b.auction,
        bidder: b.bidder,
        price: b.price,
        dateTime: b.dateTime,
        value,
      });
    },
  };
}

export const q13: NexmarkQuery<Q13Row> = {
  name: 'q13',
  title: 'bounded side input join: bids with a static table on auction % 10000',
  deterministic: true,
  build: (events) => bids(events).process(lookup(sideInputFile())).name('side input lookup'),
  toRow: (r) => [r.auction, r.bidder, r.price, r.dateTime, r.value],
};
