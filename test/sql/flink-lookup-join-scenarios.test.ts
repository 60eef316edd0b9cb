/**
 * The scenarios of Flink's streaming SQL LookupJoinITCase, with its rows and expected results:
 * lookup joins (`FOR SYSTEM_TIME AS OF` a PROCTIME() column) against an in-process lookup
 * table, INNER and LEFT, keyed by one or several columns, by constants and NULL constants,
 * with conditions pushed to the table or checked on the joined rows, user functions, computed
 * columns of the table, and a table whose PRIMARY KEY keeps the latest row. Each runs against
 * a synchronous and an asynchronous table, without a cache and with a PARTIAL one (Flink's
 * NONE and PARTIAL cache parameters).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CollectSink,
  defineScalarFunction,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { flinkText } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

const DATA = [
  [1, 12, 'Julian'],
  [2, 15, 'Hello'],
  [3, 15, 'Fabian'],
  [8, 11, 'Hello world'],
  [9, 12, 'Hello world!'],
];

const DATA_WITH_NULL = [
  [null, 15, 'Hello'],
  [3, 15, 'Fabian'],
  [null, 11, 'Hello world'],
  [9, 12, 'Hello world!'],
];

const USER_DATA = [
  [11, 1, 'Julian'],
  [22, 2, 'Jark'],
  [33, 3, 'Fabian'],
  [11, 4, 'Hello world'],
  [11, 5, 'Hello world'],
];

const USER_DATA_WITH_NULL = [
  [11, 1, 'Julian'],
  [22, null, 'Hello'],
  [33, 3, 'Fabian'],
  [44, null, 'Hello world'],
];

/** Flink's TestAddWithOpen: the sum of two BIGINTs. */
const add = defineScalarFunction({
  arguments: ['BIGINT', 'BIGINT'],
  result: 'BIGINT',
  eval: (a: number | null, b: number | null) => (a === null || b === null ? null : a + b),
});

/** A TIMESTAMP (precision 6) value: epoch nanoseconds. */
const nanos = (ms: number) => BigInt(ms) * 1_000_000n;

interface Variant {
  readonly name: string;
  /** The lookup tables' options besides the connector and the data. */
  readonly options: string;
}

const VARIANTS: readonly Variant[] = [
  { name: 'sync, no cache', options: '' },
  { name: 'async, no cache', options: "'async' = 'true'," },
  {
    name: 'sync, PARTIAL cache',
    options: `'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '9223372036854775807',`,
  },
  {
    name: 'async, PARTIAL cache',
    options: `'async' = 'true', 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '9223372036854775807',`,
  },
];

function setup(variant: Variant): string {
  const scan = (name: string, data: unknown[][]) => `
    CREATE TABLE ${name} (id BIGINT, len INT, content STRING, proctime AS PROCTIME())
    WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(data)}');`;
  const lookup = (name: string, data: unknown[][], computed = '') => `
    CREATE TABLE ${name} (age INT, id BIGINT, name STRING${computed})
    WITH (${variant.options} 'connector' = 'flink-values', 'data-id' = '${registerValues(data)}');`;
  return `
    ${scan('src', DATA)}
    ${scan('nullable_src', DATA_WITH_NULL)}
    ${lookup('user_table', USER_DATA)}
    ${lookup('nullable_user_table', USER_DATA_WITH_NULL)}
    ${lookup('userTableWithComputedColumn', USER_DATA, ', nominal_age AS age + 1')}`;
}

/** The query's rows, as Flink's append sink prints them, sorted. */
async function rows(variant: Variant, query: string, extra = ''): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism: 2 });
  const tEnv = TableEnvironment.create(env);
  tEnv.createTemporarySystemFunction('add', add);
  tEnv.executeSql(`${setup(variant)}\n${extra}`);
  const table = tEnv.sqlQuery(query);
  const sink = new CollectSink<Row>();
  table.toDataStream().sinkTo(sink);
  await env.execute('lookup join scenario');
  return sink.values.map((r) => flinkText(table, r)).sort();
}

const JOIN = 'JOIN user_table FOR SYSTEM_TIME AS OF T.proctime AS D';
const LEFT_JOIN = 'LEFT JOIN user_table FOR SYSTEM_TIME AS OF T.proctime AS D';

