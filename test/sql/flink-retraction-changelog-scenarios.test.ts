/**
 * Retractions, changelog sources and time attributes: the SQL scenarios of Flink's
 * [R] flink-table-planner/.../runtime/stream/table/RetractionITCase.scala (Table API queries,
 * written here in SQL; Flink has no stream/sql RetractionITCase) and the OVER refusals of its
 * legacy-planner version (flink-table/.../runtime/stream/table/RetractionITCase.scala),
 * [C] .../runtime/stream/sql/ChangelogSourceITCase.scala, [T] .../runtime/stream/sql/
 * TimeAttributeITCase.scala, and [A] TimeAttributesITCase: the legacy planner's
 * (flink-table-planner/.../table/runtime/stream/TimeAttributesITCase.scala, Table API cases in
 * SQL) and the blink planner's stream/sql one (testAggregationOnTimeAttribute). Flink's data and
 * expected rows; changelog inputs through the values connector (`test/sql/flink-values-connector`,
 * its `changelog-mode`), DECIMALs as unscaled bigints, TIMESTAMP(3)s as epoch ms.
 *
 * Ported: [R] testWordCount, testGroupByAndNonKeyedGroupBy, testNonKeyedGroupByAndGroupBy,
 * testCorrelate (TableFunc0 as a TypeScript table function), testUniqueProcess (its raw retract
 * messages: an aggregate that does not change emits nothing), and the legacy version's
 * testGroupByAndUnboundPartitionedProcessingWindowWithRow,
 * testGroupByAndUnboundNonPartitionedProcessingWindowWithRow, testBoundedOverWindow (refused: an
 * OVER aggregation over an updating GROUP BY). [C] testToRetractStream, testToUpsertSink,
 * testAggregate, testAggregateToUpsertSink, testGroupByNonPrimaryKey, testFilter,
 * testRegularJoin for each of Flink's source modes (CHANGELOG, CHANGELOG_WITH_EVENTS_DUP with
 * mini-batch, UPSERT with and without mini-batch, NO_UPDATE), testFilterPushedDownOnNonUpsertKey,
 * testJoinWithNonEquivConditionOnNonUpsertKey, testJoinWithNonEquivConditionOnRightNonUpsertKey.
 * [T] testWindowAggregateOnWatermark, testWindowAggregateOnTimestampLtzWatermark,
 * testWindowAggregateOnCustomizedWatermark (JavaFunc5 as a TypeScript function),
 * testWindowAggregateOnComputedRowtime. [A] testAtomicType1, testAtomicType2,
 * testCalcMaterialization, testCalcMaterialization2, testTableSink (its query), testTableFunction,
 * testWindowAfterTableFunction, testUnion, testWindowWithAggregationOnRowtimeSql, testMultiWindow,
 * testMultiWindowSqlNoAggregation, testMultiWindowSqlWithAggregation,
 * testMultiWindowSqlWithAggregation2, testCalcMaterializationWithPojoType (its rows),
 * testTableSourceWithTimeIndicators, testSqlWindowRowtime, testMaterializedRowtimeFilter,
 * testRegisterTableWithWatermark (its rows), testAggregationOnTimeAttribute. Plus where a time
 * attribute survives (a view renaming it, a UNION ALL) and where it stops being one (a cast, an
 * expression, an aggregate, a regular join), as Flink's planner decides it.
 *
 * Adapted (deliberate Weir differences): Flink writes the [C] results to upsert sinks (`ON
 * CONFLICT DO DEDUPLICATE`, a clause Weir lacks) or reads them with toRetractStream, which makes
 * the planner add update-befores; Weir's toChangelogStream gives an upsert query's changelog as
 * it is, so the final rows here apply each change by the upsert key. Weir's upsert sources take
 * +I/+U/-D only, so the -U of CHANGELOG_WITH_EVENTS_DUP (declared 'UA,D' in Flink, whose
 * normalization takes a -U as a delete of its key) are given as -D, and Weir needs no
 * `table.exec.source.cdc-events-duplicate`: an upsert source is always normalized by its key.
 * Flink refuses casts between TIMESTAMP_LTZ and numbers (FLINK-21978), as Weir does, and a
 * TIMESTAMP to a number: the filters `CAST(proctime AS BIGINT) > 0` and `CAST(rowtime AS
 * BIGINT) > 4` of the legacy-planner tests are `proctime > TO_TIMESTAMP_LTZ(0, 3)` and a
 * comparison with a TIMESTAMP literal. Time cells are compared in one form (`normalized`):
 * Flink's tests print java.sql.Timestamp (`00:00:01.0`) or LocalDateTime (`T00:00:01`) text.
 * Flink's punctuated watermark equal to each row's timestamp is `WATERMARK FOR rowtime AS
 * rowtime`.
 *
 * Not ported: [C] testFilterPushedDownOnNonUpsertKey's refusal under CHANGELOG_WITH_EVENTS_DUP
 * with mini-batch (a limit of Flink's planner Weir does not have), and the sinks' options
 * `'sink-changelog-mode-enforced'`, `'filterable-fields'` (Weir's test connector has neither;
 * the queries' final rows are what those tests check). Flink's state-backend parameters (Weir
 * has one state backend). [A] testPojoSupport and testRowtimeWithBaseRowSupport (POJO and
 * BinaryRow DataStreams), testRegisterTableWithWatermark's stream-graph node count and watermark
 * of each row read in a ProcessFunction, the newer stream/table TimeAttributesITCase
 * (testMissingTimeAttributeInLegacySourceThrowsCorrectException, a SourceFunction;
 * testTimestampAttributesWithWatermarkStrategy, a rowtime read from the DataStream records'
 * timestamps through a metadata column, which Weir's fromDataStream does not offer). A UNION ALL
 * of a rowtime and a plain TIMESTAMP is not checked: Weir reads it as a plain TIMESTAMP where
 * Flink refuses it. AggregateRemoveITCase: already ported, in flink-values-prune-scenarios.
 *
 * Bugs found: none; every ported case gives Flink's rows without a change to Weir.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  defineScalarFunction,
  defineTableFunction,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import {
  flinkText,
  runScenario,
  type ScenarioOptions,
  sorted,
  valuesView,
} from './flink-scenario-runner.js';
import {
  registerValues,
  registerValuesConnector,
  type ValuesChange,
} from './flink-values-connector.js';
import { normalized } from './flink-window-data.js';

beforeAll(registerValuesConnector);

// ---------------------------------------------------------------------------------------------
// RetractionITCase

/** RetractionITCase's `data`: (word, num). */
const WORDS = valuesView(
  'T',
  [
    ['word', 'STRING'],
    ['num', 'INT'],
  ],
  [
    ['Hello', 1],
    ['word', 1],
    ['Hello', 1],
    ['bark', 1],
    ['bark', 1],
    ['bark', 1],
    ['bark', 1],
    ['bark', 1],
    ['bark', 1],
    ['flink', 1],
  ],
);

