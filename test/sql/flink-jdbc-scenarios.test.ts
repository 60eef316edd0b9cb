/**
 * SQL scenarios of Flink's JDBC connector integration tests (flink-connector-jdbc), for the
 * PostgreSQL dialect, run against the real PostgreSQL server with Flink's `jdbc` options and
 * Flink's expected rows. Rows are compared in Weir's display of Flink's values.
 *
 * flink-connector-jdbc-core/.../core/table/sink/JdbcDynamicTableSinkITCase (and
 * flink-connector-jdbc-postgres/.../postgres/table/PostgresDynamicTableSinkITCase, which runs it):
 * - testUpsert: ported (a GROUP BY of a GROUP BY: updates and deletes by the PRIMARY KEY).
 * - testAppend: ported (a table without a key: plain INSERTs); added: an updating query into
 *   that table is refused, as Flink's planner refuses it.
 * - testBatchSink: adapted: Flink's batch mode is a bounded streaming job here; its options
 *   ('sink.buffer-flush.interval' = '300ms', 'sink.max-retries' = '4') as written.
 * - testReal: ported.
 * - testReadingFromChangelogSource: ported (Flink's `values` table is the test connector
 *   flink-values; TestData.userChangelog; no ON CONFLICT clause, Flink < 2.3's form).
 * - testFlushBufferWhenCheckpoint: not ported: it drives Flink's sink function through mocks
 *   (snapshotState). Its point, buffered rows reach the table while the job runs, is the
 *   "buffered flush" case below: an unbounded job with 'sink.buffer-flush.max-rows' and
 *   'sink.buffer-flush.interval', whose rows are waited for in the table before it is cancelled.
 * - PostgresDynamicTableSinkITCase.testUpsertWithUnnest: not ported: 'sink.bulk-insert.enabled'
 *   selects Flink's UNNEST statements, which Weir's sink always uses (testUpsert covers it).
 *
 * flink-connector-jdbc-core/.../core/table/source/JdbcDynamicTableSourceITCase, with the table of
 * PostgresDynamicTableSourceITCase (uuid, DECIMAL(10, 4), TIMESTAMP(6), REAL, DOUBLE PRECISION,
 * TIME):
 * - testJdbcSource, testProject (partitioned, parallelism 2), testLimit: ported.
 * - testFilter (ALWAYS, NEVER): ported, both policies in one job.
 * - testLookupJoin, testLookupJoinWithFilter, testLookupJoinWithMultipleFilters,
 *   testLookupJoinWithLikeFilter, testLookupJoinWithORFilter (with and without cache): ported;
 *   the rows only: the cache's entries are Flink's LookupCacheManager internals.
 *
 * flink-connector-jdbc .../connector/jdbc/table/JdbcLookupTableITCase (and the rows of its
 * JdbcLookupTestBase):
 * - testLookup (dynamicFactory, with and without cache): ported: two key columns, two rows of a
 *   key. legacyFactory: not ported (the removed JdbcTableSource API, no SQL). Added: a LEFT
 *   lookup join whose key has a NULL, which looks nothing up.
 *
 * flink-connector-jdbc-postgres/.../postgres/database/dialect/PostgresDialectTest (earlier
 * PostgresDialectTypeTest, through JdbcDialectTest): testData ported: each valid type written by
 * the sink and read back by the scan, and a NULL of each; each invalid one refused with Flink's
 * message (the current one: TIMESTAMP precision range [0, 6]), when the table is created rather
 * than when it is used. The statement tests (testUpsertStatement, testBatch*,
 * testExtractBaseType, testGetArrayTypeName) are not ported: they test Flink's generated SQL
 * text, not SQL a job runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { cleanup, freshSchema, sql, until } from '../postgres/helpers.js';
import { runScenario, scenarioRows, valuesView } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

const SCHEMA = 'flink_jdbc';

/** Flink's connection options for a table of the test schema, and further options. */
function jdbc(table: string, ...options: string[]): string {
  return [
    "'connector' = 'jdbc'",
    "'url' = 'jdbc:postgresql://127.0.0.1:54329/weir'",
    `'table-name' = '${SCHEMA}.${table}'`,
    "'username' = 'weir'",
    "'password' = 'weir'",
    ...options,
  ].join(', ');
}

