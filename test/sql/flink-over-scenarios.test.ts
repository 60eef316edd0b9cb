/**
 * OVER aggregations of Flink's OverAggregateITCase (streaming): ROWS and RANGE frames, bounded
 * and unbounded, partitioned or not, ordered by a rowtime (rows out of order, explicit
 * watermarks, late rows dropped) or by a processing time (rows in arrival order, one source
 * subtask), with LAG, ROW_NUMBER/RANK/DENSE_RANK, DISTINCT aggregates and user aggregates.
 * Flink's data and expected rows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { defineAggregateFunction, type TableEnvironment } from '../../src/index.js';
import {
  runScenario,
  sorted,
  type Timed,
  TUPLE_DATA_5,
  withWatermarks,
} from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

/** Flink's LargerThanCount: how many values exceed the threshold (retracting, for bounded frames). */
const largerThanCount = defineAggregateFunction<{ n: number }>({
  arguments: ['BIGINT', 'BIGINT'],
  result: 'BIGINT',
  createAccumulator: () => ({ n: 0 }),
  accumulate(acc, v: bigint | number | null, limit: bigint | number | null) {
    if (v !== null && limit !== null && v > limit) acc.n += 1;
    return acc;
  },
  retract(acc, v: bigint | number | null, limit: bigint | number | null) {
    if (v !== null && limit !== null && v > limit) acc.n -= 1;
    return acc;
  },
  getValue: (acc) => acc.n,
});

/** Flink's CountNullNonNull: `<non-NULL count>|<NULL count>`. */
const countNullNonNull = defineAggregateFunction<{ values: number; nulls: number }>({
  arguments: ['STRING'],
  result: 'STRING',
  createAccumulator: () => ({ values: 0, nulls: 0 }),
  accumulate(acc, v: string | null) {
    if (v === null) acc.nulls += 1;
    else acc.values += 1;
    return acc;
  },
  getValue: (acc) => `${acc.values}|${acc.nulls}`,
});

/** Flink's CountPairs: how many rows (argument pairs) it was given. */
const countPairs = defineAggregateFunction<{ n: number }>({
  arguments: ['STRING', 'STRING'],
  result: 'BIGINT',
  createAccumulator: () => ({ n: 0 }),
  accumulate(acc) {
    acc.n += 1;
    return acc;
  },
  getValue: (acc) => acc.n,
});

/** `T1 (a, b, c, rowtime)` of the timed rows, for the event-time cases. */
function eventTable(types: readonly [string, string, string], items: readonly Timed[]) {
  return (tEnv: TableEnvironment) => {
    tEnv.executeSql(`CREATE TABLE T1 (
      a ${types[0]}, b ${types[1]}, c ${types[2]}, rowtime TIMESTAMP(3), wm TIMESTAMP(3),
      WATERMARK FOR rowtime AS wm
    ) WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(withWatermarks(items))}');`);
  };
}

async function rowsOf(
  sql: string,
  register: (tEnv: TableEnvironment) => void,
): Promise<{ rows: string[]; changes: string[] }> {
  const [result] = await runScenario('', [sql], {
    parallelism: 1,
    batchSize: 1,
    tables: (_env, tEnv) => {
      tEnv.createTemporarySystemFunction('LTCNT', largerThanCount);
      tEnv.createTemporarySystemFunction('CntNullNonNull', countNullNonNull);
      tEnv.createTemporarySystemFunction('PairCount', countPairs);
      register(tEnv);
    },
  });
  return { rows: result?.rows ?? [], changes: result?.changes ?? [] };
}

async function expectAppend(
  sql: string,
  register: (tEnv: TableEnvironment) => void,
  expected: readonly string[],
) {
  const { rows, changes } = await rowsOf(sql, register);
  expect(rows).toEqual(sorted(expected));
  expect(changes.every((c) => c.startsWith('+I'))).toBe(true);
}

/** Flink's `data` of the ITCase: (a BIGINT, b INT, c STRING). */
const DATA: readonly (readonly unknown[])[] = [
  [1, 1, 'Hello'],
  [2, 2, 'Hello'],
  [3, 3, 'Hello'],
  [4, 4, 'Hello'],
  [5, 5, 'Hello'],
  [6, 6, 'Hello'],
  [7, 7, 'Hello World'],
  [8, 8, 'Hello World'],
  [20, 20, 'Hello World'],
];

