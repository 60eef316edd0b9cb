/**
 * OVER aggregations in processing time, TypeScript aggregates in OVER windows and DISTINCT
 * aggregates in OVER windows, against plain computations over the same rows.
 *
 * In processing time each row is emitted on arrival with the aggregates of the rows of its
 * partition that arrived before it (ROWS frames, unbounded frames): that depends only on the
 * arrival order, which one source subtask at parallelism 1 keeps. A RANGE INTERVAL frame
 * depends on the clock; there each row is checked against the invariant: its frame is a
 * suffix of its partition's rows so far, ending at the row itself.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import {
  CollectSink,
  defineAggregateFunction,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';

interface Event {
  k: string;
  v: number;
  ts: number;
}

const BASE = Date.UTC(2026, 0, 1);

/** `spread(v)`: MAX(v) - MIN(v), as a TypeScript aggregate without retract or merge. */
const spread = defineAggregateFunction<{ lo: number | null; hi: number | null }>({
  arguments: ['INT'],
  result: 'INT',
  createAccumulator: () => ({ lo: null, hi: null }),
  accumulate(acc, v: number | null) {
    if (v === null) return acc;
    acc.lo = acc.lo === null ? v : Math.min(acc.lo, v);
    acc.hi = acc.hi === null ? v : Math.max(acc.hi, v);
    return acc;
  },
  getValue: (acc) => (acc.lo === null || acc.hi === null ? null : acc.hi - acc.lo),
});

/** `total(v)`: the sum of v, counting how often it is called (DISTINCT calls it once per value). */
const total = defineAggregateFunction<{ sum: number }>({
  arguments: ['INT'],
  result: 'BIGINT',
  createAccumulator: () => ({ sum: 0 }),
  accumulate(acc, v: number | null) {
    if (v !== null) acc.sum += v;
    return acc;
  },
  getValue: (acc) => acc.sum,
});

function environment(events: readonly Event[], parallelism = 1) {
  const env = new StreamEnvironment({ parallelism, batchSize: 3 });
  const tEnv = TableEnvironment.create(env);
  tEnv.createTemporarySystemFunction('spread', spread);
  tEnv.createTemporarySystemFunction('total', total);
  tEnv.fromDataStream('raw', env.fromArray([...events]), {
    columns: [
      { name: 'k', type: 'STRING' },
      { name: 'v', type: 'INT' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'ts', expression: "ts - INTERVAL '1' SECOND" },
  });
  // `events` is raw with a processing-time attribute (a view would be planned in a job of its
  // own at CREATE VIEW, where a DataStream table cannot be read).
  const query = (sql: string) =>
    tEnv.sqlQuery(
      sql.replaceAll('FROM events', 'FROM (SELECT k, v, ts, PROCTIME() AS pt FROM raw) AS events'),
    );
  return { env, tEnv, query };
}

async function collect(events: readonly Event[], sql: string, parallelism = 1): Promise<Row[]> {
  const { env, query } = environment(events, parallelism);
  const sink = new CollectSink<Row>();
  query(sql).toDataStream().sinkTo(sink);
  await env.execute('over proctime');
  return sink.values;
}

/** The rows of each partition in arrival order, each with the rows before it (inclusive). */
function prefixes(events: readonly Event[]): { e: Event; before: Event[] }[] {
  const seen = new Map<string, Event[]>();
  return events.map((e) => {
    const rows = [...(seen.get(e.k) ?? []), e];
    seen.set(e.k, rows);
    return { e, before: rows };
  });
}

const eventArb = fc.record({
  k: fc.constantFrom('a', 'b', 'c'),
  v: fc.integer({ min: 0, max: 6 }),
  ts: fc.integer({ min: 0, max: 60 }).map((i) => BASE + i * 50),
});

const sum = (vs: readonly number[]): number => vs.reduce((a, b) => a + b, 0);
const distinct = (vs: readonly number[]): number[] => [...new Set(vs)];

describe('OVER aggregation in processing time', () => {
  it('ROWS n PRECEDING and UNBOUNDED frames: each row on arrival with the rows before it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { minLength: 20, maxLength: 60 }), async (events) => {
        const rows = await collect(
          events,
          `SELECT k, v,
             SUM(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s3,
             COUNT(*) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS n3,
             MAX(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS m3
           FROM events`,
        );
        const expected = prefixes(events).map(({ e, before }) => {
          const frame = before.slice(-3).map((r) => r.v);
          return [e.k, e.v, sum(frame), frame.length, Math.max(...frame)];
        });
        // One source subtask at parallelism 1: output in arrival order.
        expect(rows.map((r) => r.map((x) => (typeof x === 'string' ? x : Number(x))))).toEqual(
          expected,
        );
        const running = await collect(
          events,
          `SELECT k, v, SUM(v) OVER w, COUNT(DISTINCT v) OVER w, AVG(DISTINCT v) OVER w,
             MIN(v) OVER w
           FROM events WINDOW w AS (PARTITION BY k ORDER BY pt
             RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`,
        );
        expect(running.map((r) => r.map((x) => (typeof x === 'string' ? x : Number(x))))).toEqual(
          prefixes(events).map(({ e, before }) => {
            const vs = before.map((r) => r.v);
            const d = distinct(vs);
            return [e.k, e.v, sum(vs), d.length, Math.trunc(sum(d) / d.length), Math.min(...vs)];
          }),
        );
      }),
      { seed: 28, numRuns: 4 },
    );
  }, 60_000);

  it('RANGE INTERVAL frames: each row sees a suffix of its partition ending at itself', async () => {
    const events = fc.sample(eventArb, { seed: 5, numRuns: 200 });
    const rows = await collect(
      events,
      `SELECT k, v, COUNT(*) OVER w, SUM(v) OVER w FROM events
       WINDOW w AS (PARTITION BY k ORDER BY pt RANGE BETWEEN INTERVAL '10' MILLISECOND PRECEDING AND CURRENT ROW)`,
    );
    expect(rows).toHaveLength(events.length);
    prefixes(events).forEach(({ e, before }, i) => {
      const [k, v, n, s] = rows[i] as [string, number, number, number];
      expect([k, v]).toEqual([e.k, e.v]);
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(before.length);
      expect(Number(s)).toBe(sum(before.slice(-n).map((r) => r.v)));
    });
    // A frame longer than the run: every row sees its whole partition so far.
    const long = await collect(
      events,
      `SELECT k, COUNT(*) OVER (PARTITION BY k ORDER BY pt
         RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM events`,
    );
    expect(long.map((r) => Number(r[1]))).toEqual(prefixes(events).map((p) => p.before.length));
  }, 60_000);

  it('at parallelism 2 every row is emitted once, with its partition order kept', async () => {
    const events = fc.sample(eventArb, { seed: 9, numRuns: 120 });
    const rows = await collect(
      events,
      'SELECT k, COUNT(*) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM events',
      2,
    );
    // Each partition's counts are 1..n: a keyed exchange keeps one source subtask's order.
    const byKey = new Map<string, number[]>();
    for (const [k, n] of rows as [string, number][])
      byKey.set(k, [...(byKey.get(k) ?? []), Number(n)]);
    for (const [k, counts] of byKey) {
      const n = events.filter((e) => e.k === k).length;
      expect(counts).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    }
  }, 60_000);
});

