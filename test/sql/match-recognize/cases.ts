/**
 * The MATCH_RECOGNIZE cases compared with Flink SQL: queries in the shape of the examples of
 * Flink's documentation over small hand-made tables, and generated ones (patterns, quantifiers,
 * conditions, measures and skip strategies drawn from a seeded generator). The same list feeds
 * the Weir test and `npm run goldens:match-recognize`, which records Flink's rows.
 */
import { DeterministicRandom } from '../../../src/util/random.js';

export type ColumnType = 'STRING' | 'INT' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP(3)';

/** A table as JSON rows; `watermark` is a WATERMARK expression whose first word is the rowtime column. */
export interface RowsTable {
  readonly name: string;
  readonly columns: readonly (readonly [string, ColumnType])[];
  readonly watermark: string;
  /** Values in column order; TIMESTAMP(3) as epoch milliseconds. */
  readonly rows: readonly (readonly (string | number | boolean | null)[])[];
}

export interface MatchCase {
  readonly name: string;
  readonly table: RowsTable;
  readonly sql: string;
}

const SECOND = 1000;

/** A ticker like the one of Flink's MATCH_RECOGNIZE documentation (our own prices). */
function ticker(): RowsTable {
  const prices: Record<string, number[]> = {
    ACME: [12, 17, 19, 21, 25, 18, 15, 14, 24, 25, 19, 12, 11, 13, 16],
    BETA: [20, 19, 18, 22, 23, 21, 17, 16, 15, 21, 24, 9, 8, 10, 30],
  };
  const rows: (string | number)[][] = [];
  for (let i = 0; i < 15; i++) {
    for (const [symbol, list] of Object.entries(prices)) {
      rows.push([symbol, list[i] as number, (i % 3) + 1, (i + 1) * 10 * SECOND]);
    }
  }
  return {
    name: 'Ticker',
    columns: [
      ['symbol', 'STRING'],
      ['price', 'BIGINT'],
      ['tax', 'BIGINT'],
      ['rowtime', 'TIMESTAMP(3)'],
    ],
    watermark: "rowtime - INTERVAL '1' SECOND",
    rows,
  };
}

/** The documented examples, reworded as our queries over {@link ticker}. */
function documented(): MatchCase[] {
  const table = ticker();
  return [
    {
      name: 'doc-v-shape',
      table,
      sql: `SELECT * FROM Ticker
  MATCH_RECOGNIZE (
    PARTITION BY symbol
    ORDER BY rowtime
    MEASURES
      START_ROW.rowtime AS start_tstamp,
      LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
      LAST(PRICE_UP.rowtime) AS end_tstamp
    ONE ROW PER MATCH
    AFTER MATCH SKIP TO LAST PRICE_UP
    PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
    DEFINE
      PRICE_DOWN AS (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price)
        OR PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
      PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
  ) MR`,
    },
    {
      name: 'doc-avg-below',
      table,
      sql: `SELECT * FROM Ticker
  MATCH_RECOGNIZE (
    PARTITION BY symbol
    ORDER BY rowtime
    MEASURES
      FIRST(A.rowtime) AS start_tstamp,
      LAST(A.rowtime) AS end_tstamp,
      AVG(A.price) AS avgPrice
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A+ B)
    DEFINE
      A AS AVG(A.price) < 15
  ) MR`,
    },
    {
      name: 'doc-within-hour',
      table,
      sql: `SELECT * FROM Ticker
  MATCH_RECOGNIZE (
    PARTITION BY symbol
    ORDER BY rowtime
    MEASURES
      C.rowtime AS dropTime,
      A.price - C.price AS dropDiff
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A B* C) WITHIN INTERVAL '1' MINUTE
    DEFINE
      B AS B.price > A.price - 10,
      C AS C.price < A.price - 5
  )`,
    },
    {
      name: 'doc-logical-offsets',
      table,
      sql: `SELECT * FROM Ticker
  MATCH_RECOGNIZE (
    PARTITION BY symbol
    ORDER BY rowtime
    MEASURES
      FIRST(A.price) AS startPrice,
      LAST(A.price) AS topPrice,
      B.price AS lastPrice,
      SUM(A.tax) AS taxes,
      COUNT(A.price) AS ups,
      MATCH_ROWTIME() AS matchTime
    PATTERN (A+? B)
    DEFINE
      A AS LAST(A.price, 1) IS NULL OR A.price > LAST(A.price, 1),
      B AS B.price < LAST(A.price)
  )`,
    },
    {
      name: 'doc-no-partition',
      table,
      sql: `SELECT * FROM Ticker
  MATCH_RECOGNIZE (
    ORDER BY rowtime
    MEASURES FIRST(A.symbol) AS s1, B.symbol AS s2, MAX(A.price) AS top, MATCH_ROWTIME() AS t
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A{2,3}? B)
    DEFINE A AS A.price > 20, B AS B.price < 15
  )`,
    },
    {
      name: 'refuse-greedy-last',
      table,
      sql: `SELECT * FROM Ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS p PATTERN (A B+) DEFINE B AS B.price > 10)`,
    },
    {
      name: 'refuse-alternation',
      table,
      sql: `SELECT * FROM Ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS p PATTERN (A | B) DEFINE B AS B.price > 10)`,
    },
    {
      name: 'refuse-group-quantifier',
      table,
      sql: `SELECT * FROM Ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS p PATTERN ((A B)+ C) DEFINE B AS B.price > 10)`,
    },
    {
      name: 'refuse-reluctant-optional',
      table,
      sql: `SELECT * FROM Ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS p PATTERN (A B?? C) DEFINE B AS B.price > 10)`,
    },
    {
      name: 'refuse-prev',
      table,
      sql: `SELECT * FROM Ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS p PATTERN (A B) DEFINE B AS B.price > PREV(B.price))`,
    },
  ];
}

