/**
 * The scenarios of Flink's streaming SQL TemporalJoinITCase, with its rows and expected
 * results: event-time temporal joins of a changelog of orders against versioned tables (a
 * retract changelog with a PRIMARY KEY, an upsert source, one whose update-befores and deletes
 * carry the old row's time) and versioned views (deduplication to the first and the last row),
 * INNER and LEFT, with further conditions, two joins in a row, mini-batch; and the
 * processing-time temporal joins Flink refuses. Flink writes the results into an upsert sink
 * keyed by order_id; the changes are applied the same way here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { flinkText } from './flink-scenario-runner.js';
import {
  registerValues,
  registerValuesConnector,
  ts,
  type ValuesChange,
} from './flink-values-connector.js';

beforeAll(registerValuesConnector);

const PROCTIME_ORDERS: ValuesChange[] = [
  ['+I', 1, 'Euro', 'no1', 12],
  ['+I', 2, 'US Dollar', 'no1', 14],
  ['+I', 3, 'US Dollar', 'no2', 18],
  ['+I', 4, 'RMB', 'no1', 40],
];

/** Rows given one kind of change. */
const as = (kind: ValuesChange[0], rows: readonly (readonly unknown[])[]): ValuesChange[] =>
  rows.map((r): ValuesChange => [kind, ...r]);

/** The first four rates of every currency table (the processing-time ones without a time). */
const FIRST_PROCTIME_RATES = [
  ['Euro', 'no1', 114],
  ['US Dollar', 'no1', 102],
  ['Yen', 'no1', 1],
  ['RMB', 'no1', 702],
];

const PROCTIME_CURRENCY: ValuesChange[] = [
  ...as('+I', FIRST_PROCTIME_RATES),
  ['+I', 'Euro', 'no1', 118],
  ['+I', 'US Dollar', 'no2', 106],
];

const PROCTIME_CURRENCY_CHANGELOG: ValuesChange[] = [
  ...as('+I', FIRST_PROCTIME_RATES),
  ['-U', 'RMB', 'no1', 702],
  ['+U', 'RMB', 'no1', 802],
  ['+I', 'Euro', 'no1', 118],
  ['+I', 'US Dollar', 'no2', 106],
];

const ROWTIME_ORDERS: ValuesChange[] = [
  ['+I', 1, 'Euro', 'no1', 12, ts('2020-08-15T00:01:00')],
  ['+I', 2, 'US Dollar', 'no1', 1, ts('2020-08-15T00:02:00')],
  ['+I', 3, 'RMB', 'no1', 40, ts('2020-08-15T00:03:00')],
  ['+I', 4, 'Euro', 'no1', 14, ts('2020-08-16T00:04:00')],
  ['-U', 2, 'US Dollar', 'no1', 1, ts('2020-08-16T00:03:00')],
  ['+U', 2, 'US Dollar', 'no1', 18, ts('2020-08-16T00:03:00')],
  ['+I', 5, 'RMB', 'no1', 40, ts('2020-08-16T00:03:00')],
  ['+I', 6, 'RMB', 'no1', 40, ts('2020-08-16T00:04:00')],
  ['-D', 6, 'RMB', 'no1', 40, ts('2020-08-16T00:04:00')],
];

const FIRST_RATES = FIRST_PROCTIME_RATES.map((r, i) => [...r, ts(`2020-08-15T00:00:0${i + 1}`)]);

/** Changes whose time is the time of the change (Flink's "meta time"). */
const CURRENCY_META_TIME: ValuesChange[] = [
  ...as('+I', FIRST_RATES),
  ['-U', 'Euro', 'no1', 114, ts('2020-08-16T00:01:00')],
  ['+U', 'Euro', 'no1', 118, ts('2020-08-16T00:01:00')],
  ['-U', 'US Dollar', 'no1', 102, ts('2020-08-16T00:02:00')],
  ['+U', 'US Dollar', 'no1', 106, ts('2020-08-16T00:02:00')],
  ['-D', 'RMB', 'no1', 702, ts('2020-08-16T00:02:00')],
];

/** Update-befores and deletes that carry the old row's time. */
const CURRENCY_BEFORE_TIME: ValuesChange[] = [
  ...as('+I', FIRST_RATES),
  ['-U', 'Euro', 'no1', 114, ts('2020-08-15T00:00:01')],
  ['+U', 'Euro', 'no1', 118, ts('2020-08-16T00:01:00')],
  ['-U', 'US Dollar', 'no1', 102, ts('2020-08-15T00:00:02')],
  ['+U', 'US Dollar', 'no1', 106, ts('2020-08-16T00:02:00')],
  ['-D', 'RMB', 'no1', 702, ts('2020-08-15T00:00:04')],
];

