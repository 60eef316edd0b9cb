/**
 * Two-phase unwindowed GROUP BY (Flink's LocalGroupAggregate + GlobalGroupAggregate, chosen by
 * `table.optimizer.agg-phase-strategy` with mini-batch on). Oracle tests over fast-check
 * inputs (skewed keys, duplicated rows, shuffled by a rebalance, any bundle and batch size,
 * parallelism 1 and 2): after applying the changelog, the two-phase plan leaves the rows of
 * the one-phase plan and of a batch aggregation; stopped with a savepoint part-way and
 * restored, it ends as the batch aggregation. Also when a GROUP BY must stay one-phase, and
 * what EXPLAIN shows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import type { Change } from '../../src/core/changelog.js';
import { type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { decideAggregatePhases } from '../../src/sql/planner/aggregate-phase.js';
import { finalRows } from './final-rows.js';
import { weightedAverage } from './fixtures/functions.js';
import { committedChanges, generatedKeyValues, untilCommitted } from './savepoint-helpers.js';

type Cell = number | null;
type Input = readonly (readonly [Cell, Cell])[];

const QUERIES = [
  'SELECT k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v), COUNT(DISTINCT v), SUM(DISTINCT v) FROM t GROUP BY k',
  'SELECT k, COUNT(*) FILTER (WHERE v > 2) AS big, COUNT(DISTINCT v) FILTER (WHERE v < 5), COUNT(DISTINCT v) FROM t GROUP BY k HAVING COUNT(*) > 1',
  'SELECT COUNT(*), SUM(v), MAX(v), AVG(CAST(v AS DECIMAL(10, 2))) FROM t',
  'SELECT k, wavg(v, 2) FROM t GROUP BY k',
  'SELECT k, VAR_POP(v), STDDEV_SAMP(v), VAR_SAMP(DISTINCT v) FROM t GROUP BY k',
];

type Strategy = 'ONE_PHASE' | 'TWO_PHASE' | 'AUTO';

function tableEnv(env: StreamEnvironment, strategy: Strategy, size: number): TableEnvironment {
  const tEnv = TableEnvironment.create(env);
  tEnv.createTemporarySystemFunction('wavg', weightedAverage);
  tEnv.executeSql(`SET 'table.exec.mini-batch.enabled' = 'true';
    SET 'table.exec.mini-batch.allow-latency' = '1 h';
    SET 'table.exec.mini-batch.size' = '${size}';
    SET 'table.optimizer.agg-phase-strategy' = '${strategy}';`);
  return tEnv;
}

/** The plan of each run's job, in order. */
const plans: string[] = [];

/** Each query's final rows, as sorted JSON texts. */
async function run(
  rows: Input,
  strategy: Strategy,
  parallelism: number,
  size: number,
  batchSize: number,
): Promise<string[][]> {
  const env = new StreamEnvironment({ parallelism, batchSize });
  const tEnv = tableEnv(env, strategy, size);
  // A rebalance spreads the rows over every local subtask.
  tEnv.fromDataStream('t', env.fromArray(rows.map((r) => [...r])).rebalance(), {
    columns: [
      { name: 'k', type: 'INT' },
      { name: 'v', type: 'INT' },
    ],
  });
  const { rows: result, plan } = await finalRows(env, tEnv, QUERIES);
  plans.push(plan);
  return result;
}

/** The first query as a batch computation. */
function batchOracle(rows: Input): string[] {
  const groups = new Map<Cell, Cell[]>();
  for (const [k, v] of rows) groups.set(k, [...(groups.get(k) ?? []), v]);
  return [...groups]
    .map(([k, vs]) => {
      const nonNull = vs.filter((v): v is number => v !== null);
      const sum = nonNull.reduce((a, b) => a + b, 0);
      const distinct = [...new Set(nonNull)];
      const any = nonNull.length > 0;
      return JSON.stringify([
        k,
        vs.length,
        nonNull.length,
        any ? sum : null,
        any ? Math.min(...nonNull) : null,
        any ? Math.max(...nonNull) : null,
        any ? Math.trunc(sum / nonNull.length) : null,
        distinct.length,
        any ? distinct.reduce((a, b) => a + b, 0) : null,
      ]);
    })
    .sort();
}

