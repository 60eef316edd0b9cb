/**
 * STDDEV_POP, STDDEV_SAMP, VAR_POP, VAR_SAMP, VARIANCE, FIRST_VALUE, LAST_VALUE, LISTAGG and
 * ARRAY_AGG against a plain computation over the same rows (fast-check): in TUMBLE, HOP,
 * CUMULATE and SESSION windows, an unwindowed GROUP BY over inserts and over a changing input, and an OVER window,
 * at parallelism 1 and 2. The order-dependent ones are compared where the order is defined:
 * windows read rows in rowtime order (so panes merge in arrival order), a GROUP BY in its
 * input's order per key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { queryChanges } from './query-changes.js';

interface Reading {
  key: string;
  v: number | null;
  s: string | null;
  ts: number;
}

const T0 = 1_767_225_600_000;
const readingsArb = fc.array(
  fc.record({
    key: fc.constantFrom('a', 'b', 'c'),
    v: fc.option(fc.integer({ min: -100, max: 100 }), { nil: null }),
    s: fc.option(fc.constantFrom('x', 'y', 'z', 'w'), { nil: null }),
    ts: fc.integer({ min: 0, max: 59_999 }).map((ms) => T0 + ms),
  }),
  { minLength: 1, maxLength: 50 },
);

const COLUMNS = [
  { name: 'k', type: 'STRING' },
  { name: 'v', type: 'INT' },
  { name: 'x', type: 'DOUBLE' },
  { name: 's', type: 'STRING' },
  { name: 'ts', type: 'TIMESTAMP(3)' },
];

async function run(readings: readonly Reading[], query: string, parallelism: number) {
  const table = {
    name: 'readings',
    // x is v / 2: halves sum exactly in any order, so merged partials equal one running sum.
    rows: readings.map((r) => [r.key, r.v, r.v === null ? null : r.v / 2, r.s, r.ts]),
    columns: COLUMNS,
    watermark: { column: 'ts', expression: "ts - INTERVAL '1' MINUTE" },
  };
  const [changes] = await queryChanges(table, [query], { parallelism, batchSize: 8 });
  return materialize(changes ?? [], (row) => JSON.stringify(row)).sort();
}

const CALLS = `VAR_POP(v), VAR_SAMP(v), STDDEV_POP(v), STDDEV_SAMP(v), VARIANCE(x), STDDEV_POP(x),
  FIRST_VALUE(v), LAST_VALUE(s), LISTAGG(s), LISTAGG(s, '|') FILTER (WHERE v > 0),
  ARRAY_AGG(v), ARRAY_AGG(DISTINCT s), LISTAGG(DISTINCT s, ';')`;

/** Flink's reduction of the variances: integer division for INT, floating for DOUBLE. */
function moments(values: readonly number[], integer: boolean, sample: boolean, root: boolean) {
  const n = values.length;
  const d = sample ? n - 1 : n;
  if (n === 0 || d === 0) return null;
  const s = values.reduce((a, b) => a + b, 0);
  const s2 = values.reduce((a, b) => a + b * b, 0);
  if (integer) {
    const v = Math.trunc((s2 - Math.trunc((s * s) / n)) / d);
    return root ? Math.trunc(Math.sqrt(v)) : v;
  }
  const v = (s2 - (s * s) / n) / d;
  return root ? Math.sqrt(v) : v;
}

/** The CALLS over `rows` in their order. */
function expected(rows: readonly Reading[]): unknown[] {
  const vs = rows.map((r) => r.v).filter((v): v is number => v !== null);
  const xs = vs.map((v) => v / 2);
  const ss = rows.map((r) => r.s).filter((s): s is string => s !== null);
  const positive = rows
    .filter((r) => r.v !== null && r.v > 0)
    .map((r) => r.s)
    .filter((s): s is string => s !== null);
  return [
    moments(vs, true, false, false),
    moments(vs, true, true, false),
    moments(vs, true, false, true),
    moments(vs, true, true, true),
    moments(xs, false, true, false),
    moments(xs, false, false, true),
    vs[0] ?? null,
    ss[ss.length - 1] ?? null,
    ss.length === 0 ? null : ss.join(','),
    positive.length === 0 ? null : positive.join('|'),
    rows.map((r) => r.v),
    [...new Set(rows.map((r) => r.s))],
    ss.length === 0 ? null : [...new Set(ss)].join(';'),
  ];
}

