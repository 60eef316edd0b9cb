/**
 * Window Top-N, window deduplication, window joins and SESSION windows compared with Flink
 * SQL: queries in the shapes of Flink's documentation over a small bid table of our own. The
 * same list feeds the Weir test and `npm run goldens:window-operators`, which records Flink's
 * rows. Prices and bid times are distinct, so every ranking has one answer.
 */
import type { MatchCase, RowsTable } from '../match-recognize/cases.js';

const BASE = Date.UTC(2026, 0, 1, 8);

/** 60 bids, 7 s apart, in time order (no row is late). */
function bids(): RowsTable {
  const items = ['A', 'B', 'C', 'D'];
  const suppliers = ['s1', 's2', 's3'];
  const rows: (string | number)[][] = [];
  for (let i = 0; i < 60; i++) {
    // A pause after bid 30 ends the sessions in the middle.
    const time = BASE + i * 7_000 + (i >= 30 ? 120_000 : 0);
    rows.push([
      items[(i * 7) % 4] as string,
      suppliers[(i * 5) % 3] as string,
      ((i * 37) % 101) + 1,
      time,
    ]);
  }
  return {
    name: 'bids',
    columns: [
      ['item', 'STRING'],
      ['supplier', 'STRING'],
      ['price', 'INT'],
      ['bidtime', 'TIMESTAMP(3)'],
    ],
    watermark: "bidtime - INTERVAL '1' SECOND",
    rows,
  };
}

const TUMBLE = "TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '1' MINUTE)";
const HOP = "HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '30' SECOND, INTERVAL '1' MINUTE)";
const CUMULATE =
  "CUMULATE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '20' SECOND, INTERVAL '1' MINUTE)";

const ranked = (partition: string, order: string, bound: string, tvf: string): string =>
  `SELECT item, supplier, price, bidtime, window_start, window_end, rn FROM (
     SELECT *, ROW_NUMBER() OVER (PARTITION BY ${partition} ORDER BY ${order}) AS rn
     FROM TABLE(${tvf}))
   WHERE ${bound}`;

const joined = (type: string, tvf: string): string =>
  `SELECT L.item, L.price, R.price, L.window_start, L.window_end, R.window_start, R.window_end
   FROM (SELECT * FROM TABLE(${tvf}) WHERE MOD(price, 2) = 0) L
   ${type} JOIN (SELECT * FROM TABLE(${tvf}) WHERE MOD(price, 2) = 1) R
   ON L.item = R.item AND L.window_start = R.window_start AND L.window_end = R.window_end`;

export function windowCases(): MatchCase[] {
  const table = bids();
  const sql: Record<string, string> = {
    'top3-tumble': ranked('window_start, window_end', 'price DESC', 'rn <= 3', TUMBLE),
    'top2-per-supplier-hop': ranked('supplier, window_start, window_end', 'price', 'rn <= 2', HOP),
    'top1-cumulate': ranked('window_start, window_end', 'price DESC', 'rn < 2', CUMULATE),
    'top2-suppliers-of-window-aggregation': `
      SELECT * FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rn
        FROM (SELECT window_start, window_end, supplier, SUM(price) AS total, COUNT(*) AS n
              FROM TABLE(${TUMBLE}) GROUP BY window_start, window_end, supplier))
      WHERE rn <= 2`,
    'dedup-last-per-item-tumble': ranked(
      'item, window_start, window_end',
      'bidtime DESC',
      'rn = 1',
      TUMBLE,
    ),
    'dedup-first-hop': ranked('window_start, window_end', 'bidtime', 'rn <= 1', HOP),
    'join-inner-tumble': joined('', TUMBLE),
    'join-left-tumble': joined('LEFT', TUMBLE),
    'join-right-hop': joined('RIGHT', HOP),
    'join-full-tumble': joined('FULL OUTER', TUMBLE),
    'join-full-cumulate': joined('FULL', CUMULATE),
    'session-partitioned': `
      SELECT item, window_start, window_end, COUNT(*) AS n, SUM(price) AS total
      FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '20' SECOND))
      GROUP BY item, window_start, window_end`,
    'session-partitioned-two-columns': `
      SELECT supplier, item, window_start, window_end, MAX(price) AS top
      FROM TABLE(SESSION(TABLE bids PARTITION BY (item, supplier), DESCRIPTOR(bidtime),
                         INTERVAL '30' SECOND))
      GROUP BY window_start, window_end, supplier, item`,
    'session-grouped-beyond-partition': `
      SELECT item, supplier, window_start, window_end, COUNT(*) AS n
      FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '20' SECOND))
      GROUP BY item, supplier, window_start, window_end`,
    'session-partitioned-top1': `
      SELECT * FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY n DESC, item) AS rn
        FROM (SELECT item, window_start, window_end, COUNT(*) AS n
              FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '20' SECOND))
              GROUP BY item, window_start, window_end))
      WHERE rn = 1`,
  };
  return Object.entries(sql).map(([name, text]) => ({ name, table, sql: text }));
}