/** A processing-time table over `rows` (with a `proctime` column unless `withProctime` is false). */
function procTable(
  name: string,
  columns: string,
  rows: readonly (readonly unknown[])[],
  withProctime = true,
) {
  return (tEnv: TableEnvironment) => {
    const proctime = withProctime ? ', proctime AS PROCTIME()' : '';
    tEnv.executeSql(`CREATE TABLE ${name} (${columns}${proctime})
      WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(rows)}');`);
  };
}

const MY_TABLE_5 = procTable('MyTable', 'a INT, b BIGINT, c INT, d STRING, e BIGINT', TUPLE_DATA_5);
const T1_DATA = procTable('T1', 'a BIGINT, b INT, c STRING', DATA);

/** 1 row of a = 1, 2 of a = 2, ... 5 of a = 5, numbered within a: Flink's rows of the ranking cases. */
const RANKED = [1, 2, 3, 4, 5].flatMap((a) => Array.from({ length: a }, (_, i) => `${a},${i + 1}`));

/** Flink's rows of the bounded partitioned ROWS case over tupleData5. */
const BOUNDED_5 = [
  '1,0,0',
  '2,1,1',
  '2,3,1',
  '3,3,3',
  '3,7,3',
  '3,12,3',
  '4,6,6',
  '4,13,6',
  '4,21,6',
  '4,30,6',
  '5,10,10',
  '5,21,10',
  '5,33,10',
  '5,46,10',
  '5,60,10',
];

