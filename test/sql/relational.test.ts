/**
 * Weir SQL's relational operators against plain batch computations over the same rows:
 * regular joins of every type (fast-check tables with NULL keys), unwindowed GROUP BY with
 * HAVING, COUNT(DISTINCT) and FILTER, a GROUP BY over another's changelog (retractions),
 * SELECT DISTINCT, UNION ALL of a changelog, Top-N; and plan-time refusals and EXPLAIN.
 * Updating results are compared as the rows their changes leave.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { SqlError, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { refuseUnappliableChangelog } from '../../src/sql/planner/changelog-relation.js';
import { allEvents } from '../nexmark/oracle.js';
import { nexmarkSourceSql } from './nexmark-sql.js';
import { finalRows } from './query-changes.js';

type Cell = number | null;

function sortedJson(rows: readonly unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

function sqlError(run: () => unknown): SqlError {
  try {
    run();
  } catch (e) {
    if (e instanceof SqlError) return e;
    throw e;
  }
  throw new Error('no error');
}

function valuesView(name: string, rows: readonly (readonly [Cell, number])[]): string {
  const cell = (v: Cell) => (v === null ? 'CAST(NULL AS INT)' : String(v));
  const values = rows.map(([k, v]) => `(${cell(k)}, ${v})`).join(', ');
  return `CREATE TEMPORARY VIEW ${name} AS SELECT EXPR$0 AS k, EXPR$1 AS v FROM (VALUES ${values});`;
}

/** The join of `l` and `r` on `l.k = r.k AND pair(l, r)` by nested loops, with outer padding. */
function joinOracle(
  l: readonly (readonly [Cell, number])[],
  r: readonly (readonly [Cell, number])[],
  type: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL',
  pair: (a: readonly [Cell, number], b: readonly [Cell, number]) => boolean,
): unknown[][] {
  const out: unknown[][] = [];
  const matchedRight = new Set<number>();
  for (const a of l) {
    let matched = false;
    r.forEach((b, j) => {
      if (a[0] !== null && a[0] === b[0] && pair(a, b)) {
        out.push([...a, ...b]);
        matched = true;
        matchedRight.add(j);
      }
    });
    if (!matched && (type === 'LEFT' || type === 'FULL')) out.push([...a, null, null]);
  }
  if (type === 'RIGHT' || type === 'FULL')
    r.forEach((b, j) => {
      if (!matchedRight.has(j)) out.push([null, null, ...b]);
    });
  return out;
}

describe('regular joins equal a nested-loop join', () => {
  const table = fc.array(
    fc.tuple(fc.option(fc.integer({ min: 0, max: 3 })), fc.integer({ min: 0, max: 9 })),
    {
      minLength: 1,
      maxLength: 8,
    },
  );
  const TYPES = ['INNER', 'LEFT', 'RIGHT', 'FULL'] as const;

  it('INNER, LEFT, RIGHT and FULL, with and without a non-equi condition, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(table, table, fc.constantFrom(1, 2), async (l, r, parallelism) => {
        const queries = TYPES.flatMap((t) => [
          `SELECT l.k, l.v, r.k, r.v FROM l ${t} JOIN r ON l.k = r.k`,
          `SELECT l.k, l.v, r.k, r.v FROM l ${t} JOIN r ON r.k = l.k AND l.v < r.v`,
        ]);
        const results = await finalRows(
          `${valuesView('l', l)}\n${valuesView('r', r)}`,
          queries,
          parallelism,
        );
        TYPES.forEach((t, i) => {
          expect(results[2 * i]).toEqual(sortedJson(joinOracle(l, r, t, () => true)));
          expect(results[2 * i + 1]).toEqual(
            sortedJson(joinOracle(l, r, t, (a, b) => a[1] < b[1])),
          );
        });
      }),
      { numRuns: 8 },
    );
  }, 120_000);
});