/** Flink's scenarios: name, query, expected rows. */
const SCENARIOS: readonly (readonly [string, string, readonly string[]])[] = [
  [
    'testJoinTemporalTable',
    `SELECT T.id, T.len, T.content, D.name FROM src AS T ${JOIN} ON T.id = D.id`,
    ['1,12,Julian,Julian', '2,15,Hello,Jark', '3,15,Fabian,Fabian'],
  ],
  [
    'testJoinTemporalTableWithUdfFilter',
    `SELECT T.id, T.len, T.content, D.name FROM src AS T ${JOIN} ON T.id = D.id
     WHERE add(T.id, D.id) > 3 AND add(T.id, 2) > 3 AND add (D.id, 2) > 3`,
    ['2,15,Hello,Jark', '3,15,Fabian,Fabian'],
  ],
  [
    'testJoinTemporalTableWithUdfEqualFilter',
    `SELECT T.id, T.len, T.content, D.name FROM src AS T ${JOIN} ON T.id = D.id
     WHERE CONCAT('Hello-', D.name) = 'Hello-Jark'`,
    ['2,15,Hello,Jark'],
  ],
  [
    'testJoinTemporalTableOnConstantKey',
    `SELECT T.id, T.len, T.content, D.name FROM src AS T ${JOIN} ON D.id = 1`,
    [
      '1,12,Julian,Julian',
      '2,15,Hello,Julian',
      '3,15,Fabian,Julian',
      '8,11,Hello world,Julian',
      '9,12,Hello world!,Julian',
    ],
  ],
  [
    'testJoinTemporalTableOnNullableKey',
    `SELECT T.id, T.len, D.name FROM nullable_src AS T ${JOIN} ON T.id = D.id`,
    ['3,15,Fabian'],
  ],
  [
    'testJoinTemporalTableWithPushDown',
    `SELECT T.id, T.len, T.content, D.name FROM src AS T ${JOIN} ON T.id = D.id AND D.age > 20`,
    ['2,15,Hello,Jark', '3,15,Fabian,Fabian'],
  ],
  [
    'testJoinTemporalTableWithNonEqualFilter',
    `SELECT T.id, T.len, T.content, D.name, D.age FROM src AS T ${JOIN} ON T.id = D.id
     WHERE T.len <= D.age`,
    ['2,15,Hello,Jark,22', '3,15,Fabian,Fabian,33'],
  ],
  [
    'testJoinTemporalTableOnMultiFields',
    `SELECT T.id, T.len, D.name FROM src AS T ${JOIN} ON T.id = D.id AND T.content = D.name`,
    ['1,12,Julian', '3,15,Fabian'],
  ],
  [
    'testJoinTemporalTableOnMultiKeyFields',
    `SELECT T.id, T.len, D.name FROM src AS T ${JOIN} ON T.content = D.name AND T.id = D.id`,
    ['1,12,Julian', '3,15,Fabian'],
  ],
  [
    'testJoinTemporalTableOnMultiKeyFields2',
    `SELECT t1.id, t1.len, D.name FROM (SELECT proctime, content, id, len FROM src) t1
     JOIN user_table FOR SYSTEM_TIME AS OF t1.proctime AS D
     ON t1.content = D.name AND t1.id = D.id`,
    ['1,12,Julian', '3,15,Fabian'],
  ],
  [
    'testJoinTemporalTableOnMultiKeyFieldsWithConstantKey',
    `SELECT T.id, T.len, D.name FROM src AS T ${JOIN} ON T.content = D.name AND 3 = D.id`,
    ['3,15,Fabian'],
  ],
  [
    'testJoinTemporalTableOnMultiKeyFieldsWithStringConstantKey',
    `SELECT T.id, T.len, D.name FROM src AS T ${JOIN} ON D.name = 'Fabian' AND T.id = D.id`,
    ['3,15,Fabian'],
  ],
  [
    'testJoinTemporalTableOnMultiConstantKey',
    `SELECT T.id, T.len, D.name FROM src AS T ${JOIN} ON D.name = 'Fabian' AND 3 = D.id`,
    ['1,12,Fabian', '2,15,Fabian', '3,15,Fabian', '8,11,Fabian', '9,12,Fabian'],
  ],
  [
    'testLeftJoinTemporalTable',
    `SELECT T.id, T.len, D.name, D.age FROM src AS T ${LEFT_JOIN} ON T.id = D.id`,
    ['1,12,Julian,11', '2,15,Jark,22', '3,15,Fabian,33', '8,11,null,null', '9,12,null,null'],
  ],
  [
    'testLeftJoinTemporalTableWithPreFilter',
    `SELECT T.id, T.len, D.name, D.age FROM src AS T ${LEFT_JOIN} ON T.id = D.id AND T.len < 15`,
    ['1,12,Julian,11', '2,15,null,null', '3,15,null,null', '8,11,null,null', '9,12,null,null'],
  ],
  [
    'testLeftJoinTemporalTableWithUdfPreFilter',
    `SELECT T.id, T.len, T.content, D.name FROM src AS T ${LEFT_JOIN}
     ON T.id = D.id AND add(T.id, 2) > 4`,
    [
      '1,12,Julian,null',
      '2,15,Hello,null',
      '3,15,Fabian,Fabian',
      '8,11,Hello world,null',
      '9,12,Hello world!,null',
    ],
  ],
  [
    'testLeftJoinTemporalTableOnNullableKey',
    `SELECT T.id, T.len, D.name FROM nullable_src AS T
     LEFT OUTER JOIN user_table FOR SYSTEM_TIME AS OF T.proctime AS D ON T.id = D.id`,
    ['null,15,null', '3,15,Fabian', 'null,11,null', '9,12,null'],
  ],
  [
    'testLeftJoinTemporalTableOnMultKeyFields',
    `SELECT T.id, T.len, D.name, D.age FROM src AS T ${LEFT_JOIN}
     ON T.id = D.id AND T.content = D.name`,
    ['1,12,Julian,11', '2,15,null,null', '3,15,Fabian,33', '8,11,null,null', '9,12,null,null'],
  ],
  [
    'testJoinTemporalTableOnMultiKeyFieldsWithNullData',
    `SELECT T.id, T.len, D.name FROM nullable_src AS T
     JOIN nullable_user_table FOR SYSTEM_TIME AS OF T.proctime AS D
     ON T.content = D.name AND T.id = D.id`,
    ['3,15,Fabian'],
  ],
  [
    'testLeftJoinTemporalTableOnMultiKeyFieldsWithNullData',
    `SELECT D.id, T.len, D.name FROM nullable_src AS T
     LEFT JOIN nullable_user_table FOR SYSTEM_TIME AS OF T.proctime AS D
     ON T.content = D.name AND T.id = D.id`,
    ['null,15,null', '3,15,Fabian', 'null,11,null', 'null,12,null'],
  ],
  [
    'testJoinTemporalTableOnNullConstantKey',
    `SELECT T.id, T.len, T.content FROM nullable_src AS T
     JOIN nullable_user_table FOR SYSTEM_TIME AS OF T.proctime AS D ON D.id = null`,
    [],
  ],
  [
    'testJoinTemporalTableOnMultiKeyFieldsWithNullConstantKey',
    `SELECT T.id, T.len, D.name FROM src AS T ${JOIN} ON T.content = D.name AND null = D.id`,
    [],
  ],
  [
    'testJoinTemporalTableOnMultiKeyFieldsWithUDF',
    `SELECT T.id, T.content, D.age, D.id FROM src AS T ${JOIN}
     ON T.id = D.id + 4 AND T.content = concat(D.name, '!') AND D.age = 11`,
    ['9,Hello world!,11,5'],
  ],
  [
    'testJoinTemporalTableWithComputedColumn',
    `SELECT T.id, T.len, T.content, D.name, D.age, D.nominal_age FROM src AS T
     JOIN userTableWithComputedColumn FOR SYSTEM_TIME AS OF T.proctime AS D ON T.id = D.id`,
    ['1,12,Julian,Julian,11,12', '2,15,Hello,Jark,22,23', '3,15,Fabian,Fabian,33,34'],
  ],
  [
    'testJoinTemporalTableWithComputedColumnAndPushDown',
    `SELECT T.id, T.len, T.content, D.name, D.age, D.nominal_age FROM src AS T
     JOIN userTableWithComputedColumn FOR SYSTEM_TIME AS OF T.proctime AS D
     ON T.id = D.id AND D.nominal_age > 12`,
    ['2,15,Hello,Jark,22,23', '3,15,Fabian,Fabian,33,34'],
  ],
];