describe("Flink's OverAggregateITCase in processing time", () => {
  // Each row arrives at its own processing time: Flink numbers each partition's rows 1, 2, ...
  it.each([
    ['testRowNumberOnOver', 'ROW_NUMBER() OVER (PARTITION BY a ORDER BY proctime())'],
    ['testDenseRankOnOver', 'DENSE_RANK() OVER (PARTITION BY a ORDER BY proctime)'],
    ['testRankOnOver', 'RANK() OVER (PARTITION BY a ORDER BY proctime)'],
  ])('%s', async (_, over) => {
    await expectAppend(`SELECT a, ${over} FROM MyTable`, MY_TABLE_5, RANKED);
  });

  it('testProcTimeBoundedPartitionedRowsOver', async () => {
    const frame = 'PARTITION BY a ORDER BY proctime ROWS BETWEEN 4 PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT a, SUM(c) OVER (${frame}), MIN(c) OVER (${frame}) FROM MyTable`,
      MY_TABLE_5,
      BOUNDED_5,
    );
  });

  it('testProcTimeBoundedPartitionedRowsOverWithBuiltinProctime', async () => {
    const frame = 'PARTITION BY a ORDER BY proctime() ROWS BETWEEN 4 PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT a, SUM(c) OVER (${frame}), MIN(c) OVER (${frame}) FROM MyTable`,
      procTable('MyTable', 'a INT, b BIGINT, c INT, d STRING, e BIGINT', TUPLE_DATA_5, false),
      BOUNDED_5,
    );
  });

  it('testProcTimeBoundedNonPartitionedRowsOver', async () => {
    const frame = 'ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT a, first_value(d) OVER (${frame}), last_value(d) OVER (${frame}),
        SUM(c) OVER (${frame}), MIN(c) OVER (${frame}) FROM MyTable`,
      MY_TABLE_5,
      [
        '1,Hallo,Hallo,0,0',
        '2,Hallo,Hallo Welt,1,0',
        '2,Hallo,Hallo Welt wie,3,0',
        '3,Hallo,Hallo Welt wie gehts?,6,0',
        '3,Hallo,ABC,10,0',
        '3,Hallo,BCD,15,0',
        '4,Hallo,CDE,21,0',
        '4,Hallo,DEF,28,0',
        '4,Hallo,EFG,36,0',
        '4,Hallo,FGH,45,0',
        '5,Hallo,GHI,55,0',
        '5,Hallo Welt,HIJ,66,1',
        '5,Hallo Welt wie,IJK,77,2',
        '5,Hallo Welt wie gehts?,JKL,88,3',
        '5,ABC,KLM,99,4',
      ],
    );
  });

  it('testProcTimeUnboundedPartitionedRangeOver', async () => {
    const frame = 'PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING';
    await expectAppend(
      `SELECT c, first_value(b) OVER (${frame}), last_value(b) OVER (${frame}),
        count(a) OVER (${frame}), sum(a) OVER (${frame}) FROM T1`,
      T1_DATA,
      [
        'Hello World,7,7,1,7',
        'Hello World,7,8,2,15',
        'Hello World,7,20,3,35',
        'Hello,1,1,1,1',
        'Hello,1,2,2,3',
        'Hello,1,3,3,6',
        'Hello,1,4,4,10',
        'Hello,1,5,5,15',
        'Hello,1,6,6,21',
      ],
    );
  });

  it('testProcTimeUnboundedPartitionedRowsOver', async () => {
    const frame =
      'PARTITION BY c ORDER BY proctime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT c, sum1, maxnull FROM (
        SELECT c, max(CAST(NULL AS VARCHAR)) OVER (${frame}) AS maxnull,
          sum(1) OVER (${frame}) AS sum1
        FROM T1)`,
      T1_DATA,
      [
        'Hello World,1,null',
        'Hello World,2,null',
        'Hello World,3,null',
        'Hello,1,null',
        'Hello,2,null',
        'Hello,3,null',
        'Hello,4,null',
        'Hello,5,null',
        'Hello,6,null',
      ],
    );
  });

  it('testProcTimeUnboundedNonPartitionedRangeOver', async () => {
    const frame = 'ORDER BY proctime RANGE UNBOUNDED PRECEDING';
    await expectAppend(
      `SELECT c, count(a) OVER (${frame}), sum(a) OVER (${frame}) FROM T1`,
      T1_DATA,
      [
        'Hello World,7,28',
        'Hello World,8,36',
        'Hello World,9,56',
        'Hello,1,1',
        'Hello,2,3',
        'Hello,3,6',
        'Hello,4,10',
        'Hello,5,15',
        'Hello,6,21',
      ],
    );
  });

  it('testProcTimeUnboundedNonPartitionedRowsOver', async () => {
    const frame = 'ORDER BY proctime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT listagg(DISTINCT c, '|') OVER (${frame}), count(a) OVER (${frame}) FROM T1`,
      T1_DATA,
      [
        'Hello,1',
        'Hello,2',
        'Hello,3',
        'Hello,4',
        'Hello,5',
        'Hello,6',
        'Hello|Hello World,7',
        'Hello|Hello World,8',
        'Hello|Hello World,9',
      ],
    );
  });

  it('testProcTimeDistinctUnboundedPartitionedRowsOver', async () => {
    const frame = 'PARTITION BY a ORDER BY proctime RANGE UNBOUNDED PRECEDING';
    await expectAppend(
      `SELECT a, COUNT(e) OVER (${frame}), SUM(DISTINCT e) OVER (${frame}),
        MIN(DISTINCT e) OVER (${frame}) FROM MyTable`,
      MY_TABLE_5,
      [
        '1,1,1,1',
        '2,1,2,2',
        '2,2,3,1',
        '3,1,2,2',
        '3,2,2,2',
        '3,3,5,2',
        '4,1,2,2',
        '4,2,3,1',
        '4,3,3,1',
        '4,4,3,1',
        '5,1,1,1',
        '5,2,4,1',
        '5,3,4,1',
        '5,4,6,1',
        '5,5,6,1',
      ],
    );
  });

  it('testProcTimeDistinctBoundedPartitionedRowsOver (without COLLECT)', async () => {
    const frame = 'PARTITION BY a ORDER BY proctime ROWS BETWEEN 3 PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT a, SUM(DISTINCT e) OVER (${frame}), MIN(DISTINCT e) OVER (${frame}) FROM MyTable`,
      MY_TABLE_5,
      [
        '1,1,1',
        '2,2,2',
        '2,3,1',
        '3,2,2',
        '3,2,2',
        '3,5,2',
        '4,2,2',
        '4,3,1',
        '4,3,1',
        '4,3,1',
        '5,1,1',
        '5,4,1',
        '5,4,1',
        '5,6,1',
        '5,5,2',
      ],
    );
  });

  it('testProcTimeDistinctPairWithNulls', async () => {
    const frame = 'ORDER BY proctime RANGE UNBOUNDED PRECEDING';
    const { changes } = await rowsOf(
      `SELECT a, b, PairCount(a, b) OVER (${frame}), PairCount(DISTINCT a, b) OVER (${frame})
      FROM MyTable`,
      procTable('MyTable', 'a STRING, b STRING', [
        ['A', null],
        ['A', null],
        ['B', null],
        [null, 'Hello'],
        ['A', 'Hello'],
        ['A', 'Hello'],
        [null, 'Hello World'],
        [null, 'Hello World'],
        ['A', 'Hello World'],
        ['B', 'Hello World'],
      ]),
    );
    expect(changes).toEqual(
      [
        'A,null,1,1',
        'A,null,2,1',
        'B,null,3,2',
        'null,Hello,4,3',
        'A,Hello,5,4',
        'A,Hello,6,4',
        'null,Hello World,7,5',
        'null,Hello World,8,5',
        'A,Hello World,9,6',
        'B,Hello World,10,7',
      ].map((r) => `+I(${r})`),
    );
  });

  it('testDecimalSum0', async () => {
    const { changes } = await rowsOf(
      `SELECT sum(d) OVER (ORDER BY proctime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
      FROM T`,
      procTable(
        'T',
        'd DECIMAL(38, 18)',
        ['1.11', '2.22', '3.33', '4.44'].map((v) => [BigInt(v.replace('.', '')) * 10n ** 16n]),
      ),
    );
    expect(changes).toEqual(
      [
        '1.110000000000000000',
        '3.330000000000000000',
        '6.660000000000000000',
        '11.100000000000000000',
      ].map((v) => `+I(${v})`),
    );
  });
});

