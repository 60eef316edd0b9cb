/**
 * Flink's SplitAggregateITCase (streaming): distinct aggregates with
 * `table.optimizer.distinct-agg.split.enabled`, mini-batch on, local-global off and on
 * (Flink's parameters; the state backend has no counterpart in Weir). COUNT(DISTINCT) of
 * every type, FILTER, several distinct columns, non-distinct aggregates beside them, over
 * updating inputs, a join over them, LISTAGG(DISTINCT). Flink's expected final rows.
 */
import { describe, expect, it } from 'vitest';
import { scenarioRows, sorted, valuesView } from './flink-scenario-runner.js';

const SPLIT_ON = `SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';`;
const LOCAL_GLOBAL = [
  ['off', "SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';"],
  ['on', "SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';"],
] as const;

/** Flink's T: (a BIGINT, b INT, c STRING). */
const T = valuesView(
  'T',
  [
    ['a', 'BIGINT'],
    ['b', 'INT'],
    ['c', 'STRING'],
  ],
  [
    [1, 1, 'Hello 0'],
    [1, 2, 'Hello 1'],
    [2, 3, 'Hello 1'],
    [3, 5, 'Hello 1'],
    [2, 3, 'Hello 2'],
    [2, 4, 'Hello 3'],
    [2, 4, null],
    [2, 5, 'Hello 4'],
    [3, 5, 'Hello 0'],
    [2, 4, 'Hello 3'],
    [4, 5, 'Hello 2'],
    [2, 4, 'Hello 3'],
    [4, 5, null],
    [4, 5, 'Hello 3'],
    [2, 2, 'Hello 0'],
    [4, 6, 'Hello 1'],
  ],
);

/** testCountDistinct's columns, one value (or NULL) per id. */
const IDS = [1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5];
const INTEGERS = [1, 2, null, 4, 5, 6, 7, null, null, 10, 11, 11, 13, 14, 15];
const CHARS = ['A', 'B', null, 'D', 'E', 'F', 'H', null, null, 'K', 'L', 'L', 'N', 'O', 'P'];
const pad = (n: number) => String(n).padStart(2, '0');
const MY_TABLE = valuesView(
  'MyTable',
  [
    ['id', 'INT'],
    ['a', 'TIMESTAMP(3)'],
    ['b', 'DATE'],
    ['c', 'TIME(0)'],
    ['d', 'DECIMAL(10, 0)'],
    ['e', 'INT'],
    ['f', 'BIGINT'],
    ['g', 'STRING'],
  ],
  // Flink shuffles the rows; reversed here, deterministically out of order.
  IDS.map((id, i) => {
    const v = INTEGERS[i] ?? null;
    return [
      id,
      v === null ? null : `1970-01-01 00:00:${pad(v)}`,
      v === null ? null : `1970-01-${pad(v)}`,
      v === null ? null : `00:00:${pad(v)}`,
      v,
      v,
      v,
      CHARS[i] ?? null,
    ];
  }).reverse(),
);

