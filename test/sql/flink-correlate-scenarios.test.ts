/**
 * UNNEST scenarios of Flink's UnnestITCase: arrays of primitives, of arrays and of rows
 * (named by an alias list or by the row's own fields), maps, filters on the elements, a
 * subquery's column, LEFT JOIN ... ON TRUE. Flink's expected rows.
 *
 * Table function scenarios of Flink's CorrelateITCase (streaming): LATERAL TABLE with the
 * comma and LEFT JOIN ... ON TRUE, constant arguments, a scalar UDF, a UNION ALL of two
 * correlates, projections over empty outputs. Flink's expected rows. Not ported: the
 * commented-out testCountStarOnCorrelate pair (disabled in Flink too); testConstantTableFunc
 * (StringSplit's form without arguments: a Weir table function has one signature).
 */
import { describe, expect, it } from 'vitest';
import {
  defineScalarFunction,
  defineTableFunction,
  type TableEnvironment,
} from '../../src/index.js';
import { runScenario, scenarioRows, sorted, valuesView } from './flink-scenario-runner.js';

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

/**
 * Flink's StringSplit (its two-argument eval): the tokens of `str` split at any of
 * `separators` (commons-lang `StringUtils.split`, so no empty tokens), none for NULL.
 */
function* splitTokens(str: string | null, separators: string): Generator<string> {
  if (str === null) return;
  let token = '';
  for (const ch of str) {
    if (separators.includes(ch)) {
      if (token !== '') yield token;
      token = '';
    } else token += ch;
  }
  if (token !== '') yield token;
}
const stringSplit = defineTableFunction({
  arguments: ['STRING', 'STRING'],
  result: 'STRING',
  eval: (str: string | null, sep: string | null) => splitTokens(str, sep ?? ','),
});
/** Flink's NonDeterministicTableFunc: one of the `#`-separated values, at random. */
const nonDeterministicSplit = defineTableFunction({
  arguments: ['STRING'],
  result: 'STRING',
  eval: (str: string | null) => {
    const values = (str ?? '').split('#');
    return [values[Math.floor(Math.random() * values.length)]];
  },
});
/** Flink's UdfWithOpen: `$` before its argument. */
const udfWithOpen = defineScalarFunction({
  arguments: ['STRING'],
  result: 'STRING',
  eval: (c: string | null) => (c === null ? null : `$${c}`),
});
/**
 * Flink's RF (an INT to an empty list, of ROWs there, of INTs here: Weir declares the element
 * type) and TableFunc7 (no rows for any list).
 */
const rf = defineScalarFunction({ arguments: ['INT'], result: 'ARRAY<INT>', eval: () => [] });
const tableFunc7 = defineTableFunction({
  arguments: ['ARRAY<INT>'],
  result: 'STRING',
  eval: () => [],
});

const functions =
  (extra: Record<string, Parameters<TableEnvironment['createTemporarySystemFunction']>[1]> = {}) =>
  (_: unknown, tEnv: TableEnvironment) => {
    tEnv.createTemporarySystemFunction('STRING_SPLIT', stringSplit);
    for (const [name, fn] of Object.entries(extra)) tEnv.createTemporarySystemFunction(name, fn);
  };

const ABC = [
  ['a', 'INT'],
  ['b', 'INT'],
  ['c', 'STRING'],
] as const;
const T1 = (rows: readonly (readonly [number, number, string])[]) => valuesView('T1', ABC, rows);
const SPLIT_ROWS = T1([
  [1, 2, 'abc-bcd'],
  [1, 2, 'hhh'],
  [1, 2, 'xxx'],
]);
const DATES = T1([
  [1, 2, '3018-06-10|2018-06-03'],
  [1, 2, '2018-06-01'],
  [1, 2, '2018-06-02'],
]);
const EMPTY = T1([
  [1, 2, ''],
  [1, 3, ''],
]);
const HALF_EMPTY = T1([
  [1, 2, 'a'],
  [1, 3, ''],
]);

