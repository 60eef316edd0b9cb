/**
 * The distinct-aggregate split (`table.optimizer.distinct-agg.split.enabled`, Flink's
 * SplitAggregateRule): a partial GROUP BY per key and bucket of each distinct argument, then a
 * final GROUP BY per key. Oracle tests over fast-check inputs (a hot key, repeated rows,
 * rebalanced, any bucket count, with and without mini-batch and so two-phase, parallelism 1
 * and 2): after applying the changelog, the split plan leaves the rows of the unsplit plan and
 * of a batch computation, with FILTER clauses, several distinct arguments, HAVING, a WHERE and
 * a computed key. Also when a GROUP BY is left unsplit, and what EXPLAIN shows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { finalRows } from './final-rows.js';
import { weightedAverage } from './fixtures/functions.js';

type Cell = number | null;
type Input = readonly (readonly [Cell, Cell, Cell])[];

const QUERIES = [
  'SELECT k, COUNT(DISTINCT v), COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v) FROM t GROUP BY k',
  // As Nexmark q15/q16: distinct counts of two arguments, each with FILTERs, beside plain counts.
  `SELECT k, COUNT(DISTINCT v) FILTER (WHERE w > 2) AS a, COUNT(DISTINCT v) AS b,
     COUNT(DISTINCT w) AS c, COUNT(DISTINCT w) FILTER (WHERE v < 4) AS d, SUM(DISTINCT w) AS e,
     COUNT(*) FILTER (WHERE v < 3) AS f, MAX(DISTINCT v) AS g
   FROM t GROUP BY k HAVING COUNT(DISTINCT v) > 1`,
  'SELECT COUNT(DISTINCT v), COUNT(*), MIN(w) FROM t WHERE w <> 1',
  'SELECT k + 1 AS k1, COUNT(DISTINCT w) * 10 AS n FROM t GROUP BY k + 1',
];

interface Settings {
  readonly split: number | undefined;
  readonly miniBatch: number | undefined;
}

function settingsSql({ split, miniBatch }: Settings): string {
  return [
    ...(split === undefined
      ? []
      : [
          "SET 'table.optimizer.distinct-agg.split.enabled' = 'true';",
          `SET 'table.optimizer.distinct-agg.split.bucket-num' = '${split}';`,
        ]),
    ...(miniBatch === undefined
      ? []
      : [
          "SET 'table.exec.mini-batch.enabled' = 'true';",
          "SET 'table.exec.mini-batch.allow-latency' = '1 h';",
          `SET 'table.exec.mini-batch.size' = '${miniBatch}';`,
        ]),
  ].join('\n');
}

/** The plan of each run's job, in order. */
const plans: string[] = [];

async function run(
  rows: Input,
  settings: Settings,
  parallelism: number,
  batchSize: number,
): Promise<string[][]> {
  const env = new StreamEnvironment({ parallelism, batchSize });
  const tEnv = TableEnvironment.create(env);
  const text = settingsSql(settings);
  if (text !== '') tEnv.executeSql(text);
  tEnv.fromDataStream('t', env.fromArray(rows.map((r) => [...r])).rebalance(), {
    columns: [
      { name: 'k', type: 'INT' },
      { name: 'v', type: 'INT' },
      { name: 'w', type: 'INT' },
    ],
  });
  const { rows: result, plan } = await finalRows(env, tEnv, QUERIES);
  plans.push(plan);
  return result;
}

/** The second query as a batch computation. */
function batchOracle(rows: Input): string[] {
  const groups = new Map<Cell, (readonly [Cell, Cell])[]>();
  for (const [k, v, w] of rows) groups.set(k, [...(groups.get(k) ?? []), [v, w]]);
  const distinct = (xs: Cell[]) => new Set(xs.filter((x): x is number => x !== null));
  const out: string[] = [];
  for (const [k, vws] of groups) {
    const vs = vws.map(([v]) => v);
    const ws = vws.map(([, w]) => w);
    const b = distinct(vs).size;
    if (b <= 1) continue;
    const e = [...distinct(ws)];
    const g = [...distinct(vs)];
    out.push(
      JSON.stringify([
        k,
        distinct(vws.filter(([, w]) => w !== null && w > 2).map(([v]) => v)).size,
        b,
        e.length,
        distinct(vws.filter(([v]) => v !== null && v < 4).map(([, w]) => w)).size,
        e.length === 0 ? null : e.reduce((x, y) => x + y, 0),
        vws.filter(([v]) => v !== null && v < 3).length,
        g.length === 0 ? null : Math.max(...g),
      ]),
    );
  }
  return out.sort();
}

