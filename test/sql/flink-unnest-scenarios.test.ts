/**
 * Scenarios of Flink's streaming UnnestITCase: UNNEST of arrays of primitives, of arrays, of
 * strings and of rows (by an alias list or by the row's own field names), of maps (also of
 * ROW keys and values), WITH ORDINALITY (also chained and over empty arrays and NULL map
 * values), UNNEST of a constant array with and without a VALUES row on the left, filters on the
 * elements inside and outside a subquery, LEFT JOIN ... ON TRUE, and UNNEST over an updating
 * GROUP BY result and over a TUMBLE window's result. Flink's data, queries and expected rows,
 * compared as the final rows after the changelog.
 *
 * Deliberate differences, each said again where it applies:
 * - UNNEST of a COLLECT result: Flink's MULTISET is a hash map, Weir's keeps its elements in
 *   first arrival order; with ORDINALITY the positions here are Flink's expected ones, which
 *   follow the elements' arrival.
 * - A ROW inside an ARRAY prints as `(13, 41.6)` in Weir and as `13,41.6` in Flink's legacy
 *   Row.toString: `legacy` rewrites Weir's text to Flink's before comparing.
 * - A MAP built by MAP[...] keeps its entries in the order written; Flink's tests build a Java
 *   HashMap, whose order (and so WITH ORDINALITY's positions over a map) is the hash order
 *   (`d` before `c`). The maps here are written in that hash order, so the rows are Flink's.
 *
 * Not ported: testUnnestWithOrdinalityAliasColumnNames checks only the result schema's names,
 * and is covered by asserting the columns of the same query; testCrossWithUnnestForMap's
 * legacy retract table sink (Flink's sink API, not the query) is read as final rows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { scenarioRows, sorted, TUPLE_DATA_3 } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

/** Weir's `(13, 41.6)` for a ROW inside an ARRAY as Flink's legacy `13,41.6`. */
const legacy = (rows: readonly string[]): string[] =>
  sorted(
    rows.map((r) =>
      r.replace(/\(([^()]*)\)/g, (_, fields: string) => fields.split(', ').join(',')),
    ),
  );

/** `T(a, b, c)`: an id, an ARRAY<INT> and an ARRAY<ARRAY<INT>>. */
const ARRAYS = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
  (1, ARRAY[12, 45], ARRAY[ARRAY[12, 45]]),
  (2, ARRAY[41, 5], ARRAY[ARRAY[18], ARRAY[87]]),
  (3, ARRAY[18, 42], ARRAY[ARRAY[1], ARRAY[45]])) AS T(a, b, c);`;

/** `T(a, b)` of Scala tuples `(Int, Array[(Int, String)])`: b an ARRAY of ROW<_1, _2>. */
const tuples = (rows: string): string =>
  `CREATE TEMPORARY VIEW T AS SELECT a, CAST(b AS ARRAY<ROW<_1 INT, _2 STRING>>) AS b
   FROM (VALUES ${rows}) AS v(a, b);`;
const TUPLES = tuples(`(1, ARRAY[ROW(12, '45.6'), ROW(12, '45.612')]),
  (2, ARRAY[ROW(13, '41.6'), ROW(14, '45.2136')]),
  (3, ARRAY[ROW(18, '42.6')])`);

/** `T(a, b, c)` of testCrossWithUnnest: c an ARRAY<STRING>. */
const STRINGS = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
  (1, CAST(1 AS BIGINT), ARRAY['Hi', 'w']),
  (2, CAST(2 AS BIGINT), ARRAY['Hello', 'k']),
  (3, CAST(2 AS BIGINT), ARRAY['Hello world', 'x'])) AS T(a, b, c);`;