const QUANTIFIERS = ['', '', '+', '*', '?', '{2}', '{1,3}', '{2,}', '+?', '*?', '{1,2}?', '{0,2}'];
const LAST_QUANTIFIERS = ['', '', '+?', '{2}', '?', '*?', '{2,3}?'];
const SKIPS = [
  '',
  'AFTER MATCH SKIP PAST LAST ROW',
  'AFTER MATCH SKIP TO NEXT ROW',
  'AFTER MATCH SKIP TO FIRST B',
  'AFTER MATCH SKIP TO LAST B',
];

function conditionFor(v: string, vars: readonly string[], r: DeterministicRandom): string {
  const before = vars.slice(0, vars.indexOf(v));
  const other = before[r.int(Math.max(before.length, 1))];
  const options = [
    `${v}.v > ${r.int(8)}`,
    `${v}.v < ${2 + r.int(8)}`,
    `LAST(${v}.v, 1) IS NULL OR ${v}.v >= LAST(${v}.v, 1)`,
    `AVG(${v}.v) < ${3 + r.int(5)}`,
    `SUM(${v}.v) <= ${5 + r.int(15)}`,
    `MOD(${v}.v, 2) = ${r.int(2)}`,
  ];
  if (other !== undefined) {
    options.push(`${v}.v > ${other}.v`, `${v}.v < FIRST(${other}.v) + 3`, `${v}.v <> LAST(v, 1)`);
  }
  return options[r.int(options.length)] as string;
}

/** Seeded cases over a table of two keys with small values, rows one second apart. */
function generated(count: number): MatchCase[] {
  const cases: MatchCase[] = [];
  for (let seed = 1; cases.length < count; seed++) {
    const r = new DeterministicRandom(seed);
    const rows: (string | number)[][] = [];
    const n = 14 + r.int(8);
    for (let i = 0; i < n; i++) rows.push([r.chance(0.5) ? 'x' : 'y', r.int(10), (i + 1) * SECOND]);
    const table: RowsTable = {
      name: 'T',
      columns: [
        ['k', 'STRING'],
        ['v', 'INT'],
        ['ts', 'TIMESTAMP(3)'],
      ],
      watermark: 'ts',
      rows,
    };
    const vars = ['A', 'B', 'C'].slice(0, 2 + r.int(2));
    const pattern = vars
      .map((v, i) => {
        const list = i === vars.length - 1 ? LAST_QUANTIFIERS : QUANTIFIERS;
        return `${v}${list[r.int(list.length)]}`;
      })
      .join(' ');
    const define = vars
      .filter(() => r.chance(0.8))
      .map((v) => `${v} AS ${conditionFor(v, vars, r)}`);
    if (define.length === 0) define.push(`A AS A.v >= 0`);
    const measures = [
      'FIRST(A.v) AS fa',
      `LAST(${vars[1]}.v) AS lb`,
      `COUNT(${vars[1]}.v) AS nb`,
      'SUM(v) AS total',
      'MATCH_ROWTIME() AS t',
    ];
    const within = r.chance(0.25) ? ` WITHIN INTERVAL '${3 + r.int(5)}' SECOND` : '';
    const skip = SKIPS[r.int(SKIPS.length)] as string;
    const partition = r.chance(0.8) ? 'PARTITION BY k' : '';
    cases.push({
      name: `gen-${seed}`,
      table,
      sql: `SELECT * FROM T MATCH_RECOGNIZE (${partition} ORDER BY ts MEASURES ${measures.join(', ')} ${skip} PATTERN (${pattern})${within} DEFINE ${define.join(', ')})`,
    });
  }
  return cases;
}

/** Every case, in a fixed order. */
/**
 * Rows of one partition that share a timestamp, arriving out of price order: with more ORDER BY
 * columns than the rowtime, Flink orders the rows of one timestamp by them (its event comparator).
 */
function ties(): MatchCase[] {
  const rows: (string | number | null)[][] = [];
  const prices = [
    [5, 3, 8],
    [4, null, 6],
    [2, 9, 1],
    [7, 7, 3],
  ];
  for (const [i, list] of prices.entries()) {
    for (const k of ['a', 'b']) {
      for (const [j, price] of list.entries()) {
        rows.push([k, k === 'b' && price !== null ? 10 - price : price, j, (i + 1) * SECOND]);
      }
    }
  }
  const table: RowsTable = {
    name: 'Ties',
    columns: [
      ['k', 'STRING'],
      ['price', 'INT'],
      ['seq', 'INT'],
      ['rowtime', 'TIMESTAMP(3)'],
    ],
    watermark: "rowtime - INTERVAL '1' SECOND",
    rows,
  };
  const query = (order: string, define: string) => `SELECT * FROM Ties MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY ${order}
  MEASURES A.price AS a_price, A.seq AS a_seq, B.price AS b_price, B.seq AS b_seq
  ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW
  PATTERN (A B) DEFINE ${define})`;
  return [
    {
      name: 'ties-order-by-price',
      table,
      sql: query('rowtime, price', 'B AS B.price > A.price + 1'),
    },
    {
      name: 'ties-order-by-price-desc-seq',
      table,
      sql: query('rowtime, price DESC, seq', 'B AS B.price <= A.price'),
    },
  ];
}

export function matchRecognizeCases(): MatchCase[] {
  return [...documented(), ...generated(30), ...ties()];
}
