/**
 * q7, highest bid: the bids whose price is the maximum of a 10 s tumbling window. As in the SQL
 * (a join of the bids with the windows' maxima on price, for bids timed in [window end - 10 s,
 * window end]), a bid exactly at a window's end also matches that window when its price equals
 * the window's maximum, even though it belongs to the next window.
 */

import type { Bid } from '../../../src/connectors/nexmark/index.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  OnTimerContext,
  ValueState,
} from '../../../src/index.js';
import { bids } from './common.js';
import type { NexmarkQuery } from './query.js';

/** Window size of q7. */
export const Q7_WINDOW_MS = 10_000;

/** A row of q7, with the columns in the order the reference selects them. */
export interface Q7Row {
  readonly auction: number;
  readonly price: number;
  readonly bidder: number;
  readonly dateTime: number;
  readonly extra: string;
}

/** A bid timed exactly at the end of the window it is sent to (it belongs to the next one). */
interface BoundaryBid {
  readonly boundary: Bid;
}

type Q7Input = Bid | BoundaryBid;

/** Start of the window a record is sent to. */
function windowOf(x: Q7Input): number {
  if ('boundary' in x) return x.boundary.dateTime - Q7_WINDOW_MS;
  return x.dateTime - (((x.dateTime % Q7_WINDOW_MS) + Q7_WINDOW_MS) % Q7_WINDOW_MS);
}

function withBoundaryCopies(b: Bid, out: Collector<Q7Input>): void {
  out.collect(b);
  if (b.dateTime % Q7_WINDOW_MS === 0) out.collect({ boundary: b });
}

/** What a window holds until it closes: its maximum and the bids that may match it. */
interface Highest {
  max: number;
  /** The window's own bids priced at `max`. */
  best: Bid[];
  /** Bids at the window's end (matched if priced at `max`). */
  boundary: Bid[];
}

interface HighestBidFunction extends KeyedProcessFunction<number, Q7Input, Q7Row> {
  state?: ValueState<Highest>;
}

function row(b: Bid): Q7Row {
  return {
    auction: b.auction,
    price: b.price,
    bidder: b.bidder,
    dateTime: b.dateTime,
    extra: b.extra,
  };
}

/** Keyed by window start; a timer at the window's end (inclusive) emits the matches. */
const highestBid: HighestBidFunction = {
  open(context: KeyedRuntimeContext) {
    this.state = context.state.getValueState<Highest>('highest');
  },
  processElement(x: Q7Input, ctx: KeyedProcessContext<number>) {
    const state = this.state!;
    let h = state.value();
    if (h === undefined) {
      h = { max: Number.NEGATIVE_INFINITY, best: [], boundary: [] };
      // All bids timed <= the window end have arrived once the watermark reaches it.
      ctx.timerService.registerEventTimeTimer(ctx.key + Q7_WINDOW_MS);
    }
    if ('boundary' in x) h.boundary.push(x.boundary);
    else if (x.price > h.max) {
      h.max = x.price;
      h.best = [x];
    } else if (x.price === h.max) h.best.push(x);
    state.update(h);
  },
  onTimer(_time: number, _ctx: OnTimerContext<number>, out: Collector<Q7Row>) {
    const state = this.state!;
    const h = state.value();
    if (h === undefined) return;
    for (const b of h.best) out.collect(row(b));
    for (const b of h.boundary) if (b.price === h.max) out.collect(row(b));
    state.clear();
  },
};

export const q7: NexmarkQuery<Q7Row> = {
  name: 'q7',
  title: 'highest bid: bids at the maximum price of a 10 s window',
  deterministic: true,
  build: (events) =>
    bids(events).flatMap(withBoundaryCopies).keyBy(windowOf, 'window start').process(highestBid),
  toRow: (r) => [r.auction, r.price, r.bidder, r.dateTime, r.extra],
};