describe('OVER in processing time across a savepoint', () => {
  const ROWS = 200;
  const eventAt = (i: number): Event => ({
    k: ['a', 'b', 'c'][(i * 7) % 3] as string,
    v: (i * 13) % 10,
    ts: BASE,
  });

  /** The job: a generated source (one subtask), the OVER query, rows committed to files. */
  function build(out: string, checkpoints: string, rate: number | undefined): StreamEnvironment {
    const env = new StreamEnvironment({
      parallelism: 2,
      batchSize: 5,
      checkpointing: { directory: checkpoints, intervalMs: 100 },
    });
    const tEnv = TableEnvironment.create(env);
    const source = env
      .fromGenerator({
        count: ROWS,
        ...(rate === undefined ? {} : { ratePerSecond: rate }),
        generate: (i: number) => [i, ...Object.values(eventAt(i)).slice(0, 2)],
      })
      .setParallelism(1)
      .uid('events');
    tEnv.fromDataStream('raw', source, {
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'k', type: 'STRING' },
        { name: 'v', type: 'INT' },
      ],
    });
    tEnv
      .sqlQuery(
        `SELECT id, SUM(v) OVER w, COUNT(DISTINCT v) OVER w, MAX(v) OVER w
         FROM (SELECT id, k, v, PROCTIME() AS pt FROM raw)
         WINDOW w AS (PARTITION BY k ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)`,
      )
      .toDataStream()
      .map((r: Row) => JSON.stringify(r.map(Number)))
      .sinkTo(new ExactlyOnceFileSink<string>({ directory: out, format: (line) => line }))
      .uid('rows');
    return env;
  }

  async function committed(dir: string): Promise<string[]> {
    const files = await readdir(dir).catch(() => [] as string[]);
    const lines: string[] = [];
    for (const f of files.filter((f) => !f.startsWith('.')))
      lines.push(...(await readFile(join(dir, f), 'utf8')).split('\n').filter((l) => l !== ''));
    return lines.sort();
  }

  it('a job stopped with a savepoint and restored emits the rows of an uninterrupted run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-over-proctime-'));
    try {
      // Each partition's rows in generation order; a frame is the row and the two before it.
      const seen = new Map<string, number[]>();
      const expected = Array.from({ length: ROWS }, (_, id) => {
        const e = eventAt(id);
        const vs = [...(seen.get(e.k) ?? []), e.v];
        seen.set(e.k, vs);
        const frame = vs.slice(-3);
        return JSON.stringify([id, sum(frame), distinct(frame).length, Math.max(...frame)]);
      });
      const first = build(join(dir, 'out'), join(dir, 'cp-first'), 50).executeAsync('first');
      const deadline = Date.now() + 60_000;
      while ((await committed(join(dir, 'out'))).length === 0) {
        if (Date.now() > deadline) throw new Error('no output committed within 60 s');
        await pause(20);
      }
      const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
      const before = (await committed(join(dir, 'out'))).length;
      await build(join(dir, 'out'), join(dir, 'cp-second'), undefined).executeAsync('second', {
        restoreFrom: savepoint,
      }).result;
      expect(before).toBeGreaterThan(0);
      expect(before).toBeLessThan(ROWS);
      expect(await committed(join(dir, 'out'))).toEqual([...expected].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('TypeScript aggregates and DISTINCT in OVER windows', () => {
  it('a TypeScript aggregate, plain and DISTINCT, over event-time and processing-time frames', async () => {
    const events = fc.sample(eventArb, { seed: 3, numRuns: 80 });
    // Distinct rowtimes, in order: the event-time result is then the arrival-order one too.
    const ordered = events.map((e, i) => ({ ...e, ts: BASE + i * 10 }));
    const expected = prefixes(ordered).map(({ e, before }) => {
      const frame = before.slice(-4).map((r) => r.v);
      const all = before.map((r) => r.v);
      return [e.k, e.v, Math.max(...frame) - Math.min(...frame), sum(all), sum(distinct(all))];
    });
    for (const order of ['ts', 'pt']) {
      const rows = await collect(
        ordered,
        `SELECT k, v,
           spread(v) OVER (PARTITION BY k ORDER BY ${order} ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
           total(v) OVER (PARTITION BY k ORDER BY ${order} ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
           total(DISTINCT v) OVER (PARTITION BY k ORDER BY ${order} ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)
         FROM events`,
      );
      // The bounded frame of the first calls differs from the running sums: recompute here.
      const bounded = prefixes(ordered).map(({ before }) => sum(before.slice(-4).map((r) => r.v)));
      const bd = prefixes(ordered).map(({ before }) =>
        sum(distinct(before.slice(-4).map((r) => r.v))),
      );
      const got = rows.map((r) => r.map((x) => (typeof x === 'string' ? x : Number(x))));
      const sorted = order === 'ts' ? [...got].sort(byRow) : got;
      const want = expected.map((x, i) => [x[0], x[1], x[2], bounded[i], bd[i]]);
      expect(sorted).toEqual(order === 'ts' ? [...want].sort(byRow) : want);
    }
  }, 60_000);

  it('a TypeScript aggregate with DISTINCT in a GROUP BY calls it once per distinct value', async () => {
    const events = fc.sample(eventArb, { seed: 4, numRuns: 60 });
    const { env, tEnv } = environment(events);
    const sink = new CollectSink<Row>();
    tEnv
      .sqlQuery(
        `SELECT k, total(DISTINCT v), total(v), window_end FROM TABLE(
           TUMBLE(TABLE raw, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
      )
      .toDataStream()
      .sinkTo(sink);
    await env.execute('distinct user aggregate');
    const want = ['a', 'b', 'c']
      .map((k) => events.filter((e) => e.k === k).map((e) => e.v))
      .filter((vs) => vs.length > 0);
    const got = sink.values.map((r) => [Number(r[1]), Number(r[2])]);
    expect(got.sort(byRow)).toEqual(want.map((vs) => [sum(distinct(vs)), sum(vs)]).sort(byRow));
  });

  it('refuses what Flink refuses: frames ending after CURRENT ROW, bounded frames ordered by a non-time column', () => {
    const { query } = environment([]);
    expect(() =>
      query(
        'SELECT SUM(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM events',
      ),
    ).toThrow('OVER RANGE FOLLOWING windows are not supported yet');
    expect(() =>
      query(
        "SELECT SUM(v) OVER (ORDER BY pt RANGE BETWEEN CURRENT ROW AND INTERVAL '1' SECOND FOLLOWING) FROM events",
      ),
    ).toThrow('OVER RANGE FOLLOWING windows are not supported yet');
    expect(() =>
      query('SELECT SUM(v) OVER (ORDER BY v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM events'),
    ).toThrow('Non-time attribute sort is not supported for bounded OVER window.');
    expect(() => query('SELECT total(*) OVER (ORDER BY pt) FROM events')).toThrow(
      'TOTAL(*) is not supported for a TypeScript aggregate function',
    );
  });
});

function byRow(a: unknown[], b: unknown[]): number {
  return JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;
}