/** Flink's TableFunc0: a `name#age` text as (name, age); other text gives no row. */
const tableFunc0 = defineTableFunction({
  arguments: ['STRING'],
  result: 'ROW<name STRING, age INT>',
  eval: function* (s: string | null) {
    if (s === null || !s.includes('#')) return;
    const [name, age] = s.split('#');
    yield [name, Number(age)];
  },
});

/** A retract stream's messages as Flink's TestingRetractSink's raw results print them. */
const raw = (changes: readonly string[]) =>
  changes.map((c) => `(${c.startsWith('+') ? 'true' : 'false'},${c.slice(3, -1)})`).sort();

describe("Flink's RetractionITCase (its Table API queries in SQL)", () => {
  it('testWordCount, testGroupByAndNonKeyedGroupBy, testNonKeyedGroupByAndGroupBy, testCorrelate', async () => {
    const [wordCount, keyedThenGlobal, globalThenKeyed, correlate] = await runScenario(
      WORDS,
      [
        `SELECT cnt, COUNT(cnt) AS frequency
          FROM (SELECT word, SUM(num) AS cnt FROM T GROUP BY word) GROUP BY cnt`,
        'SELECT SUM(cnt) FROM (SELECT word, SUM(num) AS cnt FROM T GROUP BY word)',
        'SELECT cnt, COUNT(cnt) FROM (SELECT SUM(num) AS cnt FROM T) GROUP BY cnt',
        `SELECT cnt, COUNT(word) AS frequency FROM (SELECT word, SUM(num) AS cnt FROM T GROUP BY word)
          LEFT JOIN LATERAL TABLE(func0(word)) AS f(name, age) ON TRUE GROUP BY cnt`,
      ],
      { tables: (_, tEnv) => tEnv.createTemporarySystemFunction('func0', tableFunc0) },
    );
    expect(wordCount?.rows).toEqual(sorted(['1,2', '2,1', '6,1']));
    expect(keyedThenGlobal?.rows).toEqual(['10']);
    expect(globalThenKeyed?.rows).toEqual(['10,1']);
    expect(correlate?.rows).toEqual(sorted(['1,2', '2,1', '6,1']));
  });

  it('testUniqueProcess: an aggregate that does not change sends nothing', async () => {
    const data = valuesView(
      'T',
      [
        ['pk', 'INT'],
        ['value', 'BIGINT'],
      ],
      [
        [1, 1],
        [2, 2],
        [3, 3],
        [3, 3],
        [4, 1],
        [4, 0],
        [4, 0],
        [4, 0],
        [5, 1],
        [6, 6],
        [6, 6],
        [6, 6],
        [7, 8],
      ],
    );
    const [result] = await runScenario(data, [
      `SELECT \`sum\`, COUNT(pk) AS \`count\`
        FROM (SELECT pk, SUM(\`value\`) AS \`sum\` FROM T GROUP BY pk) GROUP BY \`sum\``,
    ]);
    expect(raw(result?.changes ?? [])).toEqual(
      sorted([
        '(true,1,1)',
        '(true,2,1)',
        '(true,3,1)',
        '(false,3,1)',
        '(true,6,1)',
        '(false,1,1)',
        '(true,1,2)',
        '(false,1,2)',
        '(true,1,3)',
        '(false,6,1)',
        '(true,6,2)',
        '(false,6,2)',
        '(true,6,1)',
        '(true,12,1)',
        '(false,12,1)',
        '(true,18,1)',
        '(true,8,1)',
      ]),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// ChangelogSourceITCase

type Kind = ValuesChange[0];
/** A `(kind, user_id, user_name, email, balance)` change, the balance as its text. */
type UserChange = readonly [Kind, string, string, string, string];

/** TestData.userChangelog. */
const USER_CHANGELOG: readonly UserChange[] = [
  ['+I', 'user1', 'Tom', 'tom@gmail.com', '10.02'],
  ['+I', 'user2', 'Jack', 'jack@hotmail.com', '71.2'],
  ['-U', 'user1', 'Tom', 'tom@gmail.com', '10.02'],
  ['+U', 'user1', 'Tom', 'tom123@gmail.com', '8.1'],
  ['+I', 'user3', 'Bailey', 'bailey@gmail.com', '9.99'],
  ['-D', 'user2', 'Jack', 'jack@hotmail.com', '71.2'],
  ['+I', 'user4', 'Tina', 'tina@gmail.com', '11.3'],
  ['-U', 'user3', 'Bailey', 'bailey@gmail.com', '9.99'],
  ['+U', 'user3', 'Bailey', 'bailey@qq.com', '9.99'],
];

/** TestData.userUpsertlog. */
const USER_UPSERTLOG: readonly UserChange[] = [
  ['+U', 'user1', 'Tom', 'tom@gmail.com', '10.02'],
  ['+U', 'user2', 'Jack', 'jack@hotmail.com', '71.2'],
  ['+U', 'user1', 'Tom', 'tom123@gmail.com', '8.1'],
  ['+U', 'user3', 'Bailey', 'bailey@gmail.com', '9.99'],
  ['-D', 'user2', 'Jack', 'jack@hotmail.com', '71.2'],
  ['+U', 'user4', 'Tina', 'tina@gmail.com', '11.3'],
  ['+U', 'user3', 'Bailey', 'bailey@qq.com', '9.99'],
];

/** The changelog with CDC duplicates of registerChangelogSourceWithEventsDuplicate. */
const USER_CHANGELOG_DUPLICATES: readonly UserChange[] = [
  ['+I', 'user1', 'Tom', 'tom@gmail.com', '10.02'],
  ['+I', 'user2', 'Jack', 'jack@hotmail.com', '71.2'],
  ['+I', 'user2', 'Jack', 'jack@hotmail.com', '71.2'],
  ['-U', 'user1', 'Tom', 'tom@gmail.com', '10.02'],
  ['+U', 'user1', 'Tom', 'tom123@gmail.com', '8.1'],
  ['-U', 'user1', 'Tom', 'tom@gmail.com', '10.02'],
  ['+U', 'user1', 'Tom', 'tom123@gmail.com', '8.1'],
  ['+I', 'user3', 'Bailey', 'bailey@gmail.com', '9.99'],
  ['-D', 'user2', 'Jack', 'jack@hotmail.com', '71.2'],
  ['-D', 'user2', 'Jack', 'jack@hotmail.com', '71.2'],
  ['+I', 'user4', 'Tina', 'tina@gmail.com', '11.3'],
  ['-U', 'user3', 'Bailey', 'bailey@gmail.com', '9.99'],
  ['+U', 'user3', 'Bailey', 'bailey@qq.com', '9.99'],
];

type RateChange = readonly [Kind, string, number];
/** TestData.ratesHistoryData. */
const RATES_HISTORY: readonly RateChange[] = [
  ['+I', 'US Dollar', 102],
  ['+I', 'Euro', 114],
  ['+I', 'Yen', 1],
  ['-U', 'Euro', 114],
  ['+U', 'Euro', 116],
  ['-U', 'Euro', 116],
  ['+U', 'Euro', 119],
  ['-D', 'Yen', 1],
];
/** TestData.ratesUpsertData. */
const RATES_UPSERT: readonly RateChange[] = [
  ['+U', 'US Dollar', 102],
  ['+U', 'Euro', 114],
  ['+U', 'Yen', 1],
  ['+U', 'Euro', 116],
  ['+U', 'Euro', 119],
  ['-D', 'Yen', 1],
];
const RATES_DUPLICATES: readonly RateChange[] = [
  ['+I', 'US Dollar', 102],
  ['+I', 'Euro', 114],
  ['+I', 'Euro', 114],
  ['+I', 'Yen', 1],
  ['-U', 'Euro', 114],
  ['+U', 'Euro', 116],
  ['-U', 'Euro', 116],
  ['+U', 'Euro', 119],
  ['-U', 'Euro', 116],
  ['+U', 'Euro', 119],
  ['-D', 'Yen', 1],
  ['-D', 'Yen', 1],
];

/** A DECIMAL(18, 2) text as the unscaled bigint the values connector carries. */
const cents = (text: string): bigint => {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(2, '0'));
};

/** Flink's convertToNoUpdateData: -U as -D, +U as +I. */
const noUpdates = <T extends readonly [Kind, ...unknown[]]>(changes: readonly T[]): T[] =>
  changes.map((c) => {
    const kind: Kind = c[0] === '-U' ? '-D' : c[0] === '+U' ? '+I' : c[0];
    return [kind, ...c.slice(1)] as unknown as T;
  });

/** -U as -D: what a retraction in an upsert changelog means (Weir's upsert sources refuse -U). */
const retractionsAsDeletes = <T extends readonly [Kind, ...unknown[]]>(
  changes: readonly T[],
): T[] => changes.map((c) => (c[0] === '-U' ? (['-D', ...c.slice(1)] as unknown as T) : c));

interface SourceMode {
  readonly name: string;
  readonly users: readonly UserChange[];
  readonly rates: readonly RateChange[];
  readonly mode: string;
  /** The rates table's mode, when Flink spells it otherwise. */
  readonly ratesMode?: string;
  /** Whether the tables have a PRIMARY KEY (the upsert sources). */
  readonly keyed: boolean;
  /** SET statements (mini-batch). */
  readonly setup?: string;
}

const MINI_BATCH = `SET 'table.exec.mini-batch.enabled' = 'true';
  SET 'table.exec.mini-batch.allow-latency' = '1 h';
  SET 'table.exec.mini-batch.size' = '3';`;

/** Flink's parameters: the source mode, with mini-batch on or off. */
const SOURCE_MODES: readonly SourceMode[] = [
  {
    name: 'CHANGELOG',
    users: USER_CHANGELOG,
    rates: RATES_HISTORY,
    mode: 'I,UA,UB,D',
    ratesMode: 'I,UB,UA,D',
    keyed: false,
  },
  {
    name: 'CHANGELOG_WITH_EVENTS_DUP, MiniBatch=On',
    users: retractionsAsDeletes(USER_CHANGELOG_DUPLICATES),
    rates: retractionsAsDeletes(RATES_DUPLICATES),
    mode: 'UA,D',
    keyed: true,
    setup: MINI_BATCH,
  },
  { name: 'UPSERT', users: USER_UPSERTLOG, rates: RATES_UPSERT, mode: 'UA,D', keyed: true },
  {
    name: 'UPSERT, MiniBatch=On',
    users: USER_UPSERTLOG,
    rates: RATES_UPSERT,
    mode: 'UA,D',
    keyed: true,
    setup: MINI_BATCH,
  },
  {
    name: 'NO_UPDATE',
    users: noUpdates(USER_CHANGELOG),
    rates: noUpdates(RATES_HISTORY),
    mode: 'I,D',
    keyed: false,
  },
];

/** TestData.ordersData: (amount, currency). */
const ORDERS: readonly (readonly [number, string])[] = [
  [2, 'Euro'],
  [1, 'US Dollar'],
  [50, 'Yen'],
  [3, 'Euro'],
  [5, 'US Dollar'],
];

function changelogTables(m: SourceMode): string {
  const users = registerValues(
    m.users.map(([k, id, name, email, b]) => [k, id, name, email, cents(b)]),
  );
  const rates = registerValues(m.rates.map((r) => [...r]));
  const orders = registerValues(ORDERS.map((r) => [...r]));
  return `${m.setup ?? ''}
    CREATE TABLE orders (amount BIGINT, currency STRING)
      WITH ('connector' = 'flink-values', 'data-id' = '${orders}');
    CREATE TABLE users (
      user_id STRING, user_name STRING, email STRING, balance DECIMAL(18, 2),
      balance2 AS balance * 2${m.keyed ? ',\n      PRIMARY KEY (user_name, user_id) NOT ENFORCED' : ''}
    ) WITH ('connector' = 'flink-values-no-lookup', 'data-id' = '${users}', 'changelog-mode' = '${m.mode}');
    CREATE TABLE rates (currency STRING, rate BIGINT${m.keyed ? ', PRIMARY KEY (currency) NOT ENFORCED' : ''})
      WITH ('connector' = 'flink-values-no-lookup', 'data-id' = '${rates}', 'changelog-mode' = '${m.ratesMode ?? m.mode}');`;
}

const USERS = [
  'user1,Tom,tom123@gmail.com,8.10,16.20',
  'user3,Bailey,bailey@qq.com,9.99,19.98',
  'user4,Tina,tina@gmail.com,11.30,22.60',
];

/**
 * Each query's final rows, all in one job. An upsert result (Weir's toChangelogStream gives a
 * query's changelog as it is, where Flink's toRetractStream asks for update-befores) is applied
 * by its upsert key: a change replaces or deletes the row of its key.
 */
async function keyedRows(
  setup: string,
  queries: readonly string[],
): Promise<{ rows: string[]; changes: string[] }[]> {
  const env = new StreamEnvironment({ parallelism: 2 });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(setup);
  const runs = queries.map((sql) => {
    const table = tEnv.sqlQuery(sql);
    const changes = table.toChangelogStream();
    const sink = new CollectSink<Change<Row>>();
    changes.sinkTo(sink);
    return { table, sink, key: changes.mode === 'upsert' ? changes.upsertKey : undefined };
  });
  await env.execute('changelog sources');
  return runs.map(({ table, sink, key }) => {
    const rows = new Map<unknown, string[]>();
    for (const { kind, value } of sink.values) {
      const text = flinkText(table, value);
      const at = key === undefined ? text : key(value);
      const present = rows.get(at) ?? [];
      if (kind === '+I' || kind === '+U') {
        rows.set(at, key === undefined ? [...present, text] : [text]);
      } else if (key !== undefined) rows.delete(at);
      else {
        const i = present.indexOf(text);
        if (i < 0) throw new Error(`${kind} of a row never added: ${text}`);
        rows.set(
          at,
          present.filter((_, j) => j !== i),
        );
      }
    }
    return {
      rows: [...rows.values()].flat().sort(),
      changes: sink.values.map((c) => `${c.kind}(${flinkText(table, c.value)})`),
    };
  });
}

describe("Flink's ChangelogSourceITCase", () => {
  for (const m of SOURCE_MODES) {
    it(`Source=${m.name}: testToRetractStream, testToUpsertSink, testAggregate, testAggregateToUpsertSink, testGroupByNonPrimaryKey, testFilter, testRegularJoin`, async () => {
      const results = await keyedRows(changelogTables(m), [
        'SELECT * FROM users',
        'SELECT count(*), sum(balance), max(email) FROM users',
        `SELECT 'ALL', count(*), sum(balance), max(email) FROM users GROUP BY 'ALL'`,
        'SELECT balance2, count(*), max(email) FROM users GROUP BY balance2',
        'SELECT * FROM users WHERE balance > 9',
        `SELECT o.currency, o.amount, r.rate, o.amount * r.rate
          FROM orders AS o JOIN rates AS r ON o.currency = r.currency`,
      ]);
      const [all, aggregate, scoped, byBalance, filtered, joined] = results.map((r) => r.rows);
      expect(all).toEqual(sorted(USERS));
      if (m.keyed) {
        // testToUpsertSink: an upsert source's rows reach an upsert sink without update-befores.
        expect(results[0]?.changes.some((c) => c.startsWith('-U'))).toBe(false);
      }
      expect(aggregate).toEqual(['3,29.39,tom123@gmail.com']);
      expect(scoped).toEqual(['ALL,3,29.39,tom123@gmail.com']);
      expect(byBalance).toEqual(
        sorted(['16.20,1,tom123@gmail.com', '19.98,1,bailey@qq.com', '22.60,1,tina@gmail.com']),
      );
      expect(filtered).toEqual(
        sorted(['user3,Bailey,bailey@qq.com,9.99,19.98', 'user4,Tina,tina@gmail.com,11.30,22.60']),
      );
      expect(joined).toEqual(
        sorted(['Euro,2,119,238', 'Euro,3,119,357', 'US Dollar,1,102,102', 'US Dollar,5,102,510']),
      );
    });
  }

  it('testFilterPushedDownOnNonUpsertKey, testJoinWithNonEquivConditionOnNonUpsertKey, testJoinWithNonEquivConditionOnRightNonUpsertKey', async () => {
    const t = registerValues([
      ['+I', 1, 'tom', 1],
      ['-U', 1, 'tom', 1],
      ['+U', 1, 'tom', 2],
    ]);
    const t1 = registerValues([
      ['+I', 1, 10],
      ['-U', 1, 10],
      ['+U', 1, 20],
    ]);
    const t2 = registerValues([['+I', 1, 100]]);
    const r1 = registerValues([['+I', 1, 10]]);
    const r2 = registerValues([
      ['+I', 1, 100],
      ['-U', 1, 100],
      ['+U', 1, 200],
    ]);
    const table = (name: string, columns: string, id: string, mode: string) =>
      `CREATE TABLE ${name} (${columns}) WITH ('connector' = 'flink-values', 'data-id' = '${id}', 'changelog-mode' = '${mode}');`;
    const setup = [
      table('t', 'a INT PRIMARY KEY NOT ENFORCED, b VARCHAR, c INT', t, 'I,UA,UB,D'),
      table('t1', 'pk INT PRIMARY KEY NOT ENFORCED, val INT', t1, 'I,UA,UB,D'),
      table('t2', 'pk INT PRIMARY KEY NOT ENFORCED, val INT', t2, 'I'),
      table('r1', 'pk INT PRIMARY KEY NOT ENFORCED, val INT', r1, 'I'),
      table('r2', 'pk INT PRIMARY KEY NOT ENFORCED, val INT', r2, 'I,UA,UB'),
    ].join('\n');
    const results = await keyedRows(setup, [
      'SELECT * FROM t WHERE c < 2',
      'SELECT * FROM t1 JOIN t2 ON t1.pk = t2.pk AND t1.val < 15',
      'SELECT * FROM r1 JOIN r2 ON r1.pk = r2.pk AND r2.val < 150',
    ]);
    expect(results.map((r) => r.rows)).toEqual([[], [], []]);
  });
});

// ---------------------------------------------------------------------------------------------
// TimeAttributeITCase (DDL)

/** TimeAttributeITCase's `data`: log_ts, ts (its LocalDateTime), a, b. */
const DDL_DATA: readonly (readonly [number, number, number])[] = [
  [1, 1, 1],
  [2, 1, 2],
  [3, 1, 2],
  [4, 1, 5],
  [7, 1, 3],
  [8, 1, 3],
  [16, 1, 4],
];
const logTs = (ms: number) => `1970-01-01 00:00:00.${String(ms).padStart(3, '0')}`;

/** Flink's JavaFunc5: the timestamp minus `b` milliseconds. */
const myFunc = defineScalarFunction({
  arguments: ['TIMESTAMP(3)', 'INT'],
  result: 'TIMESTAMP(3)',
  eval: (ts: number | null, b: number | null) => (ts === null || b === null ? null : ts - b),
});

const WINDOW_EXPECTED = [
  '1970-01-01T00:00:00.003,2,3.0',
  '1970-01-01T00:00:00.006,2,7.0',
  '1970-01-01T00:00:00.009,2,6.0',
  '1970-01-01T00:00:00.018,1,4.0',
];

describe("Flink's TimeAttributeITCase", () => {
  it('testWindowAggregateOnWatermark, testWindowAggregateOnCustomizedWatermark, testWindowAggregateOnComputedRowtime', async () => {
    const id = registerValues(DDL_DATA.map(([ms, a, b]) => [logTs(ms), ms, a, b]));
    const src = (name: string, extra: string) => `CREATE TABLE ${name} (
        log_ts STRING, ts TIMESTAMP(3), a INT, b DOUBLE, ${extra}
      ) WITH ('connector' = 'flink-values', 'data-id' = '${id}');`;
    const setup = [
      src('src', "WATERMARK FOR ts AS ts - INTERVAL '0.001' SECOND"),
      src('src_udf', 'WATERMARK FOR ts AS myFunc(ts, a)'),
      src(
        'src_computed',
        "rowtime AS CAST(log_ts AS TIMESTAMP(3)), WATERMARK FOR rowtime AS rowtime - INTERVAL '0.001' SECOND",
      ),
    ].join('\n');
    const window = (table: string, time: string) =>
      `SELECT TUMBLE_END(${time}, INTERVAL '0.003' SECOND), COUNT(ts), SUM(b)
        FROM ${table} GROUP BY TUMBLE(${time}, INTERVAL '0.003' SECOND)`;
    const results = await runScenario(
      setup,
      [window('src', 'ts'), window('src_udf', 'ts'), window('src_computed', 'rowtime')],
      {
        parallelism: 1,
        batchSize: 1,
        tables: (_, tEnv) => tEnv.createTemporarySystemFunction('myFunc', myFunc),
      },
    );
    for (const r of results) {
      expect(normalized(r.rows)).toEqual(normalized(WINDOW_EXPECTED));
      expect(r.changes.every((c) => c.startsWith('+I'))).toBe(true);
    }
  });

  it('testWindowAggregateOnTimestampLtzWatermark', async () => {
    const id = registerValues(
      DDL_DATA.map(([ms, a, b]) => [
        `1970-01-01 08:00:00.${String(ms).padStart(3, '0')}`,
        ms,
        a,
        b,
      ]),
    );
    const [result] = await runScenario(
      `SET 'table.local-time-zone' = 'Asia/Shanghai';
      CREATE TABLE src1 (
        log_ts STRING, ts BIGINT, a INT, b DOUBLE,
        ltz_ts AS TO_TIMESTAMP_LTZ(ts, 3),
        WATERMARK FOR ltz_ts AS ltz_ts - INTERVAL '0.001' SECOND
      ) WITH ('connector' = 'flink-values', 'data-id' = '${id}');`,
      [
        `SELECT TUMBLE_END(ltz_ts, INTERVAL '0.003' SECOND), COUNT(ts), SUM(b)
          FROM src1 GROUP BY TUMBLE(ltz_ts, INTERVAL '0.003' SECOND)`,
      ],
      { parallelism: 1, batchSize: 1 },
    );
    expect(normalized(result?.rows ?? [])).toEqual(
      normalized([
        '1970-01-01T08:00:00.003,2,3.0',
        '1970-01-01T08:00:00.006,2,7.0',
        '1970-01-01T08:00:00.009,2,6.0',
        '1970-01-01T08:00:00.018,1,4.0',
      ]),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// TimeAttributesITCase

/** TimeAttributesITCase's `data`: rowtime (ms), int, double, float, bigdec, string. */
const TIME_DATA: readonly (readonly [number, number, string])[] = [
  [1, 1, 'Hi'],
  [2, 2, 'Hallo'],
  [3, 2, 'Hello'],
  [4, 5, 'Hello'],
  [7, 3, 'Hello'],
  [8, 3, 'Hello world'],
  [16, 4, 'Hello world'],
];

/**
 * MyTable: the data with its rowtime a watermark equal to each row's timestamp (Flink's
 * TimestampWithEqualWatermark), and a proctime.
 */
function timeTable(): string {
  const id = registerValues(TIME_DATA.map(([ms, i, s]) => [ms, i, i, i, BigInt(i), s]));
  const atomic = registerValues(TIME_DATA.map(([ms]) => [ms]));
  const three = registerValues([
    [1, 1],
    [2, 2],
    [3, 3],
  ]);
  return `CREATE TABLE ThreeRows (ts BIGINT, a INT,
      rowtime AS CAST(TO_TIMESTAMP_LTZ(ts, 3) AS TIMESTAMP(3)), WATERMARK FOR rowtime AS rowtime
    ) WITH ('connector' = 'flink-values', 'data-id' = '${three}');
    CREATE TABLE AtomicTable (l BIGINT,
      rowtime AS CAST(TO_TIMESTAMP_LTZ(l, 3) AS TIMESTAMP(3)), proctime AS PROCTIME(),
      WATERMARK FOR rowtime AS rowtime
    ) WITH ('connector' = 'flink-values', 'data-id' = '${atomic}');
    CREATE TABLE MyTable (
      rowtime TIMESTAMP(3), \`int\` INT, \`double\` DOUBLE, \`float\` FLOAT, bigdec DECIMAL(10, 0),
      \`string\` STRING, proctime AS PROCTIME(),
      WATERMARK FOR rowtime AS rowtime
    ) WITH ('connector' = 'flink-values', 'data-id' = '${id}');`;
}

/** Flink's TimeIndicatorConversionTest.TableFunc: time1's epoch ms, time2 > epoch, and s. */
const timeFunc = defineTableFunction({
  arguments: ['TIMESTAMP(3)', 'TIMESTAMP_LTZ(3)', 'STRING'],
  result: 'STRING',
  eval: (t1: number | null, t2: number | null, s: string | null) => [
    `${t1}${t2 !== null && t2 > 0}${s}`,
  ],
});

const timeOptions: ScenarioOptions = {
  parallelism: 1,
  batchSize: 1,
  tables: (_, tEnv: TableEnvironment) => tEnv.createTemporarySystemFunction('func', timeFunc),
};

const ms = (n: number) => `1970-01-01 00:00:00.${String(n).padStart(3, '0')}`;
const ALL_ROWTIMES = TIME_DATA.map(([n]) => ms(n));

describe("Flink's TimeAttributesITCase", () => {
  it('materializing a rowtime: casts, projections, unions, FLOOR/CEIL, table functions', async () => {
    const results = await runScenario(
      timeTable(),
      [
        // testAtomicType1
        'SELECT CAST(rowtime AS STRING) FROM AtomicTable WHERE proctime > TO_TIMESTAMP_LTZ(0, 3)',
        // testAtomicType2
        'SELECT l, CAST(rowtime AS STRING) FROM AtomicTable WHERE proctime > TO_TIMESTAMP_LTZ(0, 3)',
        // testCalcMaterialization
        'SELECT CAST(rowtime AS STRING) FROM MyTable',
        // testCalcMaterialization2, testTableSink
        `SELECT rowtime, FLOOR(rowtime TO DAY), CEIL(rowtime TO DAY) FROM MyTable
          WHERE rowtime > TIMESTAMP '1970-01-01 00:00:00.004'`,
        // testTableFunction
        'SELECT rowtime, s FROM MyTable, LATERAL TABLE(func(rowtime, proctime, `string`)) AS f(s)',
        // testUnion
        'SELECT rowtime FROM (SELECT * FROM MyTable UNION ALL SELECT * FROM MyTable)',
        // testCalcMaterializationWithPojoType
        'SELECT rowtime AS ts, `string` AS msg FROM MyTable',
      ],
      timeOptions,
    );
    const [cast, cast2, castMaterialized, floorCeil, lateral, union, pojo] = results.map(
      (r) => r.rows,
    );
    expect(cast).toEqual(sorted(ALL_ROWTIMES));
    expect(castMaterialized).toEqual(sorted(ALL_ROWTIMES));
    expect(cast2).toEqual(sorted(TIME_DATA.map(([n]) => `${n},${ms(n)}`)));
    expect(normalized(floorCeil ?? [])).toEqual(
      normalized([7, 8, 16].map((n) => `${ms(n)},1970-01-01 00:00:00.0,1970-01-02 00:00:00.0`)),
    );
    expect(normalized(lateral ?? [])).toEqual(
      normalized(TIME_DATA.map(([n, , s]) => `${ms(n)},${n}true${s}`)),
    );
    expect(normalized(union ?? [])).toEqual(normalized([...ALL_ROWTIMES, ...ALL_ROWTIMES]));
    expect(normalized(pojo ?? [])).toEqual(
      normalized(TIME_DATA.map(([n, , s]) => `${ms(n)},${s}`)),
    );
  });

  it('windows on rowtimes: after a table function, cascaded, TUMBLE_ROWTIME', async () => {
    const results = await runScenario(
      timeTable(),
      [
        // testWindowAfterTableFunction
        `SELECT TUMBLE_ROWTIME(rowtime, INTERVAL '0.005' SECOND), COUNT(s)
          FROM MyTable, LATERAL TABLE(func(rowtime, proctime, \`string\`)) AS f(s)
          GROUP BY TUMBLE(rowtime, INTERVAL '0.005' SECOND)`,
        // testWindowWithAggregationOnRowtimeSql
        "SELECT COUNT(`rowtime`) FROM MyTable GROUP BY TUMBLE(rowtime, INTERVAL '0.003' SECOND)",
        // testMultiWindow (Table API, in SQL)
        `SELECT TUMBLE_ROWTIME(rowtime, INTERVAL '0.004' SECOND), TUMBLE_END(rowtime, INTERVAL '0.004' SECOND), COUNT(\`int\`)
          FROM (SELECT TUMBLE_ROWTIME(rowtime, INTERVAL '0.002' SECOND) AS rowtime, COUNT(\`int\`) AS \`int\`
            FROM MyTable GROUP BY TUMBLE(rowtime, INTERVAL '0.002' SECOND))
          GROUP BY TUMBLE(rowtime, INTERVAL '0.004' SECOND)`,
        // testMultiWindowSqlNoAggregation
        `SELECT TUMBLE_ROWTIME(rowtime, INTERVAL '0.004' SECOND), TUMBLE_END(rowtime, INTERVAL '0.004' SECOND)
          FROM (SELECT TUMBLE_ROWTIME(rowtime, INTERVAL '0.002' SECOND) AS rowtime,
              TUMBLE_END(rowtime, INTERVAL '0.002' SECOND) AS endtime
            FROM MyTable GROUP BY TUMBLE(rowtime, INTERVAL '0.002' SECOND))
          GROUP BY TUMBLE(rowtime, INTERVAL '0.004' SECOND)`,
        // testMultiWindowSqlWithAggregation
        `SELECT TUMBLE_ROWTIME(rowtime, INTERVAL '0.004' SECOND), TUMBLE_END(rowtime, INTERVAL '0.004' SECOND),
            COUNT(\`int\`) AS \`int\`
          FROM (SELECT COUNT(\`int\`) AS \`int\`, TUMBLE_ROWTIME(rowtime, INTERVAL '0.002' SECOND) AS \`rowtime\`
            FROM MyTable GROUP BY TUMBLE(rowtime, INTERVAL '0.002' SECOND))
          GROUP BY TUMBLE(rowtime, INTERVAL '0.004' SECOND)`,
        // testMultiWindowSqlWithAggregation2
        `SELECT TUMBLE_ROWTIME(rowtime2, INTERVAL '0.004' SECOND), TUMBLE_END(rowtime2, INTERVAL '0.004' SECOND),
            COUNT(\`int\`) as \`int\`
          FROM (SELECT TUMBLE_ROWTIME(rowtime, INTERVAL '0.002' SECOND) AS rowtime2, COUNT(\`int\`) AS \`int\`
            FROM MyTable GROUP BY TUMBLE(rowtime, INTERVAL '0.002' SECOND))
          GROUP BY TUMBLE(rowtime2, INTERVAL '0.004' SECOND)`,
        // testSqlWindowRowtime
        `SELECT TUMBLE_ROWTIME(rowtime, INTERVAL '0.003' SECOND) FROM MyTable
          GROUP BY TUMBLE(rowtime, INTERVAL '0.003' SECOND)`,
        // testAggregationOnTimeAttribute (a rowtime in a non-window aggregate)
        'SELECT MAX(rowtime), COUNT(a) FROM ThreeRows',
      ],
      timeOptions,
    );
    const [afterLateral, count, multi, noAgg, withAgg, withAgg2, rowtimes, maxRowtime] =
      results.map((r) => normalized(r.rows));
    expect(afterLateral).toEqual(
      normalized([
        '1970-01-01 00:00:00.004,4',
        '1970-01-01 00:00:00.009,2',
        '1970-01-01 00:00:00.019,1',
      ]),
    );
    expect(count).toEqual(sorted(['1', '2', '2', '2']));
    const cascaded = [
      '1970-01-01 00:00:00.003,1970-01-01 00:00:00.004',
      '1970-01-01 00:00:00.007,1970-01-01 00:00:00.008',
      '1970-01-01 00:00:00.011,1970-01-01 00:00:00.012',
      '1970-01-01 00:00:00.019,1970-01-01 00:00:00.02',
    ];
    const counted = cascaded.map((r, i) => `${r},${i < 2 ? 2 : 1}`);
    expect(multi).toEqual(normalized(counted));
    expect(noAgg).toEqual(normalized(cascaded));
    expect(withAgg).toEqual(normalized(counted));
    expect(withAgg2).toEqual(normalized(counted));
    expect(rowtimes).toEqual(
      normalized([
        '1970-01-01 00:00:00.002',
        '1970-01-01 00:00:00.005',
        '1970-01-01 00:00:00.008',
        '1970-01-01 00:00:00.017',
      ]),
    );
    expect(maxRowtime).toEqual(normalized(['1970-01-01 00:00:00.003,3']));
  });

  it('testTableSourceWithTimeIndicators, testMaterializedRowtimeFilter, testRegisterTableWithWatermark', async () => {
    const source = registerValues(
      ['A', 'B', 'C', 'D', 'E', 'F'].map((b, i) => [i + 1, b, (i + 1) * 1000]),
    );
    const ticker = registerValues(
      [12, 17, 13, 11].map((price, i) => ['ACME', (i + 1) * 1000, price]),
    );
    const amounts = registerValues([
      ['Mary', 1000, 10],
      ['Bob', 2000, 20],
      ['Mary', 2000, 30],
      ['Liz', 2001, 40],
    ]);
    const setup = `
      CREATE TABLE testTable (a INT, b STRING, ts BIGINT,
        rowtime AS CAST(TO_TIMESTAMP_LTZ(ts, 3) AS TIMESTAMP(3)), proctime AS PROCTIME(),
        WATERMARK FOR rowtime AS rowtime
      ) WITH ('connector' = 'flink-values', 'data-id' = '${source}');
      CREATE TABLE Ticker (symbol STRING, tstamp TIMESTAMP(3), price INT,
        WATERMARK FOR tstamp AS tstamp
      ) WITH ('connector' = 'flink-values', 'data-id' = '${ticker}');
      CREATE TABLE MyTable2 (name STRING, rtime TIMESTAMP(3), amount INT,
        WATERMARK FOR rtime AS rtime
      ) WITH ('connector' = 'flink-values', 'data-id' = '${amounts}');`;
    const results = await runScenario(
      setup,
      [
        'SELECT rowtime, a, b FROM testTable WHERE a % 2 = 1',
        `SELECT * FROM (
          SELECT symbol, SUM(price) as price,
            TUMBLE_ROWTIME(tstamp, interval '1' second) as rowTime,
            TUMBLE_START(tstamp, interval '1' second) as startTime,
            TUMBLE_END(tstamp, interval '1' second) as endTime
          FROM Ticker
          GROUP BY symbol, TUMBLE(tstamp, interval '1' second)
        ) WHERE startTime < endTime`,
        `SELECT name, TUMBLE_START(rtime, INTERVAL '1' SECOND), SUM(amount) FROM MyTable2
          GROUP BY name, TUMBLE(rtime, INTERVAL '1' SECOND)`,
      ],
      { parallelism: 1, batchSize: 1 },
    );
    const [filtered, ticker2, amounts2] = results.map((r) => normalized(r.rows));
    expect(filtered).toEqual(
      normalized([
        '1970-01-01 00:00:01.0,1,A',
        '1970-01-01 00:00:03.0,3,C',
        '1970-01-01 00:00:05.0,5,E',
      ]),
    );
    expect(ticker2).toEqual(
      normalized([
        'ACME,12,1970-01-01 00:00:01.999,1970-01-01 00:00:01.0,1970-01-01 00:00:02.0',
        'ACME,17,1970-01-01 00:00:02.999,1970-01-01 00:00:02.0,1970-01-01 00:00:03.0',
        'ACME,13,1970-01-01 00:00:03.999,1970-01-01 00:00:03.0,1970-01-01 00:00:04.0',
        'ACME,11,1970-01-01 00:00:04.999,1970-01-01 00:00:04.0,1970-01-01 00:00:05.0',
      ]),
    );
    expect(amounts2).toEqual(
      normalized([
        'Mary,1970-01-01 00:00:01.0,10',
        'Mary,1970-01-01 00:00:02.0,30',
        'Bob,1970-01-01 00:00:02.0,20',
        'Liz,1970-01-01 00:00:02.0,40',
      ]),
    );
  });
});

describe('time attributes through views, casts, unions and aggregations', () => {
  const views = `
    CREATE TEMPORARY VIEW renamed AS SELECT rowtime AS ts, \`int\` FROM MyTable;
    CREATE TEMPORARY VIEW unioned AS
      SELECT rowtime, \`int\` FROM MyTable WHERE \`int\` > 2
      UNION ALL SELECT rowtime, \`int\` FROM MyTable WHERE \`int\` <= 2;
    CREATE TEMPORARY VIEW casted AS SELECT CAST(rowtime AS TIMESTAMP(3)) AS ts FROM MyTable;
    CREATE TEMPORARY VIEW shifted AS SELECT rowtime + INTERVAL '1' SECOND AS ts FROM MyTable;
    CREATE TEMPORARY VIEW grouped AS SELECT \`int\`, MAX(rowtime) AS ts FROM MyTable GROUP BY \`int\`;
    CREATE TEMPORARY VIEW joined AS
      SELECT a.rowtime AS ts FROM MyTable a JOIN MyTable b ON a.\`int\` = b.\`int\`;`;
  const tumble = (view: string, time: string) =>
    `SELECT TUMBLE_END(${time}, INTERVAL '0.005' SECOND), COUNT(*) FROM ${view}
      GROUP BY TUMBLE(${time}, INTERVAL '0.005' SECOND)`;

  it('a renamed rowtime and a UNION ALL of rowtimes stay time attributes (window TVF and group window)', async () => {
    const results = await runScenario(
      `${timeTable()}\n${views}`,
      [
        tumble('renamed', 'ts'),
        tumble('unioned', 'rowtime'),
        `SELECT window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE unioned, DESCRIPTOR(rowtime),
          INTERVAL '0.005' SECOND)) GROUP BY window_start, window_end`,
      ],
      timeOptions,
    );
    const expected = normalized([
      '1970-01-01 00:00:00.005,4',
      '1970-01-01 00:00:00.010,2',
      '1970-01-01 00:00:00.020,1',
    ]);
    for (const r of results) expect(normalized(r.rows)).toEqual(expected);
  });

  it('a cast, an expression, an aggregate or a regular join of a rowtime is no time attribute', async () => {
    for (const view of ['casted', 'shifted', 'grouped', 'joined']) {
      await expect(runScenario(`${timeTable()}\n${views}`, [tumble(view, 'ts')])).rejects.toThrow(
        /'ts' is not a time attribute/,
      );
    }
    // The materialized values are the rowtimes.
    const [casted, grouped] = await runScenario(
      `${timeTable()}\n${views}`,
      ['SELECT ts FROM casted', 'SELECT `int`, ts FROM grouped'],
      timeOptions,
    );
    expect(normalized(casted?.rows ?? [])).toEqual(normalized(ALL_ROWTIMES));
    expect(normalized(grouped?.rows ?? [])).toEqual(
      normalized([`1,${ms(1)}`, `2,${ms(3)}`, `3,${ms(8)}`, `4,${ms(16)}`, `5,${ms(4)}`]),
    );
  });

  it("[Flink's older RetractionITCase] an OVER aggregation over an updating GROUP BY is refused", async () => {
    const inner = 'SELECT word, COUNT(num) AS cnt, PROCTIME() AS pt FROM T GROUP BY word';
    for (const over of [
      'PARTITION BY cnt ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
      'ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW',
      'ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW',
    ]) {
      await expect(
        runScenario(WORDS, [`SELECT word, cnt, COUNT(word) OVER (${over}) FROM (${inner})`]),
      ).rejects.toThrow(/needs an insert-only input/);
    }
  });
});
