/**
 * CUMULATE window aggregation against a batch computation over the same rows: every window
 * of a max-size period that ends after a row holds it, unless the watermark had passed the
 * window's end when the row arrived (late rows are dropped per window, as Flink does).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';

interface Click {
  user: string;
  amount: number;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);
const STEP = 2_000;
const MAX = 6_000;
const DELAY = 1_500;

/** One row per (user, window): COUNT, SUM, MAX, window_start, window_end, window_time. */
function oracle(clicks: readonly Click[]): string[] {
  const groups = new Map<string, { user: string; start: number; end: number; values: number[] }>();
  let watermark = Number.NEGATIVE_INFINITY;
  for (const c of clicks) {
    const start = Math.floor(c.ts / MAX) * MAX;
    for (let end = Math.floor(c.ts / STEP) * STEP + STEP; end <= start + MAX; end += STEP) {
      if (end - 1 <= watermark) continue;
      const key = `${c.user}/${end}`;
      const g = groups.get(key) ?? { user: c.user, start, end, values: [] };
      g.values.push(c.amount);
      groups.set(key, g);
    }
    watermark = Math.max(watermark, c.ts - DELAY);
  }
  return [...groups.values()]
    .map((g) =>
      JSON.stringify([
        g.user,
        g.values.length,
        g.values.reduce((a, b) => a + b, 0),
        Math.max(...g.values),
        g.start,
        g.end,
        g.end - 1,
      ]),
    )
    .sort();
}

async function run(
  clicks: readonly Click[],
  select: string,
  parallelism = 1,
): Promise<Change<Row>[]> {
  // One row per batch from one source subtask: the watermark follows each row on every
  // channel, so lateness is deterministic at any parallelism.
  const env = new StreamEnvironment({ parallelism, batchSize: 1 });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream('clicks', env.fromArray([...clicks]), {
    columns: [
      { name: 'user', type: 'STRING' },
      { name: 'amount', type: 'BIGINT' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'ts', expression: "ts - INTERVAL '1.5' SECOND" },
  });
  const sink = new CollectSink<Change<Row>>();
  tEnv.sqlQuery(select).toChangelogStream().sinkTo(sink);
  await env.execute('cumulate');
  return sink.values;
}

const clickArb = fc.record({
  user: fc.constantFrom('a', 'b'),
  amount: fc.integer({ min: 0, max: 9 }),
  ts: fc.integer({ min: BASE, max: BASE + 20_000 }),
});

describe('CUMULATE window', () => {
  it('aggregates each growing window once, dropping rows late for a window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(clickArb, { minLength: 20, maxLength: 60 }),
        fc.constantFrom(1, 2),
        async (clicks, parallelism) => {
          const changes = await run(
            clicks,
            `SELECT user, COUNT(*), SUM(amount), MAX(amount), window_start, window_end, window_time
           FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))
           GROUP BY user, window_start, window_end, window_time`,
            parallelism,
          );
          expect(changes.every((c) => c.kind === '+I')).toBe(true);
          const got = changes.map((c) =>
            JSON.stringify([c.value[0], ...c.value.slice(1).map((v) => Number(v))]),
          );
          expect(got.sort()).toEqual(oracle(clicks));
        },
      ),
      { seed: 14, numRuns: 6 },
    );
  }, 60_000);

  it('adds the window columns to each row without aggregation', async () => {
    const clicks: Click[] = [
      { user: 'a', amount: 1, ts: BASE + 500 },
      { user: 'b', amount: 2, ts: BASE + 4_100 },
    ];
    const changes = await run(
      clicks,
      `SELECT user, window_start, window_end
       FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))`,
    );
    const got = changes.map((c) => JSON.stringify([c.value[0], c.value[1], c.value[2]])).sort();
    expect(got).toEqual(
      [
        ['a', BASE, BASE + 2_000],
        ['a', BASE, BASE + 4_000],
        ['a', BASE, BASE + 6_000],
        ['b', BASE, BASE + 6_000],
      ]
        .map((r) => JSON.stringify(r))
        .sort(),
    );
  });

  it('is the DataStream API assigner Windows.cumulative, with an offset and a late row', async () => {
    const env = new StreamEnvironment({ batchSize: 1 });
    const records = await env
      .fromArray([{ t: 11 }, { t: 14 }, { t: 21 }, { t: 12 }, { t: 35 }])
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<{ t: number }>().withTimestampAssigner(
          (e) => e.t,
        ),
      )
      .keyBy(() => 'all')
      .window(Windows.cumulative(20, 5, 10))
      .aggregate({
        createAccumulator: () => 0,
        add: (_e: { t: number }, n: number) => n + 1,
        getResult: (n: number) => n,
      })
      .executeAndCollect();
    // 12 arrives when the watermark is 20: [10, 15) and [10, 20) have fired without it.
    expect(records.map((r) => [r.window.start, r.window.end, r.value])).toEqual([
      [10, 15, 2],
      [10, 20, 2],
      [10, 25, 4],
      [10, 30, 4],
      [30, 40, 1],
      [30, 45, 1],
      [30, 50, 1],
    ]);
    expect(() => Windows.cumulative(20, 6)).toThrow('must be a multiple of its step');
  });

  /** A table environment with an empty `clicks` table, for queries refused at plan time. */
  function emptyClicks(): TableEnvironment {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('clicks', env.fromArray<Click>([]), {
      columns: [
        { name: 'user', type: 'STRING' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: 'ts' },
    });
    return tEnv;
  }

  it('refuses a max size that is not a multiple of the step', () => {
    const tEnv = emptyClicks();
    expect(() =>
      tEnv.sqlQuery(`SELECT COUNT(*) FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts),
        INTERVAL '2' SECOND, INTERVAL '5' SECOND)) GROUP BY window_start, window_end`),
    ).toThrow('must be a multiple of its step');
  });

  it('refuses at plan time, with its position, an offset outside one period', () => {
    const tEnv = emptyClicks();
    for (const tvf of [
      "TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)",
      "HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND, INTERVAL '2' SECOND)",
      "CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND, INTERVAL '-2' SECOND)",
    ])
      expect(() =>
        tEnv.sqlQuery(`SELECT COUNT(*) FROM TABLE(${tvf}) GROUP BY window_start, window_end`),
      ).toThrow(
        /^line 1, column \d+: (TUMBLE|HOP|CUMULATE) offset \(-?\d+ ms\) must be a whole number of ms smaller than/,
      );
  });
});