const UPSERT_CURRENCY: ValuesChange[] = [
  ...as('+U', FIRST_RATES),
  ['+U', 'Euro', 'no1', 118, ts('2020-08-16T00:01:00')],
  ['+U', 'US Dollar', 'no1', 104, ts('2020-08-16T00:02:00')],
  ['-D', 'RMB', 'no1', 702, ts('2020-08-15T00:00:04')],
];

const INSERT_ONLY_CURRENCY: ValuesChange[] = [
  ...as('+I', FIRST_RATES),
  ['+I', 'Euro', 'no1', 118, ts('2020-08-16T00:01:00')],
  ['+I', 'US Dollar', 'no1', 102, ts('2020-08-16T00:02:00')],
  ['+I', 'US Dollar', 'no1', 106, ts('2020-08-16T00:02:00')],
];

/** Flink's prepare(): the tables and views every scenario may read. */
function setup(): string {
  const versioned = (name: string, key: string, data: string, watermark: string, mode: string) => `
    CREATE TABLE ${name} (
      currency STRING, currency_no STRING, rate BIGINT, currency_time TIMESTAMP(3),
      WATERMARK FOR currency_time AS currency_time - ${watermark},
      PRIMARY KEY (${key}) NOT ENFORCED
    ) WITH ('connector' = 'flink-values', 'changelog-mode' = '${mode}', 'data-id' = '${data}');`;
  const metaTime = registerValues(CURRENCY_META_TIME);
  return `
    CREATE TABLE orders_proctime (
      order_id BIGINT, currency STRING, currency_no STRING, amount BIGINT, proctime AS PROCTIME()
    ) WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(PROCTIME_ORDERS)}');
    CREATE TABLE currency_proctime (
      currency STRING, currency_no STRING, rate BIGINT, proctime AS PROCTIME(),
      PRIMARY KEY (currency, currency_no) NOT ENFORCED
    ) WITH ('connector' = 'flink-values-no-lookup', 'data-id' = '${registerValues(PROCTIME_CURRENCY)}');
    CREATE TABLE changelog_currency_proctime (
      currency STRING, currency_no STRING, rate BIGINT, proctime AS PROCTIME(),
      PRIMARY KEY (currency, currency_no) NOT ENFORCED
    ) WITH ('connector' = 'flink-values-no-lookup', 'changelog-mode' = 'I,UA,UB,D',
      'data-id' = '${registerValues(PROCTIME_CURRENCY_CHANGELOG)}');
    CREATE VIEW latest_rates AS
      SELECT currency, currency_no, rate, proctime FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY currency, currency_no ORDER BY proctime DESC) AS rowNum
        FROM currency_proctime) T
      WHERE rowNum = 1;
    CREATE TABLE orders_rowtime (
      order_id BIGINT, currency STRING, currency_no STRING, amount BIGINT, order_time TIMESTAMP(3),
      WATERMARK FOR order_time AS order_time - INTERVAL '2' DAY,
      PRIMARY KEY (order_id) NOT ENFORCED
    ) WITH ('connector' = 'flink-values', 'changelog-mode' = 'I,UA,UB,D',
      'data-id' = '${registerValues(ROWTIME_ORDERS)}');
    ${versioned('versioned_currency_with_single_key', 'currency', metaTime, "INTERVAL '10' SECOND", 'I,UA,UB,D')}
    ${versioned('versioned_currency_with_multi_key', 'currency, currency_no', metaTime, "INTERVAL '10' SECOND", 'I,UA,UB,D')}
    ${versioned('currency_using_update_before_time', 'currency', registerValues(CURRENCY_BEFORE_TIME), "INTERVAL '2' DAY", 'I,UA,UB,D')}
    ${versioned('upsert_currency', 'currency', registerValues(UPSERT_CURRENCY), "INTERVAL '2' DAY", 'UA,D')}
    CREATE TABLE currency_history (
      currency STRING, currency_no STRING, rate BIGINT, currency_time TIMESTAMP(3),
      WATERMARK FOR currency_time AS currency_time - INTERVAL '0.001' SECOND
    ) WITH ('connector' = 'flink-values', 'changelog-mode' = 'I',
      'data-id' = '${registerValues(INSERT_ONLY_CURRENCY)}');
    CREATE VIEW currency_deduplicated_first_row AS
      SELECT currency, currency_no, rate, currency_time FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time) AS rowNum
        FROM currency_history) T
      WHERE rowNum = 1;
    CREATE VIEW currency_deduplicated_last_row AS
      SELECT currency, currency_no, rate, currency_time FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time DESC) AS rowNum
        FROM currency_history) T
      WHERE rowNum = 1;`;
}

