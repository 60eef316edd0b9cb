/**
 * Window properties through a window aggregation (Nexmark q5's shape): a GROUP BY
 * window_start, window_end over a window aggregation's results is itself a window
 * aggregation, and a join of two such results on both window columns a window join, so the
 * whole query is insert-only with state dropped per window. A WITH query read twice is
 * planned once (sub-plan reuse). Checked against a batch computation over the same rows,
 * with rows out of order and late for some of their windows, at parallelism 1 and 2, and
 * across a savepoint taken part-way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import { type Change, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { committedLines } from '../helpers/committed-lines.js';
import { queryChanges } from './query-changes.js';

interface Bid {
  auction: number;
  price: number;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);
const DELAY = 1_500;

/** A window TVF and the windows it puts a timestamp in. */
interface WindowKind {
  readonly tvf: string;
  readonly windowsOf: (ts: number) => { start: number; end: number }[];
}

const WINDOWS: readonly WindowKind[] = [
  {
    tvf: "HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)",
    windowsOf: (ts) => {
      const out = [];
      for (let start = Math.floor(ts / 2_000) * 2_000; start > ts - 6_000; start -= 2_000)
        out.push({ start, end: start + 6_000 });
      return out;
    },
  },
  {
    tvf: "TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '3' SECOND)",
    windowsOf: (ts) => {
      const start = Math.floor(ts / 3_000) * 3_000;
      return [{ start, end: start + 3_000 }];
    },
  },
  {
    tvf: "CUMULATE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)",
    windowsOf: (ts) => {
      const start = Math.floor(ts / 6_000) * 6_000;
      const out = [];
      for (let end = Math.floor(ts / 2_000) * 2_000 + 2_000; end <= start + 6_000; end += 2_000)
        out.push({ start, end });
      return out;
    },
  },
];

const countsCte = (w: WindowKind) => `WITH counts AS (
  SELECT auction, COUNT(*) AS num, SUM(price) AS total, window_start, window_end
  FROM TABLE(${w.tvf})
  GROUP BY auction, window_start, window_end
)`;

/** q5's shape: per window, the auctions with the most bids. */
const hotItems = (w: WindowKind) => `${countsCte(w)},
maxima AS (
  SELECT window_start, window_end, MAX(num) AS maxn
  FROM counts
  GROUP BY window_start, window_end
)
SELECT c.auction, c.num, c.window_start, c.window_end
FROM counts AS c
JOIN maxima AS m
  ON c.window_start = m.window_start AND c.window_end = m.window_end AND c.num >= m.maxn`;

/** A window aggregation over a window aggregation's results, selecting the window columns. */
const perWindow = (w: WindowKind) => `${countsCte(w)}
SELECT window_start, window_end, COUNT(*) AS auctions, SUM(num) AS bids, MAX(total) AS top
FROM counts
WHERE num > 0
GROUP BY window_start, window_end`;

interface Count {
  auction: number;
  start: number;
  end: number;
  num: number;
  total: number;
}

/** The first aggregation, dropping a row from each window whose end the watermark had passed. */
function counts(bids: readonly Bid[], w: WindowKind): Count[] {
  const groups = new Map<string, Count>();
  let watermark = Number.NEGATIVE_INFINITY;
  for (const b of bids) {
    for (const { start, end } of w.windowsOf(b.ts)) {
      if (end - 1 <= watermark) continue;
      const key = `${b.auction}/${start}/${end}`;
      const g = groups.get(key) ?? { auction: b.auction, start, end, num: 0, total: 0 };
      g.num++;
      g.total += b.price;
      groups.set(key, g);
    }
    watermark = Math.max(watermark, b.ts - DELAY);
  }
  return [...groups.values()];
}

function byWindow(rows: readonly Count[]): Map<string, Count[]> {
  const out = new Map<string, Count[]>();
  for (const c of rows) {
    const key = `${c.start}/${c.end}`;
    out.set(key, [...(out.get(key) ?? []), c]);
  }
  return out;
}