/** Runs an INSERT script to its end. */
async function insert(script: string): Promise<void> {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
  await tEnv.executeSql(script).job?.result;
}

/** Flink's JdbcDynamicTableSinkITCase.testData(): (id, num, text, ts). */
const TEST_DATA: readonly (readonly [number, number, string])[] = [
  [1, 1, 'Hi'],
  [2, 2, 'Hello'],
  [3, 2, 'Hello world'],
  [4, 3, 'Hello world, how are you?'],
  [5, 3, 'I am fine.'],
  [6, 3, 'Luke Skywalker'],
  ...Array.from(
    { length: 15 },
    (_, i) => [i + 7, i < 4 ? 4 : i < 9 ? 5 : 6, `Comment#${i + 1}`] as const,
  ),
];
/** A TIMESTAMP(3) column as the text of `tsOf`. */
const TS_TEXT = "to_char(ts, 'YYYY-MM-DD HH24:MI:SS.MS') AS ts";
const tsOf = (id: number) => `1970-01-01 00:00:00.${String(id).padStart(3, '0')}`;
const TEST_DATA_VIEW = valuesView(
  'testData',
  [
    ['id', 'INT'],
    ['num', 'BIGINT'],
    ['text', 'STRING'],
    ['ts', 'TIMESTAMP(3)'],
  ],
  TEST_DATA.map(([id, num, text]) => [id, num, text, tsOf(id)]),
);

beforeAll(async () => {
  registerSqlConnectors(externalSqlConnectors);
  registerValuesConnector();
  await freshSchema(SCHEMA);
});

afterAll(() => cleanup(SCHEMA, []));