/** The query's changes as Flink's sinks print them (`+U(2,US Dollar,...)`). */
async function changesOf(query: string, parallelism: number, extra = ''): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(`${setup()}\n${extra}`);
  const table = tEnv.sqlQuery(query);
  const sink = new CollectSink<Change<Row>>();
  table.toChangelogStream().sinkTo(sink);
  await env.execute('temporal join scenario');
  return sink.values.map((c) => `${c.kind}(${flinkText(table, c.value)})`);
}

/**
 * The rows an upsert sink keyed by the first column (order_id) holds after the query's
 * changes, as Flink's values sink with `ON CONFLICT DO DEDUPLICATE` keeps them.
 */
async function upsertRows(query: string, parallelism: number, extra = ''): Promise<string[]> {
  const table = new Map<string, string>();
  for (const change of await changesOf(query, parallelism, extra)) {
    const kind = change.slice(0, 2);
    const row = change.slice(3, -1);
    const key = row.split(',')[0] as string;
    if (kind === '-U' || kind === '-D') table.delete(key);
    else table.set(key, row);
  }
  return [...table.values()].sort();
}

const SELECT = 'SELECT o.order_id, o.currency, o.amount, o.order_time, r.rate, r.currency_time';

/** Flink's expected rows of orders 1 to 4 joined with the rate valid at their times. */
const ORDER_1 = '1,Euro,12,2020-08-15T00:01,114,2020-08-15T00:00:01';
const ORDER_2 = '2,US Dollar,18,2020-08-16T00:03,106,2020-08-16T00:02';
const ORDER_3 = '3,RMB,40,2020-08-15T00:03,702,2020-08-15T00:00:04';
const ORDER_4 = '4,Euro,14,2020-08-16T00:04,118,2020-08-16T00:01';
const ORDER_5_UNJOINED = '5,RMB,40,2020-08-16T00:03,null,null';

const rows = (...expected: string[]) => [...expected].sort();

