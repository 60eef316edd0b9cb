/**
 * OVER aggregations against a batch computation over the same rows: rows arrive shuffled
 * under a lagging watermark; late rows are dropped (as Flink decides lateness, which differs
 * between bounded and unbounded frames), the others are emitted once each with the
 * aggregates of their frame, in rowtime order per partition.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { ROWS_SERIALIZER } from '../../src/sql/planner/row-serializer.js';

interface Event {
  k: string;
  v: number;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);
const DELAY = 1_000;

type Frame = { mode: 'ROWS' | 'RANGE'; preceding: number };

const FRAMES: readonly { sql: string; frame: Frame }[] = [
  { sql: 'ROWS BETWEEN 2 PRECEDING AND CURRENT ROW', frame: { mode: 'ROWS', preceding: 2 } },
  {
    sql: "RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW",
    frame: { mode: 'RANGE', preceding: 1_000 },
  },
  {
    sql: 'RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
    frame: { mode: 'RANGE', preceding: Number.POSITIVE_INFINITY },
  },
  {
    sql: 'ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
    frame: { mode: 'ROWS', preceding: Number.POSITIVE_INFINITY },
  },
];

/**
 * Each kept row (v > 0, not late) with COUNT, SUM, MIN, MAX, AVG of v over its frame. Late is
 * Flink's: with an unbounded frame a row at or behind the watermark; with a bounded one a row
 * at or behind the last rowtime its partition has processed (rows are processed when the
 * watermark advances past them).
 */
function oracle(events: readonly Event[], frame: Frame): string[] {
  const bounded = frame.preceding !== Number.POSITIVE_INFINITY;
  let watermark = Number.NEGATIVE_INFINITY;
  const partitions = new Map<string, Event[]>();
  const waiting = new Map<string, number[]>();
  const lastTaken = new Map<string, number>();
  for (const e of events) {
    const bound = bounded ? (lastTaken.get(e.k) ?? Number.NEGATIVE_INFINITY) : watermark;
    if (e.ts > bound && e.v > 0) {
      const rows = partitions.get(e.k) ?? [];
      rows.push(e);
      partitions.set(e.k, rows);
      waiting.set(e.k, [...(waiting.get(e.k) ?? []), e.ts]);
    }
    const next = Math.max(watermark, e.ts - DELAY);
    if (next === watermark) continue;
    watermark = next;
    for (const [k, times] of waiting) {
      const taken = times.filter((t) => t <= watermark);
      if (taken.length === 0) continue;
      lastTaken.set(k, Math.max(lastTaken.get(k) ?? Number.NEGATIVE_INFINITY, ...taken));
      waiting.set(
        k,
        times.filter((t) => t > watermark),
      );
    }
  }
  const out: string[] = [];
  for (const rows of partitions.values()) {
    const sorted = [...rows].sort((a, b) => a.ts - b.ts); // stable: arrival order within a rowtime
    sorted.forEach((e, i) => {
      const inFrame =
        frame.mode === 'ROWS'
          ? sorted.slice(Math.max(0, i - frame.preceding), i + 1)
          : sorted.filter((r) => r.ts <= e.ts && r.ts >= e.ts - frame.preceding);
      const vs = inFrame.map((r) => r.v);
      const sum = vs.reduce((a, b) => a + b, 0);
      out.push(
        JSON.stringify([
          e.k,
          e.v,
          e.ts,
          vs.length,
          sum,
          Math.min(...vs),
          Math.max(...vs),
          sum / vs.length,
        ]),
      );
    });
  }
  return out.sort();
}

