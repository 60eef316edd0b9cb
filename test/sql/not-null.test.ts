/**
 * NOT NULL columns as Flink has them: a PRIMARY KEY column is NOT NULL (DESCRIBE, SHOW CREATE
 * TABLE and the types of expressions over it say so), a source that reads NULL for such a
 * column reports a bad record naming it instead of handing expressions a NULL they do not
 * expect, and INSERT INTO enforces the NOT NULL columns of its table as Flink's sink
 * ConstraintEnforcer does (`table.exec.sink.not-null-enforcer`: ERROR fails the job with
 * Flink's message, DROP drops the row, counted). TableSinkITCase's testNotNullEnforcer is
 * ported with its data (nullData4) and expected rows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KafkaConsumerRecord } from '../../src/connectors/kafka/index.js';
import type { Change } from '../../src/core/changelog.js';
import {
  CollectSink,
  type Row,
  SqlError,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import type { CatalogTable } from '../../src/sql/catalog/catalog.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { graphOf } from '../../src/sql/planner/changelog-plan.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-not-null-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What each table of the `not-null-sink` connector received (rows, or changes), by name. */
const received = new Map<string, unknown[]>();

beforeAll(() => {
  registerValuesConnector();
  registerSqlConnectors(externalSqlConnectors);
  const sinkOf = <T>(table: CatalogTable): CollectSink<T> => {
    const sink = new CollectSink<T>();
    received.set(table.name, sink.values);
    return sink;
  };
  registerSqlConnectors([
    {
      name: 'not-null-sink',
      options: [],
      sink: (table) => sinkOf<Row>(table),
      changelogSink: (table) => sinkOf<Change<Row>>(table),
    },
  ]);
});

const fresh = () => TableEnvironment.create(new StreamEnvironment());
const answer = (tEnv: TableEnvironment, sql: string) => tEnv.executeSql(sql).results;

/** The message a job failed with (undefined when it finished). */
async function failure(run: Promise<unknown> | undefined): Promise<string | undefined> {
  return (run ?? Promise.resolve()).then(
    () => undefined,
    (e: unknown) => (e instanceof Error ? e.message : String(e)),
  );
}

