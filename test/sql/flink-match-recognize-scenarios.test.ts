/**
 * MATCH_RECOGNIZE of Flink's MatchRecognizeITCase (streaming): patterns over rows in arrival
 * order (a processing-time ORDER BY, one source subtask) and in event time (rows out of order,
 * explicit watermarks, secondary ORDER BY keys), logical offsets, aggregates in DEFINE and
 * MEASURES, user functions, and windows before and after the match. Flink's data and expected
 * rows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  defineAggregateFunction,
  defineScalarFunction,
  type Row,
  StreamEnvironment,
  type Table,
  TableEnvironment,
} from '../../src/index.js';
import { sorted, type Timed, withWatermarks } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';
import { weightedAvg } from './flink-window-data.js';

beforeAll(registerValuesConnector);

type Register = (tEnv: TableEnvironment) => void;

/** A table over `rows` (with a `proctime AS PROCTIME()` column unless `extra` says otherwise). */
function table(
  name: string,
  columns: string,
  rows: readonly (readonly unknown[])[],
  extra = 'proctime AS PROCTIME()',
): Register {
  return (tEnv) => {
    tEnv.executeSql(`CREATE TABLE ${name} (${columns}, ${extra})
      WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(rows)}');`);
  };
}

/** Flink's job parameters of testUserDefinedFunctions, which its functions read in open(). */
const PREFIX = 'PREF';
const START_FROM = 4;

/** Flink's PrefixingScalarFunc: the value behind the job's prefix. */
const prefix = defineScalarFunction({
  arguments: ['STRING'],
  result: 'STRING',
  eval: (value: string | null) => `${PREFIX}:${value}`,
});

/** Flink's RichAggFunc: a sum that starts from the job's `start` parameter. */
const countFrom = defineAggregateFunction<{ count: number }>({
  arguments: ['BIGINT'],
  result: 'BIGINT',
  createAccumulator: () => ({ count: START_FROM }),
  accumulate(acc, value: number | null) {
    acc.count += value ?? 0;
    return acc;
  },
  getValue: (acc) => acc.count,
});

/**
 * A cell as Flink's Row prints it: a TIMESTAMP_LTZ is a java.time.Instant there (UTC, a `Z`,
 * no fraction when it is whole), where Weir shows the session zone's wall clock.
 */
function cellText(table: Table, row: Row, i: number, shown: string): string {
  const type = table.columns[i]?.type ?? '';
  const value = row[i];
  if (shown === '<NULL>') return 'null';
  if (type.startsWith('TIMESTAMP_LTZ') && typeof value === 'number')
    return new Date(value).toISOString().replace('.000Z', 'Z');
  return type.startsWith('BOOLEAN') ? shown.toLowerCase() : shown;
}

/** Flink's TestingAppendSink: the rows as text, and whether every change was an insert. */
async function rowsOf(
  sql: string,
  register: Register,
  options: { setup?: string; parallelism?: number } = {},
): Promise<{ rows: string[]; insertOnly: boolean }> {
  const env = new StreamEnvironment({ parallelism: options.parallelism ?? 1, batchSize: 1 });
  const tEnv = TableEnvironment.create(env);
  tEnv.createTemporarySystemFunction('weightedAvg', weightedAvg);
  tEnv.createTemporarySystemFunction('prefix', prefix);
  tEnv.createTemporarySystemFunction('countFrom', countFrom);
  if (options.setup !== undefined) tEnv.executeSql(options.setup);
  register(tEnv);
  const table = tEnv.sqlQuery(sql);
  const sink = new CollectSink<Change<Row>>();
  table.toChangelogStream().sinkTo(sink);
  await env.execute('flink match_recognize scenario');
  const text = (row: Row) =>
    table
      .display(row)
      .map((shown, i) => cellText(table, row, i, shown))
      .join(',');
  return {
    rows: sink.values.map((c) => text(c.value)),
    insertOnly: sink.values.every((c) => c.kind === '+I'),
  };
}

