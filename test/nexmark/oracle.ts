/**
 * Plain-loop oracles for the Nexmark queries: each computes a query's final rows from the
 * whole list of events, with no engine, no watermarks and no windows API, formulated
 * independently of bench/nexmark/queries (the generator's events are in event-time order per
 * subtask, so no event is ever late and the final result is a function of all events). For
 * updating queries (joins, aggregations without windows, deduplication, top-N) the rows are the
 * final materialized result.
 */
import {
  type Auction,
  type Bid,
  type NexmarkConfig,
  nexmarkConfig,
  nexmarkEvent,
  type Person,
} from '../../src/connectors/nexmark/index.js';

type Row = (number | string | null)[];

/** The events of a run, by kind, each list in event order. */
export interface OracleInput {
  readonly people: readonly Person[];
  readonly auctions: readonly Auction[];
  readonly bids: readonly Bid[];
}

/** All events of the first `maxEvents`, by kind. */
export function allEvents(config: Partial<NexmarkConfig>): OracleInput {
  const c = nexmarkConfig(config);
  const people: Person[] = [];
  const auctions: Auction[] = [];
  const bids: Bid[] = [];
  for (let i = 0; i < c.maxEvents; i++) {
    const e = nexmarkEvent(i, c);
    if (e.type === 'person') people.push(e.person);
    else if (e.type === 'auction') auctions.push(e.auction);
    else bids.push(e.bid);
  }
  return { people, auctions, bids };
}

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

const auctionRow = (a: Auction): Row => [
  a.id,
  a.itemName,
  a.description,
  a.initialBid,
  a.reserve,
  a.dateTime,
  a.expires,
  a.seller,
  a.category,
  a.extra,
];
const bidRow = (b: Bid): Row => [
  b.auction,
  b.bidder,
  b.price,
  b.channel,
  b.url,
  b.dateTime,
  b.extra,
];

function q3({ people, auctions }: OracleInput): Row[] {
  const rows: Row[] = [];
  for (const a of auctions) {
    if (a.category !== 10) continue;
    for (const p of people) {
      if (p.id === a.seller && ['OR', 'ID', 'CA'].includes(p.state)) {
        rows.push([p.name, p.city, p.state, a.id]);
      }
    }
  }
  return rows;
}

/** Each auction with its bids timed within [opening, expiry], in event order. */
function bidsDuringAuction({ auctions, bids }: OracleInput): Map<Auction, Bid[]> {
  const byAuction = groupBy(bids, (b) => b.auction);
  const out = new Map<Auction, Bid[]>();
  for (const a of auctions) {
    const during = (byAuction.get(a.id) ?? []).filter(
      (b) => a.dateTime <= b.dateTime && b.dateTime <= a.expires,
    );
    if (during.length > 0) out.set(a, during);
  }
  return out;
}

function q4(input: OracleInput): Row[] {
  const finals = new Map<number, number[]>();
  for (const [a, during] of bidsDuringAuction(input)) {
    const list = finals.get(a.category) ?? [];
    finals.set(a.category, list);
    list.push(Math.max(...during.map((b) => b.price)));
  }
  return [...finals].map(([category, list]) => [
    category,
    Math.floor(list.reduce((x, y) => x + y, 0) / list.length),
  ]);
}

function q8({ people, auctions }: OracleInput): Row[] {
  const sellers = new Set(auctions.map((a) => `${a.seller}@${floorTo(a.dateTime, 10_000)}`));
  return people
    .filter((p) => sellers.has(`${p.id}@${floorTo(p.dateTime, 10_000)}`))
    .map((p) => [p.id, p.name, floorTo(p.dateTime, 10_000)]);
}

/** The winning bid: highest price, then earliest time, then first in event order. */
function winner(during: readonly Bid[]): Bid {
  let best = during[0]!;
  for (const b of during) {
    if (b.price > best.price || (b.price === best.price && b.dateTime < best.dateTime)) best = b;
  }
  return best;
}

function q9(input: OracleInput): Row[] {
  const rows: Row[] = [];
  for (const [a, during] of bidsDuringAuction(input)) {
    const b = winner(during);
    rows.push([...auctionRow(a), b.auction, b.bidder, b.price, b.dateTime, b.extra]);
  }
  return rows;
}

/** Per bidder and auction, the latest bid; on equal times the last in event order. */
function q18({ bids }: OracleInput): Row[] {
  const last = new Map<string, Bid>();
  for (const b of bids) {
    const key = `${b.bidder}/${b.auction}`;
    const prev = last.get(key);
    if (prev === undefined || b.dateTime >= prev.dateTime) last.set(key, b);
  }
  return [...last.values()].map(bidRow);
}

