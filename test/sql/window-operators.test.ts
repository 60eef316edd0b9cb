/**
 * Window Top-N, window deduplication and window joins against batch computations over the
 * same rows. Rank rows arrive shuffled with a lagging watermark from one source, so which
 * rows are late for their window is deterministic: the oracle drops a row from each window
 * whose end the watermark had passed when it arrived. Join inputs are two views of one
 * source whose disorder stays within the watermark's delay (with two inputs, a row's
 * lateness would depend on how the inputs interleave). And queries in the shapes of Flink's
 * documentation give the rows Flink SQL 2.2.1 gave (`npm run goldens:window-operators`).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Change, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { savepointRoundTrip } from '../joins/helpers.js';
import { parseFlinkLines, runOnWeir } from './match-recognize/run-cases.js';
import { queryChanges } from './query-changes.js';
import { windowCases } from './window-operators/cases.js';
import { WINDOW_GOLDEN_FILE } from './window-operators/golden.js';

interface Click {
  side: string;
  user: string | null;
  amount: number;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);

/** The columns of the clicks table. */
const CLICK_COLUMNS = [
  { name: 'side', type: 'STRING' },
  { name: 'user', type: 'STRING' },
  { name: 'amount', type: 'BIGINT' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
];
const DELAY = 1_500;

/** Runs the queries in one job over `clicks` in the given order; each query's changes. */
function run(
  clicks: readonly Click[],
  queries: readonly string[],
  parallelism: number,
): Promise<Change<Row>[][]> {
  // One row per batch from one source subtask: the watermark follows each row on every
  // channel, so a single-input operator sees rows and watermarks in source order.
  return queryChanges(
    {
      name: 'clicks',
      rows: clicks,
      columns: CLICK_COLUMNS,
      watermark: { column: 'ts', expression: "ts - INTERVAL '1.5' SECOND" },
    },
    queries,
    { parallelism, batchSize: 1 },
  );
}

/** Insert-only changes as sorted JSON rows (BIGINT and TIMESTAMP values as numbers). */
function inserted(changes: readonly Change<Row>[]): string[] {
  expect(changes.every((c) => c.kind === '+I')).toBe(true);
  return changes
    .map((c) => JSON.stringify(c.value.map((v) => (typeof v === 'bigint' ? Number(v) : v))))
    .sort();
}

function sorted(rows: readonly unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

/** The windows `[start, end)` of a timestamp: tumbling when `slide === size`. */
function windowsOf(ts: number, size: number, slide: number): [number, number][] {
  const out: [number, number][] = [];
  for (let start = Math.floor(ts / slide) * slide; start > ts - size; start -= slide) {
    out.push([start, start + size]);
  }
  return out;
}

/**
 * The rows of each (partition, window) that were not late for it, in arrival order, with
 * the watermark of the source (the largest timestamp so far minus the delay).
 */
function onTimeWindows(
  clicks: readonly Click[],
  size: number,
  slide: number,
  partition: (c: Click) => string,
): Map<string, { start: number; end: number; rows: Click[] }> {
  const groups = new Map<string, { start: number; end: number; rows: Click[] }>();
  let watermark = Number.NEGATIVE_INFINITY;
  for (const c of clicks) {
    for (const [start, end] of windowsOf(c.ts, size, slide)) {
      if (end - 1 <= watermark) continue;
      const key = `${partition(c)}/${start}/${end}`;
      const g = groups.get(key) ?? { start, end, rows: [] };
      g.rows.push(c);
      groups.set(key, g);
    }
    watermark = Math.max(watermark, c.ts - DELAY);
  }
  return groups;
}

/** Amount descending, then time, then user: a total order of the rows' visible columns. */
function byAmount(a: Click, b: Click): number {
  return b.amount - a.amount || a.ts - b.ts || String(a.user).localeCompare(String(b.user));
}

const rankQuery = (partition: string, order: string, bound: string, tvf: string): string => `
  SELECT user, amount, ts, window_start, window_end, rn FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY ${partition} ORDER BY ${order}) AS rn
    FROM TABLE(${tvf}))
  WHERE ${bound}`;

const TUMBLE = "TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '4' SECOND)";
const HOP = "HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)";

const clickArb = fc.record({
  side: fc.constant('L'),
  user: fc.constantFrom('a', 'b', 'c'),
  amount: fc.integer({ min: 0, max: 9 }),
  ts: fc.integer({ min: BASE, max: BASE + 20_000 }),
});

describe('window Top-N and window deduplication', () => {
  it('emit the ranked rows of each window once, equal to a batch ranking of the on-time rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(clickArb, { minLength: 20, maxLength: 60 }),
        fc.constantFrom(1, 2),
        async (clicks, parallelism) => {
          const results = await run(
            clicks,
            [
              rankQuery('user, window_start, window_end', 'amount DESC, ts', 'rn <= 2', TUMBLE),
              rankQuery('window_start, window_end', 'amount DESC, ts, user', 'rn <= 3', HOP),
              rankQuery('user, window_start, window_end', 'ts DESC', 'rn = 1', TUMBLE),
              rankQuery('window_end, window_start, user', 'ts', 'rn < 2', HOP),
              // A Top-1 over a window aggregation: the user with the largest sum per window.
              `SELECT user, total, window_start, window_end FROM (
                 SELECT *, ROW_NUMBER() OVER (
                   PARTITION BY window_start, window_end ORDER BY total DESC, user) AS rn
                 FROM (SELECT user, SUM(amount) AS total, window_start, window_end
                       FROM TABLE(${TUMBLE}) GROUP BY user, window_start, window_end))
               WHERE rn = 1`,
            ],
            parallelism,
          );
          const ranked = (
            size: number,
            slide: number,
            partition: (c: Click) => string,
            pick: (rows: Click[]) => Click[],
          ) =>
            sorted(
              [...onTimeWindows(clicks, size, slide, partition).values()].flatMap((w) =>
                pick(w.rows).map((c, i) => [c.user, c.amount, c.ts, w.start, w.end, i + 1]),
              ),
            );
          const top = (n: number) => (rows: Click[]) => [...rows].sort(byAmount).slice(0, n);
          // Ties in time: the last arrival is kept for DESC, the first for ASC.
          const last = (rows: Click[]) => [rows.reduce((k, c) => (c.ts >= k.ts ? c : k))];
          const first = (rows: Click[]) => [rows.reduce((k, c) => (c.ts < k.ts ? c : k))];
          expect(inserted(results[0] ?? [])).toEqual(
            ranked(4_000, 4_000, (c) => `${c.user}`, top(2)),
          );
          expect(inserted(results[1] ?? [])).toEqual(ranked(6_000, 2_000, () => '', top(3)));
          expect(inserted(results[2] ?? [])).toEqual(
            ranked(4_000, 4_000, (c) => `${c.user}`, last),
          );
          expect(inserted(results[3] ?? [])).toEqual(
            ranked(6_000, 2_000, (c) => `${c.user}`, first),
          );
          const sums = new Map<
            string,
            { start: number; end: number; totals: Map<string, number> }
          >();
          for (const [key, w] of onTimeWindows(clicks, 4_000, 4_000, () => '')) {
            const totals = new Map<string, number>();
            for (const c of w.rows)
              totals.set(`${c.user}`, (totals.get(`${c.user}`) ?? 0) + c.amount);
            sums.set(key, { start: w.start, end: w.end, totals });
          }
          const best = [...sums.values()].map((w) => {
            const [user, total] = [...w.totals].sort(
              (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
            )[0] as [string, number];
            return [user, total, w.start, w.end];
          });
          expect(inserted(results[4] ?? [])).toEqual(sorted(best));
        },
      ),
      { seed: 14, numRuns: 25 },
    );
  }, 120_000);
});