function expectedHotItems(bids: readonly Bid[], w: WindowKind): string[] {
  const rows: string[] = [];
  for (const group of byWindow(counts(bids, w)).values()) {
    const max = Math.max(...group.map((c) => c.num));
    for (const c of group)
      if (c.num >= max) rows.push(JSON.stringify([c.auction, c.num, c.start, c.end]));
  }
  return rows.sort();
}

function expectedPerWindow(bids: readonly Bid[], w: WindowKind): string[] {
  return [...byWindow(counts(bids, w)).values()]
    .map((group) => {
      const { start, end } = group[0] as Count;
      const bidCount = group.reduce((a, c) => a + c.num, 0);
      const top = Math.max(...group.map((c) => c.total));
      return JSON.stringify([start, end, group.length, bidCount, top]);
    })
    .sort();
}

const BID_COLUMNS = [
  { name: 'auction', type: 'BIGINT' },
  { name: 'price', type: 'BIGINT' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
];
const BID_WATERMARK = { column: 'ts', expression: "ts - INTERVAL '1.5' SECOND" };

/** The same table from a connector, for EXPLAIN (which plans into an environment of its own). */
function explainTables(): TableEnvironment {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
  tEnv.executeSql(`CREATE TABLE bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '1.5' SECOND) WITH ('connector' = 'datagen')`);
  return tEnv;
}

async function run(
  bids: readonly Bid[],
  query: string,
  parallelism: number,
  reuse = true,
): Promise<Change<Row>[]> {
  // One row per batch from one source subtask: the watermark follows each row on every
  // channel, so which rows are late is deterministic at any parallelism.
  const [changes] = await queryChanges(
    { name: 'bid', rows: bids, columns: BID_COLUMNS, watermark: BID_WATERMARK },
    [query],
    {
      parallelism,
      batchSize: 1,
      ...(reuse ? {} : { settings: "SET 'table.optimizer.reuse-sub-plan-enabled' = 'false'" }),
    },
  );
  return changes ?? [];
}

const rowsOf = (changes: readonly Change<Row>[]): string[] =>
  changes.map((c) => JSON.stringify(c.value.map((v) => Number(v)))).sort();

const bidArb = fc.record({
  auction: fc.integer({ min: 1, max: 4 }),
  price: fc.integer({ min: 1, max: 100 }),
  ts: fc.integer({ min: BASE, max: BASE + 16_000 }),
});

describe('window aggregation over a window aggregation', () => {
  it('plans q5 as window operators, insert-only, with the WITH query planned once', () => {
    const plan = explainTables().explainSql(hotItems(WINDOWS[0] as WindowKind));
    expect(plan).toContain('changelog mode: insert-only');
    expect(plan).toContain('== Reused ==\ncounts: planned once, reused by 2 references');
    expect(plan).toContain('window-join "window inner join"');
    expect(plan).toContain('window "window aggregate (tumbling 2000ms)"');
    expect(plan).not.toContain('updating-aggregate');
    expect(plan).not.toContain('regular-join');
    // One sliding window aggregation, read by both sides.
    expect(plan.match(/window "window aggregate \(sliding 6000ms\/2000ms\)"/g)).toHaveLength(1);
  });

  it('plans each reference separately when sub-plan reuse is off', () => {
    const tEnv = explainTables();
    tEnv.executeSql("SET 'table.optimizer.reuse-sub-plan-enabled' = 'false'");
    const plan = tEnv.explainSql(hotItems(WINDOWS[0] as WindowKind));
    expect(plan).not.toContain('== Reused ==');
    expect(plan.match(/window "window aggregate \(sliding 6000ms\/2000ms\)"/g)).toHaveLength(2);
    expect(() =>
      tEnv.executeSql("SET 'table.optimizer.reuse-sub-plan-enabled' = 'sometimes'"),
    ).toThrow(
      /'table.optimizer.reuse-sub-plan-enabled' is 'sometimes'; it must be 'true' or 'false'/,
    );
  });

  it('keeps a GROUP BY over a window aggregation updating when it drops a window column', () => {
    const plan = explainTables().explainSql(
      `${countsCte(WINDOWS[0] as WindowKind)} SELECT window_end, MAX(num) FROM counts GROUP BY window_end`,
    );
    expect(plan).toContain('changelog mode: retract');
    expect(plan).toContain('updating-aggregate');
  });

  it('plans a view read twice once', () => {
    const tEnv = explainTables();
    tEnv.executeSql(
      'CREATE TEMPORARY VIEW totals AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction',
    );
    const plan = tEnv.explainSql(
      'SELECT a.auction, a.n, b.n FROM totals AS a JOIN totals AS b ON a.auction = b.auction + 1',
    );
    expect(plan).toContain('totals: planned once, reused by 2 references');
    expect(plan.match(/updating-aggregate "updating aggregate"/g)).toHaveLength(1);
  });

  it('reads an updating WITH query twice, with the rows of a run without reuse', async () => {
    const bids: Bid[] = Array.from({ length: 30 }, (_, i) => ({
      auction: i % 4,
      price: i,
      ts: BASE + i * 300,
    }));
    const query = `WITH totals AS (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction)
      SELECT a.auction, a.n, b.n FROM totals AS a JOIN totals AS b ON a.auction = b.auction + 1`;
    const countOf = (a: number) => bids.filter((b) => b.auction === a).length;
    const expected = [1, 2, 3].map((a) => JSON.stringify([a, countOf(a), countOf(a - 1)]));
    for (const reuse of [true, false]) {
      const changes = await run(bids, query, 2, reuse);
      // The changelog applied to a table.
      const table = new Map<string, number>();
      for (const c of changes) {
        const key = JSON.stringify(c.value.map((v) => Number(v)));
        const add = c.kind === '+I' || c.kind === '+U' ? 1 : -1;
        table.set(key, (table.get(key) ?? 0) + add);
      }
      const rows = [...table].flatMap(([k, n]) => Array<string>(n).fill(k));
      expect(rows.sort()).toEqual(expected);
    }
  }, 60_000);

  it('equals a batch computation over shuffled and late rows, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(bidArb, { minLength: 15, maxLength: 50 }),
        fc.constantFrom(...WINDOWS),
        fc.constantFrom(1, 2),
        fc.boolean(),
        async (bids, w, parallelism, reuse) => {
          const hot = await run(bids, hotItems(w), parallelism, reuse);
          expect(hot.every((c) => c.kind === '+I')).toBe(true);
          expect(rowsOf(hot)).toEqual(expectedHotItems(bids, w));
          const windows = await run(bids, perWindow(w), parallelism, reuse);
          expect(windows.every((c) => c.kind === '+I')).toBe(true);
          expect(rowsOf(windows)).toEqual(expectedPerWindow(bids, w));
        },
      ),
      { seed: 27, numRuns: 10 },
    );
  }, 120_000);
});