const rowsText = (rows: readonly unknown[]) =>
  rows.map((r) => (r as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(',')).sort();

describe('a PRIMARY KEY column is NOT NULL', () => {
  const DDL = `CREATE TABLE orders (
    id INT,
    region STRING,
    amount INT,
    doubled AS id * 2,
    PRIMARY KEY (id, region) NOT ENFORCED
  ) WITH ('connector' = 'datagen', 'number-of-rows' = '3')`;

  it('DESCRIBE shows null FALSE and the PRI key; a computed column over it is NOT NULL', () => {
    const tEnv = fresh();
    tEnv.executeSql(DDL);
    // Flink: `id INT NOT NULL`, `region STRING NOT NULL`, `doubled INT NOT NULL`.
    expect(answer(tEnv, 'DESCRIBE orders')[0]?.rows).toEqual([
      ['id', 'INT', 'FALSE', 'PRI(id, region)', '', ''],
      ['region', 'STRING', 'FALSE', 'PRI(id, region)', '', ''],
      ['amount', 'INT', 'TRUE', '', '', ''],
      ['doubled', 'INT', 'FALSE', '', 'AS id * 2', ''],
    ]);
    expect(tEnv.describeTable('orders').map((c) => `${c.name} ${c.type}`)).toEqual([
      'id INT NOT NULL',
      'region STRING NOT NULL',
      'amount INT',
      'doubled INT NOT NULL',
    ]);
  });

  it('SHOW CREATE TABLE declares the key columns NOT NULL, and the DDL it gives is the same table', () => {
    const tEnv = fresh();
    tEnv.executeSql(DDL);
    const ddl = answer(tEnv, 'SHOW CREATE TABLE orders')[0]?.rows[0]?.[0] ?? '';
    expect(ddl).toContain('`id` INT NOT NULL,');
    expect(ddl).toContain('`region` STRING NOT NULL,');
    expect(ddl).toContain('`amount` INT,');
    const again = fresh();
    again.executeSql(ddl);
    expect(again.describeTable('orders')).toEqual(tEnv.describeTable('orders'));
  });

  it('expressions over a key column are NOT NULL; other columns keep their nullability', () => {
    const tEnv = fresh();
    tEnv.executeSql(`${DDL};
      CREATE VIEW v AS SELECT id + 1 AS next, UPPER(region) AS r, amount + 1 AS more,
        COALESCE(amount, id) AS either FROM orders`);
    expect(answer(tEnv, 'DESCRIBE v')[0]?.rows.map((r) => `${r[0]} ${r[1]} ${r[2]}`)).toEqual([
      'next INT FALSE',
      'r STRING FALSE',
      'more INT TRUE',
      'either INT FALSE',
    ]);
  });

  it('a column declared NOT NULL stays so, a key on its column is NOT NULL, a table without a key is unchanged', () => {
    const tEnv = fresh();
    tEnv.executeSql(`
      CREATE TABLE a (id BIGINT NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED)
        WITH ('connector' = 'blackhole');
      CREATE TABLE b (id BIGINT, v INT) WITH ('connector' = 'blackhole');
      CREATE TABLE c (id BIGINT PRIMARY KEY NOT ENFORCED, v INT) WITH ('connector' = 'blackhole')`);
    expect(tEnv.describeTable('a').map((c) => c.type)).toEqual(['BIGINT NOT NULL', 'INT']);
    expect(tEnv.describeTable('b').map((c) => c.type)).toEqual(['BIGINT', 'INT']);
    // The key declared on its column, as Flink's `id BIGINT PRIMARY KEY NOT ENFORCED`.
    expect(tEnv.describeTable('c').map((c) => c.type)).toEqual(['BIGINT NOT NULL', 'INT']);
  });

  it('CREATE TABLE ... LIKE keeps the key columns NOT NULL, with the key or without it', () => {
    const tEnv = fresh();
    tEnv.executeSql(`${DDL};
      CREATE TABLE with_key WITH ('number-of-rows' = '1') LIKE orders;
      CREATE TABLE without_key WITH ('number-of-rows' = '1') LIKE orders (EXCLUDING CONSTRAINTS)`);
    expect(tEnv.describeTable('with_key').map((c) => c.type)).toEqual([
      'INT NOT NULL',
      'STRING NOT NULL',
      'INT',
      'INT NOT NULL',
    ]);
    // Flink stores the derived NOT NULL in the table's schema, which LIKE copies.
    expect(tEnv.describeTable('without_key').map((c) => c.type)).toEqual([
      'INT NOT NULL',
      'STRING NOT NULL',
      'INT',
      'INT NOT NULL',
    ]);
  });
});

describe('a source that reads NULL for a NOT NULL column', () => {
  const fileTable = (name: string, path: string, format: string, extra = '') => `
    CREATE TABLE ${name} (id INT, name STRING, doubled AS id * 2, PRIMARY KEY (id) NOT ENFORCED)
    WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = '${format}'${extra})`;

  it('filesystem json: a record without the key field fails the job naming file, line and field', async () => {
    const path = join(dir, 'missing-key.json');
    writeFileSync(path, '{"id": 1, "name": "a"}\n{"name": "b"}\n{"id": 3, "name": "c"}\n');
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(fileTable('t', path, 'json'));
    tEnv.sqlQuery('SELECT id, doubled FROM t').toDataStream().sinkTo(new CollectSink<Row>());
    const error = await failure(env.execute('missing key'));
    expect(error).toMatch(
      /table 't': file '\S+missing-key\.json' line 2: field 'id' is null but the column is INT NOT NULL/,
    );
    expect(error).toContain(`in SQL, the table's '<format>.ignore-parse-errors' = 'true'`);
  }, 30_000);

  it('filesystem csv: an empty key field is skipped and counted with ignore-parse-errors', async () => {
    const path = join(dir, 'empty-key.csv');
    writeFileSync(path, '1,a\n,b\n3,c\n');
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(fileTable('t', path, 'csv', ", 'csv.ignore-parse-errors' = 'true'"));
    const sink = new CollectSink<Row>();
    tEnv.sqlQuery('SELECT id, name, doubled FROM t').toDataStream().sinkTo(sink);
    const result = await env.execute('empty key');
    expect(rowsText(sink.values)).toEqual(['1,a,2', '3,c,6']);
    expect(result.metric('weir_source_bad_records_total')).toBe(1);
  }, 30_000);

  it('a NULL in a non-key column is read as before', async () => {
    const path = join(dir, 'null-name.json');
    writeFileSync(path, '{"id": 1}\n{"id": 2, "name": "b"}\n');
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(fileTable('t', path, 'json'));
    const sink = new CollectSink<Row>();
    tEnv.sqlQuery('SELECT id, name FROM t').toDataStream().sinkTo(sink);
    await env.execute('null name');
    expect(rowsText(sink.values)).toEqual(['1,null', '2,b']);
  }, 30_000);

  it('another connector: the planner checks each row and fails naming table, connector and column', async () => {
    const id = registerValues([
      [1, 'a'],
      [null, 'b'],
    ]);
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(`CREATE TABLE t (id INT, name STRING, doubled AS id * 2,
      PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'flink-values', 'data-id' = '${id}')`);
    tEnv.sqlQuery('SELECT doubled FROM t').toDataStream().sinkTo(new CollectSink<Row>());
    expect(await failure(env.execute('null key'))).toMatch(
      /table 't': a row of connector 'flink-values': field 'id' is null but the column is INT NOT NULL/,
    );
  }, 30_000);

  it('a DataStream table with a column declared NOT NULL: a null value fails naming it', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('events', env.fromArray([{ id: 1 }, { id: null }]), {
      columns: [{ name: 'id', type: 'INT NOT NULL' }],
    });
    tEnv.sqlQuery('SELECT id + 1 FROM events').toDataStream().sinkTo(new CollectSink<Row>());
    expect(await failure(env.execute('datastream'))).toMatch(
      /table 'events': a row of connector 'datastream': field 'id' is null but the column is INT NOT NULL/,
    );
  }, 30_000);

  it('datagen: a null-rate for a key column is refused at plan time', () => {
    expect(() =>
      fresh().executeSql(`CREATE TABLE g (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED)
        WITH ('connector' = 'datagen', 'fields.id.null-rate' = '0.5', 'fields.v.null-rate' = '0.5')`),
    ).toThrow(
      "datagen: column 'id' is NOT NULL (as a PRIMARY KEY column is), so 'fields.id.null-rate' must be 0",
    );
  });

  it('a changelog source: a delete may hold only its key; an upsert without its key fails', async () => {
    const ddl = (dataId: string) => `CREATE TABLE t (id INT, name STRING NOT NULL,
      PRIMARY KEY (id) NOT ENFORCED)
      WITH ('connector' = 'flink-values', 'data-id' = '${dataId}', 'changelog-mode' = 'UA,D')`;
    const run = async (changes: Parameters<typeof registerValues>[0]) => {
      const env = new StreamEnvironment();
      const tEnv = TableEnvironment.create(env);
      tEnv.executeSql(ddl(registerValues(changes)));
      const sink = new CollectSink<Change<Row>>();
      tEnv.sqlQuery('SELECT * FROM t').toChangelogStream().sinkTo(sink);
      const error = await failure(env.execute('changes'));
      return { error, changes: sink.values.map((c) => `${c.kind}${JSON.stringify(c.value)}`) };
    };
    const ok = await run([
      ['+U', 1, 'a'],
      ['+U', 2, 'b'],
      ['-D', 1, null],
    ]);
    expect(ok.error).toBeUndefined();
    expect(ok.changes).toEqual(['+U[1,"a"]', '+U[2,"b"]', '-D[1,null]']);
    const bad = await run([
      ['+U', 1, 'a'],
      ['+U', null, 'b'],
    ]);
    expect(bad.error).toMatch(/table 't': .*field 'id' is null but the column is INT NOT NULL/);
    const badDelete = await run([['-D', null, null]]);
    expect(badDelete.error).toMatch(/field 'id' is null but the column is INT NOT NULL/);
  }, 30_000);

  describe('kafka and upsert-kafka decode records and check them as bad records', () => {
    /** The deserializer of the one Kafka source a query over `table` plans (nothing runs). */
    function deserializerOf(ddl: string, table: string): (r: KafkaConsumerRecord) => unknown {
      const env = new StreamEnvironment();
      const tEnv = TableEnvironment.create(env);
      tEnv.executeSql(ddl);
      tEnv.sqlQuery(`SELECT * FROM ${table}`).toChangelogStream().sinkTo(new CollectSink());
      const node = graphOf(env).nodes.find((n) => n.kind === 'source');
      const source = (node as unknown as { source: { config: { decodeRecord: unknown } } }).source;
      return source.config.decodeRecord as (r: KafkaConsumerRecord) => unknown;
    }
    const record = (key: string | undefined, value: string | undefined): KafkaConsumerRecord => ({
      topic: 't',
      partition: 0,
      offset: 7,
      timestamp: 0,
      key: key === undefined ? undefined : Buffer.from(key),
      value: value === undefined ? undefined : Buffer.from(value),
      headers: [],
    });
    const options = `'topic' = 't', 'properties.bootstrap.servers' = 'localhost:1'`;

    it('kafka json: a value without the key field names topic, partition, offset and field', () => {
      const decode = deserializerOf(
        `CREATE TABLE k (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
         WITH ('connector' = 'kafka', ${options}, 'format' = 'json')`,
        'k',
      );
      expect(decode(record(undefined, '{"id": 1, "name": "a"}'))).toEqual([1, 'a']);
      expect(() => decode(record(undefined, '{"name": "a"}'))).toThrow(
        "table 'k': record at topic t partition 0 offset 7: field 'id' is null but the column is INT NOT NULL",
      );
    });

    it('kafka with key.fields: a record without a key fails; debezium-json checks each row', () => {
      const decode = deserializerOf(
        `CREATE TABLE k (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
         WITH ('connector' = 'kafka', ${options}, 'key.format' = 'json', 'key.fields' = 'id',
           'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY')`,
        'k',
      );
      expect(decode(record('{"id": 2}', '{"name": "b"}'))).toEqual([2, 'b']);
      expect(() => decode(record('{}', '{"name": "b"}'))).toThrow(
        "field 'id' is null but the column is INT NOT NULL",
      );
      const changes = deserializerOf(
        `CREATE TABLE d (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
         WITH ('connector' = 'kafka', ${options}, 'format' = 'debezium-json')`,
        'd',
      );
      expect(
        changes(record(undefined, '{"before": null, "after": {"id": 1, "name": "a"}, "op": "c"}')),
      ).toEqual([{ kind: '+I', value: [1, 'a'] }]);
      expect(() =>
        changes(record(undefined, '{"before": null, "after": {"name": "a"}, "op": "c"}')),
      ).toThrow(
        "table 'd': record at topic t partition 0 offset 7: field 'after.id' is null but the column is INT NOT NULL",
      );
    });

    it('upsert-kafka: a tombstone needs only its key; a record whose key lacks the field fails', () => {
      const decode = deserializerOf(
        `CREATE TABLE u (id INT, name STRING NOT NULL, PRIMARY KEY (id) NOT ENFORCED)
         WITH ('connector' = 'upsert-kafka', ${options}, 'key.format' = 'json',
           'value.format' = 'json')`,
        'u',
      );
      expect(decode(record('{"id": 1}', '{"id": 1, "name": "a"}'))).toEqual({
        kind: '+U',
        value: [1, 'a'],
      });
      expect(decode(record('{"id": 1}', undefined))).toEqual({ kind: '-D', value: [1, null] });
      expect(() => decode(record('{}', undefined))).toThrow(
        "table 'u': record at topic t partition 0 offset 7: field 'id' is null but the column is INT NOT NULL",
      );
      expect(() => decode(record('{"id": 1}', '{"id": 1}'))).toThrow(
        "field 'name' is null but the column is STRING NOT NULL",
      );
    });
  });
});