/** Rows of both sides whose arrival order strays less than the watermark's delay from time order. */
const joinInputArb = fc
  .array(
    fc.record({
      side: fc.constantFrom('L', 'R'),
      user: fc.constantFrom('a', 'b', null),
      amount: fc.integer({ min: 0, max: 9 }),
      ts: fc.integer({ min: BASE, max: BASE + 20_000 }),
      jitter: fc.integer({ min: 0, max: DELAY - 1 }),
    }),
    { minLength: 10, maxLength: 60 },
  )
  .map((rows) =>
    [...rows]
      .sort((a, b) => a.ts + a.jitter - (b.ts + b.jitter))
      .map(({ jitter: _, ...click }): Click => click),
  );

const joinQuery = (type: string, tvf: (table: string) => string, extra = ''): string => `
  WITH l AS (SELECT user, amount, ts FROM clicks WHERE side = 'L'),
       r AS (SELECT user, amount, ts FROM clicks WHERE side = 'R')
  SELECT L.user, L.amount, R.user, R.amount, L.window_start, L.window_end, R.window_start, R.window_end
  FROM (SELECT * FROM TABLE(${tvf('l')})) L ${type} JOIN (SELECT * FROM TABLE(${tvf('r')})) R
    ON L.user = R.user AND L.window_start = R.window_start AND L.window_end = R.window_end${extra}`;