describe('Flink TemporalJoinITCase: event-time temporal joins', () => {
  for (const parallelism of [1, 2]) {
    describe(`parallelism ${parallelism}`, () => {
      const scenario = (name: string, query: string, expected: string[], extra = '') =>
        it(name, async () => {
          expect(await upsertRows(query, parallelism, extra)).toEqual(expected);
        });

      scenario(
        'testEventTimeTemporalJoin',
        `${SELECT} FROM orders_rowtime AS o JOIN versioned_currency_with_single_key
         FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency`,
        rows(ORDER_1, ORDER_2, ORDER_3, ORDER_4),
      );

      scenario(
        'testEventTimeTemporalJoinThatJoinkeyContainsPk',
        `${SELECT} FROM orders_rowtime AS o JOIN versioned_currency_with_single_key
         FOR SYSTEM_TIME AS OF o.order_time AS r
         ON o.currency = r.currency AND o.currency_no = r.currency_no`,
        rows(ORDER_1, ORDER_2, ORDER_3, ORDER_4),
      );

      scenario(
        'testEventTimeTemporalJoinWithFilter',
        `${SELECT} FROM orders_rowtime AS o JOIN v1 FOR SYSTEM_TIME AS OF o.order_time AS r
         ON o.currency = r.currency WHERE rate < 115`,
        rows(ORDER_1, ORDER_2),
        'CREATE VIEW v1 AS SELECT * FROM versioned_currency_with_single_key;',
      );

      scenario(
        'testEventTimeLeftTemporalJoin',
        `${SELECT} FROM orders_rowtime AS o LEFT JOIN versioned_currency_with_single_key
         FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency`,
        rows(ORDER_1, ORDER_2, ORDER_3, ORDER_4, ORDER_5_UNJOINED),
      );

      // A delete takes effect at its own time: the RMB row deleted at 00:00:04 is gone for
      // order 3, and so is the one updated (before) at that time.
      scenario(
        'testEventTimeTemporalJoinChangelogUsingBeforeTime',
        `${SELECT} FROM orders_rowtime AS o LEFT JOIN currency_using_update_before_time
         FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency`,
        rows(ORDER_1, ORDER_2, '3,RMB,40,2020-08-15T00:03,null,null', ORDER_4, ORDER_5_UNJOINED),
      );

      scenario(
        'testEventTimeLeftTemporalJoinUpsertSource',
        `${SELECT} FROM orders_rowtime AS o LEFT JOIN upsert_currency
         FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency`,
        rows(
          ORDER_1,
          '2,US Dollar,18,2020-08-16T00:03,104,2020-08-16T00:02',
          '3,RMB,40,2020-08-15T00:03,null,null',
          ORDER_4,
          ORDER_5_UNJOINED,
        ),
      );

      scenario(
        'testEventTimeTemporalJoinWithMultiKeys',
        `${SELECT} FROM orders_rowtime AS o JOIN versioned_currency_with_multi_key
         FOR SYSTEM_TIME AS OF o.order_time AS r
         ON o.currency_no = r.currency_no AND o.currency = r.currency`,
        rows(ORDER_1, ORDER_2, ORDER_3, ORDER_4),
      );

      scenario(
        'testEventTimeTemporalJoinWithNonEqualCondition',
        `${SELECT} FROM orders_rowtime AS o JOIN currency_using_update_before_time
         FOR SYSTEM_TIME AS OF o.order_time AS r
         ON o.currency = r.currency AND o.currency_no = r.currency_no
         AND o.order_id < 5 AND r.rate > 102`,
        rows(ORDER_1, ORDER_2, ORDER_4),
      );

      scenario(
        'testEventTimeTemporalJoinEqualConditionOnKey',
        `${SELECT} FROM orders_rowtime AS o JOIN currency_using_update_before_time
         FOR SYSTEM_TIME AS OF o.order_time AS r
         ON o.currency = r.currency AND o.currency_no = r.currency_no
         AND o.currency = 'Euro' AND r.rate > 102`,
        rows(ORDER_1, ORDER_4),
      );

      scenario(
        'testEventTimeMultiTemporalJoin',
        `${SELECT}, r1.rate, r1.currency_time FROM orders_rowtime AS o
         LEFT JOIN versioned_currency_with_multi_key FOR SYSTEM_TIME AS OF o.order_time AS r
         ON o.currency = r.currency AND o.currency_no = r.currency_no
         LEFT JOIN versioned_currency_with_single_key FOR SYSTEM_TIME AS OF o.order_time AS r1
         ON o.currency = r1.currency`,
        rows(
          '1,Euro,12,2020-08-15T00:01,114,2020-08-15T00:00:01,114,2020-08-15T00:00:01',
          '2,US Dollar,18,2020-08-16T00:03,106,2020-08-16T00:02,106,2020-08-16T00:02',
          '3,RMB,40,2020-08-15T00:03,702,2020-08-15T00:00:04,702,2020-08-15T00:00:04',
          '4,Euro,14,2020-08-16T00:04,118,2020-08-16T00:01,118,2020-08-16T00:01',
          '5,RMB,40,2020-08-16T00:03,null,null,null,null',
        ),
      );

      scenario(
        'testEventTimeTemporalJoinWithDeduplicateFirstView',
        `${SELECT} FROM orders_rowtime AS o LEFT JOIN currency_deduplicated_first_row
         FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency`,
        rows(
          ORDER_1,
          '2,US Dollar,18,2020-08-16T00:03,102,2020-08-15T00:00:02',
          ORDER_3,
          '4,Euro,14,2020-08-16T00:04,114,2020-08-15T00:00:01',
          '5,RMB,40,2020-08-16T00:03,702,2020-08-15T00:00:04',
        ),
      );

      const lastRow = rows(
        ORDER_1,
        ORDER_2,
        ORDER_3,
        ORDER_4,
        '5,RMB,40,2020-08-16T00:03,702,2020-08-15T00:00:04',
      );
      scenario(
        'testEventTimeTemporalJoinWithDeduplicateLastView',
        `${SELECT} FROM orders_rowtime AS o JOIN currency_deduplicated_last_row
         FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency`,
        lastRow,
      );

      // A left-only condition of a LEFT join pads the rows it fails, as a join condition does.
      scenario(
        'testEventTimeLeftTemporalJoinWithView',
        `${SELECT} FROM orders_rowtime AS o LEFT JOIN currency_deduplicated_last_row
         FOR SYSTEM_TIME AS OF o.order_time AS r
         ON o.currency = r.currency AND substr(o.currency, 1, 2) = 'US'`,
        rows(
          '1,Euro,12,2020-08-15T00:01,null,null',
          ORDER_2,
          '3,RMB,40,2020-08-15T00:03,null,null',
          '4,Euro,14,2020-08-16T00:04,null,null',
          ORDER_5_UNJOINED,
        ),
      );

      scenario(
        'testMiniBatchEventTimeViewTemporalJoin',
        `${SELECT} FROM orders_rowtime AS o JOIN currency_deduplicated_last_row
         FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency`,
        lastRow,
        `SET 'table.exec.mini-batch.enabled' = 'true';
         SET 'table.exec.mini-batch.allow-latency' = '10 s';
         SET 'table.exec.mini-batch.size' = '4';`,
      );
    });
  }

  it('a changing left side keeps each change its kind (the changes of order 2 and 6)', async () => {
    const changes = await changesOf(
      `SELECT o.order_id, o.amount, r.rate FROM orders_rowtime AS o
       LEFT JOIN versioned_currency_with_single_key FOR SYSTEM_TIME AS OF o.order_time AS r
       ON o.currency = r.currency WHERE o.order_id IN (2, 6)`,
      1,
    );
    expect(changes).toEqual([
      '+I(2,1,102)',
      '-U(2,1,106)',
      '+U(2,18,106)',
      '+I(6,40,null)',
      '-D(6,40,null)',
    ]);
  });
});