describe('WHERE conditions of one side filter it before the join', () => {
  const table = fc.array(
    fc.tuple(fc.option(fc.integer({ min: 0, max: 3 })), fc.integer({ min: 0, max: 9 })),
    { minLength: 1, maxLength: 8 },
  );
  type Joined = readonly [Cell, number | null, Cell, number | null];
  /** Each query's WHERE, as SQL and as a test of a joined row (NULL compares false). */
  const WHERES: readonly [string, (r: Joined) => boolean][] = [
    ['l.v > 3', (r) => r[1] !== null && r[1] > 3],
    ['r.v < 6', (r) => r[3] !== null && r[3] < 6],
    [
      'l.v > 3 AND r.v < 6 AND l.v <> r.v',
      (r) => r[1] !== null && r[1] > 3 && r[3] !== null && r[3] < 6 && r[1] !== r[3],
    ],
    // Holds for padded rows: pushed into the padded side it would pad rows it should drop.
    ['r.v IS NULL OR r.v > 4', (r) => r[3] === null || r[3] > 4],
    ['l.v IS NULL', (r) => r[1] === null],
  ];
  const TYPES = ['INNER', 'LEFT', 'RIGHT', 'FULL'] as const;

  it('every join type gives the rows of a nested-loop join filtered after it, over inserts and over a GROUP BY', async () => {
    await fc.assert(
      fc.asyncProperty(table, table, fc.constantFrom(1, 2), async (l, r, parallelism) => {
        const queries = TYPES.flatMap((t) =>
          WHERES.map(
            ([w]) => `SELECT l.k, l.v, r.k, r.v FROM l ${t} JOIN r ON l.k = r.k WHERE ${w}`,
          ),
        );
        // A side that updates: each key's largest v.
        const grouped = `(SELECT k, MAX(v) AS v FROM r GROUP BY k) AS r`;
        queries.push(
          ...WHERES.map(
            ([w]) => `SELECT l.k, l.v, r.k, r.v FROM l JOIN ${grouped} ON l.k = r.k WHERE ${w}`,
          ),
          ...WHERES.map(
            ([w]) =>
              `SELECT l.k, l.v, r.k, r.v FROM l LEFT JOIN ${grouped} ON l.k = r.k WHERE ${w}`,
          ),
          // A join inside an inner join: the WHERE filters the inner join's sides too. `d` holds
          // each key once, so the outer join keeps exactly the rows with a non-NULL l.k.
          ...TYPES.flatMap((t) =>
            WHERES.map(
              ([w]) =>
                `SELECT l.k, l.v, r.k, r.v FROM l ${t} JOIN r ON l.k = r.k JOIN d ON d.k = l.k WHERE ${w}`,
            ),
          ),
        );
        const keys: [Cell, number][] = [0, 1, 2, 3].map((k) => [k, 0]);
        const results = await finalRows(
          `${valuesView('l', l)}\n${valuesView('r', r)}\n${valuesView('d', keys)}`,
          queries,
          parallelism,
        );
        const maxima = new Map<Cell, number>();
        for (const [k, v] of r) maxima.set(k, Math.max(v, maxima.get(k) ?? v));
        const rMax = [...maxima];
        const expected = [
          ...TYPES.flatMap((t) =>
            WHERES.map(([, keep]) =>
              joinOracle(l, r, t, () => true).filter((row) => keep(row as unknown as Joined)),
            ),
          ),
          ...(['INNER', 'LEFT'] as const).flatMap((t) =>
            WHERES.map(([, keep]) =>
              joinOracle(l, rMax, t, () => true).filter((row) => keep(row as unknown as Joined)),
            ),
          ),
          ...TYPES.flatMap((t) =>
            WHERES.map(([, keep]) =>
              joinOracle(l, r, t, () => true).filter(
                (row) => row[0] !== null && keep(row as unknown as Joined),
              ),
            ),
          ),
        ];
        for (const [i, rows] of expected.entries())
          expect(results[i], queries[i]).toEqual(sortedJson(rows));
      }),
      { numRuns: 6 },
    );
  }, 120_000);

  it('EXPLAIN shows the filter on the kept sides only', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(`${valuesView('l', [[1, 1]])}\n${valuesView('r', [[1, 2]])}`);
    const plan = (t: string) =>
      tEnv.explainSql(`SELECT * FROM l ${t} JOIN r ON l.k = r.k WHERE l.v > 3 AND r.v < 6`);
    const filters = (text: string) =>
      text.split('\n').filter((line) => line.includes('"join input filter"')).length;
    expect(filters(plan('INNER'))).toBe(2);
    expect(filters(plan('LEFT'))).toBe(1);
    expect(filters(plan('RIGHT'))).toBe(1);
    expect(filters(plan('FULL'))).toBe(0);
  });
});

