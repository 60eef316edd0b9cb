/**
 * q4, average price per category: the winning (maximum) price of every auction among its bids
 * within its lifetime, averaged per category (`AVG` of a BIGINT truncates). Two updating
 * aggregations after a regular join, as in the SQL: per auction the maximum, whose changes
 * (`+I` first, then `-U` old, `+U` new) feed, per category, an average that retracts the old
 * maximum when a new one arrives.
 */

import type { RetractableAggregateFunction } from '../../../src/index.js';
import { auctionBids } from './auction-bids.js';
import type { UpdatingNexmarkQuery } from './query.js';

/** An auction's winning price so far. */
interface AuctionFinal {
  readonly category: number;
  readonly final: number;
}

/** A row of q4: the category and the average winning price. */
export interface Q4Row {
  readonly key: number;
  readonly value: number;
}

/** `MAX(B.price) GROUP BY A.id, A.category` (an auction's category is fixed). */
const maxPrice: RetractableAggregateFunction<
  { readonly category: number; readonly price: number },
  AuctionFinal | undefined,
  AuctionFinal
> = {
  createAccumulator: () => undefined,
  add: (x, acc) =>
    acc === undefined || x.price > acc.final ? { category: x.category, final: x.price } : acc,
  getResult: (acc) => acc!,
};

interface Average {
  readonly sum: number;
  readonly count: number;
}

/** `AVG(final)` over a changelog: a sum and a count that retractions take away from. */
const averageFinal: RetractableAggregateFunction<AuctionFinal, Average, number> = {
  createAccumulator: () => ({ sum: 0, count: 0 }),
  add: (x, acc) => ({ sum: acc.sum + x.final, count: acc.count + 1 }),
  retract: (x, acc) => ({ sum: acc.sum - x.final, count: acc.count - 1 }),
  getResult: (acc) => Math.trunc(acc.sum / acc.count),
};

export const q4: UpdatingNexmarkQuery<Q4Row> = {
  name: 'q4',
  title: 'average winning price per category (regular join, two updating aggregations)',
  deterministic: true,
  updating: true,
  build: (events) =>
    auctionBids(events)
      .map(([a, b]) => ({ id: a.id, category: a.category, price: b.price }))
      .keyBy((x) => x.id, 'auction id')
      .updatingAggregate(maxPrice)
      .mapRows((r) => r.value)
      .groupBy((r) => r.category, 'category')
      .updatingAggregate(averageFinal),
  toRow: (r) => [r.key, r.value],
};
