/**
 * Flink's streaming ValuesITCase (a VALUES query), PruneAggregateCallITCase (aggregate calls
 * whose results the query never reads) and AggregateRemoveITCase (aggregations Flink's planner
 * removes over a unique key, with GROUPING SETS, ROLLUP, CUBE and DISTINCT aggregates). Flink's
 * data, queries and expected rows, compared as the final rows after the changelog. The unique
 * keys Flink's tests declare as table statistics only steer its planner: the rows are the same
 * without them, so the views here declare none.
 *
 * Not ported: PruneAggregateCallITCase's commented-out EXISTS cases (disabled in Flink too); the
 * agg-mode, mini-batch and state-backend parameters (one plan each in Weir).
 */
import { describe, expect, it } from 'vitest';
import {
  runScenario,
  sorted,
  TUPLE_DATA_3,
  TUPLE_DATA_5,
  valuesView,
} from './flink-scenario-runner.js';

/** Flink's smallTupleData3 (MyTable) and smallTupleData5 (MyTable2): the first three rows. */
const SMALL = `${valuesView(
  'MyTable',
  [
    ['a', 'INT'],
    ['b', 'BIGINT'],
    ['c', 'STRING'],
  ],
  TUPLE_DATA_3.slice(0, 3),
)}
${valuesView(
  'MyTable2',
  [
    ['a', 'INT'],
    ['b', 'BIGINT'],
    ['c', 'INT'],
    ['d', 'STRING'],
    ['e', 'BIGINT'],
  ],
  TUPLE_DATA_5.slice(0, 3),
)}`;

/** AggregateRemoveITCase's T (a is unique). */
const T = valuesView(
  'T',
  [
    ['a', 'INT'],
    ['b', 'INT'],
    ['c', 'STRING'],
    ['d', 'STRING'],
  ],
  [
    [2, 1, 'A', null],
    [3, 2, 'A', 'Hi'],
    [5, 2, 'B', 'Hello'],
    [6, 3, 'C', 'Hello world'],
  ],
);

/** Runs each case's query in one job and compares each with its expected rows. */
async function check(setup: string, cases: readonly (readonly [string, readonly string[]])[]) {
  const results = await runScenario(
    setup,
    cases.map(([sql]) => sql),
    { parallelism: 1 },
  );
  cases.forEach(([sql, expected], i) => {
    expect(results[i]?.rows, sql).toEqual(sorted(expected));
  });
}

describe("Flink's ValuesITCase (streaming)", () => {
  it('testValues', async () => {
    const [result] = await runScenario('', [
      "SELECT * FROM (VALUES (1, 'Bob'), (1, 'Alice')) T(a, b)",
    ]);
    expect(sorted(result?.changes ?? [])).toEqual(['+I(1,Alice)', '+I(1,Bob)']);
  });
});

describe("Flink's PruneAggregateCallITCase (streaming)", () => {
  it('testNoneEmptyGroupKey', async () => {
    await check(SMALL, [
      [
        'SELECT a FROM (SELECT b, MAX(a) AS a, COUNT(*), MAX(c) FROM MyTable GROUP BY b) t',
        ['1', '3'],
      ],
      [
        'SELECT c, a FROM (SELECT a, c, COUNT(b) as b, SUM(b) as s FROM MyTable GROUP BY a, c) t WHERE s > 1',
        ['Hello world,3', 'Hello,2'],
      ],
    ]);
  });

  it('testEmptyGroupKey', async () => {
    await check(SMALL, [
      ['SELECT 1 FROM (SELECT SUM(a) FROM MyTable) t', ['1']],
      ['SELECT 1 FROM (SELECT SUM(a), COUNT(*) FROM MyTable) t', ['1']],
      ['SELECT 1 FROM (SELECT COUNT(*), SUM(a) FROM MyTable) t', ['1']],
    ]);
  });
});

