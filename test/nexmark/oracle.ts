/**
 * Plain-loop oracles for the Nexmark queries: each computes a query's final rows from the
 * whole list of bids, with no engine, no watermarks and no windows API, formulated
 * independently of bench/nexmark/queries (the generator's events are in event-time order per
 * subtask, so no bid is ever late and the final result is a function of all bids).
 */
import {
  type Bid,
  type NexmarkConfig,
  nexmarkConfig,
  nexmarkEvent,
} from '../../src/connectors/nexmark/index.js';

type Row = (number | string | null)[];

/** All bids of the first `maxEvents` events. */
export function allBids(config: Partial<NexmarkConfig>): Bid[] {
  const c = nexmarkConfig(config);
  const out: Bid[] = [];
  for (let i = 0; i < c.maxEvents; i++) {
    const e = nexmarkEvent(i, c);
    if (e.type === 'bid') out.push(e.bid);
  }
  return out;
}

function groupBy<K, V>(values: readonly V[], key: (v: V) => K): Map<K, V[]> {
  const m = new Map<K, V[]>();
  for (const v of values) {
    const k = key(v);
    const list = m.get(k);
    if (list === undefined) m.set(k, [v]);
    else list.push(v);
  }
  return m;
}

const floorTo = (t: number, size: number) => t - (((t % size) + size) % size);
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
const rank = (price: number) => (price < 10_000 ? 1 : price < 1_000_000 ? 2 : 3);

function q5(bids: readonly Bid[]): Row[] {
  // window start -> auction -> count, for every 10 s window sliding by 2 s.
  const windows = new Map<number, Map<number, number>>();
  for (const b of bids) {
    for (let start = floorTo(b.dateTime, 2000); start > b.dateTime - 10_000; start -= 2000) {
      const counts = windows.get(start) ?? new Map<number, number>();
      windows.set(start, counts);
      counts.set(b.auction, (counts.get(b.auction) ?? 0) + 1);
    }
  }
  const rows: Row[] = [];
  for (const counts of windows.values()) {
    const max = Math.max(...counts.values());
    for (const [auction, n] of counts) if (n >= max) rows.push([auction, n]);
  }
  return rows;
}

function q7(bids: readonly Bid[]): Row[] {
  const maxByEnd = new Map<number, number>();
  for (const b of bids) {
    const end = floorTo(b.dateTime, 10_000) + 10_000;
    maxByEnd.set(end, Math.max(maxByEnd.get(end) ?? 0, b.price));
  }
  const rows: Row[] = [];
  for (const b of bids) {
    // Windows w with w.end - 10 s <= dateTime <= w.end.
    for (const [end, max] of maxByEnd) {
      if (b.price === max && end - 10_000 <= b.dateTime && b.dateTime <= end) {
        rows.push([b.auction, b.price, b.bidder, b.dateTime, b.extra]);
      }
    }
  }
  return rows;
}

function q11(bids: readonly Bid[]): Row[] {
  const rows: Row[] = [];
  for (const [bidder, list] of groupBy(bids, (b) => b.bidder)) {
    const times = list.map((b) => b.dateTime).sort((a, b) => a - b);
    let first = times[0]!;
    let last = first;
    let n = 0;
    for (const t of times) {
      if (t > last + 10_000) {
        rows.push([bidder, n, first, last + 10_000]);
        first = t;
        n = 0;
      }
      last = t;
      n++;
    }
    rows.push([bidder, n, first, last + 10_000]);
  }
  return rows;
}

function stats(list: readonly Bid[]): number[] {
  const counts = (pred: (b: Bid) => boolean) => list.filter(pred).length;
  const distinct = (pred: (b: Bid) => boolean, f: (b: Bid) => number) =>
    new Set(list.filter(pred).map(f)).size;
  const preds = [
    () => true,
    (b: Bid) => rank(b.price) === 1,
    (b: Bid) => rank(b.price) === 2,
    (b: Bid) => rank(b.price) === 3,
  ];
  return [
    ...preds.map(counts),
    ...preds.map((p) => distinct(p, (b) => b.bidder)),
    ...preds.map((p) => distinct(p, (b) => b.auction)),
  ];
}

function q15(bids: readonly Bid[]): Row[] {
  return [...groupBy(bids, (b) => isoDay(b.dateTime))].map(([day, list]) => [day, ...stats(list)]);
}

function q16(bids: readonly Bid[]): Row[] {
  return [...groupBy(bids, (b) => `${b.channel}\u0000${isoDay(b.dateTime)}`)].map(([, list]) => {
    const minutes = list.map((b) => new Date(b.dateTime).toISOString().slice(11, 16)).sort();
    return [
      list[0]!.channel,
      isoDay(list[0]!.dateTime),
      minutes[minutes.length - 1]!,
      ...stats(list),
    ];
  });
}

function q17(bids: readonly Bid[]): Row[] {
  return [...groupBy(bids, (b) => `${b.auction}/${isoDay(b.dateTime)}`)].map(([, list]) => {
    const prices = list.map((b) => b.price);
    const sum = prices.reduce((a, b) => a + b, 0);
    const byRank = [1, 2, 3].map((r) => prices.filter((p) => rank(p) === r).length);
    return [
      list[0]!.auction,
      isoDay(list[0]!.dateTime),
      list.length,
      ...byRank,
      Math.min(...prices),
      Math.max(...prices),
      Math.floor(sum / list.length),
      sum,
    ];
  });
}

function q14(bids: readonly Bid[]): Row[] {
  return bids
    .filter((b) => 0.908 * b.price > 1_000_000 && 0.908 * b.price < 50_000_000)
    .map((b) => {
      const h = new Date(b.dateTime).getUTCHours();
      const type = h >= 8 && h <= 18 ? 'dayTime' : h <= 6 || h >= 20 ? 'nightTime' : 'otherTime';
      const c = b.extra.split('').filter((ch) => ch === 'c').length;
      return [b.auction, b.bidder, (0.908 * b.price).toFixed(3), type, b.dateTime, b.extra, c];
    });
}

function q21(bids: readonly Bid[]): Row[] {
  const hot: Record<string, string> = { apple: '0', google: '1', facebook: '2', baidu: '3' };
  const rows: Row[] = [];
  for (const b of bids) {
    const id = hot[b.channel.toLowerCase()] ?? new URL(b.url).searchParams.get('channel_id');
    if (id !== null) rows.push([b.auction, b.bidder, b.price, b.channel, id]);
  }
  return rows;
}

function q22(bids: readonly Bid[]): Row[] {
  return bids.map((b) => {
    const [, d1, d2, d3] = new URL(b.url).pathname.split('/');
    return [b.auction, b.bidder, b.price, b.channel, d1 ?? null, d2 ?? null, d3 ?? null];
  });
}

/** The oracle of each query that has one. */
export const ORACLES: Readonly<Record<string, (bids: readonly Bid[]) => Row[]>> = {
  q0: (bids) => bids.map((b) => [b.auction, b.bidder, b.price, b.dateTime, b.extra]),
  q2: (bids) => bids.filter((b) => b.auction % 123 === 0).map((b) => [b.auction, b.price]),
  q5,
  q7,
  q11,
  q14,
  q15,
  q16,
  q17,
  q21,
  q22,
};