const value = (max: number) => fc.option(fc.integer({ min: 0, max }), { freq: 6, nil: null });
/** One hot key among a few cold ones, with NULLs; each row possibly repeated. */
const inputArb = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 3, arbitrary: fc.constant<Cell>(0) }, { weight: 2, arbitrary: value(4) }),
      value(6),
      value(5),
      fc.integer({ min: 1, max: 3 }),
    ),
    { minLength: 1, maxLength: 50 },
  )
  .map(
    (rows): Input =>
      rows.flatMap(([k, v, w, times]) => Array.from({ length: times }, () => [k, v, w] as const)),
  );

describe('distinct-aggregate split', () => {
  it('leaves the rows of the unsplit plan and of a batch computation', async () => {
    await fc.assert(
      fc.asyncProperty(
        inputArb,
        fc.integer({ min: 1, max: 5 }),
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        fc.integer({ min: 1, max: 16 }),
        fc.constantFrom(1, 2),
        async (rows, buckets, miniBatch, batchSize, parallelism) => {
          const unsplit = await run(rows, { split: undefined, miniBatch }, parallelism, batchSize);
          const split = await run(rows, { split: buckets, miniBatch }, parallelism, batchSize);
          expect(plans.at(-1)).toContain('partialFinalType=[FINAL]');
          expect(plans.at(-2)).not.toContain('partialFinalType');
          expect(split).toEqual(unsplit);
          expect(split[1]).toEqual(batchOracle(rows));
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);
});

describe('which GROUP BY is split', () => {
  const explain = (sql: string, settings: string): string => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
    tEnv.createTemporarySystemFunction('wavg', weightedAverage);
    tEnv.executeSql(`${settings}
      CREATE TEMPORARY VIEW t AS SELECT EXPR$0 AS k, EXPR$1 AS v, EXPR$2 AS w FROM (VALUES (1, 2, 3));`);
    return tEnv.explainSql(sql);
  };
  const on = settingsSql({ split: 8, miniBatch: 100 });

  it('shows the bucket step, the partial and the final aggregate in EXPLAIN', () => {
    const plan = explain('SELECT k, COUNT(DISTINCT v), SUM(w) FROM t GROUP BY k', on);
    expect(plan).toContain('Calc $b = MOD(HASH_CODE(v), 8)');
    expect(plan).toContain('partialFinalType=[PARTIAL]');
    expect(plan).toContain('partialFinalType=[FINAL]');
    // The partial aggregate reads insert-only rows, so it is two-phase with mini-batch on; the
    // final one reads the partial's changelog.
    expect(plan).toContain('LocalGroupAggregate');
    expect(plan).toContain('one-phase: the input is a changelog');
    const two = explain(
      'SELECT k, COUNT(DISTINCT v), COUNT(DISTINCT w) FILTER (WHERE v > 1) FROM t GROUP BY k',
      on,
    );
    expect(two).toContain('Expand $e of 2, Calc $b = MOD(HASH_CODE(v), 8) | MOD(HASH_CODE(w), 8)');
  });

  it.each([
    ['the option is off', 'SELECT k, COUNT(DISTINCT v) FROM t GROUP BY k', ''],
    ['no DISTINCT aggregate', 'SELECT k, COUNT(v) FROM t GROUP BY k', on],
    ['an AVG', 'SELECT k, COUNT(DISTINCT v), AVG(w) FROM t GROUP BY k', on],
    ['a TypeScript aggregate', 'SELECT k, COUNT(DISTINCT v), wavg(v, w) FROM t GROUP BY k', on],
    [
      'a changelog input',
      'SELECT n, COUNT(DISTINCT k) FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) GROUP BY n',
      on,
    ],
  ])('is left unsplit with %s', (_what, sql, settings) => {
    expect(explain(sql, settings)).not.toContain('partialFinalType');
  });

  it('names a wrong option value', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    expect(() =>
      tEnv.executeSql("SET 'table.optimizer.distinct-agg.split.enabled' = 'on'"),
    ).toThrow(/'table.optimizer.distinct-agg.split.enabled' is 'on'; it must be 'true' or 'false'/);
    expect(() =>
      tEnv.executeSql("SET 'table.optimizer.distinct-agg.split.bucket-num' = '0'"),
    ).toThrow(
      /'table.optimizer.distinct-agg.split.bucket-num' is '0'; it must be a positive whole number/,
    );
  });
});