describe("Flink's AggregateRemoveITCase (streaming)", () => {
  it('testSimple', async () => {
    await check(`${T}\n${SMALL}`, [
      ['SELECT a, b FROM T GROUP BY a, b', ['2,1', '3,2', '5,2', '6,3']],
      [
        'SELECT a, b + 1, c, s FROM (SELECT a, MIN(b) AS b, SUM(b) AS s, MAX(c) AS c FROM MyTable2 GROUP BY a)',
        ['1,2,0,1', '2,3,2,5'],
      ],
      ['SELECT a, SUM(b) AS s FROM MyTable2 GROUP BY a', ['1,1', '2,5']],
      [
        'SELECT a, b + 1, c, s FROM (SELECT a, MIN(b) AS b, SUM(b) AS s, MAX(c) AS c FROM MyTable GROUP BY a)',
        ['1,2,Hi,1', '2,3,Hello,2', '3,3,Hello world,2'],
      ],
    ]);
  });

  it('testWithGroupingSets', async () => {
    await check(T, [
      [
        'SELECT a, b, c, COUNT(d) FROM T GROUP BY GROUPING SETS ((a, b), (a, c))',
        [
          '2,1,null,0',
          '2,null,A,0',
          '3,2,null,1',
          '3,null,A,1',
          '5,2,null,1',
          '5,null,B,1',
          '6,3,null,1',
          '6,null,C,1',
        ],
      ],
      [
        'SELECT a, c, COUNT(d) FROM T GROUP BY GROUPING SETS ((a, c), (a), ())',
        [
          '2,A,0',
          '2,null,0',
          '3,A,1',
          '3,null,1',
          '5,B,1',
          '5,null,1',
          '6,C,1',
          '6,null,1',
          'null,null,3',
        ],
      ],
      [
        'SELECT a, b, c, COUNT(d) FROM T GROUP BY GROUPING SETS ((a, b, c), (a, b, d))',
        [
          '2,1,A,0',
          '2,1,null,0',
          '3,2,A,1',
          '3,2,null,1',
          '5,2,B,1',
          '5,2,null,1',
          '6,3,C,1',
          '6,3,null,1',
        ],
      ],
    ]);
  });

  it('testWithRollup', async () => {
    await check(T, [
      [
        'SELECT a, b, c, COUNT(d) FROM T GROUP BY ROLLUP (a, b, c)',
        [
          '2,1,A,0',
          '2,1,null,0',
          '2,null,null,0',
          '3,2,A,1',
          '3,2,null,1',
          '3,null,null,1',
          '5,2,B,1',
          '5,2,null,1',
          '5,null,null,1',
          '6,3,C,1',
          '6,3,null,1',
          '6,null,null,1',
          'null,null,null,3',
        ],
      ],
    ]);
  });

  it('testWithCube', async () => {
    await check(`${T}\n${SMALL}`, [
      [
        'SELECT a, b, c, COUNT(d) FROM T GROUP BY CUBE (a, b, c)',
        [
          '2,1,A,0',
          '2,1,null,0',
          '2,null,A,0',
          '2,null,null,0',
          '3,2,A,1',
          '3,2,null,1',
          '3,null,A,1',
          '3,null,null,1',
          '5,2,B,1',
          '5,2,null,1',
          '5,null,B,1',
          '5,null,null,1',
          '6,3,C,1',
          '6,3,null,1',
          '6,null,C,1',
          '6,null,null,1',
          'null,1,A,0',
          'null,1,null,0',
          'null,2,A,1',
          'null,2,B,1',
          'null,2,null,2',
          'null,3,C,1',
          'null,3,null,1',
          'null,null,A,1',
          'null,null,B,1',
          'null,null,C,1',
          'null,null,null,3',
        ],
      ],
      [
        'SELECT b, c, e, SUM(a), MAX(d) FROM MyTable2 GROUP BY CUBE (b, c, e)',
        [
          'null,null,null,5,Hallo Welt wie',
          'null,null,1,3,Hallo Welt wie',
          'null,null,2,2,Hallo Welt',
          'null,0,null,1,Hallo',
          'null,0,1,1,Hallo',
          'null,1,null,2,Hallo Welt',
          'null,1,2,2,Hallo Welt',
          'null,2,null,2,Hallo Welt wie',
          'null,2,1,2,Hallo Welt wie',
          '1,null,null,1,Hallo',
          '1,null,1,1,Hallo',
          '1,0,null,1,Hallo',
          '1,0,1,1,Hallo',
          '2,null,null,2,Hallo Welt',
          '2,null,2,2,Hallo Welt',
          '2,1,null,2,Hallo Welt',
          '2,1,2,2,Hallo Welt',
          '3,null,null,2,Hallo Welt wie',
          '3,null,1,2,Hallo Welt wie',
          '3,2,null,2,Hallo Welt wie',
          '3,2,1,2,Hallo Welt wie',
        ],
      ],
    ]);
  });

  it('testSingleDistinctAgg', async () => {
    await check(T, [
      ['SELECT a, COUNT(DISTINCT c) FROM T GROUP BY a', ['2,1', '3,1', '5,1', '6,1']],
      ['SELECT a, b, COUNT(DISTINCT c) FROM T GROUP BY a, b', ['2,1,1', '3,2,1', '5,2,1', '6,3,1']],
      [
        'SELECT a, b, COUNT(DISTINCT c), COUNT(DISTINCT d) FROM T GROUP BY a, b',
        ['2,1,1,0', '3,2,1,1', '5,2,1,1', '6,3,1,1'],
      ],
    ]);
  });

  it('testSingleDistinctAgg_WithNonDistinctAgg', async () => {
    await check(T, [
      [
        'SELECT a, COUNT(DISTINCT c), SUM(b) FROM T GROUP BY a',
        ['2,1,1', '3,1,2', '5,1,2', '6,1,3'],
      ],
      [
        'SELECT a, c, COUNT(DISTINCT c), SUM(b) FROM T GROUP BY a, c',
        ['2,A,1,1', '3,A,1,2', '5,B,1,2', '6,C,1,3'],
      ],
      [
        'SELECT a, d, COUNT(DISTINCT c), SUM(b) FROM T GROUP BY a, d',
        ['2,null,1,1', '3,Hi,1,2', '5,Hello,1,2', '6,Hello world,1,3'],
      ],
    ]);
  });

  it('testMultiDistinctAggs', async () => {
    await check(T, [
      [
        'SELECT a, COUNT(DISTINCT b), SUM(DISTINCT b) FROM T GROUP BY a',
        ['2,1,1', '3,1,2', '5,1,2', '6,1,3'],
      ],
      [
        'SELECT a, d, COUNT(DISTINCT c), SUM(DISTINCT b) FROM T GROUP BY a, d',
        ['2,null,1,1', '3,Hi,1,2', '5,Hello,1,2', '6,Hello world,1,3'],
      ],
      [
        'SELECT a, SUM(DISTINCT b), MAX(DISTINCT b), MIN(DISTINCT c) FROM T GROUP BY a',
        ['2,1,1,A', '3,2,2,A', '5,2,2,B', '6,3,3,C'],
      ],
      [
        'SELECT a, d, COUNT(DISTINCT c), MAX(DISTINCT b), SUM(b) FROM T GROUP BY a, d',
        ['2,null,1,1,1', '3,Hi,1,2,2', '5,Hello,1,2,2', '6,Hello world,1,3,3'],
      ],
    ]);
  });

  it('testAggregateRemove', async () => {
    const t1 = valuesView(
      'T1',
      [
        ['a', 'INT'],
        ['b', 'INT'],
      ],
      [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 2],
        [4, 4],
        [6, 2],
      ],
    );
    await check(t1, [
      [
        `select sum(b) from
          (select b from
            (select b, sum(a) from
              (select b, sum(a) as a from T1 group by b) t1
            group by b) t2
          ) t3`,
        ['10'],
      ],
    ]);
  });
});
