/**
 * q4, average price per category: the winning (maximum) price of every auction among its bids
 * within its lifetime, averaged per category (`AVG` of a BIGINT truncates). Two updating
 * aggregations after a regular join, as in the SQL: per auction the maximum, whose changes
 * (`+I` first, then `-U` old, `+U` new) feed, per category, a sum and count that can retract.
 */

import {
  type Change,
  Changes,
  type Collector,
  type KeyedProcessContext,
  type KeyedProcessFunction,
  type KeyedRuntimeContext,
  type ValueState,
} from '../../../src/index.js';
import { auctionBids } from './auction-bids.js';
import type { UpdatingNexmarkQuery } from './query.js';
import { topOne } from './top-one.js';

/** An auction's winning price so far. */
interface AuctionFinal {
  readonly id: number;
  readonly category: number;
  readonly final: number;
}

/** A row of q4. */
export interface Q4Row {
  readonly category: number;
  readonly avg: number;
}

interface Average {
  sum: number;
  count: number;
}

interface AveragePrice extends KeyedProcessFunction<number, Change<AuctionFinal>, Change<Q4Row>> {
  acc?: ValueState<Average>;
}

const avgRow = (category: number, a: Average): Q4Row => ({
  category,
  avg: Math.trunc(a.sum / a.count),
});

/** `AVG(final) GROUP BY category` over a changelog, keyed by category. */
const averagePrice: AveragePrice = {
  open(context: KeyedRuntimeContext) {
    this.acc = context.state.getValueState<Average>('sum and count');
  },
  processElement(
    c: Change<AuctionFinal>,
    ctx: KeyedProcessContext<number>,
    out: Collector<Change<Q4Row>>,
  ) {
    const prev = this.acc!.value() ?? { sum: 0, count: 0 };
    const sign = Changes.isAccumulate(c) ? 1 : -1;
    const next = { sum: prev.sum + sign * c.value.final, count: prev.count + sign };
    if (prev.count > 0 && next.count > 0) {
      const before = avgRow(ctx.key, prev);
      const after = avgRow(ctx.key, next);
      if (before.avg !== after.avg) {
        out.collect(Changes.updateBefore(before));
        out.collect(Changes.updateAfter(after));
      }
    } else if (next.count > 0) out.collect(Changes.insert(avgRow(ctx.key, next)));
    else if (prev.count > 0) out.collect(Changes.delete(avgRow(ctx.key, prev)));
    if (next.count > 0) this.acc!.update(next);
    else this.acc!.clear();
  },
};

export const q4: UpdatingNexmarkQuery<Q4Row> = {
  name: 'q4',
  title: 'average winning price per category (regular join, two updating aggregations)',
  deterministic: true,
  updating: true,
  build: (events) =>
    auctionBids(events)
      .map(
        (x): AuctionFinal => ({
          id: x.auction.id,
          category: x.auction.category,
          final: x.bid.price,
        }),
      )
      // MAX(price) GROUP BY A.id, A.category (an auction's category is fixed).
      .keyBy((x) => x.id, 'auction id')
      .process(topOne<AuctionFinal>((x, y) => x.final > y.final))
      .name('max price per auction')
      .keyBy((c) => c.value.category, 'category')
      .process(averagePrice)
      .name('average per category'),
  toRow: (r) => [r.category, r.avg],
};