describe("Flink's CorrelateITCase", () => {
  it('a UDTF on the same-named field of two sources, in a UNION ALL', async () => {
    const setup = `${SPLIT_ROWS}
      ${valuesView(
        'T2',
        [
          ['a', 'INT'],
          ['c', 'STRING'],
        ],
        [
          [1, 'abc-bcd'],
          [1, 'hhh'],
          [1, 'xxx'],
        ],
      )}
      CREATE TEMPORARY VIEW TMP1 AS SELECT a, v FROM T1, lateral table(STRING_SPLIT(c, '-')) as T(v);
      CREATE TEMPORARY VIEW TMP2 AS SELECT a, v FROM T2, lateral table(STRING_SPLIT(c, '-')) as T(v);`;
    expect(
      await scenarioRows(setup, 'SELECT * FROM TMP1 UNION ALL SELECT * FROM TMP2', {
        tables: functions(),
      }),
    ).toEqual(sorted(['1,abc', '1,abc', '1,bcd', '1,bcd', '1,hhh', '1,hhh', '1,xxx', '1,xxx']));
  });

  it('a constant table function joined to a table', async () => {
    const tables = functions({ str_split: stringSplit });
    expect(
      await scenarioRows(
        SPLIT_ROWS,
        "SELECT * FROM T1, LATERAL TABLE(str_split('Jack,John', ',')) as T0(d)",
        { tables },
      ),
    ).toEqual(
      sorted([
        '1,2,abc-bcd,Jack',
        '1,2,abc-bcd,John',
        '1,2,hhh,Jack',
        '1,2,hhh,John',
        '1,2,xxx,Jack',
        '1,2,xxx,John',
      ]),
    );
  });

  it('testConstantTableFunc2, testConstantNonDeterministicTableFunc: a LATERAL TABLE alone', async () => {
    expect(
      await scenarioRows('', "SELECT * FROM LATERAL TABLE(str_split('Jack,John', ',')) as T0(d)", {
        tables: functions({ str_split: stringSplit }),
      }),
    ).toEqual(sorted(['Jack', 'John']));
    const random = await scenarioRows(
      '',
      "SELECT * FROM LATERAL TABLE(str_split('Jack#John')) as T0(d)",
      { tables: functions({ str_split: nonDeterministicSplit }) },
    );
    expect(random).toHaveLength(1);
    expect(['Jack', 'John']).toContain(random[0]);
  });

  it('a constant non-deterministic table function joined to a table', async () => {
    const tables = functions({ str_split: nonDeterministicSplit });
    expect(
      await scenarioRows(
        SPLIT_ROWS,
        "SELECT * FROM T1, LATERAL TABLE(str_split('Jack#John')) as T0(d)",
        {
          tables,
        },
      ),
    ).toHaveLength(3);
  });

  it('a scalar UDF over a UDTF column, and two correlates of one table', async () => {
    expect(
      await scenarioRows(
        SPLIT_ROWS,
        `SELECT a, v FROM T1, lateral table(STRING_SPLIT(c, '-')) as T(v) WHERE func(v) LIKE '$%'`,
        { tables: functions({ func: udfWithOpen }) },
      ),
    ).toEqual(sorted(['1,abc', '1,bcd', '1,hhh', '1,xxx']));
    const strings = valuesView(
      'T1',
      [
        ['a', 'STRING'],
        ['b', 'STRING'],
        ['c', 'STRING'],
      ],
      [
        ['1', '1,L', 'A,B'],
        ['2', '2,L', 'B,C'],
      ],
    );
    const [first, second] = await runScenario(
      strings,
      [
        "SELECT a, b, s FROM T1, LATERAL TABLE(str_split(c, ',')) as T2(s)",
        "SELECT a, c, s FROM T1, LATERAL TABLE(str_split(b, ',')) as T3(s)",
      ],
      { tables: functions({ str_split: stringSplit }) },
    );
    expect(sorted([...(first?.rows ?? []), ...(second?.rows ?? [])])).toEqual(
      sorted([
        '1,1,L,A',
        '1,1,L,B',
        '1,A,B,1',
        '1,A,B,L',
        '2,2,L,B',
        '2,2,L,C',
        '2,B,C,2',
        '2,B,C,L',
      ]),
    );
  });

  it('a UDTF over a scalar UDF of a column (multiple evals)', async () => {
    const setup = `CREATE TEMPORARY VIEW MyTable AS SELECT * FROM (VALUES
      (12, TRUE, ROW(1, 2, 3)), (12, TRUE, ROW(1, 2, 3))) AS v(a, b, c);`;
    expect(
      await scenarioRows(
        setup,
        'SELECT rfFunc(a) as d, e FROM MyTable, LATERAL TABLE(tfFunc(rfFunc(a))) as T(e)',
        { tables: functions({ rfFunc: rf, tfFunc: tableFunc7 }) },
      ),
    ).toEqual([]);
  });

  it('projections of the correlate, with empty outputs, comma and LEFT JOIN', async () => {
    const tables = functions();
    const rows = (setup: string, sql: string) => scenarioRows(setup, sql, { tables });
    expect(
      await rows(
        EMPTY,
        "SELECT * FROM T1 left join lateral table(STRING_SPLIT(c, '|')) as T(v) on true",
      ),
    ).toEqual(sorted(['1,2,,null', '1,3,,null']));
    expect(
      await rows(DATES, "SELECT v FROM T1, lateral table(STRING_SPLIT(c, '|')) as T(v)"),
    ).toEqual(sorted(['3018-06-10', '2018-06-03', '2018-06-01', '2018-06-02']));
    expect(
      await rows(DATES, "SELECT a, v FROM T1, lateral table(STRING_SPLIT(c, '|')) as T(v)"),
    ).toEqual(sorted(['1,3018-06-10', '1,2018-06-03', '1,2018-06-01', '1,2018-06-02']));
    expect(
      await rows(HALF_EMPTY, "SELECT v FROM T1, lateral table(STRING_SPLIT(c, '|')) as T(v)"),
    ).toEqual(['a']);
    expect(
      await rows(
        EMPTY,
        "SELECT v FROM T1 left join lateral table(STRING_SPLIT(c, '|')) as T(v) on true",
      ),
    ).toEqual(['null', 'null']);
    expect(
      await rows(HALF_EMPTY, "SELECT a, v FROM T1, lateral table(STRING_SPLIT(c, '|')) as T(v)"),
    ).toEqual(['1,a']);
    expect(
      await rows(
        EMPTY,
        "SELECT b, v FROM T1 left join lateral table(STRING_SPLIT(c, '|')) as T(v) on true",
      ),
    ).toEqual(sorted(['2,null', '3,null']));
  });

  it('testReUsePerRecord: a DATE compared with a formatted STRING, the string read as a date', async () => {
    const setup = `${DATES}
      CREATE TEMPORARY VIEW TMP1 AS SELECT a, v FROM T1, lateral table(STRING_SPLIT(c, '|')) as T(v);`;
    expect(
      await scenarioRows(
        setup,
        `SELECT * FROM TMP1
         where TIMESTAMPADD(day, 3, cast(v as date)) > DATE_FORMAT(CURRENT_TIMESTAMP, 'yyyy-MM-dd')`,
        { tables: functions() },
      ),
    ).toEqual(['1,3018-06-10']);
  });
});