/** Per auction, its bids by descending price, equal prices in event order. */
function byPrice({ bids }: OracleInput): Map<number, Bid[]> {
  const m = groupBy(bids, (b) => b.auction);
  // Array.prototype.sort is stable: equal prices keep their event order.
  for (const list of m.values()) list.sort((x, y) => y.price - x.price);
  return m;
}

function q19(input: OracleInput): Row[] {
  const rows: Row[] = [];
  for (const list of byPrice(input).values()) {
    for (const [i, b] of list.slice(0, 10).entries()) rows.push([...bidRow(b), i + 1]);
  }
  return rows;
}

function q20({ auctions, bids }: OracleInput): Row[] {
  const rows: Row[] = [];
  for (const b of bids) {
    for (const a of auctions) {
      // The auction's columns but its id (the bid's auction column).
      if (a.id === b.auction && a.category === 10)
        rows.push([...bidRow(b), ...auctionRow(a).slice(1)]);
    }
  }
  return rows;
}

/** The oracle of each query that has one. */
export const ORACLES: Readonly<Record<string, (input: OracleInput) => Row[]>> = {
  q0: ({ bids }) => bids.map((b) => [b.auction, b.bidder, b.price, b.dateTime, b.extra]),
  q2: ({ bids }) => bids.filter((b) => b.auction % 123 === 0).map((b) => [b.auction, b.price]),
  q3,
  q4,
  q5: ({ bids }) => q5(bids),
  q7: ({ bids }) => q7(bids),
  q8,
  q9,
  q11: ({ bids }) => q11(bids),
  // The side input maps key k to the string of k (bench/nexmark/side-input.ts).
  q13: ({ bids }) =>
    bids.map((b) => [b.auction, b.bidder, b.price, b.dateTime, String(b.auction % 10_000)]),
  q14: ({ bids }) => q14(bids),
  q15: ({ bids }) => q15(bids),
  q16: ({ bids }) => q16(bids),
  q17: ({ bids }) => q17(bids),
  q18,
  q19,
  q20,
  q21: ({ bids }) => q21(bids),
  q22: ({ bids }) => q22(bids),
};

/**
 * Where a query's result depends on the order in which equal-ranked records arrive (ties the
 * SQL's ORDER BY leaves open: keep-last on equal times, top-N on equal prices): a function
 * naming the group of a result row, and the groups whose result is such a tie. In event order
 * (one source subtask) the oracle's choice is the engines' (first arrival ranks first, the last
 * arrival is kept); with several subtasks arrival order varies, so comparisons leave these
 * groups out.
 */
export interface OrderSensitivity {
  readonly groupOfRow: (row: Row) => string;
  readonly tiedGroups: (input: OracleInput) => Set<string>;
}

export const ORDER_SENSITIVE: Readonly<Record<string, OrderSensitivity>> = {
  q9: {
    groupOfRow: (row) => String(row[0]),
    tiedGroups(input) {
      const tied = new Set<string>();
      for (const [a, during] of bidsDuringAuction(input)) {
        const w = winner(during);
        const n = during.filter((b) => b.price === w.price && b.dateTime === w.dateTime).length;
        if (n > 1) tied.add(String(a.id));
      }
      return tied;
    },
  },
  q18: {
    groupOfRow: (row) => `${row[1]}/${row[0]}`,
    tiedGroups({ bids }) {
      const latest = new Map<string, { time: number; n: number }>();
      for (const b of bids) {
        const key = `${b.bidder}/${b.auction}`;
        const l = latest.get(key);
        if (l === undefined || b.dateTime > l.time) latest.set(key, { time: b.dateTime, n: 1 });
        else if (b.dateTime === l.time) l.n++;
      }
      return new Set([...latest].filter(([, l]) => l.n > 1).map(([key]) => key));
    },
  },
  q19: {
    groupOfRow: (row) => String(row[0]),
    tiedGroups(input) {
      const tied = new Set<string>();
      for (const [auction, list] of byPrice(input)) {
        // A tie matters when it spans ranks 1..10 or the cut after rank 10.
        for (let i = 0; i + 1 < list.length && i < 10; i++) {
          if (list[i]!.price === list[i + 1]!.price) tied.add(String(auction));
        }
      }
      return tied;
    },
  },
};

/**
 * A filter dropping the result rows (JSON arrays) of `query`'s order-sensitive groups in
 * `input`, for comparing runs whose arrival order may differ; the identity for other queries.
 */
export function withoutTiedGroups(
  query: string,
  input: OracleInput,
): (rows: readonly string[]) => string[] {
  const sensitive = ORDER_SENSITIVE[query];
  if (sensitive === undefined) return (rows) => [...rows];
  const tied = sensitive.tiedGroups(input);
  return (rows) => rows.filter((r) => !tied.has(sensitive.groupOfRow(JSON.parse(r) as Row)));
}