/** The rows of the RANGE INTERVAL '1' SECOND cases, (ts, (a, b, c)) and watermarks. */
const RANGE_DATA: readonly Timed[] = [
  [1500, [1, 15, 'Hello']],
  [1600, [1, 16, 'Hello']],
  [1000, [1, 1, 'Hello']],
  [2000, [2, 2, 'Hello']],
  1000,
  [2000, [2, 2, 'Hello']],
  [2000, [2, 3, 'Hello']],
  [3000, [3, 3, 'Hello']],
  2000,
  [4000, [4, 4, 'Hello']],
  3000,
  [5000, [5, 5, 'Hello']],
  5000,
  [6000, [6, 6, 'Hello']],
  [6500, [6, 65, 'Hello']],
  7000,
  [9000, [6, 9, 'Hello']],
  [9500, [6, 18, 'Hello']],
  [9000, [6, 9, 'Hello']],
  10000,
  [10000, [7, 7, 'Hello World']],
  [11000, [7, 17, 'Hello World']],
  [11000, [7, 77, 'Hello World']],
  12000,
  [14000, [7, 18, 'Hello World']],
  14000,
  [15000, [8, 8, 'Hello World']],
  17000,
  [20000, [20, 20, 'Hello World']],
  19000,
];

/** The rows of the unbounded RANGE cases: (ts, (a, b, c)). */
const UNBOUNDED_RANGE_DATA: readonly Timed[] = [
  [14000005, [1, 1, 'Hi']],
  [14000000, [2, 1, 'Hello']],
  [14000002, [1, 1, 'Hello']],
  [14000002, [1, 2, 'Hello']],
  [14000002, [1, 3, 'Hello world']],
  [14000003, [2, 2, 'Hello world']],
  [14000003, [2, 3, 'Hello world']],
  14000020,
  [14000021, [1, 4, 'Hello world']],
  [14000022, [1, 5, 'Hello world']],
  [14000022, [1, 6, 'Hello world']],
  [14000022, [1, 7, 'Hello world']],
  [14000023, [2, 4, 'Hello world']],
  [14000023, [2, 5, 'Hello world']],
  14000030,
];

