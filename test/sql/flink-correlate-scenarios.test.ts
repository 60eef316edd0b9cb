/**
 * (Flink's UnnestITCase is ported whole in flink-unnest-scenarios.test.ts.)
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