describe('JdbcDynamicTableSinkITCase', () => {
  it('testUpsert: a GROUP BY of a GROUP BY, upserted and deleted by the key', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.dynamicSinkForUpsert (cnt BIGINT NOT NULL,
      lencnt BIGINT NOT NULL, cTag INT NOT NULL, ts TIMESTAMP, PRIMARY KEY (cnt, cTag))`);
    await insert(`${TEST_DATA_VIEW}
      CREATE TABLE upsertSink (cnt BIGINT NOT NULL, lencnt BIGINT NOT NULL, cTag INT NOT NULL,
        ts TIMESTAMP(3), PRIMARY KEY (cnt, cTag) NOT ENFORCED)
      WITH (${jdbc('dynamicSinkForUpsert', "'sink.buffer-flush.max-rows' = '2'", "'sink.buffer-flush.interval' = '0'", "'sink.max-retries' = '0'")});
      INSERT INTO upsertSink
        SELECT cnt, COUNT(len) AS lencnt, cTag, MAX(ts) AS ts
        FROM (
          SELECT len, COUNT(id) as cnt, cTag, MAX(ts) AS ts
          FROM (SELECT id, CHAR_LENGTH(text) AS len, (CASE WHEN id > 0 THEN 1 ELSE 0 END) cTag, ts FROM testData)
          GROUP BY len, cTag
        )
        GROUP BY cnt, cTag;`);
    const rows = await sql(
      `SELECT cnt::text, lencnt::text, ctag, ${TS_TEXT} FROM ${SCHEMA}.dynamicSinkForUpsert ORDER BY cnt`,
    );
    expect(rows).toEqual([
      { cnt: '1', lencnt: '5', ctag: 1, ts: tsOf(6) },
      { cnt: '7', lencnt: '1', ctag: 1, ts: tsOf(21) },
      { cnt: '9', lencnt: '1', ctag: 1, ts: tsOf(15) },
    ]);
  });

  it('testAppend: a table without a key gets plain INSERTs', async () => {
    await sql(
      `CREATE TABLE ${SCHEMA}.dynamicSinkForAppend (id INT NOT NULL, num BIGINT NOT NULL, ts TIMESTAMP)`,
    );
    await insert(`${TEST_DATA_VIEW}
      CREATE TABLE appendSink (id INT NOT NULL, num BIGINT NOT NULL, ts TIMESTAMP(3))
      WITH (${jdbc('dynamicSinkForAppend')});
      INSERT INTO appendSink SELECT id, num, ts FROM testData WHERE id IN (2,10,20);`);
    const rows = await sql(
      `SELECT id, num::text, ${TS_TEXT} FROM ${SCHEMA}.dynamicSinkForAppend ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 2, num: '2', ts: tsOf(2) },
      { id: 10, num: '4', ts: tsOf(10) },
      { id: 20, num: '6', ts: tsOf(20) },
    ]);
    // Append-only, as Flink's sink without a key: an updating query is refused when planned.
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    expect(() =>
      tEnv.executeSql(`${TEST_DATA_VIEW}
        CREATE TABLE appendSink (id INT NOT NULL, num BIGINT NOT NULL, ts TIMESTAMP(3))
        WITH (${jdbc('dynamicSinkForAppend')});
        INSERT INTO appendSink SELECT id, COUNT(*), MAX(ts) FROM testData GROUP BY id;`),
    ).toThrow("connector 'jdbc' accepts only inserts");
  });

  it('testBatchSink: duplicate rows are all appended', async () => {
    await sql(
      `CREATE TABLE ${SCHEMA}.dynamicSinkForBatch (NAME VARCHAR(20) NOT NULL, SCORE BIGINT NOT NULL)`,
    );
    await insert(`
      CREATE TABLE batchSink (NAME VARCHAR(20) NOT NULL, SCORE BIGINT NOT NULL)
      WITH (${jdbc('dynamicSinkForBatch', "'sink.buffer-flush.max-rows' = '2'", "'sink.buffer-flush.interval' = '300ms'", "'sink.max-retries' = '4'")});
      INSERT INTO batchSink
        SELECT user_name, score
        FROM (VALUES (1, 'Bob'), (22, 'Tom'), (42, 'Kim'), (42, 'Kim'), (1, 'Bob'))
        AS UserCountTable(score, user_name);`);
    const rows = await sql(
      `SELECT name, score::text FROM ${SCHEMA}.dynamicSinkForBatch ORDER BY name, score`,
    );
    expect(rows.map((r) => `${r.name},${r.score}`)).toEqual([
      'Bob,1',
      'Bob,1',
      'Kim,42',
      'Kim,42',
      'Tom,22',
    ]);
  });

  it('testReal: a FLOAT into a REAL column', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.REAL_TABLE (real_data REAL)`);
    await insert(`
      CREATE TABLE realSink (real_data FLOAT) WITH (${jdbc('REAL_TABLE')});
      INSERT INTO realSink SELECT CAST(1.0 as FLOAT);`);
    expect(await sql(`SELECT real_data FROM ${SCHEMA}.real_table`)).toEqual([{ real_data: 1 }]);
  });

  it('testReadingFromChangelogSource: a retract changelog into a keyed table', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.USER_TABLE (user_id VARCHAR(20) NOT NULL PRIMARY KEY,
      user_name VARCHAR(20) NOT NULL, email VARCHAR(255), balance DECIMAL(18, 2),
      balance2 DECIMAL(18, 2))`);
    // TestData.userChangelog; a DECIMAL(18, 2) holds its unscaled value.
    const dataId = registerValues([
      ['+I', 'user1', 'Tom', 'tom@gmail.com', 1002n],
      ['+I', 'user2', 'Jack', 'jack@hotmail.com', 7120n],
      ['-U', 'user1', 'Tom', 'tom@gmail.com', 1002n],
      ['+U', 'user1', 'Tom', 'tom123@gmail.com', 810n],
      ['+I', 'user3', 'Bailey', 'bailey@gmail.com', 999n],
      ['-D', 'user2', 'Jack', 'jack@hotmail.com', 7120n],
      ['+I', 'user4', 'Tina', 'tina@gmail.com', 1130n],
      ['-U', 'user3', 'Bailey', 'bailey@gmail.com', 999n],
      ['+U', 'user3', 'Bailey', 'bailey@qq.com', 999n],
    ]);
    await insert(`
      CREATE TABLE user_logs (user_id STRING, user_name STRING, email STRING,
        balance DECIMAL(18,2), balance2 AS balance * 2)
      WITH ('connector' = 'flink-values', 'data-id' = '${dataId}', 'changelog-mode' = 'I,UA,UB,D');
      CREATE TABLE user_sink (user_id VARCHAR(20) NOT NULL, user_name VARCHAR(20) NOT NULL,
        email VARCHAR(255), balance DECIMAL(18, 2), balance2 DECIMAL(18, 2),
        PRIMARY KEY (user_id) NOT ENFORCED)
      WITH (${jdbc('USER_TABLE', "'sink.buffer-flush.max-rows' = '2'", "'sink.buffer-flush.interval' = '0'")});
      INSERT INTO user_sink SELECT * FROM user_logs;`);
    const rows = await sql(`SELECT * FROM ${SCHEMA}.user_table ORDER BY user_id`);
    expect(rows.map((r) => Object.values(r).join(','))).toEqual([
      'user1,Tom,tom123@gmail.com,8.10,16.20',
      'user3,Bailey,bailey@qq.com,9.99,19.98',
      'user4,Tina,tina@gmail.com,11.30,22.60',
    ]);
  });

  it('buffered flush: rows reach the table while the job runs, by max-rows or the interval', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.checkpointTable (id BIGINT NOT NULL)`);
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
    const job = tEnv.executeSql(`
      CREATE TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '20',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000');
      CREATE TABLE checkpointTable (id BIGINT NOT NULL)
      WITH (${jdbc('checkpointTable', "'sink.buffer-flush.max-rows' = '2'", "'sink.buffer-flush.interval' = '1s'")});
      INSERT INTO checkpointTable SELECT id FROM ids;`).job;
    try {
      await until(
        async () => (await sql(`SELECT 1 FROM ${SCHEMA}.checkpointtable`)).length >= 5,
        10_000,
        'rows in the table while the job runs',
      );
      const ids = (
        await sql(`SELECT id::int AS id FROM ${SCHEMA}.checkpointtable ORDER BY id`)
      ).map((r) => r.id as number);
      expect(ids).toEqual(ids.map((_, i) => i + 1));
    } finally {
      await job?.cancel();
    }
  });
});

/** PostgresDynamicTableSourceITCase's table and rows. */
const SOURCE_COLUMNS = `id BIGINT NOT NULL, uid_col STRING NOT NULL, decimal_col DECIMAL(10, 4),
  timestamp6_col TIMESTAMP(6), real_col FLOAT, double_col DOUBLE, time_col TIME`;
const ROW_1 =
  '1,123e4567-e89b-12d3-a456-426614174000,100.1234,2020-01-01T15:35:00.123456,1.175E-37,1.79769E308,15:35';
const ROW_2 =
  '2,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,101.1234,2020-01-01T15:36:01.123456,-1.175E-37,-1.79769E308,15:36:01';

describe('JdbcDynamicTableSourceITCase', () => {
  beforeAll(async () => {
    await sql(`CREATE TABLE ${SCHEMA}.jdbDynamicTableSource (id BIGINT NOT NULL,
      uid_col uuid NOT NULL, decimal_col DECIMAL(10, 4), timestamp6_col TIMESTAMP(6),
      real_col REAL, double_col DOUBLE PRECISION, time_col TIME)`);
    await sql(`INSERT INTO ${SCHEMA}.jdbDynamicTableSource VALUES
      (1, '123e4567-e89b-12d3-a456-426614174000', 100.1234, '2020-01-01T15:35:00.123456', 1.175E-37, 1.79769E308, '15:35'),
      (2, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 101.1234, '2020-01-01T15:36:01.123456', -1.175E-37, -1.79769E308, '15:36:01')`);
  });

  const testTable = (name: string, ...options: string[]) =>
    `CREATE TABLE ${name} (${SOURCE_COLUMNS}) WITH (${jdbc('jdbDynamicTableSource', ...options)});`;
  const partitioned = (lower: number, upper: number, num = 2) => [
    "'scan.partition.column' = 'id'",
    `'scan.partition.num' = '${num}'`,
    `'scan.partition.lower-bound' = '${lower}'`,
    `'scan.partition.upper-bound' = '${upper}'`,
  ];

  it('testJdbcSource: every row and type as written', async () => {
    expect(
      await scenarioRows(testTable('testTable'), 'SELECT * FROM testTable', { parallelism: 1 }),
    ).toEqual([ROW_1, ROW_2]);
  });

  it('testProject and testLimit: partitioned scans', async () => {
    const [project, limit] = await runScenario(
      `${testTable('testTable', ...partitioned(0, 100))}
       ${testTable('limitTable', ...partitioned(1, 2))}`,
      ['SELECT id, uid_col, decimal_col FROM testTable', 'SELECT * FROM limitTable LIMIT 1'],
      { parallelism: 2 },
    );
    expect(project?.rows).toEqual([
      '1,123e4567-e89b-12d3-a456-426614174000,100.1234',
      '2,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,101.1234',
    ]);
    expect(limit?.rows).toHaveLength(1);
    expect([ROW_1, ROW_2]).toContain(limit?.rows[0]);
  });

  it('testFilter: filters on a view of the table and on a partitioned table', async () => {
    const policies = ['ALWAYS', 'NEVER'];
    const queries = [
      'SELECT * FROM FAKE_TABLE WHERE idx = 1',
      "SELECT * FROM FAKE_TABLE WHERE timestamp6_col > TIMESTAMP '2020-01-01 15:35:00' AND timestamp6_col < TIMESTAMP '2020-01-01 15:35:01'",
      'SELECT * FROM FAKE_TABLE WHERE 1 = idx AND decimal_col IN (100.1234, 101.1234)',
      'SELECT * FROM FAKE_TABLE WHERE idx = 1 AND decimal_col = 100.1234 OR decimal_col = 101.1234',
      'SELECT * FROM FAKE_TABLE WHERE (2 = idx AND decimal_col = 100.1234) OR decimal_col = 101.1234',
      'SELECT * FROM FAKE_TABLE WHERE idx = 2 AND decimal_col > 100 OR decimal_col = 101.123',
      'SELECT * FROM FAKE_TABLE WHERE 2 = idx AND (decimal_col = 100.1234 OR decimal_col = 102.1234)',
      ...policies.flatMap((p) => [
        `SELECT * FROM PARTITIONED_${p} WHERE id = 2 AND decimal_col > 100 OR decimal_col = 101.123`,
        `SELECT * FROM PARTITIONED_${p} WHERE 1 = id AND decimal_col IN (100.1234, 101.1234)`,
      ]),
    ];
    const results = await runScenario(
      `${testTable('testTable')}
       ${policies.map((p) => testTable(`PARTITIONED_${p}`, ...partitioned(1, 1, 1), `'filter.handling.policy' = '${p}'`)).join('\n')}
       CREATE VIEW FAKE_TABLE (idx, uid_col, decimal_col, timestamp6_col, real_col, double_col, time_col)
         AS (SELECT * from testTable);`,
      queries,
      { parallelism: 1 },
    );
    expect(results.map((r) => r.rows)).toEqual([
      [ROW_1],
      [ROW_1],
      [ROW_1],
      [ROW_1, ROW_2],
      [ROW_2],
      [ROW_2],
      [],
      [],
      [ROW_1],
      [],
      [ROW_1],
    ]);
  });

  for (const [caching, options] of [
    ['DISABLE_CACHE', []],
    ['ENABLE_CACHE', ["'lookup.cache.max-rows' = '100'", "'lookup.cache.ttl' = '10min'"]],
  ] as const) {
    it(`testLookupJoin and its filters (${caching})`, async () => {
      const names = registerValues([
        [1, 'Alice'],
        [1, 'Alice'],
        [2, 'Bob'],
        [3, 'Charlie'],
      ]);
      const nicknames = registerValues([
        [1, 'Alice', 'ABC'],
        [1, 'Alice', 'ADD'],
        [2, 'Bob', 'BGH'],
        [3, 'Charlie', 'CHJ'],
      ]);
      const join = (columns: string, condition: string) =>
        `SELECT ${columns}, D.id, D.timestamp6_col, D.decimal_col FROM ${columns.includes('nickname') ? 'nick_source' : 'value_source'}
         AS S JOIN jdbc_lookup for system_time as of S.proctime AS D ON S.id = D.id${condition}`;
      const results = await runScenario(
        `${testTable('jdbc_lookup', ...options)}
         CREATE TABLE value_source (id BIGINT, name STRING, proctime AS PROCTIME())
           WITH ('connector' = 'flink-values', 'data-id' = '${names}');
         CREATE TABLE nick_source (id BIGINT, name STRING, nickname STRING, proctime AS PROCTIME())
           WITH ('connector' = 'flink-values', 'data-id' = '${nicknames}');`,
        [
          join('S.id, S.name', ''),
          join('S.id, S.name', " AND S.name = 'Bob'"),
          join('S.id, S.name, S.nickname', " AND S.name = 'Alice' AND S.nickname = 'ADD'"),
          join('S.id, S.name, S.nickname', " AND S.name LIKE 'Al%' AND S.nickname = 'ABC' "),
          join('S.id, S.name, S.nickname', " AND (S.name = 'Bob' OR S.nickname = 'ABC')"),
        ],
        { parallelism: 1 },
      );
      const alice = '1,2020-01-01T15:35:00.123456,100.1234';
      const bob = '2,2020-01-01T15:36:01.123456,101.1234';
      expect(results.map((r) => r.rows)).toEqual([
        [`1,Alice,${alice}`, `1,Alice,${alice}`, `2,Bob,${bob}`],
        [`2,Bob,${bob}`],
        [`1,Alice,ADD,${alice}`],
        [`1,Alice,ABC,${alice}`],
        [`1,Alice,ABC,${alice}`, `2,Bob,BGH,${bob}`],
      ]);
    });
  }
});

describe('JdbcLookupTableITCase', () => {
  beforeAll(async () => {
    await sql(`CREATE TABLE ${SCHEMA}.lookup_table (id1 INT NOT NULL DEFAULT 0,
      id2 VARCHAR(20) NOT NULL, comment1 VARCHAR(1000), comment2 VARCHAR(1000))`);
    await sql(`INSERT INTO ${SCHEMA}.lookup_table (id1, id2, comment1, comment2) VALUES
      (1, '1', '11-c1-v1', '11-c2-v1'), (1, '1', '11-c1-v2', '11-c2-v2'), (2, '3', null, '23-c2'),
      (2, '5', '25-c1', '25-c2'), (3, '8', '38-c1', '38-c2')`);
  });

  for (const [cache, options] of [
    ['no cache', []],
    ['a cache', ["'lookup.cache.max-rows'='4'", "'lookup.cache.ttl'='10000'"]],
  ] as const) {
    it(`testLookup: two key columns, several rows of a key (${cache})`, async () => {
      const t = registerValues([
        [1, '1'],
        [1, '1'],
        [2, '3'],
        [2, '5'],
        [3, '5'],
        [3, '8'],
      ]);
      const withNull = registerValues([
        [1, null],
        [2, '5'],
      ]);
      const [inner, left] = await runScenario(
        `CREATE TABLE T (id1 INT, id2 STRING, proctime AS PROCTIME())
           WITH ('connector' = 'flink-values', 'data-id' = '${t}');
         CREATE TABLE T_NULL (id1 INT, id2 STRING, proctime AS PROCTIME())
           WITH ('connector' = 'flink-values', 'data-id' = '${withNull}');
         create table lookup (id1 INT, comment1 VARCHAR, comment2 VARCHAR, id2 VARCHAR)
           with (${jdbc('lookup_table', "'lookup.max-retries' = '0'", ...options)});`,
        [
          `SELECT source.id1, source.id2, L.comment1, L.comment2 FROM T AS source
           JOIN lookup for system_time as of source.proctime AS L
           ON source.id1 = L.id1 and source.id2 = L.id2`,
          `SELECT source.id1, source.id2, L.comment1 FROM T_NULL AS source
           LEFT JOIN lookup for system_time as of source.proctime AS L
           ON source.id1 = L.id1 and source.id2 = L.id2`,
        ],
        { parallelism: 1 },
      );
      expect(inner?.rows).toEqual([
        '1,1,11-c1-v1,11-c2-v1',
        '1,1,11-c1-v1,11-c2-v1',
        '1,1,11-c1-v2,11-c2-v2',
        '1,1,11-c1-v2,11-c2-v2',
        '2,3,null,23-c2',
        '2,5,25-c1,25-c2',
        '3,8,38-c1,38-c2',
      ]);
      expect(left?.rows).toEqual(['1,null,null', '2,5,25-c1']);
    });
  }
});

/** PostgresDialectTest's valid types, the PostgreSQL column each is stored in, and a value. */
const VALID_TYPES: readonly (readonly [string, string, string])[] = [
  ['CHAR', 'CHAR(1)', "'a'"],
  ['VARCHAR', 'VARCHAR', "'text'"],
  ['BOOLEAN', 'BOOLEAN', 'TRUE'],
  ['TINYINT', 'SMALLINT', 'CAST(-7 AS TINYINT)'],
  ['SMALLINT', 'SMALLINT', 'CAST(300 AS SMALLINT)'],
  ['INTEGER', 'INTEGER', '-70000'],
  ['BIGINT', 'BIGINT', '9007199254740993'],
  ['FLOAT', 'REAL', 'CAST(1.5 AS FLOAT)'],
  ['DOUBLE', 'DOUBLE PRECISION', 'CAST(2.25 AS DOUBLE)'],
  ['DECIMAL(10, 4)', 'DECIMAL(10, 4)', '123456.7891'],
  [
    'DECIMAL(38, 18)',
    'DECIMAL(38, 18)',
    'CAST(12345678901234567890.123456789012345678 AS DECIMAL(38, 18))',
  ],
  ['DATE', 'DATE', "DATE '2024-02-29'"],
  ['TIME', 'TIME', "TIME '23:59:58'"],
  ['TIMESTAMP(3)', 'TIMESTAMP(3)', "TIMESTAMP '2024-01-02 03:04:05.678'"],
  ['TIMESTAMP WITHOUT TIME ZONE', 'TIMESTAMP', "TIMESTAMP '2024-01-02 03:04:05.123456'"],
  ['VARBINARY', 'BYTEA', "X'00ff10'"],
  ['ARRAY<INTEGER>', 'INTEGER[]', 'ARRAY[1, 2, 3]'],
];

describe('PostgresDialectTest', () => {
  it('testData: each valid type written and read back, and a NULL of each', async () => {
    const columns = VALID_TYPES.map(([flink], i) => `f${i} ${flink}`).join(', ');
    await sql(
      `CREATE TABLE ${SCHEMA}.dialect_types (id INT, ${VALID_TYPES.map(([, pg], i) => `f${i} ${pg}`).join(', ')})`,
    );
    await insert(`
      CREATE TABLE types_sink (id INT, ${columns}) WITH (${jdbc('dialect_types')});
      INSERT INTO types_sink VALUES (1, ${VALID_TYPES.map(([, , v]) => v).join(', ')}),
        (2, ${VALID_TYPES.map(([flink]) => `CAST(NULL AS ${flink})`).join(', ')});`);
    const rows = await scenarioRows(
      `CREATE TABLE types_source (id INT, ${columns}) WITH (${jdbc('dialect_types', "'scan.fetch-size' = '1'")});`,
      'SELECT * FROM types_source',
      { parallelism: 1 },
    );
    expect(rows).toEqual([
      "1,a,text,true,-7,300,-70000,9007199254740993,1.5,2.25,123456.7891,12345678901234567890.123456789012345678,2024-02-29,23:59:58,2024-01-02T03:04:05.678,2024-01-02T03:04:05.123456,x'00ff10',[1, 2, 3]",
      `2${',null'.repeat(VALID_TYPES.length)}`,
    ]);
  });

  it('testData: the invalid types are refused, naming them', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    const refused: readonly (readonly [string, string])[] = [
      ['BINARY', "The PostgreSQL dialect doesn't support type: BINARY(1)."],
      ['VARBINARY(10)', "The PostgreSQL dialect doesn't support type: VARBINARY(10)."],
      [
        'TIMESTAMP(9) WITHOUT TIME ZONE',
        "The precision of field 'f0' is out of the TIMESTAMP precision range [0, 6] supported by PostgreSQL dialect.",
      ],
      ['TIMESTAMP_LTZ(3)', 'Unsupported type:TIMESTAMP_LTZ(3)'],
    ];
    for (const [type, message] of refused)
      expect(() =>
        tEnv.executeSql(`CREATE TABLE t (f0 ${type}) WITH (${jdbc('dialect_types')})`),
      ).toThrow(message);
  });
});