describe('unwindowed GROUP BY equals a batch aggregation', () => {
  const CONFIG: Partial<NexmarkConfig> = { maxEvents: 3000, eventsPerSecond: 100, seed: 5 };
  const { bids } = allEvents(CONFIG);

  it('MIN, MAX, SUM and AVG of DECIMAL, whose results are bigints in the rows', async () => {
    // Cents per key; the updates compare old and new result rows, which hold bigints.
    const cents = Array.from({ length: 40 }, (_, i) => [i % 3, ((i * 7919) % 2001) - 1000]);
    const values = cents.map(([k, c]) => `(${k}, CAST(${(c as number) / 100} AS DECIMAL(10, 2)))`);
    const [rows] = await finalRows(
      `CREATE TEMPORARY VIEW v AS SELECT EXPR$0 AS k, EXPR$1 AS m FROM (VALUES ${values.join(', ')});`,
      ['SELECT k, MIN(m), MAX(m), SUM(m) FROM v GROUP BY k'],
      1,
    );
    const expected = [0, 1, 2].map((k) => {
      const mine = cents.filter(([key]) => key === k).map(([, c]) => c as number);
      const text = (c: number) => (c / 100).toFixed(2);
      const sum = mine.reduce((a, b) => a + b, 0);
      return JSON.stringify([k, text(Math.min(...mine)), text(Math.max(...mine)), text(sum)]);
    });
    expect(rows).toEqual(expected.sort());
  });

  it('HAVING, COUNT(DISTINCT), FILTER, MIN/MAX; a GROUP BY of a GROUP BY; DISTINCT; UNION ALL; Top-N', async () => {
    const results = await finalRows(
      nexmarkSourceSql(CONFIG),
      [
        `SELECT MOD(bidder, 7) AS b, COUNT(*) AS n, COUNT(DISTINCT auction) AS auctions,
           SUM(price) FILTER (WHERE price > 1000) AS big, MIN(price) AS low, MAX(price) AS high
         FROM bid WHERE channel <> 'Apple' GROUP BY MOD(bidder, 7) HAVING COUNT(*) > 3`,
        `SELECT n, COUNT(*) AS auctions
         FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) GROUP BY n`,
        'SELECT DISTINCT MOD(auction, 5) AS a, channel FROM bid',
        `SELECT auction, COUNT(*) FROM bid GROUP BY auction
         UNION ALL SELECT auction, CAST(-1 AS BIGINT) FROM bid WHERE price > 5000000`,
        `SELECT auction, price, rn FROM (
           SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC, bidder ASC) AS rn
           FROM bid) WHERE rn <= 2`,
        // Over a changelog: COUNT, AVG and SUM take retracted rows out; with MAX the group recomputes.
        `SELECT MOD(n, 3) AS m, COUNT(*) AS c, AVG(n) AS a, SUM(n) AS s
         FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) GROUP BY MOD(n, 3)`,
        `SELECT MOD(n, 3) AS m, SUM(n) AS s, MAX(n) AS x
         FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) GROUP BY MOD(n, 3)`,
        // A window Top-N over a window TVF (insert-only, emitted as each window fires).
        `SELECT * FROM (
           SELECT auction, price, window_start, ROW_NUMBER() OVER (
             PARTITION BY window_start, window_end ORDER BY price DESC, auction) AS rn
           FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(\`dateTime\`), INTERVAL '10' SECOND)))
         WHERE rn <= 3`,
      ],
      2,
    );
    const groups = new Map<
      number,
      { n: number; auctions: Set<number>; big: number | null; low: number; high: number }
    >();
    for (const b of bids) {
      if (b.channel === 'Apple') continue;
      const g = groups.get(b.bidder % 7) ?? {
        n: 0,
        auctions: new Set(),
        big: null,
        low: Infinity,
        high: -Infinity,
      };
      g.n++;
      g.auctions.add(b.auction);
      if (b.price > 1000) g.big = (g.big ?? 0) + b.price;
      g.low = Math.min(g.low, b.price);
      g.high = Math.max(g.high, b.price);
      groups.set(b.bidder % 7, g);
    }
    expect(results[0]).toEqual(
      sortedJson(
        [...groups]
          .filter(([, g]) => g.n > 3)
          .map(([b, g]) => [b, g.n, g.auctions.size, g.big, g.low, g.high]),
      ),
    );
    const perAuction = new Map<number, number>();
    for (const b of bids) perAuction.set(b.auction, (perAuction.get(b.auction) ?? 0) + 1);
    const perCount = new Map<number, number>();
    for (const n of perAuction.values()) perCount.set(n, (perCount.get(n) ?? 0) + 1);
    expect(results[1]).toEqual(sortedJson([...perCount]));
    const byMod = new Map<number, number[]>();
    for (const n of perAuction.values()) byMod.set(n % 3, [...(byMod.get(n % 3) ?? []), n]);
    const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);
    expect(results[5]).toEqual(
      sortedJson(
        [...byMod].map(([m, ns]) => [m, ns.length, Math.trunc(sum(ns) / ns.length), sum(ns)]),
      ),
    );
    const windows = new Map<number, { auction: number; price: number }[]>();
    for (const b of bids) {
      const start = Math.floor(b.dateTime / 10_000) * 10_000;
      windows.set(start, [...(windows.get(start) ?? []), b]);
    }
    expect(results[7]).toEqual(
      sortedJson(
        [...windows].flatMap(([start, rows]) =>
          rows
            .sort((x, y) => y.price - x.price || x.auction - y.auction)
            .slice(0, 3)
            .map((row, i) => [row.auction, row.price, start, i + 1]),
        ),
      ),
    );
    expect(results[6]).toEqual(
      sortedJson([...byMod].map(([m, ns]) => [m, sum(ns), Math.max(...ns)])),
    );
    expect(results[2]).toEqual(
      [...new Set(bids.map((b) => JSON.stringify([b.auction % 5, b.channel])))].sort(),
    );
    expect(results[3]).toEqual(
      sortedJson([
        ...perAuction,
        ...bids.filter((b) => b.price > 5_000_000).map((b) => [b.auction, -1]),
      ]),
    );
    const ranked = new Map<number, { price: number; bidder: number }[]>();
    for (const b of bids) ranked.set(b.auction, [...(ranked.get(b.auction) ?? []), b]);
    expect(results[4]).toEqual(
      sortedJson(
        [...ranked].flatMap(([auction, rows]) =>
          rows
            .sort((x, y) => y.price - x.price || x.bidder - y.bidder)
            .slice(0, 2)
            .map((row, i) => [auction, row.price, i + 1]),
        ),
      ),
    );
  }, 120_000);
});