describe('Flink TemporalJoinITCase: processing-time temporal joins are refused', () => {
  const refused = (name: string, query: string) =>
    it(name, async () => {
      await expect(changesOf(query, 1)).rejects.toThrow(
        'Processing-time temporal join is not supported yet',
      );
    });
  const PROC = 'SELECT o.order_id, o.currency, o.amount, o.proctime, r.rate, r.proctime';
  const ON = 'ON o.currency = r.currency AND o.currency_no = r.currency_no';

  refused(
    'testProcTimeTemporalJoin',
    `${PROC} FROM orders_proctime AS o JOIN currency_proctime FOR SYSTEM_TIME AS OF o.proctime AS r ${ON}`,
  );
  refused(
    'testProcTimeLeftTemporalJoin',
    `${PROC} FROM orders_proctime AS o LEFT JOIN currency_proctime FOR SYSTEM_TIME AS OF o.proctime AS r ${ON}`,
  );
  refused(
    'testProcTimeTemporalJoinChangelogSource',
    `SELECT r.* FROM orders_proctime AS o JOIN changelog_currency_proctime FOR SYSTEM_TIME AS OF o.proctime AS r ${ON}`,
  );
  refused(
    'testProcTimeTemporalJoinWithView',
    `${PROC} FROM orders_proctime AS o JOIN latest_rates FOR SYSTEM_TIME AS OF o.proctime AS r ${ON}`,
  );
  refused(
    'testProcTimeLeftTemporalJoinWithView',
    `${PROC} FROM orders_proctime AS o LEFT JOIN latest_rates FOR SYSTEM_TIME AS OF o.proctime AS r ${ON}`,
  );
  refused(
    'testProcTimeTemporalJoinWithViewNonEqui',
    `${PROC} FROM orders_proctime AS o JOIN latest_rates FOR SYSTEM_TIME AS OF o.proctime AS r ${ON} AND o.amount > r.rate`,
  );
  refused(
    'testProcTimeLeftTemporalJoinWithViewWithPredicates',
    `${PROC} FROM orders_proctime AS o LEFT JOIN latest_rates FOR SYSTEM_TIME AS OF o.proctime AS r ${ON} AND o.amount > r.rate`,
  );
  refused(
    'testProcTimeMultiTemporalJoin',
    `SELECT o.order_id, o.currency, o.amount, o.proctime, r.rate, r1.proctime FROM orders_proctime AS o
     JOIN latest_rates FOR SYSTEM_TIME AS OF o.proctime AS r ${ON}
     JOIN currency_proctime FOR SYSTEM_TIME AS OF o.proctime AS r1
     ON o.currency = r1.currency AND o.currency_no = r1.currency_no`,
  );
});
