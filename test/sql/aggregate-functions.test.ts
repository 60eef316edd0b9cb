/**
 * TypeScript aggregate functions in SQL (`defineAggregateFunction`): a weighted average in
 * tumbling and sliding windows (merge), in an unwindowed GROUP BY, and over a changing input
 * (retract), each against a plain computation over the same rows (fast-check); registered by
 * CREATE FUNCTION; and the errors of wrong calls and definitions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { weightedAverage } from './fixtures/functions.js';

interface Reading {
  key: string;
  v: number | null;
  w: number;
  ts: number;
}

const T0 = 1_767_225_600_000;
const readingsArb = fc.array(
  fc.record({
    key: fc.constantFrom('a', 'b', 'c'),
    v: fc.option(fc.integer({ min: -100, max: 100 }), { nil: null }),
    w: fc.integer({ min: 1, max: 5 }),
    ts: fc.integer({ min: 0, max: 59_999 }).map((ms) => T0 + ms),
  }),
  { minLength: 1, maxLength: 60 },
);

function environment(readings: readonly Reading[], parallelism: number) {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.createTemporarySystemFunction('wavg', weightedAverage);
  tEnv.fromDataStream('readings', env.fromArray(readings.map((r) => [r.key, r.v, r.w, r.ts])), {
    columns: [
      { name: 'k', type: 'STRING' },
      { name: 'v', type: 'BIGINT' },
      { name: 'w', type: 'INT' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    // Later than the input's span: no row is late, whatever its order.
    watermark: { column: 'ts', expression: "ts - INTERVAL '1' MINUTE" },
  });
  return { env, tEnv };
}

async function run(readings: readonly Reading[], query: string, parallelism: number) {
  const { env, tEnv } = environment(readings, parallelism);
  const sink = new CollectSink<Change<unknown[]>>();
  tEnv.sqlQuery(query).toChangelogStream().sinkTo(sink);
  await env.execute('aggregate function');
  return materialize(sink.values, (row) => JSON.stringify(row)).sort();
}

/** The weighted average of `rows` as the function defines it. */
function wavg(rows: readonly Reading[]): number | null {
  let sum = 0;
  let weight = 0;
  for (const r of rows)
    if (r.v !== null) {
      sum += r.v * r.w;
      weight += r.w;
    }
  return weight === 0 ? null : sum / weight;
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

describe('TypeScript aggregate functions', () => {
  for (const parallelism of [1, 2]) {
    it(`in TUMBLE and HOP windows and a GROUP BY, equal a plain computation (parallelism ${parallelism})`, async () => {
      await fc.assert(
        fc.asyncProperty(readingsArb, async (readings) => {
          const tumble = await run(
            readings,
            `SELECT k, window_start, wavg(v, w) FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))
             GROUP BY k, window_start, window_end`,
            parallelism,
          );
          const byWindow = groups(readings, (r) => [[r.key, r.ts - ((r.ts - T0) % 10_000)]]);
          expect(tumble).toEqual(
            [...byWindow]
              .map(([id, rows]) => JSON.stringify([...JSON.parse(id), wavg(rows)]))
              .sort(),
          );

          const hop = await run(
            readings,
            `SELECT window_start, wavg(v, w) FROM TABLE(HOP(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
             GROUP BY window_start, window_end`,
            parallelism,
          );
          const byHop = groups(readings, (r) => {
            const start = r.ts - ((r.ts - T0) % 10_000);
            return [[start], [start - 10_000]];
          });
          expect(hop).toEqual(
            [...byHop].map(([id, rows]) => JSON.stringify([...JSON.parse(id), wavg(rows)])).sort(),
          );

          const grouped = await run(
            readings,
            'SELECT k, wavg(v, w) FROM readings GROUP BY k',
            parallelism,
          );
          const byKey = groups(readings, (r) => [r.key]);
          expect(grouped).toEqual(
            [...byKey].map(([id, rows]) => JSON.stringify([JSON.parse(id), wavg(rows)])).sort(),
          );
        }),
        { numRuns: 6 },
      );
    }, 180_000);
  }

  it('reads a changing input through retract', async () => {
    await fc.assert(
      fc.asyncProperty(readingsArb, async (readings) => {
        // The inner GROUP BY updates each key's latest weight; the outer one retracts them.
        const actual = await run(
          readings,
          `SELECT wavg(n, 1) FROM (SELECT k, COUNT(*) AS n FROM readings GROUP BY k)`,
          1,
        );
        const counts = [...groups(readings, (r) => [r.key]).values()].map((rows) => rows.length);
        const expected = counts.reduce((a, b) => a + b, 0) / counts.length;
        expect(actual).toEqual([JSON.stringify([expected])]);
      }),
      { numRuns: 6 },
    );
  }, 120_000);

  it('is registered by CREATE FUNCTION and refuses wrong calls and definitions', async () => {
    const { tEnv } = environment([], 1);
    const script =
      "CREATE TEMPORARY FUNCTION wavg2 AS 'test/sql/fixtures/functions.ts#weightedAverage'";
    await tEnv.loadFunctionModules(script);
    tEnv.executeSql(script);
    expect(tEnv.listFunctions().sort()).toEqual(['WAVG', 'WAVG2']);
    expect(tEnv.sqlQuery('SELECT k, wavg2(v, w) AS a FROM readings GROUP BY k').columns).toEqual([
      { name: 'k', type: 'STRING' },
      { name: 'a', type: 'DOUBLE' },
    ]);
    expect(() => tEnv.sqlQuery('SELECT wavg(v) FROM readings')).toThrow(
      'line 1, column 8: WAVG takes 2 arguments (BIGINT, INT), got 1',
    );
    expect(() => tEnv.sqlQuery("SELECT wavg(v, 'x') FROM readings")).toThrow('argument 2 of WAVG');
    expect(() => tEnv.sqlQuery('SELECT k FROM readings WHERE wavg(v, w) > 1')).toThrow(
      'line 1, column 41: aggregates are not allowed in WHERE',
    );
    expect(() =>
      tEnv.createTemporarySystemFunction('bad', {
        ...weightedAverage,
        result: 'NOT A TYPE',
      }),
    ).toThrow("function 'bad' result: 'NOT A TYPE' is not a SQL type");
  });
});