describe('interval joins equal a nested-loop join on the rowtimes', () => {
  const CONFIG: Partial<NexmarkConfig> = { maxEvents: 3000, eventsPerSecond: 100, seed: 7 };
  const { bids, auctions } = allEvents(CONFIG);

  it('BETWEEN with inclusive bounds, and < / > with exclusive ones, at parallelism 2', async () => {
    const results = await finalRows(
      nexmarkSourceSql(CONFIG),
      [
        `SELECT b.auction, b.price, b.\`dateTime\`, a.\`dateTime\` FROM bid b JOIN auction a
         ON b.auction = a.id
         AND b.\`dateTime\` BETWEEN a.\`dateTime\` AND a.\`dateTime\` + INTERVAL '20' SECOND`,
        `SELECT b.auction, b.price FROM auction a, bid b
         WHERE a.id = b.auction AND a.\`dateTime\` > b.\`dateTime\` - INTERVAL '20' SECOND
           AND b.\`dateTime\` > a.\`dateTime\` AND b.price > 1000`,
      ],
      2,
    );
    const pairs = auctions.flatMap((a) =>
      bids.filter((b) => b.auction === a.id).map((b) => ({ a, b })),
    );
    expect(results[0]).toEqual(
      sortedJson(
        pairs
          .filter(({ a, b }) => b.dateTime >= a.dateTime && b.dateTime <= a.dateTime + 20_000)
          .map(({ a, b }) => [b.auction, b.price, b.dateTime, a.dateTime]),
      ),
    );
    expect(results[0]?.length).toBeGreaterThan(10);
    expect(results[1]).toEqual(
      sortedJson(
        pairs
          .filter(
            ({ a, b }) =>
              b.dateTime > a.dateTime && b.dateTime < a.dateTime + 20_000 && b.price > 1000,
          )
          .map(({ b }) => [b.auction, b.price]),
      ),
    );
  }, 60_000);
});