describe.each(LOCAL_GLOBAL)("Flink's SplitAggregateITCase (local-global %s)", (_, phase) => {
  const SET = `${SPLIT_ON}\n${phase}`;
  const rows = (setup: string, sql: string) => scenarioRows(`${setup}\n${SET}`, sql);

  it('COUNT(DISTINCT) of every type', async () => {
    expect(
      await rows(
        MY_TABLE,
        `SELECT id, count(distinct a), count(distinct b), count(distinct c), count(distinct d),
           count(distinct e), count(distinct f), count(distinct g)
         FROM MyTable GROUP BY id`,
      ),
    ).toEqual(
      sorted([
        '1,1,1,1,1,1,1,1',
        '2,1,1,1,1,1,1,1',
        '3,3,3,3,3,3,3,3',
        '4,2,2,2,2,2,2,2',
        '5,4,4,4,4,4,4,4',
      ]),
    );
  });

  it('single and multiple distinct aggregates, with and without GROUP BY', async () => {
    expect(await rows(T, 'SELECT COUNT(DISTINCT c) FROM T')).toEqual(['5']);
    expect(await rows(T, 'SELECT COUNT(DISTINCT b), COUNT(DISTINCT c) FROM T')).toEqual(['6,5']);
    expect(await rows(T, 'SELECT a, SUM(b), COUNT(DISTINCT c), avg(b) FROM T GROUP BY a')).toEqual(
      sorted(['1,3,2,1', '2,29,5,3', '3,10,2,5', '4,21,3,5']),
    );
    expect(await rows(T, 'SELECT a, COUNT(DISTINCT c) FROM T GROUP BY a')).toEqual(
      sorted(['1,2', '2,5', '3,2', '4,3']),
    );
    expect(await rows(T, 'SELECT a, COUNT(DISTINCT b), MAX(b), MIN(b) FROM T GROUP BY a')).toEqual(
      sorted(['1,2,2,1', '2,4,5,2', '3,1,5,5', '4,2,6,5']),
    );
    expect(await rows(T, 'SELECT a, COUNT(DISTINCT a), COUNT(b) FROM T GROUP BY a')).toEqual(
      sorted(['1,1,2', '2,1,8', '3,1,2', '4,1,4']),
    );
  });

  it('FILTER clauses on distinct and non-distinct aggregates', async () => {
    expect(
      await rows(
        T,
        `SELECT a, COUNT(DISTINCT b) filter (where not b = 2), MAX(b) filter (where not b = 5),
           MIN(b) filter (where not b = 2)
         FROM T GROUP BY a`,
      ),
    ).toEqual(sorted(['1,1,2,1', '2,3,4,3', '3,1,null,5', '4,2,6,5']));
    expect(
      await rows(
        T,
        `SELECT a, COUNT(DISTINCT b), COUNT(DISTINCT b) filter (where not b = 2),
           MAX(b) filter (where not b = 5), MIN(b) filter (where not b = 2)
         FROM T GROUP BY a`,
      ),
    ).toEqual(sorted(['1,2,1,2,1', '2,4,3,4,3', '3,1,1,null,5', '4,2,2,6,5']));
    expect(
      await rows(
        T,
        `SELECT a, COUNT(DISTINCT b) FILTER (WHERE NOT b = 2), SUM(b) FILTER (WHERE NOT b = 5),
           COUNT(b), SUM(b), AVG(b)
         FROM T GROUP BY a`,
      ),
    ).toEqual(sorted(['1,1,3,2,3,1', '2,3,24,8,29,3', '3,1,null,2,10,5', '4,2,6,4,21,5']));
  });

  it('distinct aggregates over an updating GROUP BY', async () => {
    const inner = 'SELECT a, COUNT(DISTINCT b) as b, MAX(b) as c FROM T GROUP BY a';
    expect(
      await rows(T, `SELECT c, MIN(b), MAX(b), COUNT(DISTINCT a) FROM (${inner}) GROUP BY c`),
    ).toEqual(sorted(['2,2,2,1', '5,1,4,2', '6,2,2,1']));
    const counts = 'SELECT a, COUNT(b) as b, MAX(b) as b1 FROM T GROUP BY a';
    expect(
      await rows(T, `SELECT b, COUNT(DISTINCT b1), COUNT(1) FROM (${counts}) GROUP BY b`),
    ).toEqual(sorted(['2,2,2', '4,1,1', '8,1,1']));
    expect(
      await rows(T, `SELECT b, SUM(b1), COUNT(DISTINCT b1), COUNT(1) FROM (${counts}) GROUP BY b`),
    ).toEqual(sorted(['2,7,2,2', '4,6,1,1', '8,5,1,1']));
    expect(
      await rows(
        T,
        `SELECT * FROM (
           SELECT c, MIN(b) as b, MAX(b) as d, COUNT(DISTINCT a) as a FROM (${inner}) GROUP BY c
         ) as T1 JOIN T ON T1.b + 2 = T.a`,
      ),
    ).toEqual(
      sorted([
        '2,2,2,1,4,5,Hello 2',
        '2,2,2,1,4,5,Hello 3',
        '2,2,2,1,4,5,null',
        '2,2,2,1,4,6,Hello 1',
        '5,1,4,2,3,5,Hello 0',
        '5,1,4,2,3,5,Hello 1',
        '6,2,2,1,4,5,Hello 2',
        '6,2,2,1,4,5,Hello 3',
        '6,2,2,1,4,5,null',
        '6,2,2,1,4,6,Hello 1',
      ]),
    );
  });

  it('UV over an updating LAST_VALUE, and over a UNION ALL', async () => {
    const src = (names: readonly string[], data: readonly (readonly string[])[]) =>
      valuesView(
        'src',
        names.map((name) => [name, 'STRING'] as const),
        data,
      );
    const thousand = Array.from({ length: 1000 }, (_, i) => [`${i % 10}`, `${i % 100}`, `${i}`]);
    expect(
      await rows(
        src(['a', 'b', 'c'], thousand),
        `SELECT a, COUNT(distinct b) as uv
         FROM (SELECT a, b, last_value(c) FROM src GROUP BY a, b) t GROUP BY a`,
      ),
    ).toEqual(sorted(Array.from({ length: 10 }, (_, i) => `${i},10`)));
    const hundred = Array.from({ length: 100 }, (_, i) => ['1', '1', `${i % 50}`, '1']);
    expect(
      await rows(
        src(['a', 'b', 'c', 'd'], hundred),
        `SELECT a, b, COUNT(distinct c) as uv FROM (
           SELECT a, b, c, d FROM src where b <> ''
           UNION ALL
           SELECT a, 'ALL' as b, c, d FROM src where b <> ''
         ) t GROUP BY a, b`,
      ),
    ).toEqual(sorted(['1,1,50', '1,ALL,50']));
  });

  it('LISTAGG(DISTINCT c, sep)', async () => {
    const result = await rows(T, "SELECT a, LISTAGG(DISTINCT c, '#') FROM T GROUP BY a");
    // Flink compares each group's values as a set: their order is not defined.
    const groups = result.map((row) => {
      const [key, values = ''] = row.split(',');
      return `${key}:${values.split('#').sort().join('#')}`;
    });
    expect(groups).toEqual([
      '1:Hello 0#Hello 1',
      '2:Hello 0#Hello 1#Hello 2#Hello 3#Hello 4',
      '3:Hello 0#Hello 1',
      '4:Hello 1#Hello 2#Hello 3',
    ]);
  });
});