const tumble = (t: string) => `TUMBLE(TABLE ${t}, DESCRIPTOR(ts), INTERVAL '4' SECOND)`;
const hop = (t: string) =>
  `HOP(TABLE ${t}, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND)`;

/** A nested-loop join per window of the rows of each side. */
function joinOracle(
  clicks: readonly Click[],
  type: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL',
  size: number,
  slide: number,
  condition: (l: Click, r: Click) => boolean = () => true,
): string[] {
  const out: unknown[][] = [];
  const windows = new Set<number>();
  for (const c of clicks) for (const [start] of windowsOf(c.ts, size, slide)) windows.add(start);
  for (const start of windows) {
    const end = start + size;
    const inWindow = (side: string) =>
      clicks.filter((c) => c.side === side && c.ts >= start && c.ts < end);
    const ls = inWindow('L');
    const rs = inWindow('R');
    const matched = new Set<Click>();
    for (const l of ls) {
      let any = false;
      for (const r of rs) {
        if (l.user === null || l.user !== r.user || !condition(l, r)) continue;
        out.push([l.user, l.amount, r.user, r.amount, start, end, start, end]);
        matched.add(r);
        any = true;
      }
      if (!any && (type === 'LEFT' || type === 'FULL'))
        out.push([l.user, l.amount, null, null, start, end, null, null]);
    }
    if (type === 'RIGHT' || type === 'FULL') {
      for (const r of rs)
        if (!matched.has(r)) out.push([null, null, r.user, r.amount, null, null, start, end]);
    }
  }
  return sorted(out);
}

describe('window joins', () => {
  it('join each window of two window TVFs once, equal to a nested-loop join per window', async () => {
    await fc.assert(
      fc.asyncProperty(joinInputArb, fc.constantFrom(1, 2), async (clicks, parallelism) => {
        const results = await run(
          clicks,
          [
            joinQuery('INNER', tumble),
            joinQuery('LEFT', tumble),
            joinQuery('RIGHT', tumble, ' AND L.amount < R.amount'),
            joinQuery('FULL', tumble),
            joinQuery('FULL', hop, ' AND L.amount <> R.amount'),
            joinQuery('', hop),
          ],
          parallelism,
        );
        const less = (l: Click, r: Click) => l.amount < r.amount;
        const differ = (l: Click, r: Click) => l.amount !== r.amount;
        expect(inserted(results[0] ?? [])).toEqual(joinOracle(clicks, 'INNER', 4_000, 4_000));
        expect(inserted(results[1] ?? [])).toEqual(joinOracle(clicks, 'LEFT', 4_000, 4_000));
        expect(inserted(results[2] ?? [])).toEqual(joinOracle(clicks, 'RIGHT', 4_000, 4_000, less));
        expect(inserted(results[3] ?? [])).toEqual(joinOracle(clicks, 'FULL', 4_000, 4_000));
        expect(inserted(results[4] ?? [])).toEqual(
          joinOracle(clicks, 'FULL', 4_000, 2_000, differ),
        );
        expect(inserted(results[5] ?? [])).toEqual(joinOracle(clicks, 'INNER', 4_000, 2_000));
      }),
      { seed: 14, numRuns: 25 },
    );
  }, 120_000);
});