async function expectAppend(
  sql: string,
  register: Register,
  expected: readonly string[],
  options: { setup?: string; parallelism?: number } = {},
): Promise<void> {
  const { rows, insertOnly } = await rowsOf(sql, register, options);
  expect(sorted(rows)).toEqual(sorted(expected));
  expect(insertOnly).toBe(true);
}

/** A ticker by rowtime whose watermark trails the largest rowtime by 1 ms (Flink's ascending timestamps). */
const ascendingTicker = (rows: readonly (readonly unknown[])[]): Register =>
  table(
    'Ticker',
    'symbol STRING, rowtime TIMESTAMP(3), price INT, tax INT',
    rows,
    "WATERMARK FOR rowtime AS rowtime - INTERVAL '0.001' SECOND",
  );

const SECOND = 1000;

describe("Flink's MatchRecognizeITCase (streaming)", () => {
  it('testSimplePattern', async () => {
    // Flink's query writes the second variable as the Unicode escape \u006C: the variable `l`.
    await expectAppend(
      `SELECT T.aid, T.bid, T.cid
      FROM MyTable
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          \`A"\`.id AS aid,
          l.id AS bid,
          C.id AS cid
        PATTERN (\`A"\` l C)
        DEFINE
          \`A"\` AS name = 'a',
          l AS name = 'b',
          C AS name = 'c'
      ) AS T`,
      table('MyTable', 'id INT, name STRING', [
        [1, 'a'],
        [2, 'z'],
        [3, 'b'],
        [4, 'c'],
        [5, 'd'],
        [6, 'a'],
        [7, 'b'],
        [8, 'c'],
        [9, 'h'],
      ]),
      ['6,7,8'],
    );
  });

  it('testSimplePatternWithNulls', async () => {
    await expectAppend(
      `SELECT T.aid, T.bNull, T.cid, T.aNull
      FROM MyTable
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          A.id AS aid,
          A.nullField AS aNull,
          LAST(B.nullField) AS bNull,
          C.id AS cid
        PATTERN (A B C)
        DEFINE
          A AS name = 'a' AND nullField IS NULL,
          B AS name = 'b' AND LAST(A.nullField) IS NULL,
          C AS name = 'c'
      ) AS T`,
      table('MyTable', 'id INT, name STRING, nullField STRING', [
        [1, 'a', null],
        [2, 'b', null],
        [3, 'c', null],
        [4, 'd', null],
        [5, null, null],
        [6, 'a', null],
        [7, 'b', null],
        [8, 'c', null],
        [9, null, null],
      ]),
      ['1,null,3,null', '6,null,8,null'],
    );
  });

  it('testCodeSplitsAreProperlyGenerated', async () => {
    await expectAppend(
      `SELECT *
      FROM MyTable
      MATCH_RECOGNIZE (
        PARTITION BY key1, key2
        ORDER BY proctime
        MEASURES
          A.id AS aid,
          A.key1 AS akey1,
          LAST(B.id) AS bid,
          C.id AS cid,
          C.key2 AS ckey2
        PATTERN (A B C)
        DEFINE
          A AS name = 'a' AND key1 LIKE '%key%' AND id > 0,
          B AS name = 'b' AND LAST(A.name, 2) IS NULL,
          C AS name = 'c' AND LAST(A.name) = 'a'
      ) AS T`,
      table('MyTable', 'id INT, name STRING, key1 STRING, key2 STRING', [
        [1, 'a', 'key1', 'second_key3'],
        [2, 'b', 'key1', 'second_key3'],
        [3, 'c', 'key1', 'second_key3'],
        [4, 'd', 'key', 'second_key'],
        [5, 'e', 'key', 'second_key'],
        [6, 'a', 'key2', 'second_key4'],
        [7, 'b', 'key2', 'second_key4'],
        [8, 'c', 'key2', 'second_key4'],
        [9, 'f', 'key', 'second_key'],
      ]),
      ['key1,second_key3,1,key1,2,3,second_key3', 'key2,second_key4,6,key2,7,8,second_key4'],
    );
  });

  it('testEventsAreProperlyOrdered', async () => {
    const items: Timed[] = [
      [2, [12, 1, 'a', 1]],
      [1, [11, 2, 'b', 2]],
      [3, [10, 3, 'c', 3]], // event time order breaks this match
      3,
      [4, [8, 4, 'a', 4]],
      [4, [9, 5, 'b', 5]],
      [5, [7, 6, 'c', 6]], // secondary order breaks this match
      5,
      [6, [6, 8, 'a', 7]],
      [6, [6, 7, 'b', 8]],
      [8, [4, 9, 'c', 9]], // ternary order breaks this match
      8,
      [9, [3, 10, 'a', 10]],
      [10, [2, 11, 'b', 11]],
      [11, [1, 12, 'c', 12]],
      11,
    ];
    await expectAppend(
      `SELECT T.aid, T.bid, T.cid
      FROM MyTable
      MATCH_RECOGNIZE (
        ORDER BY rowtime, secondaryOrder DESC, ternaryOrder ASC
        MEASURES
          A.id AS aid,
          B.id AS bid,
          C.id AS cid
        PATTERN (A B C)
        DEFINE
          A AS name = 'a',
          B AS name = 'b',
          C AS name = 'c'
      ) AS T`,
      table(
        'MyTable',
        'secondaryOrder INT, ternaryOrder INT, name STRING, id INT, rowtime TIMESTAMP(3), wm TIMESTAMP(3)',
        withWatermarks(items),
        'WATERMARK FOR rowtime AS wm',
      ),
      ['10,11,12'],
    );
  });

  it('testMatchRecognizeAppliedToWindowedGrouping', async () => {
    await expectAppend(
      `SELECT *
      FROM (
         SELECT
            symbol,
            SUM(price) as price,
            TUMBLE_ROWTIME(rowtime, interval '3' second) as rowTime,
            TUMBLE_START(rowtime, interval '3' second) as startTime
         FROM Ticker
         GROUP BY symbol, TUMBLE(rowtime, interval '3' second)
      )
      MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowTime
        MEASURES
          B.price as dPrice,
          B.startTime as dTime
        ONE ROW PER MATCH
        PATTERN (A B)
        DEFINE
          B AS B.price < A.price
      )`,
      ascendingTicker([
        // first window
        ['ACME', 1 * SECOND, 1, 1],
        ['ACME', 2 * SECOND, 2, 2],
        // second window
        ['ACME', 4 * SECOND, 1, 4],
        ['ACME', 5 * SECOND, 1, 3],
        // third window
        ['ACME', 7 * SECOND, 2, 3],
        ['ACME', 8 * SECOND, 2, 3],
        ['ACME1', 1 * SECOND, 20, 4],
        ['ACME1', 1 * SECOND, 24, 4],
        ['ACME1', 1 * SECOND, 25, 3],
        ['ACME1', 1 * SECOND, 19, 8],
      ]),
      ['ACME,2,1970-01-01T00:00:03'],
    );
  });

  const GROUPED_MATCHES = (order: string, matchRowtime: string) => `SELECT
        symbol,
        SUM(price) as price,
        TUMBLE_ROWTIME(matchRowtime, interval '3' second) as rowTime,
        TUMBLE_START(matchRowtime, interval '3' second) as startTime
      FROM Ticker
      MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY ${order}
        MEASURES
          A.price as price,
          A.tax as tax,
          ${matchRowtime} as matchRowtime
        ONE ROW PER MATCH
        PATTERN (A)
        DEFINE
          A AS A.price > 0
      ) AS T
      GROUP BY symbol, TUMBLE(matchRowtime, interval '3' second)`;

  it('testWindowedGroupingAppliedToMatchRecognize', async () => {
    await expectAppend(
      GROUPED_MATCHES('rowtime', 'MATCH_ROWTIME()'),
      ascendingTicker([
        // first window
        ['ACME', 1 * SECOND, 1, 1],
        ['ACME', 2 * SECOND, 2, 2],
        // second window
        ['ACME', 4 * SECOND, 1, 4],
        ['ACME', 5 * SECOND, 1, 3],
      ]),
      [
        'ACME,3,1970-01-01T00:00:02.999,1970-01-01T00:00',
        'ACME,2,1970-01-01T00:00:05.999,1970-01-01T00:00:03',
      ],
    );
  });

  it('testWindowedGroupingAppliedToMatchRecognizeOnLtzRowtime', async () => {
    await expectAppend(
      GROUPED_MATCHES('ts_ltz', 'MATCH_ROWTIME(ts_ltz)'),
      table(
        'Ticker',
        '`symbol` STRING, `ts_ltz` TIMESTAMP_LTZ(3), `price` INT, `tax` INT',
        [
          // first window
          ['ACME', 1 * SECOND, 1, 1],
          ['ACME', 2 * SECOND, 2, 2],
          // second window
          ['ACME', 3 * SECOND, 1, 4],
          ['ACME', 4 * SECOND, 1, 3],
        ],
        "WATERMARK FOR `ts_ltz` AS `ts_ltz` - INTERVAL '1' SECOND",
      ),
      [
        'ACME,3,1970-01-01T00:00:02.999Z,1970-01-01T08:00',
        'ACME,2,1970-01-01T00:00:05.999Z,1970-01-01T08:00:03',
      ],
      { setup: "SET 'table.local-time-zone' = 'Asia/Shanghai';" },
    );
  });

  const TICKER_4 = table('Ticker', 'symbol STRING, tstamp BIGINT, price INT, tax INT', [
    ['ACME', 1, 19, 1],
    ['ACME', 2, 17, 2],
    ['ACME', 3, 13, 3],
    ['ACME', 4, 20, 4],
  ]);

  it('testLogicalOffsets', async () => {
    await expectAppend(
      `SELECT *
      FROM Ticker
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          FIRST(DOWN.tstamp) AS start_tstamp,
          LAST(DOWN.tstamp) AS bottom_tstamp,
          UP.tstamp AS end_tstamp,
          FIRST(DOWN.price + DOWN.tax + 1) AS bottom_total,
          UP.price + UP.tax AS end_total
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (DOWN{2,} UP)
        DEFINE
          DOWN AS price < LAST(DOWN.price, 1) OR LAST(DOWN.price, 1) IS NULL,
          UP AS price < FIRST(DOWN.price)
      ) AS T`,
      table('Ticker', 'symbol STRING, tstamp BIGINT, price INT, tax INT', [
        ['ACME', 1, 19, 1],
        ['ACME', 2, 17, 2],
        ['ACME', 3, 13, 3],
        ['ACME', 4, 20, 4],
        ['ACME', 5, 20, 5],
        ['ACME', 6, 26, 6],
        ['ACME', 7, 20, 7],
        ['ACME', 8, 25, 8],
      ]),
      ['6,7,8,33,33'],
    );
  });

  it('testPartitionByWithParallelSource', async () => {
    await expectAppend(
      `SELECT *
      FROM Ticker
      MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
          DOWN.tax AS bottom_tax,
          UP.tax AS end_tax
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (DOWN UP)
        DEFINE
          DOWN AS DOWN.price = 13,
          UP AS UP.price = 20
      ) AS T`,
      ascendingTicker([
        ['ACME', 1, 19, 1],
        ['ACME', 2, 17, 2],
        ['ACME', 3, 13, 3],
        ['ACME', 4, 20, 4],
      ]),
      ['ACME,3,4'],
      { parallelism: 2 },
    );
  });

  it('testLogicalOffsetsWithStarVariable', async () => {
    const ids = Array.from({ length: 16 }, (_, i) =>
      i < 8 ? `FIRST(id, ${i}) as id${i}` : `LAST(id, ${i - 8}) as id${i}`,
    );
    await expectAppend(
      `SELECT *
      FROM Ticker
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          ${ids.join(',\n          ')}
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (\`DOWN"\`{2,} UP)
        DEFINE
          \`DOWN"\` AS price < LAST(price, 1) OR LAST(price, 1) IS NULL,
          UP AS price = FIRST(price) AND price > FIRST(price, 3) AND price = LAST(price, 7)
      ) AS T`,
      table('Ticker', 'id INT, symbol STRING, tstamp BIGINT, price INT', [
        [1, 'ACME', 1, 20],
        [2, 'ACME', 2, 19],
        [3, 'ACME', 3, 18],
        [4, 'ACME', 4, 17],
        [5, 'ACME', 5, 16],
        [6, 'ACME', 6, 15],
        [7, 'ACME', 7, 14],
        [8, 'ACME', 8, 20],
      ]),
      ['1,2,3,4,5,6,7,8,8,7,6,5,4,3,2,1'],
    );
  });

  it('testLogicalOffsetOutsideOfRangeInMeasures', async () => {
    await expectAppend(
      `SELECT *
      FROM Ticker
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          FIRST(DOWN.price) as first,
          LAST(DOWN.price) as last,
          FIRST(DOWN.price, 5) as nullPrice
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (DOWN{2,} UP)
        DEFINE
          DOWN AS price < LAST(DOWN.price, 1) OR LAST(DOWN.price, 1) IS NULL,
          UP AS price > LAST(DOWN.price)
      ) AS T`,
      TICKER_4,
      ['19,13,null'],
    );
  });

  it('testAggregates', async () => {
    // COUNT(D.price) is 0 and SUM(D.price) NULL (no row matched D); aggregates of several
    // arguments and of expressions.
    await expectAppend(
      `SELECT *
      FROM MyTable
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          FIRST(id) as startId,
          SUM(A.price) AS sumA,
          COUNT(D.price) AS countD,
          SUM(D.price) as sumD,
          weightedAvg(price, weight) as wAvg,
          AVG(B.price) AS avgB,
          SUM(B.price * B.rate) as sumExprB,
          LAST(id) as endId
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A+ B+ C D? E )
        DEFINE
          A AS SUM(A.price) < 6,
          B AS SUM(B.price * B.rate) < SUM(A.price) AND
               SUM(B.price * B.rate) > 0.2 AND
               SUM(B.price) >= 1 AND
               AVG(B.price) >= 1 AND
               weightedAvg(price, weight) > 1
      ) AS T`,
      table('MyTable', 'id INT, name STRING, price BIGINT, rate DOUBLE, weight INT', [
        [1, 'a', 1, 0.8, 1],
        [2, 'z', 2, 0.8, 3],
        [3, 'b', 1, 0.8, 2],
        [4, 'c', 1, 0.8, 5],
        [5, 'd', 4, 0.1, 5],
        [6, 'a', 2, 1.5, 2],
        [7, 'b', 2, 0.8, 3],
        [8, 'c', 1, 0.8, 2],
        [9, 'h', 4, 0.8, 3],
        [10, 'h', 4, 0.8, 3],
        [11, 'h', 2, 0.8, 3],
        [12, 'h', 2, 0.8, 3],
      ]),
      ['1,5,0,null,2,3,3.4,8', '9,4,0,null,3,4,3.2,12'],
    );
  });

  it('testAggregatesWithNullInputs', async () => {
    await expectAppend(
      `SELECT *
      FROM MyTable
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          SUM(A.price) as sumA,
          COUNT(A.id) as countAId,
          COUNT(A.price) as countAPrice,
          COUNT(*) as countAll,
          COUNT(price) as countAllPrice,
          LAST(id) as endId
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A+ C)
        DEFINE
          A AS SUM(A.price) < 30,
          C AS C.name = 'c'
      ) AS T`,
      table('MyTable', 'id INT, name STRING, price INT', [
        [1, 'a', 10],
        [2, 'z', 10],
        [3, 'b', null],
        [4, 'c', null],
        [5, 'd', 3],
        [6, 'c', 3],
        [7, 'c', 3],
        [8, 'c', 3],
        [9, 'c', 2],
      ]),
      ['29,7,5,8,6,8'],
    );
  });

  it('testAccessingCurrentTime', async () => {
    // Flink does not assert the proctime in the result either: it is the wall clock.
    await expectAppend(
      `SELECT T.aid
      FROM MyTable
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          A.id AS aid,
          A.proctime AS aProctime,
          LAST(A.proctime + INTERVAL '1' second) as calculatedField
        PATTERN (A)
        DEFINE
          A AS proctime >= (CURRENT_TIMESTAMP - INTERVAL '1' day)
      ) AS T`,
      table('MyTable', 'id INT, name STRING', [[1, 'a']]),
      ['1'],
    );
  });

  it('testUserDefinedFunctions', async () => {
    // Flink's functions read the prefix and the start from job parameters in open(); here they
    // close over the same values.
    await expectAppend(
      `SELECT *
      FROM MyTable
      MATCH_RECOGNIZE (
        ORDER BY proctime
        MEASURES
          FIRST(id) as firstId,
          prefix(A.name) as prefixedNameA,
          countFrom(A.price) as countFromA,
          LAST(id) as lastId
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A+ C)
        DEFINE
          A AS prefix(A.name) = '${PREFIX}:a' AND countFrom(A.price) <= ${START_FROM + 4}
      ) AS T`,
      table('MyTable', 'id INT, name STRING, price BIGINT', [
        [1, 'a', 1],
        [2, 'a', 1],
        [3, 'a', 1],
        [4, 'a', 1],
        [5, 'a', 1],
        [6, 'b', 1],
        [7, 'a', 1],
        [8, 'a', 1],
        [9, 'f', 1],
      ]),
      ['1,PREF:a,8,5', '7,PREF:a,6,9'],
    );
  });
});