const LONG_INT_STRING = ['BIGINT', 'INT', 'STRING'] as const;
const INT_LONG_STRING = ['INT', 'BIGINT', 'STRING'] as const;
const aggs = (column: string, frame: string) =>
  ['SUM', 'COUNT', 'AVG', 'MAX', 'MIN'].map((f) => `${f}(${column}) OVER (${frame})`).join(', ');

describe("Flink's OverAggregateITCase in event time", () => {
  it('testLagFunction', async () => {
    const w = 'PARTITION BY a ORDER BY rowtime';
    await expectAppend(
      `SELECT a, b, c, LAG(b) OVER (${w}), LAG(b, 2) OVER (${w}),
        LAG(b, 2, CAST(10086 AS BIGINT)) OVER (${w}) FROM T1`,
      eventTable(INT_LONG_STRING, [
        [14000001, [1, 1, 'Hi']],
        [14000005, [1, 2, 'Hi']],
        [14000002, [1, 3, 'Hello']],
        [14000003, [1, 4, 'Hello']],
        [14000003, [1, 5, 'Hello']],
        14000020,
        [14000021, [1, 6, 'Hello world']],
        [14000022, [1, 7, 'Hello world']],
        14000030,
      ]),
      // Rows of one rowtime (4 and 5) share their LAG: the one before the last of them.
      [
        '1,1,Hi,null,null,10086',
        '1,3,Hello,1,null,10086',
        '1,4,Hello,4,3,3',
        '1,5,Hello,4,3,3',
        '1,2,Hi,5,4,4',
        '1,6,Hello world,2,5,5',
        '1,7,Hello world,6,2,2',
      ],
    );
  });

  it('testLeadFunction: refused in streaming, as Flink', async () => {
    await expect(
      rowsOf(
        'SELECT a, b, c, LEAD(b) OVER (PARTITION BY a ORDER BY rowtime) FROM T1',
        eventTable(INT_LONG_STRING, [[14000001, [1, 1, 'Hi']], 14000030]),
      ),
    ).rejects.toThrow(/LEAD Function is not supported in stream mode/);
  });

  it('testRowTimeBoundedPartitionedRangeOver', async () => {
    const frame =
      "PARTITION BY c ORDER BY rowtime RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW";
    await expectAppend(
      `SELECT c, b, LTCNT(a, CAST('4' AS BIGINT)) OVER (${frame}), COUNT(a) OVER (${frame}),
        SUM(a) OVER (${frame}) FROM T1`,
      eventTable(LONG_INT_STRING, RANGE_DATA),
      [
        'Hello,1,0,1,1',
        'Hello,15,0,2,2',
        'Hello,16,0,3,3',
        'Hello,2,0,6,9',
        'Hello,3,0,6,9',
        'Hello,2,0,6,9',
        'Hello,3,0,4,9',
        'Hello,4,0,2,7',
        'Hello,5,1,2,9',
        'Hello,6,2,2,11',
        'Hello,65,2,2,12',
        'Hello,9,2,2,12',
        'Hello,9,2,2,12',
        'Hello,18,3,3,18',
        'Hello World,17,3,3,21',
        'Hello World,7,1,1,7',
        'Hello World,77,3,3,21',
        'Hello World,18,1,1,7',
        'Hello World,8,2,2,15',
        'Hello World,20,1,1,20',
      ],
    );
  });

  it('testRowTimeBoundedPartitionedRowsOver', async () => {
    const frame = 'PARTITION BY c ORDER BY rowtime ROWS BETWEEN 2 PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT c, a, LTCNT(a, CAST('4' AS BIGINT)) OVER (${frame}), COUNT(1) OVER (${frame}),
        SUM(a) OVER (${frame}) FROM T1`,
      eventTable(LONG_INT_STRING, [
        [1, [1, 1, 'Hello']],
        [2, [2, 2, 'Hello']],
        [1, [1, 1, 'Hello']],
        [2, [2, 2, 'Hello']],
        [2, [2, 2, 'Hello']],
        [1, [1, 1, 'Hello']],
        [3, [7, 7, 'Hello World']],
        [1, [7, 7, 'Hello World']],
        [1, [7, 7, 'Hello World']],
        2,
        [3, [3, 3, 'Hello']],
        [4, [4, 4, 'Hello']],
        [5, [5, 5, 'Hello']],
        [6, [6, 6, 'Hello']],
        [20, [20, 20, 'Hello World']],
        6,
        [8, [8, 8, 'Hello World']],
        [7, [7, 7, 'Hello World']],
        20,
      ]),
      [
        'Hello,1,0,1,1',
        'Hello,1,0,2,2',
        'Hello,1,0,3,3',
        'Hello,2,0,3,4',
        'Hello,2,0,3,5',
        'Hello,2,0,3,6',
        'Hello,3,0,3,7',
        'Hello,4,0,3,9',
        'Hello,5,1,3,12',
        'Hello,6,2,3,15',
        'Hello World,7,1,1,7',
        'Hello World,7,2,2,14',
        'Hello World,7,3,3,21',
        'Hello World,7,3,3,21',
        'Hello World,8,3,3,22',
        'Hello World,20,3,3,35',
      ],
    );
  });

  it('testRowTimeBoundedNonPartitionedRangeOver', async () => {
    const frame = "ORDER BY rowtime RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW";
    await expectAppend(
      `SELECT c, b, COUNT(a) OVER (${frame}), SUM(a) OVER (${frame}) FROM T1`,
      eventTable(LONG_INT_STRING, RANGE_DATA),
      [
        'Hello,1,1,1',
        'Hello,15,2,2',
        'Hello,16,3,3',
        'Hello,2,6,9',
        'Hello,3,6,9',
        'Hello,2,6,9',
        'Hello,3,4,9',
        'Hello,4,2,7',
        'Hello,5,2,9',
        'Hello,6,2,11',
        'Hello,65,2,12',
        'Hello,9,2,12',
        'Hello,9,2,12',
        'Hello,18,3,18',
        'Hello World,7,4,25',
        'Hello World,17,3,21',
        'Hello World,77,3,21',
        'Hello World,18,1,7',
        'Hello World,8,2,15',
        'Hello World,20,1,20',
      ],
    );
  });

  it('testRowTimeBoundedNonPartitionedRowsOver', async () => {
    const frame = 'ORDER BY rowtime ROWS BETWEEN 2 PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT c, a, COUNT(a) OVER (${frame}), SUM(a) OVER (${frame}) FROM T1`,
      eventTable(LONG_INT_STRING, [
        [2, [2, 2, 'Hello']],
        [2, [2, 2, 'Hello']],
        [1, [1, 1, 'Hello']],
        [1, [1, 1, 'Hello']],
        [2, [2, 2, 'Hello']],
        [1, [1, 1, 'Hello']],
        [20, [20, 20, 'Hello World']],
        3,
        [2, [2, 2, 'Hello']],
        [3, [3, 3, 'Hello']],
        [4, [4, 4, 'Hello']],
        [5, [5, 5, 'Hello']],
        [6, [6, 6, 'Hello']],
        [7, [7, 7, 'Hello World']],
        7,
        [9, [9, 9, 'Hello World']],
        [8, [8, 8, 'Hello World']],
        [8, [8, 8, 'Hello World']],
        20,
      ]),
      [
        'Hello,1,1,1',
        'Hello,1,2,2',
        'Hello,1,3,3',
        'Hello,2,3,4',
        'Hello,2,3,5',
        'Hello,2,3,6',
        'Hello,3,3,7',
        'Hello,4,3,9',
        'Hello,5,3,12',
        'Hello,6,3,15',
        'Hello World,7,3,18',
        'Hello World,8,3,21',
        'Hello World,8,3,23',
        'Hello World,9,3,25',
        'Hello World,20,3,37',
      ],
    );
  });

  it('testRowTimeUnBoundedPartitionedRangeOver', async () => {
    const frame =
      'PARTITION BY a ORDER BY rowtime RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT a, b, c, LTCNT(b, CAST('4' AS BIGINT)) OVER (${frame}), ${aggs('b', frame)} FROM T1`,
      eventTable(INT_LONG_STRING, UNBOUNDED_RANGE_DATA),
      [
        '1,1,Hello,0,6,3,2,3,1',
        '1,2,Hello,0,6,3,2,3,1',
        '1,3,Hello world,0,6,3,2,3,1',
        '1,1,Hi,0,7,4,1,3,1',
        '2,1,Hello,0,1,1,1,1,1',
        '2,2,Hello world,0,6,3,2,3,1',
        '2,3,Hello world,0,6,3,2,3,1',
        '1,4,Hello world,0,11,5,2,4,1',
        '1,5,Hello world,3,29,8,3,7,1',
        '1,6,Hello world,3,29,8,3,7,1',
        '1,7,Hello world,3,29,8,3,7,1',
        '2,4,Hello world,1,15,5,3,5,1',
        '2,5,Hello world,1,15,5,3,5,1',
      ],
    );
  });

  const UNBOUNDED_ROWS_EXPECTED = [
    '1,2,Hello,2,1,2,2,2',
    '1,3,Hello world,5,2,2,3,2',
    '1,1,Hi,6,3,2,3,1',
    '2,1,Hello,1,1,1,1,1',
    '2,2,Hello world,3,2,1,2,1',
    '3,1,Hello,1,1,1,1,1',
    '3,2,Hello world,3,2,1,2,1',
    '1,5,Hello world,11,4,2,5,1',
    '1,6,Hello world,17,5,3,6,1',
    '1,9,Hello world,26,6,4,9,1',
    '1,8,Hello world,34,7,4,9,1',
    '1,7,Hello world,41,8,5,9,1',
    '2,5,Hello world,8,3,2,5,1',
    '3,5,Hello world,8,3,2,5,1',
  ];
  /** The first rows (and watermark) of both unbounded partitioned ROWS cases. */
  const UNBOUNDED_ROWS_START: readonly Timed[] = [
    [14000005, [1, 1, 'Hi']],
    [14000000, [2, 1, 'Hello']],
    [14000002, [3, 1, 'Hello']],
    [14000003, [1, 2, 'Hello']],
    [14000004, [1, 3, 'Hello world']],
    [14000007, [3, 2, 'Hello world']],
    [14000008, [2, 2, 'Hello world']],
    14000010,
  ];
  const ROWS_FRAME =
    'PARTITION BY a ORDER BY rowtime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW';

  it('testRowTimeUnBoundedPartitionedRowsOver', async () => {
    const ltcnt = ['0', '0', '0', '0', '0', '0', '0', '1', '2', '3', '4', '5', '1', '1'];
    await expectAppend(
      `SELECT a, b, c, LTCNT(b, CAST('4' AS BIGINT)) OVER (${ROWS_FRAME}),
        ${aggs('b', ROWS_FRAME)} FROM T1`,
      eventTable(INT_LONG_STRING, [
        ...UNBOUNDED_ROWS_START,
        [14000012, [1, 5, 'Hello world']],
        [14000021, [1, 6, 'Hello world']],
        [14000023, [2, 5, 'Hello world']],
        14000020,
        [14000024, [3, 5, 'Hello world']],
        [14000026, [1, 7, 'Hello world']],
        [14000025, [1, 8, 'Hello world']],
        [14000022, [1, 9, 'Hello world']],
        14000030,
      ]),
      UNBOUNDED_ROWS_EXPECTED.map((r, i) => {
        const [a, b, c, ...rest] = r.split(',');
        return [a, b, c, ltcnt[i], ...rest].join(',');
      }),
    );
  });

  it('testRowTimeUnBoundedPartitionedRowsOver2 (late rows dropped)', async () => {
    await expectAppend(
      `SELECT a, b, c, ${aggs('b', ROWS_FRAME)} FROM T1`,
      eventTable(INT_LONG_STRING, [
        ...UNBOUNDED_ROWS_START,
        [14000008, [1, 4, 'Hello world']],
        [14000008, [2, 3, 'Hello world']],
        [14000008, [3, 3, 'Hello world']],
        [14000012, [1, 5, 'Hello world']],
        14000020,
        [14000021, [1, 6, 'Hello world']],
        [14000019, [1, 6, 'Hello world']],
        [14000018, [2, 4, 'Hello world']],
        [14000018, [3, 4, 'Hello world']],
        [14000022, [2, 5, 'Hello world']],
        [14000022, [3, 5, 'Hello world']],
        [14000024, [1, 7, 'Hello world']],
        [14000023, [1, 8, 'Hello world']],
        [14000021, [1, 9, 'Hello world']],
        14000030,
      ]),
      UNBOUNDED_ROWS_EXPECTED,
    );
  });

  it('testRowTimeUnBoundedNonPartitionedRangeOver', async () => {
    const frame = 'ORDER BY rowtime RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT a, b, c, ${aggs('b', frame)} FROM T1`,
      eventTable(INT_LONG_STRING, UNBOUNDED_RANGE_DATA),
      [
        '2,1,Hello,1,1,1,1,1',
        '1,1,Hello,7,4,1,3,1',
        '1,2,Hello,7,4,1,3,1',
        '1,3,Hello world,7,4,1,3,1',
        '2,2,Hello world,12,6,2,3,1',
        '2,3,Hello world,12,6,2,3,1',
        '1,1,Hi,13,7,1,3,1',
        '1,4,Hello world,17,8,2,4,1',
        '1,5,Hello world,35,11,3,7,1',
        '1,6,Hello world,35,11,3,7,1',
        '1,7,Hello world,35,11,3,7,1',
        '2,4,Hello world,44,13,3,7,1',
        '2,5,Hello world,44,13,3,7,1',
      ],
    );
  });

  it('testRowTimeUnBoundedNonPartitionedRowsOver (a late row dropped)', async () => {
    const frame = 'ORDER BY rowtime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW';
    await expectAppend(
      `SELECT a, b, c, ${aggs('b', frame)} FROM T1`,
      eventTable(INT_LONG_STRING, [
        [14000005, [1, 1, 'Hi']],
        [14000000, [2, 2, 'Hello']],
        [14000002, [3, 5, 'Hello']],
        [14000003, [1, 3, 'Hello']],
        [14000004, [3, 7, 'Hello world']],
        [14000007, [4, 9, 'Hello world']],
        [14000008, [5, 8, 'Hello world']],
        14000010,
        [14000008, [6, 8, 'Hello world']],
        14000020,
        [14000021, [6, 8, 'Hello world']],
        14000030,
      ]),
      [
        '2,2,Hello,2,1,2,2,2',
        '3,5,Hello,7,2,3,5,2',
        '1,3,Hello,10,3,3,5,2',
        '3,7,Hello world,17,4,4,7,2',
        '1,1,Hi,18,5,3,7,1',
        '4,9,Hello world,27,6,4,9,1',
        '5,8,Hello world,35,7,5,9,1',
        '6,8,Hello world,43,8,5,9,1',
      ],
    );
  });

  it('testTimestampRowTimeDistinctUnboundedPartitionedRangeOverWithNullValues', async () => {
    const rows = [
      [1, 1, null],
      [2, 1, null],
      [3, 2, null],
      [4, 1, 'Hello'],
      [5, 1, 'Hello'],
      [6, 2, 'Hello'],
      [7, 1, 'Hello World'],
      [8, 2, 'Hello World'],
      [9, 2, 'Hello World'],
      [10, 1, null],
    ].map(([s, b, c]) => [(s as number) * 1000, b, c]);
    const frame = 'PARTITION BY b ORDER BY rowtime RANGE UNBOUNDED PRECEDING';
    await expectAppend(
      `SELECT c, b, COUNT(DISTINCT c) OVER (${frame}), CntNullNonNull(DISTINCT c) OVER (${frame})
      FROM MyTable`,
      (tEnv) =>
        tEnv.executeSql(`CREATE TABLE MyTable (
          rowtime TIMESTAMP(3), b INT, c STRING, WATERMARK FOR rowtime AS rowtime
        ) WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(rows)}');`),
      [
        'null,1,0,0|1',
        'null,1,0,0|1',
        'null,2,0,0|1',
        'null,1,2,2|1',
        'Hello,1,1,1|1',
        'Hello,1,1,1|1',
        'Hello,2,1,1|1',
        'Hello World,1,2,2|1',
        'Hello World,2,2,2|1',
        'Hello World,2,2,2|1',
      ],
    );
  });
});