describe('window operators restored from a savepoint', () => {
  it('a run stopped with a savepoint and restored (also at another parallelism) equals an uninterrupted one', async () => {
    const { expected, got } = await savepointRoundTrip(
      (env, rate) => {
        const tEnv = TableEnvironment.create(env);
        const rows = env
          .fromGenerator({
            count: 6000,
            ...(rate === undefined ? {} : { ratePerSecond: rate }),
            // Out of order by less than the watermark's delay: no row is late, whenever the
            // run stops.
            generate: (i): Click => ({
              side: i % 3 === 0 ? 'R' : 'L',
              user: `u${(i * 7) % 5}`,
              amount: (i * 37) % 101,
              ts: BASE + i * 10 - (i % 7) * 13,
            }),
          })
          .setParallelism(1)
          .uid('clicks');
        tEnv.fromDataStream('clicks', rows, {
          columns: CLICK_COLUMNS,
          watermark: { column: 'ts', expression: "ts - INTERVAL '0.1' SECOND" },
        });
        const text = (sql: string) =>
          tEnv
            .sqlQuery(sql)
            .toDataStream()
            .map((row) => `${sql.length} ${JSON.stringify(row)}`);
        const tumble = (t: string) => `TUMBLE(TABLE ${t}, DESCRIPTOR(ts), INTERVAL '0.5' SECOND)`;
        return text(
          rankQuery(
            'user, window_start, window_end',
            'amount DESC, ts',
            'rn <= 2',
            tumble('clicks'),
          ),
        )
          .union(text(rankQuery('window_start, window_end', 'ts DESC', 'rn = 1', tumble('clicks'))))
          .union(text(joinQuery('FULL', tumble, ' AND L.amount < R.amount')));
      },
      { parallelism: 2, restoreParallelism: 1, rate: 5_000, stopAfterMs: 150 },
    );
    expect(got.sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(1000);
  }, 120_000);
});

describe('EXPLAIN of the window operators', () => {
  it('names the window operators and their state, insert-only', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`
      CREATE TABLE clicks (user STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
      WITH ('connector' = 'datagen', 'number-of-rows' = '10')`);
    const topN = tEnv.explainSql(
      rankQuery('user, window_start, window_end', 'amount', 'rn <= 2', TUMBLE),
    );
    expect(topN).toContain('changelog mode: insert-only');
    expect(topN).toMatch(/window-top-n "window top 2"/);
    expect(topN).toContain('the first N rows, dropped when the window fires');
    const dedup = tEnv.explainSql(rankQuery('window_start, window_end', 'ts', 'rn = 1', HOP));
    expect(dedup).toMatch(/window-deduplicate "window deduplicate \(keep first\)"/);
    const join = tEnv.explainSql(`
      SELECT L.user FROM (SELECT * FROM TABLE(${tumble('clicks')})) L
      FULL JOIN (SELECT * FROM TABLE(${tumble('clicks')})) R
      ON L.user = R.user AND L.window_end = R.window_end AND L.window_start = R.window_start`);
    expect(join).toContain('changelog mode: insert-only');
    expect(join).toMatch(/window-join "window full join"/);
    // Without window_end among the equalities it stays a regular (updating) join.
    const regular = tEnv.explainSql(`
      SELECT L.user FROM (SELECT * FROM TABLE(${tumble('clicks')})) L
      FULL JOIN (SELECT * FROM TABLE(${tumble('clicks')})) R
      ON L.user = R.user AND L.window_start = R.window_start`);
    expect(regular).toMatch(/regular-join/);
  });

  it('refuses PARTITION BY outside SESSION and an unknown PARTITION BY column, with positions', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`
      CREATE TABLE clicks (user STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
      WITH ('connector' = 'datagen', 'number-of-rows' = '10')`);
    const refusal = (sql: string) => {
      try {
        tEnv.explainSql(sql);
      } catch (e) {
        return (e as Error).message;
      }
      return 'planned';
    };
    expect(
      refusal(`SELECT user, COUNT(*) FROM TABLE(
        TUMBLE(TABLE clicks PARTITION BY user, DESCRIPTOR(ts), INTERVAL '1' SECOND))
        GROUP BY user, window_start, window_end`),
    ).toBe('line 2, column 16: TUMBLE takes no PARTITION BY (only SESSION does)');
    expect(
      refusal(`SELECT COUNT(*) FROM TABLE(
        SESSION(TABLE clicks PARTITION BY (user, nobody), DESCRIPTOR(ts), INTERVAL '1' SECOND))
        GROUP BY window_start, window_end`),
    ).toBe("line 2, column 17: PARTITION BY column 'nobody' not found in clicks");
  });
});

describe('the window operators against Flink SQL', () => {
  const golden = parseFlinkLines(readFileSync(WINDOW_GOLDEN_FILE, 'utf8'));
  const cases = windowCases();

  it('has a recorded answer for every case', () => {
    expect(cases.map((c) => c.name).filter((n) => !golden.has(n))).toEqual([]);
  });

  for (const parallelism of [1, 2]) {
    it(`gives Flink's rows at parallelism ${parallelism}`, async () => {
      for (const c of cases) {
        const expected = golden.get(c.name);
        expect({ name: c.name, ...(await runOnWeir(c, parallelism)) }).toEqual({
          name: c.name,
          ...expected,
        });
      }
    }, 120_000);
  }
});