describe("Flink's UnnestITCase (streaming)", () => {
  it('testUnnestPrimitiveArrayFromTable', async () => {
    expect(await scenarioRows(ARRAYS, 'SELECT a, b, s FROM T, UNNEST(T.b) AS A (s)')).toEqual(
      sorted([
        '1,[12, 45],12',
        '1,[12, 45],45',
        '2,[41, 5],41',
        '2,[41, 5],5',
        '3,[18, 42],18',
        '3,[18, 42],42',
      ]),
    );
  });

  it('testUnnestArrayOfArrayFromTable', async () => {
    expect(await scenarioRows(ARRAYS, 'SELECT a, s FROM T, UNNEST(T.c) AS A (s)')).toEqual(
      sorted(['1,[12, 45]', '2,[18]', '2,[87]', '3,[1]', '3,[45]']),
    );
  });

  it('testUnnestObjectArrayFromTableWithFilter', async () => {
    const rows = await scenarioRows(
      TUPLES,
      'SELECT a, b, s, t FROM T, UNNEST(T.b) AS A (s, t) WHERE s > 13',
    );
    expect(legacy(rows)).toEqual(
      sorted(['2,[13,41.6, 14,45.2136],14,45.2136', '3,[18,42.6],18,42.6']),
    );
  });

  it('testUnnestMultiSetFromCollectResult', async () => {
    // Flink's older UnnestITCase: COLLECT of a tuple column, unnested into its fields.
    const setup = `CREATE TEMPORARY VIEW T AS SELECT a, b, CAST(c AS ROW<_1 INT, _2 STRING>) AS c
      FROM (VALUES (1, 1, ROW(12, '45.6')), (2, 2, ROW(12, '45.612')), (3, 2, ROW(13, '41.6')),
        (4, 3, ROW(14, '45.2136')), (5, 3, ROW(18, '42.6'))) AS v(a, b, c);`;
    expect(
      await scenarioRows(
        setup,
        'WITH T1 AS (SELECT b, COLLECT(c) as `set` FROM T GROUP BY b) SELECT b, id, point FROM T1, UNNEST(T1.`set`) AS A(id, point) WHERE b < 3',
      ),
    ).toEqual(sorted(['1,12,45.6', '2,12,45.612', '2,13,41.6']));
  });

  it('testLeftUnnestMultiSetFromCollectResult', async () => {
    // COLLECT leaves NULLs out: group 3 (only a NULL) has an empty MULTISET, so `3,null`.
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, '1', 'Hello'), (1, '2', 'Hello2'), (2, '2', 'Hello'), (3, CAST(NULL AS STRING), 'Hello'),
      (4, '4', 'Hello'), (5, '5', 'Hello'), (5, CAST(NULL AS STRING), 'Hello'), (6, '6', 'Hello'),
      (7, '7', 'Hello World'), (7, '8', 'Hello World')) AS T(a, b, c);`;
    expect(
      await scenarioRows(
        setup,
        'WITH T1 AS (SELECT a, COLLECT(b) as `set` FROM T GROUP BY a) SELECT a, s FROM T1 LEFT JOIN UNNEST(T1.`set`) AS A(s) ON TRUE WHERE a < 5',
        { parallelism: 1 },
      ),
    ).toEqual(sorted(['1,1', '1,2', '2,2', '3,null', '4,4']));
  });

  describe('over a TUMBLE window of tupleData3 (rowtime = b ms)', () => {
    // Flink's (b, a, c) of tupleData3 with b as the rowtime in ms, watermarks at each rowtime.
    const windowed = (): string => `CREATE TABLE T (
        b BIGINT, a INT, c STRING, rowtime TIMESTAMP(3),
        WATERMARK FOR rowtime AS rowtime
      ) WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(
        TUPLE_DATA_3.map(([a, b, c]) => [b, a, c, b]),
      )}');`;
    const aggregate = `WITH T1 AS (SELECT b, COLLECT(b) as \`set\` FROM T
      GROUP BY b, TUMBLE(rowtime, INTERVAL '3' SECOND))`;

    it('testTumbleWindowAggregateWithCollectUnnest', async () => {
      expect(
        await scenarioRows(
          windowed(),
          `${aggregate} SELECT b, s FROM T1, UNNEST(T1.\`set\`) AS A(s) where b < 3`,
          { parallelism: 1 },
        ),
      ).toEqual(sorted(['1,1', '2,2', '2,2']));
    });

    it('testTumbleWindowAggregateWithCollectUnnestWithOrdinality', async () => {
      expect(
        await scenarioRows(
          windowed(),
          `${aggregate} SELECT b, s, o FROM T1, UNNEST(T1.\`set\`) WITH ORDINALITY AS A(s, o) where b < 3`,
          { parallelism: 1 },
        ),
      ).toEqual(sorted(['1,1,1', '2,2,1', '2,2,2']));
    });
  });

  it('testCrossWithUnnest', async () => {
    expect(await scenarioRows(STRINGS, 'SELECT a, s FROM T, UNNEST(T.c) as A (s)')).toEqual(
      sorted(['1,Hi', '1,w', '2,Hello', '2,k', '3,Hello world', '3,x']),
    );
  });

  it('testCrossWithUnnestForMap', async () => {
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, CAST(11 AS BIGINT), MAP['a', '10', 'b', '11']),
      (2, CAST(22 AS BIGINT), MAP['c', '20']),
      (3, CAST(33 AS BIGINT), MAP['d', '30', 'e', '31'])) AS T(a, b, c);`;
    expect(
      await scenarioRows(setup, 'SELECT a, b, v FROM T CROSS JOIN UNNEST(c) as f (k, v)'),
    ).toEqual(sorted(['1,11,10', '1,11,11', '2,22,20', '3,33,30', '3,33,31']));
  });

  it('testJoinWithUnnestOfTuple', async () => {
    const setup = tuples(`(1, ARRAY[ROW(12, '45.6'), ROW(2, '45.612')]),
      (2, ARRAY[ROW(13, '41.6'), ROW(1, '45.2136')]),
      (3, ARRAY[ROW(18, '42.6')])`);
    const rows = await scenarioRows(
      setup,
      `SELECT a, b, x, y
       FROM (SELECT a, b FROM T WHERE a < 3) as tf, UNNEST(tf.b) as A (x, y)
       WHERE x > a`,
    );
    expect(legacy(rows)).toEqual(
      sorted([
        '1,[12,45.6, 2,45.612],12,45.6',
        '1,[12,45.6, 2,45.612],2,45.612',
        '2,[13,41.6, 1,45.2136],13,41.6',
      ]),
    );
  });

  it('testUnnestObjectArrayWithoutAlias', async () => {
    const rows = await scenarioRows(
      TUPLES,
      'SELECT a, b, A._1, A._2 FROM T, UNNEST(T.b) AS A where A._1 > 13',
    );
    expect(legacy(rows)).toEqual(
      sorted(['2,[13,41.6, 14,45.2136],14,45.2136', '3,[18,42.6],18,42.6']),
    );
  });

  it('testUnnestArrayOfRowsWithNestedFilter', async () => {
    expect(
      await scenarioRows(
        TUPLES,
        `SELECT * FROM (
           SELECT a, b1, b2 FROM (SELECT a, b FROM T) T2
           CROSS JOIN UNNEST(T2.b) as S(b1, b2)
           WHERE S.b1 >= 12) tmp
         WHERE b2 <> '42.6'`,
      ),
    ).toEqual(sorted(['1,12,45.612', '1,12,45.6', '2,13,41.6', '2,14,45.2136']));
  });

  it('testUnnestWithValuesStream', async () => {
    expect(await scenarioRows('', 'SELECT * FROM UNNEST(ARRAY[1,2,3])')).toEqual(['1', '2', '3']);
  });

  it('testUnnestWithValuesStream2', async () => {
    expect(
      await scenarioRows('', "SELECT * FROM (VALUES('a')) CROSS JOIN UNNEST(ARRAY[1, 2, 3])"),
    ).toEqual(['a,1', 'a,2', 'a,3']);
  });

  it('testUnnestWithOrdinalityWithValuesStream', async () => {
    expect(
      await scenarioRows(
        '',
        "SELECT * FROM (VALUES('a')) CROSS JOIN UNNEST(ARRAY[1, 2, 3]) WITH ORDINALITY",
      ),
    ).toEqual(['a,1,1', 'a,2,2', 'a,3,3']);
  });

  it('testUnnestArrayWithOrdinality', async () => {
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, ARRAY[12, 45]), (2, ARRAY[41, 5]), (3, ARRAY[18, 42])) AS T(a, b);`;
    expect(
      await scenarioRows(
        setup,
        'SELECT a, number, ordinality FROM T CROSS JOIN UNNEST(b) WITH ORDINALITY AS t(number, ordinality)',
      ),
    ).toEqual(sorted(['1,12,1', '1,45,2', '2,41,1', '2,5,2', '3,18,1', '3,42,2']));
  });

  it('testUnnestFromTableWithOrdinality', async () => {
    expect(
      await scenarioRows(STRINGS, 'SELECT a, s, o FROM T, UNNEST(T.c) WITH ORDINALITY as A (s, o)'),
    ).toEqual(sorted(['1,Hi,1', '1,w,2', '2,Hello,1', '2,k,2', '3,Hello world,1', '3,x,2']));
  });

  it('testUnnestArrayOfArrayWithOrdinality', async () => {
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, ARRAY[ARRAY[1, 2], ARRAY[3]]),
      (2, ARRAY[ARRAY[4, 5], ARRAY[6, 7]]),
      (3, ARRAY[ARRAY[8]])) AS T(id, nested_array);`;
    expect(
      await scenarioRows(
        setup,
        `SELECT id, array_val, array_pos, \`element\`, element_pos
         FROM T
         CROSS JOIN UNNEST(nested_array) WITH ORDINALITY AS A(array_val, array_pos)
         CROSS JOIN UNNEST(array_val) WITH ORDINALITY AS B(\`element\`, element_pos)`,
      ),
    ).toEqual(
      sorted([
        '1,[1, 2],1,1,1',
        '1,[1, 2],1,2,2',
        '1,[3],2,3,1',
        '2,[4, 5],1,4,1',
        '2,[4, 5],1,5,2',
        '2,[6, 7],2,6,1',
        '2,[6, 7],2,7,2',
        '3,[8],1,8,1',
      ]),
    );
  });

  it('testUnnestMultisetWithOrdinality', async () => {
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, 1, 'Hi'), (1, 2, 'Hello'), (2, 2, 'World'), (3, 3, 'Hello world')) AS T(a, b, c);`;
    expect(
      await scenarioRows(
        setup,
        `WITH T1 AS (SELECT a, COLLECT(c) as words FROM T GROUP BY a)
         SELECT a, word, pos FROM T1 CROSS JOIN UNNEST(words) WITH ORDINALITY AS A(word, pos)`,
        { parallelism: 1 },
      ),
    ).toEqual(sorted(['1,Hi,1', '1,Hello,2', '2,World,1', '3,Hello world,1']));
  });

  it('testUnnestMapWithOrdinality', async () => {
    // Entries in the Java HashMap order of Flink's maps (d before c).
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, MAP['a', '10', 'b', '11']),
      (2, MAP['d', '21', 'c', '20'])) AS T(id, map_data);`;
    expect(
      await scenarioRows(
        setup,
        'SELECT id, k, v, pos FROM T CROSS JOIN UNNEST(map_data) WITH ORDINALITY AS f(k, v, pos)',
      ),
    ).toEqual(sorted(['1,a,10,1', '1,b,11,2', '2,c,20,2', '2,d,21,1']));
  });

  it('testUnnestForMapOfRowsWithOrdinality', async () => {
    // A MAP<ROW<STRING, STRING>, ROW<INT>>: each key and value one column, a ROW, printed by
    // Flink's legacy Row.toString as its fields (`a,a`, `10`).
    const setup = `CREATE TEMPORARY VIEW T AS SELECT a,
        CAST(b AS MAP<ROW<f0 STRING, f1 STRING>, ROW<f0 INT>>) AS b FROM (VALUES
      (1, MAP[ROW('a', 'a'), ROW(10), ROW('b', 'b'), ROW(11)]),
      (2, MAP[ROW('c', 'c'), ROW(20)]),
      (3, MAP[ROW('d', 'd'), ROW(30), ROW('e', 'e'), ROW(31)])) AS v(a, b);`;
    const rows = await scenarioRows(
      setup,
      'SELECT a, k, v, o FROM T CROSS JOIN UNNEST(b) WITH ORDINALITY as f (k, v, o)',
    );
    expect(legacy(rows)).toEqual(
      sorted(['1,a,a,10,1', '1,b,b,11,2', '2,c,c,20,1', '3,d,d,30,1', '3,e,e,31,2']),
    );
  });

  it('testUnnestWithOrdinalityForChainOfArraysAndMaps', async () => {
    // Entries in the Java HashMap order of Flink's maps (x, y; z, w).
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, ARRAY['a', 'b'], MAP['x', '10', 'y', '20']),
      (2, ARRAY['c', 'd'], MAP['z', '30', 'w', '40'])) AS T(id, array_data, map_data);`;
    expect(
      await scenarioRows(
        setup,
        `SELECT id, array_val, array_pos, map_key, map_val, map_pos
         FROM T
         CROSS JOIN UNNEST(array_data) WITH ORDINALITY AS A(array_val, array_pos)
         CROSS JOIN UNNEST(map_data) WITH ORDINALITY AS B(map_key, map_val, map_pos)`,
      ),
    ).toEqual(
      sorted([
        '1,a,1,x,10,1',
        '1,a,1,y,20,2',
        '1,b,2,x,10,1',
        '1,b,2,y,20,2',
        '2,c,1,z,30,1',
        '2,c,1,w,40,2',
        '2,d,2,z,30,1',
        '2,d,2,w,40,2',
      ]),
    );
  });

  it('testUnnestWithOrdinalityForEmptyArray', async () => {
    // The empty array comes from a table (as Flink's from a Scala Array[Int]()): SQL's ARRAY[]
    // needs an element, in Flink as in Weir.
    const setup = `CREATE TABLE T (a INT, b ARRAY<INT>)
      WITH ('connector' = 'flink-values', 'data-id' = '${registerValues([[1, []]])}');`;
    expect(
      await scenarioRows(
        setup,
        'SELECT a, number, ordinality FROM T CROSS JOIN UNNEST(b) WITH ORDINALITY AS t(number, ordinality)',
      ),
    ).toEqual([]);
  });

  it('testUnnestWithOrdinalityForMapWithNullValues', async () => {
    // Entries in the Java HashMap order of Flink's maps (a, b; d, c).
    const setup = `CREATE TEMPORARY VIEW T AS SELECT * FROM (VALUES
      (1, MAP['a', '10', 'b', CAST(NULL AS STRING)]),
      (2, MAP['d', CAST(NULL AS STRING), 'c', '20'])) AS T(id, map_data);`;
    expect(
      await scenarioRows(
        setup,
        'SELECT id, k, v, pos FROM T CROSS JOIN UNNEST(map_data) WITH ORDINALITY AS f(k, v, pos)',
      ),
    ).toEqual(sorted(['1,a,10,1', '1,b,null,2', '2,c,20,2', '2,d,null,1']));
  });

  it('testUnnestArrayOfRowsFromTableWithOrdinality', async () => {
    const setup = tuples(`(2, ARRAY[ROW(20, '41.6'), ROW(14, '45.2136')]),
      (3, ARRAY[ROW(18, '42.6')])`);
    const rows = await scenarioRows(
      setup,
      'SELECT a, b, s, t, o FROM T, UNNEST(T.b) WITH ORDINALITY AS A(s, t, o)',
    );
    expect(legacy(rows)).toEqual(
      sorted([
        '2,[20,41.6, 14,45.2136],20,41.6,1',
        '2,[20,41.6, 14,45.2136],14,45.2136,2',
        '3,[18,42.6],18,42.6,1',
      ]),
    );
  });

  it('testUnnestArrayOfRowsWithNestedFilterWithOrdinality', async () => {
    expect(
      await scenarioRows(
        TUPLES,
        `SELECT * FROM (
           SELECT a, b1, b2, ord FROM (SELECT a, b FROM T) T2
           CROSS JOIN UNNEST(T2.b) WITH ORDINALITY as S(b1, b2, ord)
           WHERE S.b1 >= 12) tmp
         WHERE b2 <> '42.6' AND ord <> 2`,
      ),
    ).toEqual(sorted(['1,12,45.6,1', '2,13,41.6,1']));
  });

  it('testUnnestMultiSetOfRowsFromCollectResultWithOrdinality', async () => {
    const setup = `CREATE TEMPORARY VIEW T AS SELECT a, CAST(b AS ROW<_1 INT, _2 STRING>) AS b
      FROM (VALUES (1, ROW(12, '45.6')), (2, ROW(12, '45.612')), (2, ROW(13, '41.6')),
        (3, ROW(14, '45.2136')), (3, ROW(18, '42.6'))) AS v(a, b);`;
    expect(
      await scenarioRows(
        setup,
        `WITH T1 AS (SELECT a, COLLECT(b) as \`set\` FROM T GROUP BY a)
         SELECT a, id, point, o FROM T1
         CROSS JOIN UNNEST(T1.\`set\`) WITH ORDINALITY AS A(id, point, o) WHERE a < 3`,
        { parallelism: 1 },
      ),
    ).toEqual(sorted(['1,12,45.6,1', '2,12,45.612,1', '2,13,41.6,2']));
  });

  it('testUnnestWithOrdinalityAliasColumnNames', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    const table = tEnv.sqlQuery(
      "SELECT * FROM (VALUES('a')) AS T(x) CROSS JOIN UNNEST(ARRAY[1,2,3]) WITH ORDINALITY AS U(y, ord)",
    );
    expect(table.columns.map((c) => c.name)).toEqual(['x', 'y', 'ord']);
  });
});