/**
 * q8's shape: two window aggregations whose window columns are renamed, joined on them. The
 * renamed columns keep their window property, so the join is a window join, as Flink plans
 * q8; windows that end at other instants leave a regular join.
 */
const renamedWindowJoin = (rightTvf: string) => `SELECT P.auction, P.num, A.total, P.starttime
FROM (
  SELECT auction, COUNT(*) AS num, window_start AS starttime, window_end AS endtime
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '3' SECOND))
  GROUP BY auction, window_start, window_end
) P
JOIN (
  SELECT auction AS seller, SUM(price) AS total, window_start AS starttime, window_end AS endtime
  FROM TABLE(${rightTvf})
  GROUP BY auction, window_start, window_end
) A
ON P.auction = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime`;

describe('a join of window aggregations on renamed window columns (q8)', () => {
  const tumble = WINDOWS[1] as WindowKind;

  it('plans a window join only when both sides have windows ending alike', () => {
    const plan = explainTables().explainSql(renamedWindowJoin(tumble.tvf));
    expect(plan).toContain('window-join "window inner join"');
    expect(plan).not.toContain('regular-join');
    const other = explainTables().explainSql(
      renamedWindowJoin("TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND)"),
    );
    expect(other).toContain('regular-join');
  });

  it('equals a batch computation over shuffled and late rows, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(bidArb, { minLength: 15, maxLength: 50 }),
        fc.constantFrom(1, 2),
        async (bids, parallelism) => {
          const changes = await run(bids, renamedWindowJoin(tumble.tvf), parallelism);
          expect(changes.every((c) => c.kind === '+I')).toBe(true);
          const expected = counts(bids, tumble)
            .map((c) => JSON.stringify([c.auction, c.num, c.total, c.start]))
            .sort();
          expect(rowsOf(changes)).toEqual(expected);
        },
      ),
      { seed: 8, numRuns: 6 },
    );
  }, 120_000);
});