describe("the sink's NOT NULL enforcer (table.exec.sink.not-null-enforcer)", () => {
  /** Flink's nullData4: (category, shopId, num) with three NULL nums. */
  const NULL_DATA_4 = [
    ['book', 1, 12],
    ['book', 2, null],
    ['book', 4, 11],
    ['fruit', 4, null],
    ['fruit', 3, 44],
    ['fruit', 5, null],
  ];
  const SCRIPT = (dataId: string) => `
    CREATE TABLE nullable_src (category STRING, shopId INT, num INT)
      WITH ('connector' = 'flink-values', 'data-id' = '${dataId}');
    CREATE TABLE not_null_sink (category STRING, shopId INT, num INT NOT NULL)
      WITH ('connector' = 'not-null-sink');`;

  it("TableSinkITCase.testNotNullEnforcer: ERROR (the default) fails with Flink's message", async () => {
    const tEnv = fresh();
    const result = tEnv.executeSql(
      `${SCRIPT(registerValues(NULL_DATA_4))}
       INSERT INTO not_null_sink SELECT * FROM nullable_src`,
    );
    const error = await failure(result.job?.result);
    expect(error).toContain(
      "INSERT INTO not_null_sink: Column 'num' is NOT NULL, however, a null value is being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records (counted in weir_sql_sink_not_null_dropped_total).",
    );
  }, 30_000);

  it('TableSinkITCase.testNotNullEnforcer: DROP (as Flink, in any case) drops the rows, counted', async () => {
    const tEnv = fresh();
    const result = tEnv.executeSql(
      `${SCRIPT(registerValues(NULL_DATA_4))}
       SET 'table.exec.sink.not-null-enforcer' = 'drop';
       INSERT INTO not_null_sink SELECT * FROM nullable_src`,
    );
    const done = await result.job?.result;
    expect(rowsText(received.get('not_null_sink') ?? [])).toEqual([
      'book,1,12',
      'book,4,11',
      'fruit,3,44',
    ]);
    expect(done?.metric('weir_sql_sink_not_null_dropped_total')).toBe(3);
  }, 30_000);

  it('a PRIMARY KEY column of the sink is enforced as NOT NULL', async () => {
    const tEnv = fresh();
    const dataId = registerValues([
      [1, 'a'],
      [null, 'b'],
    ]);
    const result = tEnv.executeSql(`
      CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'flink-values', 'data-id' = '${dataId}');
      CREATE TABLE dst (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
        WITH ('connector' = 'not-null-sink');
      INSERT INTO dst SELECT * FROM src`);
    expect(await failure(result.job?.result)).toContain(
      "INSERT INTO dst: Column 'id' is NOT NULL, however, a null value is being written into it.",
    );
  }, 30_000);

  it('an updating query into a keyed sink: DROP drops each change of the NULL group, counted', async () => {
    const dataId = registerValues([
      ['a', 1],
      [null, 2],
      ['a', 3],
      [null, 4],
      ['b', 5],
    ]);
    const script = (enforcer: string) => `
      CREATE TABLE src (k STRING, v INT) WITH ('connector' = 'flink-values', 'data-id' = '${dataId}');
      CREATE TABLE totals (k STRING, total INT, PRIMARY KEY (k) NOT ENFORCED)
        WITH ('connector' = 'not-null-sink');
      SET 'table.exec.sink.not-null-enforcer' = '${enforcer}';
      INSERT INTO totals SELECT k, SUM(v) FROM src GROUP BY k`;
    const failed = fresh().executeSql(script('ERROR'));
    expect(await failure(failed.job?.result)).toContain(
      "INSERT INTO totals: Column 'k' is NOT NULL, however, a null value is being written into it.",
    );
    const dropped = fresh().executeSql(script('DROP'));
    const done = await dropped.job?.result;
    const final = new Map<string, unknown>();
    for (const c of (received.get('totals') ?? []) as Change<Row>[]) {
      if (c.kind === '-D' || c.kind === '-U') final.delete(String(c.value[0]));
      else final.set(String(c.value[0]), c.value[1]);
    }
    expect([...final].sort()).toEqual([
      ['a', 4],
      ['b', 5],
    ]);
    // Each change of the NULL group: its +I, then -U and +U (this sink takes retractions).
    expect(done?.metric('weir_sql_sink_not_null_dropped_total')).toBe(3);
  }, 30_000);

  it('a NOT NULL query column needs no check to pass; rows without NULLs all arrive', async () => {
    const dataId = registerValues([
      ['x', 1, 2],
      ['y', 3, 4],
    ]);
    const result = fresh().executeSql(`${SCRIPT(dataId)}
      INSERT INTO not_null_sink SELECT category, shopId, COALESCE(num, 0) FROM nullable_src`);
    const done = await result.job?.result;
    expect(rowsText(received.get('not_null_sink') ?? [])).toEqual(['x,1,2', 'y,3,4']);
    expect(done?.metric('weir_sql_sink_not_null_dropped_total')).toBe(0);
  }, 30_000);

  it('SET checks the value; the type-length enforcer is refused, naming what INSERT does', () => {
    expect(() => fresh().executeSql("SET 'table.exec.sink.not-null-enforcer' = 'skip'")).toThrow(
      "'table.exec.sink.not-null-enforcer' is 'skip'; allowed values: ERROR, DROP",
    );
    expect(() =>
      fresh().executeSql("SET 'table.exec.sink.not-null-enforcer' = 'Drop'"),
    ).not.toThrow();
    expect(() =>
      fresh().executeSql("SET 'table.exec.sink.type-length-enforcer' = 'TRIM_PAD'"),
    ).toThrow(SqlError);
  });
});
