/**
 * COUNT(DISTINCT x) calls over the same x with different FILTERs share one state (each value
 * once, with a bit per call): their results equal a batch computation, in an updating GROUP BY
 * and in HOP windows (whose slices merge), and EXPLAIN says which calls share.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, StreamEnvironment, TableEnvironment } from '../../src/index.js';

type Input = readonly (readonly [number, number | null, number, number])[];

const COUNTS = `COUNT(DISTINCT v) AS a,
  COUNT(DISTINCT v) FILTER (WHERE w > 2) AS b,
  COUNT(DISTINCT v) FILTER (WHERE w <= 2) AS c,
  COUNT(*) FILTER (WHERE w > 2) AS d,
  COUNT(DISTINCT w) FILTER (WHERE v > 1) AS e`;

const TIME_COLUMN = { name: 'ts', type: 'TIMESTAMP(3)' };

/** The rows as a table `raw` with a watermark on `ts`. */
function register(env: StreamEnvironment, tEnv: TableEnvironment, rows: Input): void {
  const objects = rows.map(([k, v, w, ts]) => ({ k, v, w, ts }));
  tEnv.fromDataStream('raw', env.fromArray(objects), {
    columns: [...['k', 'v', 'w'].map((name) => ({ name, type: 'INT' })), TIME_COLUMN],
    watermark: { column: 'ts', expression: 'ts' },
  });
}

/** [a, b, c, d, e] of COUNTS over `rows`. */
function counts(rows: Input): number[] {
  const distinct = (xs: (number | null)[]) => new Set(xs.filter((x) => x !== null)).size;
  return [
    distinct(rows.map((r) => r[1])),
    distinct(rows.filter((r) => r[2] > 2).map((r) => r[1])),
    distinct(rows.filter((r) => r[2] <= 2).map((r) => r[1])),
    rows.filter((r) => r[2] > 2).length,
    distinct(rows.filter((r) => r[1] !== null && r[1] > 1).map((r) => r[2])),
  ];
}

async function run(rows: Input): Promise<{ groups: string[]; windows: string[] }> {
  const env = new StreamEnvironment({ parallelism: 1, batchSize: 3 });
  const tEnv = TableEnvironment.create(env);
  register(env, tEnv, rows);
  const group = tEnv.sqlQuery(`SELECT k, ${COUNTS} FROM raw GROUP BY k`);
  const groupSink = new CollectSink<Change<unknown[]>>();
  group.toChangelogStream().sinkTo(groupSink);
  const windowSink = new CollectSink<unknown[]>();
  tEnv
    .sqlQuery(
      `SELECT window_start, ${COUNTS} FROM TABLE(HOP(TABLE raw, DESCRIPTOR(ts),
         INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP BY window_start, window_end`,
    )
    .toDataStream()
    .sinkTo(windowSink);
  await env.execute('shared distinct');
  return {
    groups: materialize(groupSink.values, (row) => JSON.stringify(group.toJson(row))).sort(),
    windows: windowSink.values.map((r) => JSON.stringify(r.slice(1))).sort(),
  };
}

describe('COUNT(DISTINCT) calls sharing state', () => {
  it('equal a batch computation in a GROUP BY and in HOP windows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 2 }),
            fc.option(fc.integer({ min: 0, max: 5 }), { freq: 5 }),
            fc.integer({ min: 0, max: 4 }),
            fc.integer({ min: 0, max: 5_999 }),
          ),
          { minLength: 1, maxLength: 40 },
        ),
        async (unsorted) => {
          // In time order, so no row is late for the windows.
          const rows = [...unsorted].sort((a, b) => a[3] - b[3]);
          const { groups, windows } = await run(rows);
          const keys = [...new Set(rows.map((r) => r[0]))];
          expect(groups).toEqual(
            keys.map((k) => JSON.stringify([k, ...counts(rows.filter((r) => r[0] === k))])).sort(),
          );
          const starts = [
            ...new Set(rows.flatMap((r) => [0, 1, 2].map((i) => Math.floor(r[3] / 1000) - i))),
          ];
          expect(windows).toEqual(
            starts
              .map((s) => rows.filter((r) => r[3] >= s * 1000 && r[3] < (s + 3) * 1000))
              .filter((inWindow) => inWindow.length > 0)
              .map((inWindow) => JSON.stringify(counts(inWindow)))
              .sort(),
          );
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('shows the sharing in EXPLAIN', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    tEnv.executeSql(
      'CREATE TEMPORARY VIEW raw AS SELECT EXPR$0 AS k, EXPR$1 AS v, EXPR$2 AS w FROM (VALUES (1, 1, 1));',
    );
    expect(tEnv.explainSql(`SELECT k, ${COUNTS} FROM raw GROUP BY k`)).toContain(
      'shared distinct state: 3 COUNT(DISTINCT) calls, one state per argument',
    );
  });
});