function groups<K>(rows: readonly Reading[], keyOf: (r: Reading) => K[]): Map<string, Reading[]> {
  const out = new Map<string, Reading[]>();
  for (const r of rows)
    for (const k of keyOf(r)) {
      const id = JSON.stringify(k);
      out.set(id, [...(out.get(id) ?? []), r]);
    }
  return out;
}

function rowsOf(byGroup: Map<string, Reading[]>): string[] {
  return [...byGroup]
    .map(([id, rows]) => JSON.stringify([...JSON.parse(id), ...expected(rows)]))
    .sort();
}

describe('Flink built-in aggregates beyond COUNT, SUM, MIN, MAX and AVG', () => {
  for (const parallelism of [1, 2]) {
    it(`in TUMBLE, HOP, CUMULATE and SESSION windows and a GROUP BY, equal a plain computation (parallelism ${parallelism})`, async () => {
      await fc.assert(
        fc.asyncProperty(readingsArb, async (unordered) => {
          const readings = [...unordered].sort((a, b) => a.ts - b.ts);
          const tumble = await run(
            readings,
            `SELECT k, window_start, ${CALLS} FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))
             GROUP BY k, window_start, window_end`,
            parallelism,
          );
          expect(tumble).toEqual(
            rowsOf(groups(readings, (r) => [[r.key, r.ts - ((r.ts - T0) % 10_000)]])),
          );

          const hop = await run(
            readings,
            `SELECT window_start, ${CALLS} FROM TABLE(HOP(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
             GROUP BY window_start, window_end`,
            parallelism,
          );
          expect(hop).toEqual(
            rowsOf(
              groups(readings, (r) => {
                const start = r.ts - ((r.ts - T0) % 10_000);
                return [[start], [start - 10_000]];
              }),
            ),
          );

          const cumulate = await run(
            readings,
            `SELECT window_start, window_end, ${CALLS} FROM TABLE(CUMULATE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND))
             GROUP BY window_start, window_end`,
            parallelism,
          );
          expect(cumulate).toEqual(
            rowsOf(
              groups(readings, (r) => {
                const start = r.ts - ((r.ts - T0) % 30_000);
                const step = r.ts - ((r.ts - T0) % 10_000);
                const ends = [10_000, 20_000, 30_000].map((n) => start + n).filter((e) => e > step);
                return ends.map((end) => [start, end]);
              }),
            ),
          );

          // Sessions of each key with a 5 s gap, in rowtime order; a row exactly a gap after
          // the session's last one touches it and joins it, as Flink's sessions merge.
          const session = await run(
            readings,
            `SELECT k, window_start, window_end, ${CALLS} FROM TABLE(SESSION(TABLE readings PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND))
             GROUP BY k, window_start, window_end`,
            parallelism,
          );
          const sessions = new Map<string, Reading[]>();
          const open = new Map<string, { id: string; end: number }>();
          for (const r of readings) {
            const current = open.get(r.key);
            if (current === undefined || r.ts > current.end) {
              const id = JSON.stringify([r.key, r.ts]);
              open.set(r.key, { id, end: r.ts + 5_000 });
              sessions.set(id, [r]);
            } else {
              current.end = Math.max(current.end, r.ts + 5_000);
              sessions.get(current.id)?.push(r);
            }
          }
          expect(session).toEqual(
            [...sessions.values()]
              .map((rows) => {
                const first = rows[0] as Reading;
                const end = Math.max(...rows.map((r) => r.ts)) + 5_000;
                return JSON.stringify([first.key, first.ts, end, ...expected(rows)]);
              })
              .sort(),
          );

          // Unwindowed: the input's order, not sorted by time.
          const grouped = await run(
            unordered,
            `SELECT k, ${CALLS} FROM readings GROUP BY k`,
            parallelism,
          );
          expect(grouped).toEqual(rowsOf(groups(unordered, (r) => [[r.key]])));
        }),
        {
          numRuns: 5,
          // Rows of a key exactly the session gap apart: one session, not two.
          examples: [
            [
              [
                { key: 'c', v: null, s: null, ts: T0 + 14_636 },
                { key: 'c', v: null, s: null, ts: T0 + 9_636 },
                { key: 'a', v: null, s: null, ts: T0 },
              ],
            ],
          ],
        },
      );
    }, 240_000);

    it(`over a changing input take retracted rows out (parallelism ${parallelism})`, async () => {
      await fc.assert(
        fc.asyncProperty(readingsArb, async (readings) => {
          // The inner GROUP BY updates each key's count; the outer aggregates retract the old one.
          const actual = await run(
            readings,
            `SELECT VAR_POP(n), VAR_SAMP(n), STDDEV_SAMP(CAST(n AS DOUBLE)), FIRST_VALUE(n) FILTER (WHERE n < 0),
               LISTAGG(DISTINCT k)
             FROM (SELECT k, COUNT(*) AS n FROM readings GROUP BY k)`,
            parallelism,
          );
          const byKey = groups(readings, (r) => [r.key]);
          const counts = [...byKey.values()].map((rows) => rows.length);
          const [row] = actual.map((r) => JSON.parse(r) as unknown[]);
          expect(row?.slice(0, 2)).toEqual([
            moments(counts, true, false, false),
            moments(counts, true, true, false),
          ]);
          const sampleStd = moments(counts, false, true, true);
          if (sampleStd === null) expect(row?.[2]).toBeNull();
          else expect(row?.[2] as number).toBeCloseTo(sampleStd, 9);
          expect(row?.[3]).toBeNull();
          // The keys' order depends on how the inner results interleave: compare as a set.
          expect(String(row?.[4]).split(',').sort()).toEqual(
            [...byKey.keys()].map((k) => JSON.parse(k)).sort(),
          );
          expect(actual).toHaveLength(1);
        }),
        { numRuns: 5 },
      );
    }, 120_000);
  }

  it('in an OVER window equal a plain computation over each row frame', async () => {
    await fc.assert(
      fc.asyncProperty(readingsArb, async (unordered) => {
        // Distinct timestamps ordered: each row's frame is the rows of its key up to it.
        const readings = [...unordered]
          .sort((a, b) => a.ts - b.ts)
          .filter((r, i, all) => i === 0 || (all[i - 1] as Reading).ts !== r.ts);
        const actual = await run(
          readings,
          `SELECT k, ts, FIRST_VALUE(v) OVER w, LAST_VALUE(s) OVER w, LISTAGG(s) OVER w,
             VAR_POP(v) OVER w, ARRAY_AGG(v) OVER w
           FROM readings WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`,
          1,
        );
        const want = readings.map((r, i) => {
          const frame = readings.slice(0, i + 1).filter((o) => o.key === r.key);
          const all = expected(frame);
          return JSON.stringify([r.key, r.ts, all[6], all[7], all[8], all[0], all[10]]);
        });
        expect(actual).toEqual(want.sort());
      }),
      { numRuns: 5 },
    );
  }, 120_000);

  it('refuses what it cannot compute, naming the call', () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('readings', env.fromArray<unknown[]>([]), { columns: COLUMNS });
    expect(() => tEnv.sqlQuery('SELECT LISTAGG(v) FROM readings')).toThrow(
      'LISTAGG needs a character string, got INT',
    );
    expect(() => tEnv.sqlQuery('SELECT STDDEV_POP(s) FROM readings')).toThrow(
      'STDDEV_POP needs a numeric argument, got STRING',
    );
    expect(() => tEnv.sqlQuery('SELECT FIRST_VALUE(v, s) FROM readings')).toThrow(
      'FIRST_VALUE takes one argument, got 2',
    );
    expect(
      tEnv.sqlQuery('SELECT k, ARRAY_AGG(v) AS a, VAR_SAMP(x) AS b FROM readings GROUP BY k')
        .columns,
    ).toEqual([
      { name: 'k', type: 'STRING' },
      { name: 'a', type: 'ARRAY<INT>' },
      { name: 'b', type: 'DOUBLE' },
    ]);
  });
});