describe('window aggregation over a window aggregation, restored from a savepoint', () => {
  const BIDS = 400;
  // In event-time order, 100 ms apart: no row is late, so the result is fixed.
  const bidAt = (i: number): Bid => ({
    auction: (i * 7) % 5,
    price: (i * 13) % 97,
    ts: BASE + i * 100,
  });

  const build = (out: string, checkpoints: string, rate: number | undefined) => {
    const env = new StreamEnvironment({
      parallelism: 2,
      batchSize: 8,
      checkpointing: { directory: checkpoints, intervalMs: 100 },
    });
    const tEnv = TableEnvironment.create(env);
    const source = env
      .fromGenerator({
        count: BIDS,
        ...(rate === undefined ? {} : { ratePerSecond: rate }),
        generate: bidAt,
      })
      .setParallelism(1)
      .uid('bids');
    tEnv.fromDataStream('bid', source, { columns: BID_COLUMNS, watermark: BID_WATERMARK });
    tEnv
      .sqlQuery(hotItems(WINDOWS[0] as WindowKind))
      .toChangelogStream()
      .map((c: Change<Row>) => JSON.stringify(c))
      .sinkTo(new ExactlyOnceFileSink<string>({ directory: out, format: (line) => line }))
      .uid('hot-items-sink');
    return env;
  };

  const committed = async (dir: string): Promise<Change<Row>[]> =>
    (await committedLines(dir).catch(() => [] as string[])).map(
      (line) => JSON.parse(line) as Change<Row>,
    );

  it('commits the rows of an uninterrupted run and of the batch computation', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-sql-window-over-window-'));
    try {
      const bids = Array.from({ length: BIDS }, (_, i) => bidAt(i));
      const expected = expectedHotItems(bids, WINDOWS[0] as WindowKind);
      // 400 rows at 40 a second take 10 s, far longer than a first checkpoint on a busy machine.
      const out = join(dir, 'out');
      const first = build(out, join(dir, 'cp-first'), 40).executeAsync('first');
      // Stopped once a window's rows are committed, so the savepoint holds open windows.
      for (let polls = 0; (await committed(out)).length === 0; polls++) {
        if (polls > 3_000) throw new Error('no output committed after 3000 polls');
        await pause(20);
      }
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      const beforeSavepoint = (await committed(out)).length;
      await build(out, join(dir, 'cp-second'), undefined).executeAsync('second', {
        restoreFrom: savepoint,
      }).result;
      const restored = await committed(out);
      expect(beforeSavepoint).toBeGreaterThan(0);
      expect(beforeSavepoint).toBeLessThan(expected.length);
      expect(restored.every((c) => c.kind === '+I')).toBe(true);
      expect(rowsOf(restored)).toEqual(expected);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