/** One hot key among a few cold ones, with NULLs; each row possibly repeated. */
const inputArb = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 3, arbitrary: fc.constant<Cell>(0) },
        { weight: 2, arbitrary: fc.option(fc.integer({ min: 1, max: 5 }), { freq: 6, nil: null }) },
      ),
      fc.option(fc.integer({ min: 0, max: 8 }), { freq: 6 }),
      fc.integer({ min: 1, max: 3 }),
    ),
    { minLength: 1, maxLength: 50 },
  )
  .map(
    (rows): Input =>
      rows.flatMap(([k, v, times]) => Array.from({ length: times }, () => [k, v] as const)),
  );

describe('two-phase GROUP BY', () => {
  it('leaves the rows of the one-phase plan and of a batch aggregation, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(
        inputArb,
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 16 }),
        fc.constantFrom(1, 2),
        async (rows, size, batchSize, parallelism) => {
          const one = await run(rows, 'ONE_PHASE', parallelism, size, batchSize);
          // TWO_PHASE: under AUTO the queries with a DISTINCT aggregate stay one-phase.
          const two = await run(rows, 'TWO_PHASE', parallelism, size, batchSize);
          expect(plans.at(-1)).toContain('GlobalGroupAggregate');
          expect(plans.at(-2)).not.toContain('GlobalGroupAggregate');
          expect(two).toEqual(one);
          expect(two[0]).toEqual(batchOracle(rows));
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);

  it('at parallelism 1 keeps both halves, passing rows through the local one (EXPLAIN)', () => {
    // Nothing crosses to another subtask: folding would repeat the global half's work.
    const tEnv = tableEnv(new StreamEnvironment({ parallelism: 1 }), 'AUTO', 100);
    tEnv.executeSql(
      'CREATE TEMPORARY VIEW t AS SELECT EXPR$0 AS k, EXPR$1 AS v FROM (VALUES (1, 2), (2, 3));',
    );
    const plan = tEnv.explainSql('SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k');
    expect(plan).toContain('two-phase: LocalGroupAggregate, GlobalGroupAggregate');
    expect(plan).toMatch(
      /\[1\] updating-aggregate-2\/local: LocalGroupAggregate, passing rows through \(nothing crosses to another subtask\) \(from #1\) parallelism=1 task=values-0 <- \[0\] forward chained/,
    );
    expect(plan).toMatch(
      /\[2\] updating-aggregate-2: GlobalGroupAggregate, not folding \(aggregates the rows\) \(from #1\) parallelism=1 .* <- \[1\] keyed\(group key\)/,
    );
  });

  it('runs as LocalGroupAggregate before the exchange and GlobalGroupAggregate after it (EXPLAIN)', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = tableEnv(env, 'AUTO', 100);
    tEnv.executeSql(
      'CREATE TEMPORARY VIEW t AS SELECT EXPR$0 AS k, EXPR$1 AS v FROM (VALUES (1, 2), (2, 3));',
    );
    const plan = tEnv.explainSql('SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k');
    expect(plan).toContain('two-phase: LocalGroupAggregate, GlobalGroupAggregate');
    expect(plan).toMatch(
      /\[1\] updating-aggregate-2\/local: LocalGroupAggregate \(folds each bundle per key before the exchange\) \(from #1\) parallelism=1 task=values-0 <- \[0\] forward chained/,
    );
    expect(plan).toMatch(
      /\[2\] updating-aggregate-2: GlobalGroupAggregate \(merges the partials\) \(from #1\) parallelism=2 .* <- \[1\] keyed\(group key\)/,
    );
  });
});

describe('when a GROUP BY stays one-phase', () => {
  const explain = (sql: string, settings: string): string => {
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
    tEnv.createTemporarySystemFunction('wavg', weightedAverage);
    tEnv.createTemporarySystemFunction('wavg_no_merge', { ...weightedAverage, merge: undefined });
    tEnv.executeSql(`${settings}
      CREATE TEMPORARY VIEW t AS SELECT EXPR$0 AS k, EXPR$1 AS v FROM (VALUES (1, 2), (2, 3));`);
    return tEnv.explainSql(sql);
  };
  const miniBatch = `SET 'table.exec.mini-batch.enabled' = 'true';
    SET 'table.exec.mini-batch.allow-latency' = '1 s';
    SET 'table.exec.mini-batch.size' = '10';`;
  const GROUP_BY = 'SELECT k, COUNT(*) FROM t GROUP BY k';

  it('is two-phase with mini-batch under AUTO and TWO_PHASE', () => {
    expect(explain(GROUP_BY, miniBatch)).toContain('GlobalGroupAggregate');
    expect(
      explain(GROUP_BY, `${miniBatch} SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';`),
    ).toContain('GlobalGroupAggregate');
    expect(explain('SELECT k, wavg(v, 1) FROM t GROUP BY k', miniBatch)).toContain(
      'GlobalGroupAggregate',
    );
  });

  it.each([
    [
      'ONE_PHASE',
      GROUP_BY,
      `${miniBatch} SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';`,
      "one-phase: 'table.optimizer.agg-phase-strategy' is ONE_PHASE",
    ],
    ['mini-batch off', GROUP_BY, '', undefined],
    [
      'an aggregate without merge',
      'SELECT k, wavg_no_merge(v, 1) FROM t GROUP BY k',
      miniBatch,
      'one-phase: an aggregate function has no merge',
    ],
    [
      'an aggregate following arrival order (Flink has no merge for it)',
      'SELECT k, LISTAGG(CAST(v AS STRING)), FIRST_VALUE(v) FROM t GROUP BY k',
      miniBatch,
      'one-phase: an aggregate function has no merge',
    ],
    [
      'a DISTINCT aggregate under AUTO',
      'SELECT k, COUNT(*), COUNT(DISTINCT v) FROM t GROUP BY k',
      miniBatch,
      "one-phase: a DISTINCT aggregate and 'table.optimizer.agg-phase-strategy' is AUTO",
    ],
    [
      'a changelog input',
      'SELECT n, COUNT(*) FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) GROUP BY n',
      miniBatch,
      'one-phase: the input is a changelog (partials carry no retractions)',
    ],
  ])('stays one-phase: %s', (_what, sql, settings, reason) => {
    const plan = explain(sql, settings);
    const outer = plan.split('\n').filter((l) => l.includes('GroupAggregate'));
    if (sql.includes('(SELECT')) {
      // The inner GROUP BY is two-phase; the outer one, over its changelog, is not.
      expect(outer.filter((l) => l.includes('GlobalGroupAggregate ('))).toHaveLength(1);
    } else expect(outer).toEqual([]);
    if (reason !== undefined) expect(plan).toContain(reason);
  });

  it('decides as the rule says, and names a wrong strategy', () => {
    const base = {
      strategy: 'AUTO',
      miniBatch: true,
      mergeable: true,
      updatingInput: false,
      distinct: false,
    } as const;
    expect(decideAggregatePhases(base).twoPhase).toBe(true);
    expect(decideAggregatePhases({ ...base, distinct: true }).twoPhase).toBe(false);
    expect(decideAggregatePhases({ ...base, distinct: true, strategy: 'TWO_PHASE' }).twoPhase).toBe(
      true,
    );
    expect(decideAggregatePhases({ ...base, strategy: 'TWO_PHASE' }).twoPhase).toBe(true);
    expect(decideAggregatePhases({ ...base, strategy: 'ONE_PHASE' }).twoPhase).toBe(false);
    expect(decideAggregatePhases({ ...base, miniBatch: false }).twoPhase).toBe(false);
    expect(decideAggregatePhases({ ...base, mergeable: false }).twoPhase).toBe(false);
    expect(decideAggregatePhases({ ...base, updatingInput: true }).twoPhase).toBe(false);
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    expect(() =>
      tEnv.executeSql("SET 'table.optimizer.agg-phase-strategy' = 'THREE_PHASE'"),
    ).toThrow(
      /'table.optimizer.agg-phase-strategy' is 'THREE_PHASE'; it must be one of AUTO, ONE_PHASE, TWO_PHASE/,
    );
  });

  it('refuses localAggregation in the DataStream API without what it needs', () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const keyed = env.fromArray([1, 2, 3]).keyBy((x) => x % 2);
    const count = {
      createAccumulator: () => 0,
      add: (_: number, n: number) => n + 1,
      getResult: (n: number) => n,
    };
    const miniBatch = { size: 10, allowLatencyMs: 1000 };
    expect(() => keyed.updatingAggregate(count, { localAggregation: true })).toThrow(
      /localAggregation needs miniBatch/,
    );
    expect(() => keyed.updatingAggregate(count, { localAggregation: true, miniBatch })).toThrow(
      /localAggregation needs fn.merge/,
    );
    expect(() =>
      keyed.updatingAggregate(
        { ...count, merge: (a: number, b: number) => a + b },
        { localAggregation: true, miniBatch },
      ),
    ).not.toThrow();
  });
});

// ---- stopped with a savepoint part-way and restored ----

const EVENTS = 400;
/** Records per second in the run that is stopped: far longer than a first checkpoint takes. */
const FIRST_RUN_RATE = 60;
const eventAt = (i: number): [number, number] => [i % 3 === 0 ? 0 : i % 7, (i * 13) % 11];
// The two COUNT(DISTINCT v) share one state: a savepoint holds its values seen as JSON.
const SAVEPOINT_QUERY =
  'SELECT k, COUNT(*), SUM(v), MAX(v), COUNT(DISTINCT v), COUNT(DISTINCT v) FILTER (WHERE v > 4) FROM t GROUP BY k';

function savepointOracle(): string[] {
  const rows: Input = Array.from({ length: EVENTS }, (_, i) => eventAt(i));
  const groups = new Map<number, number[]>();
  for (const [k, v] of rows)
    groups.set(k as number, [...(groups.get(k as number) ?? []), v as number]);
  return [...groups]
    .map(([k, vs]) =>
      JSON.stringify([
        k,
        vs.length,
        vs.reduce((a, b) => a + b, 0),
        Math.max(...vs),
        new Set(vs).size,
        new Set(vs.filter((v) => v > 4)).size,
      ]),
    )
    .sort();
}

function savepointJob(
  out: string,
  checkpoints: string,
  rate: number | undefined,
  split: boolean,
  parallelism: number,
) {
  const env = new StreamEnvironment({
    parallelism,
    batchSize: 5,
    checkpointing: { directory: checkpoints, intervalMs: 100 },
  });
  const tEnv = tableEnv(env, 'TWO_PHASE', 7);
  if (split)
    tEnv.executeSql(`SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
      SET 'table.optimizer.distinct-agg.split.bucket-num' = '3';`);
  generatedKeyValues(env, tEnv, EVENTS, eventAt, rate);
  tEnv
    .sqlQuery(SAVEPOINT_QUERY)
    .toChangelogStream()
    .map((c: Change<Row>) => JSON.stringify(c))
    .sinkTo(new ExactlyOnceFileSink<string>({ directory: out, format: (line) => line }))
    .uid('changes-sink');
  return env;
}

const committed = committedChanges;

describe('two-phase GROUP BY through a savepoint', () => {
  // At parallelism 1 the halves do not fold (nothing crosses to another subtask): the global
  // half's state is the same either way, so a savepoint moves between the two.
  it.each([
    { what: 'two-phase', split: false, first: 2, second: 2 },
    { what: 'two-phase with the distinct split', split: true, first: 2, second: 2 },
    { what: 'two-phase, not folding then folding', split: false, first: 1, second: 2 },
    { what: 'two-phase, folding then not folding', split: false, first: 2, second: 1 },
  ])(
    '$what, restored part-way, ends as an uninterrupted run and a batch aggregation (parallelism $first -> $second)',
    async ({ split, first: p1, second: p2 }) => {
      const dir = await mkdtemp(join(tmpdir(), 'weir-two-phase-'));
      try {
        const first = savepointJob(
          join(dir, 'out'),
          join(dir, 'cp-first'),
          FIRST_RUN_RATE,
          split,
          p1,
        ).executeAsync('first');
        await untilCommitted(join(dir, 'out'));
        const savepoint = await first.stopWithSavepoint(join(dir, 'savepoint'));
        const beforeSavepoint = await committed(join(dir, 'out'));
        await savepointJob(
          join(dir, 'out'),
          join(dir, 'cp-second'),
          undefined,
          split,
          p2,
        ).executeAsync('second', {
          restoreFrom: savepoint,
        }).result;
        const after = await committed(join(dir, 'out'));
        expect(beforeSavepoint.length).toBeGreaterThan(0);
        expect(after.length).toBeGreaterThan(beforeSavepoint.length);
        const rows = materialize(after, (row) => JSON.stringify(row)).sort();
        expect(rows).toEqual(savepointOracle());

        await savepointJob(join(dir, 'clean'), join(dir, 'cp-clean'), undefined, split, p2).execute(
          'clean',
        );
        const clean = materialize(await committed(join(dir, 'clean')), (row) =>
          JSON.stringify(row),
        );
        expect(clean.sort()).toEqual(rows);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