async function run(
  events: readonly Event[],
  frameSql: string,
  named = false,
  parallelism = 1,
): Promise<Change<Row>[]> {
  // One row per batch from one source subtask: the watermark follows each row on every
  // channel, so lateness is deterministic at any parallelism.
  const env = new StreamEnvironment({ parallelism, batchSize: 1 });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream('events', env.fromArray([...events]), {
    columns: [
      { name: 'k', type: 'STRING' },
      { name: 'v', type: 'DOUBLE' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'ts', expression: "ts - INTERVAL '1' SECOND" },
  });
  const spec = `PARTITION BY k ORDER BY ts ${frameSql}`;
  const w = named ? 'w' : `(${spec})`;
  const sink = new CollectSink<Change<Row>>();
  tEnv
    .sqlQuery(
      `SELECT k, v, ts, COUNT(*) OVER ${w}, SUM(v) OVER ${w}, MIN(v) OVER ${w},
         MAX(v) OVER ${w}, AVG(v) OVER ${w}
       FROM events WHERE v > 0${named ? ` WINDOW w AS (${spec})` : ''}`,
    )
    .toChangelogStream()
    .sinkTo(sink);
  await env.execute('over');
  return sink.values;
}

const eventArb = fc.record({
  k: fc.constantFrom('a', 'b'),
  v: fc.integer({ min: 0, max: 9 }),
  // Coarse rowtimes, so that rows share them.
  ts: fc.integer({ min: 0, max: 60 }).map((i) => BASE + i * 50),
});

describe('OVER aggregation', () => {
  for (const { sql, frame } of FRAMES) {
    it(`${sql}: one row per input row, late rows dropped`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(eventArb, { minLength: 30, maxLength: 80 }),
          fc.constantFrom(1, 2),
          async (events, parallelism) => {
            const changes = await run(events, sql, false, parallelism);
            expect(changes.every((c) => c.kind === '+I')).toBe(true);
            const got = changes.map((c) =>
              JSON.stringify([c.value[0], ...c.value.slice(1).map((v) => Number(v))]),
            );
            expect(got.sort()).toEqual(oracle(events, frame));
          },
        ),
        { seed: 14, numRuns: 6 },
      );
    }, 60_000);
  }

  it('reads a named window of the WINDOW clause', async () => {
    const [{ sql, frame }] = FRAMES as [(typeof FRAMES)[number]];
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { minLength: 30, maxLength: 80 }), async (events) => {
        const changes = await run(events, sql, true);
        const got = changes.map((c) =>
          JSON.stringify([c.value[0], ...c.value.slice(1).map((v) => Number(v))]),
        );
        expect(got.sort()).toEqual(oracle(events, frame));
      }),
      { seed: 15, numRuns: 2 },
    );
  });

  for (const [frame, sums] of [
    ['ROWS BETWEEN 2 PRECEDING AND CURRENT ROW', [1, 3, 7, 14]],
    ["RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW", [1, 3, 7, 15]],
  ] as const) {
    it(`${frame} keeps a row the watermark passed if its partition processed nothing after it (Flink's lateness), and counts the late ones`, async () => {
      // Flink's OverAggregateITCase (testRowTimeBounded...Over): a bounded frame drops a row
      // only at or behind the last rowtime its key has processed, not the watermark.
      const env = new StreamEnvironment({ batchSize: 1 });
      const tEnv = TableEnvironment.create(env);
      const at = (ms: number) => BASE + ms;
      const rows = [
        { a: 1, ts: at(1), wm: at(5) },
        { a: 2, ts: at(3), wm: at(5) },
        { a: 4, ts: at(5), wm: at(5) },
        { a: 8, ts: at(6), wm: at(10) },
        // Behind the rows its key processed when the watermark reached 10: late, counted.
        { a: 16, ts: at(2), wm: at(10) },
      ];
      tEnv.fromDataStream('t', env.fromArray(rows), {
        columns: [
          { name: 'a', type: 'BIGINT' },
          { name: 'ts', type: 'TIMESTAMP(3)' },
          { name: 'wm', type: 'TIMESTAMP(3)' },
        ],
        watermark: { column: 'ts', expression: 'wm' },
      });
      const sink = new CollectSink<Change<Row>>();
      tEnv
        .sqlQuery(`SELECT a, SUM(a) OVER (ORDER BY ts ${frame}) FROM t`)
        .toChangelogStream()
        .sinkTo(sink);
      const result = await env.execute('bounded over lateness');
      expect(sink.values.map((c) => c.value.map(Number))).toEqual(
        [1, 2, 4, 8].map((a, i) => [a, sums[i]]),
      );
      expect(result.metric('weir_sql_late_records_total')).toBe(1);
    });
  }

  it('explains the keyed process function and its state, and names the columns as Flink does', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`CREATE TABLE e (k STRING, v INT, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen')`);
    const plan = tEnv.explainSql(
      'SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM e',
    );
    expect(plan).toContain('(k STRING, EXPR$1 INT)');
    expect(plan).toContain('changelog mode: insert-only');
    expect(plan).toContain('keyed-process "over aggregate"');
    expect(plan).toContain('state: each row until the watermark passes its rowtime');
  });

  it('keeps rows with DECIMAL and non-finite DOUBLE values in state through JSON', () => {
    const rows = [
      [1n, Number.NaN, 'x', null, [Number.POSITIVE_INFINITY, -3n], true],
      [-12345678901234567890n, 2.5, '', false, [], 7],
    ];
    const json = JSON.parse(JSON.stringify(ROWS_SERIALIZER.toJson(rows)));
    expect(ROWS_SERIALIZER.fromJson(json, 1)).toEqual(rows);
  });

  it('refuses the OVER windows Flink refuses', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('events', env.fromArray<Event>([]), {
      columns: [
        { name: 'k', type: 'STRING' },
        { name: 'v', type: 'DOUBLE' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: 'ts' },
    });
    expect(() =>
      tEnv.sqlQuery(
        'SELECT SUM(v) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM events',
      ),
    ).toThrow('Non-time attribute sort is not supported for bounded OVER window.');
    expect(() =>
      tEnv.sqlQuery('SELECT SUM(v) OVER (PARTITION BY k ORDER BY ts, v) FROM events'),
    ).toThrow('The window can only be ordered by a single time column.');
    expect(() =>
      tEnv.sqlQuery(`SELECT SUM(v) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW),
        COUNT(*) OVER (ORDER BY ts) FROM events`),
    ).toThrow('must use the same window');
    expect(() =>
      tEnv.sqlQuery(
        'SELECT SUM(v) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM events',
      ),
    ).toThrow('OVER RANGE FOLLOWING windows are not supported yet');
    expect(() => tEnv.sqlQuery('SELECT SUM(v) OVER w FROM events')).toThrow("no window 'W'");
  });
});