describe('MATCH_ROWTIME([rowtime]) typed as Flink types it', () => {
  const LTZ_TICKER = table(
    'Ticker',
    'symbol STRING, ts_ltz TIMESTAMP_LTZ(3), price INT',
    [],
    "WATERMARK FOR ts_ltz AS ts_ltz - INTERVAL '1' SECOND",
  );
  const columnsOf = (measure: string) => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    LTZ_TICKER(tEnv);
    return tEnv.sqlQuery(`SELECT * FROM Ticker MATCH_RECOGNIZE (
      ORDER BY ts_ltz MEASURES ${measure} AS t PATTERN (A) DEFINE A AS A.price > 0)`).columns;
  };

  it('is a TIMESTAMP(3) without an argument, the argument rowtime kind with one', () => {
    expect(columnsOf('MATCH_ROWTIME()')).toEqual([{ name: 't', type: 'TIMESTAMP(3) NOT NULL' }]);
    expect(columnsOf('MATCH_ROWTIME(ts_ltz)')).toEqual([
      { name: 't', type: 'TIMESTAMP_LTZ(3) NOT NULL' },
    ]);
    expect(columnsOf('MATCH_ROWTIME(A.ts_ltz)')).toEqual([
      { name: 't', type: 'TIMESTAMP_LTZ(3) NOT NULL' },
    ]);
  });

  it('refuses an argument that is not a rowtime attribute', () => {
    expect(() => columnsOf('MATCH_ROWTIME(price)')).toThrow(
      'MATCH_ROWTIME(...) takes a rowtime attribute column as its argument',
    );
    expect(() => columnsOf('MATCH_ROWTIME(ts_ltz, ts_ltz)')).toThrow(
      'MATCH_ROWTIME() takes at most one argument',
    );
  });
});