describe('Flink LookupJoinITCase', () => {
  for (const variant of VARIANTS) {
    describe(variant.name, () => {
      for (const [name, query, expected] of SCENARIOS)
        it(name, async () => {
          expect(await rows(variant, query)).toEqual([...expected].sort());
        });

      it('testCurrentDateInJoinCondition', async () => {
        const ddl = `
          CREATE TABLE Ta (id VARCHAR, ts TIMESTAMP, proc AS PROCTIME())
          WITH ('connector' = 'flink-values', 'data-id' = '${registerValues([['abc', nanos(Date.UTC(2000, 0, 1))]])}');
          CREATE TABLE Tb (id VARCHAR, ts TIMESTAMP)
          WITH (${variant.options} 'connector' = 'flink-values',
            'data-id' = '${registerValues([['abc', nanos(Date.UTC(2000, 0, 2))]])}');`;
        const query = `SELECT * FROM Ta AS t1
          INNER JOIN Tb FOR SYSTEM_TIME AS OF t1.proc AS t2 ON t1.id = t2.id
          WHERE CAST(coalesce(t1.ts, t2.ts) AS VARCHAR)
            >= CONCAT(CAST(CURRENT_DATE AS VARCHAR), ' 00:00:00')`;
        expect(await rows(variant, query, ddl)).toEqual([]);
      });
    });
  }

  // Flink runs it without a cache only: a PRIMARY KEY keeps each key's latest row.
  it('testJoinTemporalTableWithLatestData', async () => {
    const ddl = `
      CREATE TABLE dim_with_pk (num BIGINT, len INT PRIMARY KEY NOT ENFORCED, content STRING)
      WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(DATA)}');`;
    const query = `SELECT dim_with_pk.* FROM src JOIN dim_with_pk
      FOR SYSTEM_TIME AS OF src.proctime ON src.len = dim_with_pk.len`;
    expect(await rows(VARIANTS[0] as Variant, query, ddl)).toEqual(
      [
        '3,15,Fabian',
        '3,15,Fabian',
        '8,11,Hello world',
        '9,12,Hello world!',
        '9,12,Hello world!',
      ].sort(),
    );
  });
});
