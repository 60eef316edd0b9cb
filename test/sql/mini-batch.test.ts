/**
 * `table.exec.mini-batch.*` (Flink's mini-batch aggregation): an unwindowed GROUP BY emits
 * each group's change once per bundle of rows instead of once per row. After applying the
 * changelog, the rows equal those without mini-batch and a plain batch aggregation, over
 * fast-check inputs (shuffled keys, NULLs, bundles of any size, batches of any size), also
 * for a GROUP BY over another GROUP BY's changelog (retractions inside a bundle).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/core/changelog.js';
import {
  CollectSink,
  type Row,
  SqlError,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { ManualClock } from '../../src/testing/manual-clock.js';
import { ScriptedSource, waitUntil } from '../helpers/timeline.js';
import { finalRowsAndChanges, valuesView } from './query-changes.js';

type Cell = number | null;
type Input = readonly (readonly [Cell, Cell])[];

const QUERIES = [
  'SELECT k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v), COUNT(DISTINCT v) FROM t GROUP BY k',
  'SELECT k, COUNT(*) FILTER (WHERE v > 2) AS big FROM t GROUP BY k HAVING COUNT(*) > 1',
  // A GROUP BY over a GROUP BY's changelog: the outer one retracts rows within a bundle.
  'SELECT n, COUNT(*), SUM(s) FROM (SELECT k, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY k) GROUP BY n',
  'SELECT COUNT(*), SUM(v) FROM t',
];

interface Run {
  /** Each query's final rows, as sorted JSON texts. */
  readonly rows: string[][];
  /** Each query's number of changes. */
  readonly changes: number[];
}

async function run(
  rows: Input,
  miniBatch: { size: number } | undefined,
  batchSize: number,
): Promise<Run> {
  const settings =
    miniBatch === undefined
      ? ''
      : `SET 'table.exec.mini-batch.enabled' = 'true';
      SET 'table.exec.mini-batch.allow-latency' = '1 h';
      SET 'table.exec.mini-batch.size' = '${miniBatch.size}';`;
  return finalRowsAndChanges(`${settings}${valuesView(rows)}`, QUERIES, {
    parallelism: 1,
    batchSize,
  });
}

/** The first query as a batch computation. */
function batchOracle(rows: Input): string[] {
  const groups = new Map<Cell, Cell[]>();
  for (const [k, v] of rows) groups.set(k, [...(groups.get(k) ?? []), v]);
  return [...groups]
    .map(([k, vs]) => {
      const nonNull = vs.filter((v): v is number => v !== null);
      const sum = nonNull.reduce((a, b) => a + b, 0);
      const any = nonNull.length > 0;
      return JSON.stringify([
        k,
        vs.length,
        nonNull.length,
        any ? sum : null,
        any ? Math.min(...nonNull) : null,
        any ? Math.max(...nonNull) : null,
        any ? Math.trunc(sum / nonNull.length) : null,
        new Set(nonNull).size,
      ]);
    })
    .sort();
}

const cell = (max: number) => fc.option(fc.integer({ min: 0, max }), { freq: 6 });