describe('plan-time checks and EXPLAIN', () => {
  const env = new StreamEnvironment();
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(nexmarkSourceSql({ maxEvents: 10 }));

  it('refuses an updating query where only inserts can go, naming the changelog', () => {
    const table = tEnv.sqlQuery('SELECT auction, COUNT(*) FROM bid GROUP BY auction');
    expect(table.changelogMode).toBe('retract');
    expect(
      tEnv.sqlQuery('SELECT * FROM bid b JOIN auction a ON b.auction = a.id').changelogMode,
    ).toBe('insert-only');
    expect(
      tEnv.sqlQuery('SELECT * FROM bid b LEFT JOIN auction a ON b.auction = a.id').changelogMode,
    ).toBe('retract');
    expect(sqlError(() => table.toDataStream()).message).toBe(
      'line 1, column 1: the query is updating (it emits a retract changelog): read it with toChangelogStream()',
    );
    expect(
      sqlError(() =>
        refuseUnappliableChangelog('out', 'kafka', 'insert-only', 'retract', {
          line: 2,
          column: 1,
        }),
      ).message,
    ).toBe(
      "line 2, column 1: INSERT INTO out: the query is updating (it emits a retract changelog, with update-before, update-after and delete changes), but connector 'kafka' accepts only inserts; write to a table whose connector accepts updates",
    );
    expect(() => refuseUnappliableChangelog('out', 'print', 'retract', 'retract')).not.toThrow();
    expect(
      sqlError(() =>
        tEnv.sqlQuery(
          'SELECT * FROM (SELECT auction, RANK() OVER (PARTITION BY auction ORDER BY n) AS rn FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction)) WHERE rn <= 3',
        ),
      ).message,
    ).toBe('line 1, column 32: RANK() on streaming table is not supported currently');
    expect(
      sqlError(() =>
        tEnv.sqlQuery(
          'SELECT * FROM (SELECT auction, ROW_NUMBER() OVER (ORDER BY price) AS rn FROM bid) WHERE price > 3',
        ),
      ).message,
    ).toMatch(/needs WHERE rn <= N/);
    // A join without an equality between its sides is planned (a theta join, at one key).
    expect(tEnv.explainSql('SELECT * FROM bid b JOIN auction a ON b.price > a.reserve')).toMatch(
      /join/i,
    );
  });

  it('INSERT INTO a sink that applies changes runs an updating query', async () => {
    const tEnv2 = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
    const result = tEnv2.executeSql(`${nexmarkSourceSql({ maxEvents: 500 })}
      CREATE TABLE counts (auction BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO counts SELECT auction, COUNT(*) FROM bid GROUP BY auction;`);
    expect(result.statements.at(-1)).toBe('INSERT INTO counts');
    await expect(result.job?.result).resolves.toBeDefined();
  });

  it('EXPLAIN shows the changelog mode of the result and of each operator, and the state of stateful ones', () => {
    const text = tEnv.explainSql(
      'SELECT category, COUNT(*) FROM auction a JOIN bid b ON a.id = b.auction GROUP BY category',
    );
    expect(text).toContain('changelog mode: retract');
    expect(text).toMatch(/regular-join "regular inner join" changelog=insert-only/);
    expect(text).toMatch(/updating-aggregate "updating aggregate" changelog=retract/);
    expect(text).toContain('state: every row of both inputs by join key, kept until retracted');
    expect(text).toContain('state: one accumulator per group');
    const interval = tEnv.explainSql(
      "SELECT * FROM bid b JOIN auction a ON b.auction = a.id AND b.`dateTime` BETWEEN a.`dateTime` - INTERVAL '1' SECOND AND a.`dateTime`",
    );
    expect(interval).toContain('changelog mode: insert-only');
    expect(interval).toMatch(/interval-join ".*" <- #\d+ keyed\(leftKey\), #\d+ keyed\(rightKey\)/);
    expect(interval).toContain('state: each input row until the watermark passes its interval');
  });
});
