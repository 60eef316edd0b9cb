/**
 * UNNEST scenarios of Flink's UnnestITCase: arrays of primitives, of arrays and of rows
 * (named by an alias list or by the row's own fields), maps, filters on the elements, a
 * subquery's column, LEFT JOIN ... ON TRUE. Flink's expected rows.
 */
import { describe, expect, it } from 'vitest';
import { runScenario, scenarioRows, sorted } from './flink-scenario-runner.js';

const ARRAYS = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
  (1, ARRAY[12, 45], ARRAY[ARRAY[12, 45]]),
  (2, ARRAY[41, 5], ARRAY[ARRAY[18], ARRAY[87]]),
  (3, ARRAY[18, 42], ARRAY[ARRAY[1], ARRAY[45]])) AS T(a, b, c);`;

const PAIRS = (name: string, rows: string) =>
  `CREATE TEMPORARY VIEW ${name} AS SELECT a, CAST(b AS ARRAY<ROW<_1 INT, _2 STRING>>) AS b FROM (VALUES ${rows}) AS v(a, b);`;
const TUPLES = PAIRS(
  'T',
  `(1, ARRAY[ROW(12, '45.6'), ROW(12, '45.612')]),
   (2, ARRAY[ROW(13, '41.6'), ROW(14, '45.2136')]),
   (3, ARRAY[ROW(18, '42.6')])`,
);

describe("Flink's UnnestITCase", () => {
  it('unnests arrays of primitives and of arrays', async () => {
    const [primitives, nested] = await runScenario(ARRAYS, [
      'SELECT a, b, s FROM T, UNNEST(T.b) AS A (s)',
      'SELECT a, s FROM T, UNNEST(T.c) AS A (s)',
    ]);
    expect(primitives?.rows).toEqual(
      sorted([
        '1,[12, 45],12',
        '1,[12, 45],45',
        '2,[41, 5],41',
        '2,[41, 5],5',
        '3,[18, 42],18',
        '3,[18, 42],42',
      ]),
    );
    expect(nested?.rows).toEqual(sorted(['1,[12, 45]', '2,[18]', '2,[87]', '3,[1]', '3,[45]']));
  });

  it('unnests arrays of rows, filtered, with and without an alias list', async () => {
    const [aliased, unaliased, nestedFilter] = await runScenario(TUPLES, [
      'SELECT a, s, t FROM T, UNNEST(T.b) AS A (s, t) WHERE s > 13',
      'SELECT a, A._1, A._2 FROM T, UNNEST(T.b) AS A where A._1 > 13',
      `SELECT * FROM (
         SELECT a, b1, b2 FROM (SELECT a, b FROM T) T CROSS JOIN UNNEST(T.b) as S(b1, b2)
         WHERE S.b1 >= 12) tmp
       WHERE b2 <> '42.6'`,
    ]);
    expect(aliased?.rows).toEqual(sorted(['2,14,45.2136', '3,18,42.6']));
    expect(unaliased?.rows).toEqual(sorted(['2,14,45.2136', '3,18,42.6']));
    expect(nestedFilter?.rows).toEqual(
      sorted(['1,12,45.612', '1,12,45.6', '2,13,41.6', '2,14,45.2136']),
    );
    const joined = PAIRS(
      'T',
      `(1, ARRAY[ROW(12, '45.6'), ROW(2, '45.612')]),
       (2, ARRAY[ROW(13, '41.6'), ROW(1, '45.2136')]),
       (3, ARRAY[ROW(18, '42.6')])`,
    );
    expect(
      await scenarioRows(
        joined,
        'SELECT a, x, y FROM (SELECT a, b FROM T WHERE a < 3) as tf, UNNEST(tf.b) as A (x, y) WHERE x > a',
      ),
    ).toEqual(sorted(['1,12,45.6', '1,2,45.612', '2,13,41.6']));
  });

  it('unnests arrays of strings and maps (CROSS JOIN)', async () => {
    const strings = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, CAST(1 AS BIGINT), ARRAY['Hi', 'w']),
      (2, CAST(2 AS BIGINT), ARRAY['Hello', 'k']),
      (3, CAST(2 AS BIGINT), ARRAY['Hello world', 'x'])) AS T(a, b, c);`;
    expect(await scenarioRows(strings, 'SELECT a, s FROM T, UNNEST(T.c) as A (s)')).toEqual(
      sorted(['1,Hi', '1,w', '2,Hello', '2,k', '3,Hello world', '3,x']),
    );
    const maps = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, CAST(11 AS BIGINT), MAP['a', '10', 'b', '11']),
      (2, CAST(22 AS BIGINT), MAP['c', '20']),
      (3, CAST(33 AS BIGINT), MAP['d', '30', 'e', '31'])) AS T(a, b, c);`;
    expect(
      await scenarioRows(maps, 'SELECT a, b, v FROM T CROSS JOIN UNNEST(c) as f (k, v)'),
    ).toEqual(sorted(['1,11,10', '1,11,11', '2,22,20', '3,33,30', '3,33,31']));
  });

  it('LEFT JOIN UNNEST ... ON TRUE over an updating ARRAY_AGG', async () => {
    // Flink's testLeftUnnestMultiSetFromCollectResult with COLLECT (a MULTISET, which Weir
    // SQL has not) as ARRAY_AGG: NULL elements kept, a group of NULL only gives a NULL.
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, '1', 'Hello'), (1, '2', 'Hello2'), (2, '2', 'Hello'), (3, CAST(NULL AS STRING), 'Hello'),
      (4, '4', 'Hello'), (5, '5', 'Hello'), (5, CAST(NULL AS STRING), 'Hello'), (6, '6', 'Hello'),
      (7, '7', 'Hello World'), (7, '8', 'Hello World')) AS T(a, b, c);`;
    expect(
      await scenarioRows(
        setup,
        'WITH T1 AS (SELECT a, ARRAY_AGG(b) as `set` FROM T GROUP BY a) SELECT a, s FROM T1 LEFT JOIN UNNEST(T1.`set`) AS A(s) ON TRUE WHERE a < 5',
        { parallelism: 1 },
      ),
    ).toEqual(sorted(['1,1', '1,2', '2,2', '3,null', '4,4']));
  });

  it('refuses COLLECT, whose MULTISET type Weir SQL has not', async () => {
    await expect(runScenario(ARRAYS, ['SELECT a, COLLECT(b) FROM T GROUP BY a'])).rejects.toThrow(
      /COLLECT/,
    );
  });
});
