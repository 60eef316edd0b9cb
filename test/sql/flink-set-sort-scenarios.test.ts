/**
 * Set operations, VALUES and sorts by time of Flink's streaming SetOperatorsITCase (INTERSECT,
 * EXCEPT, their ALL forms, over UNION ALL), ValuesITCase and TemporalSortITCase (ORDER BY a
 * rowtime, then other columns, and ORDER BY a processing time). Flink's data and expected rows;
 * the sorts are checked in their order.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenario, TUPLE_DATA_3, valuesView } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

const INT_LONG_STRING = [
  ['a', 'INT'],
  ['b', 'BIGINT'],
  ['c', 'STRING'],
] as const;
const named = (prefix: string) =>
  INT_LONG_STRING.map(([, t], i): [string, string] => [`${prefix}${i + 1}`, t]);

async function finalRows(setup: string, sql: string): Promise<string[]> {
  const [result] = await runScenario(setup, [sql], { parallelism: 1 });
  return result?.rows ?? [];
}

describe("Flink's SetOperatorsITCase", () => {
  it('testIntersect', async () => {
    const setup = `${valuesView('A', named('a'), TUPLE_DATA_3.slice(0, 3))}
      ${valuesView('B', named('b'), TUPLE_DATA_3)}`;
    expect(
      await finalRows(setup, 'SELECT a1, a2, a3 FROM A INTERSECT SELECT b1, b2, b3 FROM B'),
    ).toEqual(['1,1,Hi', '2,2,Hello', '3,2,Hello world'].sort());
  });

  it('testExcept', async () => {
    const setup = `${valuesView('T1', named('a'), [
      [1, 1, 'Hi1'],
      [1, 2, 'Hi2'],
      [1, 2, 'Hi2'],
      [1, 5, 'Hi3'],
      [2, 7, 'Hi5'],
      [1, 9, 'Hi6'],
      [1, 8, 'Hi8'],
      [3, 8, 'Hi9'],
    ])}
      ${valuesView('T2', named('b'), [
        [1, 1, 'Hi1'],
        [2, 2, 'Hi2'],
        [3, 2, 'Hi3'],
      ])}`;
    expect(await finalRows(setup, 'SELECT a3 FROM T1 EXCEPT SELECT b3 FROM T2')).toEqual([
      'Hi5',
      'Hi6',
      'Hi8',
      'Hi9',
    ]);
  });

  it('testIntersectAll', async () => {
    const setup = `${valuesView('T1', [['c', 'INT']], [[1], [1], [1], [2], [2]])}
      ${valuesView('T2', [['c', 'INT']], [[1], [2], [2], [2], [3]])}`;
    expect(await finalRows(setup, 'SELECT c FROM T1 INTERSECT ALL SELECT c FROM T2')).toEqual([
      '1',
      '2',
      '2',
    ]);
  });

  it('testMinusAll', async () => {
    const setup = `${valuesView('tableA', INT_LONG_STRING, TUPLE_DATA_3.slice(0, 3))}
      ${valuesView('tableB', INT_LONG_STRING, [
        [1, 1, 'Hi'],
        [1, 1, 'Hi'],
      ])}`;
    const a = 'SELECT * FROM tableA';
    expect(
      await finalRows(
        setup,
        `SELECT c FROM ((${a} UNION ALL ${a} UNION ALL ${a}) EXCEPT ALL SELECT * FROM tableB)`,
      ),
    ).toEqual(
      ['Hi', 'Hello', 'Hello', 'Hello', 'Hello world', 'Hello world', 'Hello world'].sort(),
    );
  });
});

describe("Flink's ValuesITCase", () => {
  it('testValues', async () => {
    const [result] = await runScenario('', [
      "SELECT * FROM (VALUES (1, 'Bob'), (1, 'Alice')) T(a, b)",
    ]);
    expect(result?.rows).toEqual(['1,Alice', '1,Bob']);
    expect(result?.changes.every((c) => c.startsWith('+I'))).toBe(true);
  });
});

/** TemporalSortITCase's rows: (rowtime, key, str, int), out of rowtime order. */
const SORT_DATA: readonly (readonly [number, number, string, number])[] = [
  [3, 2, 'Hello world', 3],
  [2, 2, 'Hello', 2],
  [6, 3, 'Luke Skywalker', 6],
  [5, 3, 'I am fine.', 5],
  [7, 4, 'Comment#1', 7],
  [9, 4, 'Comment#3', 9],
  [10, 4, 'Comment#4', 10],
  [8, 4, 'Comment#2', 8],
  [1, 1, 'Hi', 2],
  [1, 1, 'Hi', 1],
  [4, 3, 'Helloworld, how are you?', 4],
];

/** The rows a sorting query emitted, in their order (all inserts). */
async function emitted(setup: string, sql: string, batchSize = 1): Promise<string[]> {
  const [result] = await runScenario(setup, [sql], { parallelism: 1, batchSize });
  const changes = result?.changes ?? [];
  expect(changes.every((c) => c.startsWith('+I'))).toBe(true);
  return changes.map((c) => c.slice(3, -1));
}

const sortTable = (scale: number, watermark: string) => `CREATE TABLE T (
    rowtime TIMESTAMP(3), key BIGINT, str STRING, \`int\` INT,
    WATERMARK FOR rowtime AS rowtime - INTERVAL ${watermark}
  ) WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(
    SORT_DATA.map(([t, ...rest]) => [t * scale, ...rest]),
  )}');`;

/** The sorted rows after the two at rowtime 1 (`1,Hi,...`), as both rowtime sorts emit them. */
const SORTED_AFTER_HI = [
  '2,Hello,2',
  '2,Hello world,3',
  '3,Helloworld, how are you?,4',
  '3,I am fine.,5',
  '3,Luke Skywalker,6',
  '4,Comment#1,7',
  '4,Comment#2,8',
  '4,Comment#3,9',
  '4,Comment#4,10',
];

describe("Flink's TemporalSortITCase", () => {
  it('testOnlyEventTimeOrderBy (rows of one rowtime in arrival order)', async () => {
    expect(
      await emitted(
        sortTable(1, "'0.01' SECOND"),
        'SELECT key, str, `int` FROM T ORDER BY rowtime',
      ),
    ).toEqual(['1,Hi,2', '1,Hi,1', ...SORTED_AFTER_HI]);
  });

  it('testTimestampEventTimeAndOtherFieldOrderBy', async () => {
    expect(
      await emitted(
        sortTable(1000, "'10' SECOND"),
        'SELECT key, str, `int` FROM T ORDER BY rowtime, `int`',
      ),
    ).toEqual(['1,Hi,1', '1,Hi,2', ...SORTED_AFTER_HI]);
  });

  it('testProcTimeOrderBy (arrival order)', async () => {
    const setup = `CREATE TABLE T (a INT, b BIGINT, c STRING, proctime AS PROCTIME())
      WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(TUPLE_DATA_3)}');`;
    expect(await emitted(setup, 'SELECT a, b, c FROM T ORDER BY proctime', 4)).toEqual(
      TUPLE_DATA_3.map((r) => r.join(',')),
    );
  });
});