describe('mini-batch GROUP BY', () => {
  it('leaves the rows of a change per row and of a batch aggregation, with fewer changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(cell(4), cell(6)), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 25 }),
        fc.integer({ min: 1, max: 16 }),
        async (rows, size, batchSize) => {
          const plain = await run(rows, undefined, batchSize);
          const bundled = await run(rows, { size }, batchSize);
          expect(bundled.rows).toEqual(plain.rows);
          expect(bundled.rows[0]).toEqual(batchOracle(rows));
          for (let i = 0; i < QUERIES.length; i++)
            expect(bundled.changes[i]).toBeLessThanOrEqual(plain.changes[i] as number);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('emits one change per group for a bundle that holds all rows', async () => {
    const rows: Input = [
      [1, 5],
      [2, 1],
      [1, 7],
      [1, 2],
      [2, 3],
    ];
    const env = new StreamEnvironment({ parallelism: 1 });
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(`SET 'table.exec.mini-batch.enabled' = 'true';
      SET 'table.exec.mini-batch.allow-latency' = '1 h';
      SET 'table.exec.mini-batch.size' = '1000';
      ${valuesView(rows)}`);
    const sink = new CollectSink<Change<unknown[]>>();
    tEnv.sqlQuery('SELECT k, SUM(v) FROM t GROUP BY k').toChangelogStream().sinkTo(sink);
    await env.execute('one bundle');
    expect(sink.values.map((c) => `${c.kind}${JSON.stringify(c.value)}`)).toEqual([
      '+I[1,14]',
      '+I[2,4]',
    ]);
  });

  it('shows the bundle in EXPLAIN', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    tEnv.executeSql(`SET 'table.exec.mini-batch.enabled' = 'true';
      SET 'table.exec.mini-batch.allow-latency' = '2s';
      SET 'table.exec.mini-batch.size' = '50000';
      ${valuesView([[1, 1]])}`);
    const plan = tEnv.explainSql('SELECT k, COUNT(*) FROM t GROUP BY k');
    expect(plan).toContain('mini-batch: 50000 rows, 2000ms');
  });

  it('refuses values that are not of their option, and mini-batch without its bounds', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    tEnv.executeSql(valuesView([[1, 1]]));
    expect(() => tEnv.executeSql("SET 'table.exec.mini-batch.enabled' = 'yes'")).toThrow(
      /'table.exec.mini-batch.enabled' is 'yes'; it must be 'true' or 'false'/,
    );
    expect(() => tEnv.executeSql("SET 'table.exec.mini-batch.size' = 'many'")).toThrow(SqlError);
    expect(() => tEnv.executeSql("SET 'table.exec.mini-batch.allow-latency' = 'soon'")).toThrow(
      /allow-latency' is 'soon'/,
    );
    tEnv.executeSql("SET 'table.exec.mini-batch.enabled' = 'true'");
    expect(() => tEnv.sqlQuery('SELECT k, COUNT(*) FROM t GROUP BY k')).toThrow(
      /'table.exec.mini-batch.allow-latency' must be a positive duration, got '0 ms'/,
    );
    tEnv.executeSql("SET 'table.exec.mini-batch.allow-latency' = '1 s'");
    expect(() => tEnv.sqlQuery('SELECT k, COUNT(*) FROM t GROUP BY k')).toThrow(
      /'table.exec.mini-batch.size' must be a positive number of rows, got '-1'/,
    );
  });

  it('emits a bundle when its first row has waited allow-latency of processing time', async () => {
    interface Ev {
      k: string;
      v: number;
      ts: number;
    }
    const clock = new ManualClock(1_000_000);
    const env = new StreamEnvironment({ parallelism: 1, batchSize: 1, clock });
    const tEnv = TableEnvironment.create(env);
    // The source pauses for 200 s of the manual clock between its two parts.
    const source = new ScriptedSource<Ev>(
      [
        {
          records: [
            { k: 'a', v: 1, ts: 1_000 },
            { k: 'a', v: 2, ts: 2_000 },
            { k: 'b', v: 7, ts: 2_500 },
          ],
        },
        { pauseMs: 200_000 },
        { records: [{ k: 'a', v: 5, ts: 10_000 }] },
      ],
      true,
    );
    tEnv.fromDataStream('ev', env.fromSource(source), {
      columns: [
        { name: 'k', type: 'STRING' },
        { name: 'v', type: 'BIGINT' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: 'ts' },
    });
    tEnv.executeSql(`SET 'table.exec.mini-batch.enabled' = 'true';
      SET 'table.exec.mini-batch.allow-latency' = '1 s';
      SET 'table.exec.mini-batch.size' = '1000';`);
    const sink = new CollectSink<Change<Row>>();
    tEnv.sqlQuery('SELECT k, SUM(v) FROM ev GROUP BY k').toChangelogStream().sinkTo(sink);
    const lines = () => sink.values.map((c) => `${c.kind}${JSON.stringify(c.value)}`);
    const job = env.executeAsync('allow-latency');
    // The clock moves on a second at a time, staying inside the source's pause: only the
    // latency can emit the bundle, one step after its first row arrived (whenever that is).
    for (let t = 1_000; sink.values.length < 2 && t < 90_000; t += 1_000) {
      clock.set(1_000_000 + t);
      await waitUntil(() => sink.values.length >= 2, 500, 'the first bundle').catch(() => {});
    }
    expect(lines()).toEqual(['+I["a",3]', '+I["b",7]']);
    clock.set(1_000_000 + 400_000);
    await job.result;
    expect(lines()).toEqual(['+I["a",3]', '+I["b",7]', '-U["a",3]', '+U["a",8]']);
  }, 120_000);
});
