/**
 * The SQL connectors `kafka` and `jdbc` against the real Kafka and PostgreSQL servers: the
 * tutorial of docs/sql.md (a Kafka topic of JSON orders into a PostgreSQL table, exactly once),
 * a Kafka round trip with key, metadata and computed columns, and option errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { startWeir } from '../cli/run-cli.js';
import { BROKERS, createTopic, produce, readAll, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { cleanup, freshSchema, sql, until } from '../postgres/helpers.js';

const SCHEMA = 'sql_kafka_pg';
const dir = mkdtempSync(join(tmpdir(), 'weir-sql-kafka-'));

interface Order {
  id: number;
  customer: string;
  amount: string;
  ts: string;
}

/** 300 orders over 2 partitions, some ids repeated (a later order replaces an earlier one). */
function orders(): Order[] {
  const out: Order[] = [];
  for (let i = 0; i < 300; i++) {
    const id = i % 250;
    const cents = (i * 7919) % 100_000;
    out.push({
      id,
      customer: `c${i % 13}`,
      amount: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
      ts: `2026-01-01 00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}`,
    });
  }
  return out;
}

beforeAll(async () => {
  registerSqlConnectors(externalSqlConnectors);
  await freshSchema(SCHEMA);
});

afterAll(async () => {
  await cleanup(SCHEMA, []);
  rmSync(dir, { recursive: true, force: true });
});

describe('kafka and jdbc SQL connectors', () => {
  it('reads JSON orders from Kafka and upserts them into PostgreSQL exactly once', async () => {
    const topic = uniqueTopic('sql-orders');
    await createTopic(topic, 2);
    const input = orders();
    // Each id on one partition, so that the last order of an id is the last one read.
    await produce(
      topic,
      input.map((o) => ({ value: JSON.stringify(o), key: String(o.id), partition: o.id % 2 })),
    );
    await sql(
      `CREATE TABLE ${SCHEMA}.orders (id bigint PRIMARY KEY, customer text NOT NULL, amount numeric(10, 2), ts timestamp(3), big boolean)`,
    );
    const env = new StreamEnvironment({
      parallelism: 2,
      checkpointing: { directory: join(dir, 'orders'), intervalMs: 50 },
    });
    const tEnv = TableEnvironment.create(env);
    const result = tEnv.executeSql(`
      CREATE TABLE orders (
        id BIGINT,
        customer STRING,
        amount DECIMAL(10, 2),
        ts TIMESTAMP(3),
        big AS amount > 500,
        WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
      ) WITH (
        'connector' = 'kafka',
        'topic' = '${topic}',
        'properties.bootstrap.servers' = '${BROKERS.join(',')}',
        'scan.startup.mode' = 'earliest-offset',
        'scan.bounded.mode' = 'latest-offset',
        'format' = 'json'
      );
      CREATE TABLE pg_orders (
        id BIGINT, customer STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3), big BOOLEAN,
        PRIMARY KEY (id) NOT ENFORCED
      ) WITH (
        'connector' = 'jdbc',
        'url' = 'jdbc:postgresql://127.0.0.1:54329/weir',
        'table-name' = '${SCHEMA}.orders',
        'username' = 'weir',
        'password' = 'weir',
        'sink.delivery-guarantee' = 'exactly-once'
      );
      INSERT INTO pg_orders SELECT id, customer, amount, ts, big FROM orders;
    `);
    await result.job?.result;
    // The last checkpoint's transaction commits as the job ends: wait for it, then compare.
    await until(
      async () => (await sql(`SELECT 1 FROM ${SCHEMA}.orders`)).length === 250,
      30_000,
      'the committed rows',
    );
    const rows = await sql<{
      id: string;
      customer: string;
      amount: string;
      ts: string;
      big: boolean;
    }>(
      `SELECT id::text, customer, amount::text, to_char(ts, 'YYYY-MM-DD HH24:MI:SS.MS') AS ts, big FROM ${SCHEMA}.orders ORDER BY id + 0`,
    );
    const expected = new Map<number, Order>();
    for (const o of input) expected.set(o.id, o);
    expect(rows).toEqual(
      [...expected.values()]
        .sort((a, b) => a.id - b.id)
        .map((o) => ({
          id: String(o.id),
          customer: o.customer,
          amount: o.amount,
          ts: o.ts,
          big: Number(o.amount) > 500,
        })),
    );
    // Every prepared transaction was committed.
    const prepared = await sql(
      `SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'weir:${SCHEMA}.%'`,
    );
    expect(prepared).toEqual([]);
  }, 120_000);

  it('writes key and value, and reads them back with metadata columns', async () => {
    const topic = uniqueTopic('sql-roundtrip');
    await createTopic(topic, 1);
    const env = new StreamEnvironment({
      checkpointing: { directory: join(dir, 'roundtrip'), intervalMs: 50 },
    });
    const tEnv = TableEnvironment.create(env);
    const kafkaOptions = `
        'connector' = 'kafka',
        'topic' = '${topic}',
        'properties.bootstrap.servers' = '${BROKERS.join(',')}',
        'key.format' = 'raw',
        'key.fields' = 'name',
        'value.format' = 'json',
        'value.fields-include' = 'EXCEPT_KEY'`;
    const written = tEnv.executeSql(`
      CREATE TABLE out_t (
        name STRING, n INT, price DECIMAL(6, 3)
      ) WITH (${kafkaOptions},
        'sink.delivery-guarantee' = 'exactly-once',
        'sink.transactional-id-prefix' = '${topic}-tx'
      );
      INSERT INTO out_t VALUES ('a', 1, 1.5), ('b', 2, 0.125);
    `);
    await written.job?.result;
    // The records as a plain read_committed reader sees them, once the last commit lands.
    const text = {
      name: 'text',
      deserialize: (b: Buffer | undefined) => b?.toString('utf8') ?? null,
      serialize: () => Buffer.alloc(0),
    };
    let raw: (string | null)[] = [];
    await waitFor('the committed records', async () => {
      raw = await readAll(topic, text);
      return raw.length >= 2;
    });
    // A DECIMAL as Flink's json format writes it by default (Jackson's normalized BigDecimal).
    expect(raw).toEqual(['{"n":1,"price":1.5}', '{"n":2,"price":0.125}']);

    const read = new StreamEnvironment();
    const rEnv = TableEnvironment.create(read);
    rEnv.executeSql(`
      CREATE TABLE in_t (
        name STRING, n INT, price DECIMAL(6, 3),
        part INT METADATA FROM 'partition' VIRTUAL,
        off BIGINT METADATA FROM 'offset' VIRTUAL,
        hdrs MAP<STRING, STRING> METADATA FROM 'headers',
        doubled AS n * 2
      ) WITH (${kafkaOptions},
        'scan.startup.mode' = 'earliest-offset',
        'scan.bounded.mode' = 'latest-offset'
      )`);
    const table = rEnv.sqlQuery('SELECT name, n, price, part, off, hdrs, doubled FROM in_t');
    const sink = new CollectSink<Row>();
    table.toDataStream().sinkTo(sink);
    await read.execute('read back');
    expect(sink.values).toEqual([
      ['a', 1, 1500n, 0, 0, new Map(), 2],
      ['b', 2, 125n, 0, 1, new Map(), 4],
    ]);
  }, 120_000);

  it('weir sql -f loads the jdbc connector and CREATE FUNCTION modules, and upserts at least once', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.labels (n int PRIMARY KEY, label text)`);
    await sql(`INSERT INTO ${SCHEMA}.labels VALUES (3, 'stale')`);
    const script = join(dir, 'labels.sql');
    writeFileSync(
      script,
      `CREATE FUNCTION label AS 'test/sql/fixtures/functions.ts#label';
      CREATE TABLE nums (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '20',
        'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '20');
      CREATE TABLE labels (n INT, label STRING, PRIMARY KEY (n) NOT ENFORCED) WITH (
        'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:54329/weir',
        'table-name' = '${SCHEMA}.labels', 'username' = 'weir', 'password' = 'weir');
      INSERT INTO labels SELECT CAST(n AS INT), label(n) FROM nums;\n`,
    );
    const result = await startWeir(['sql', '-f', script], 90_000).done;
    expect(result.stderr).toMatch(/finished/);
    expect(result.code).toBe(0);
    const rows = await sql<{ n: number; label: string }>(
      `SELECT n, label FROM ${SCHEMA}.labels ORDER BY n`,
    );
    expect(rows).toEqual(
      Array.from({ length: 20 }, (_, i) => ({
        n: i + 1,
        label: `${(i + 1) % 2 === 0 ? 'even' : 'odd'}-${i + 1}`,
      })),
    );
  }, 120_000);

  it('names a wrong option, a missing one and an unknown metadata key with positions', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    const base = `'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'h:1', 'format' = 'json'`;
    expect(() =>
      tEnv.executeSql(`CREATE TABLE a (x INT) WITH (${base},\n 'scan.startup.mode' = 'earliest')`),
    ).toThrow(
      "line 2, column 2: option 'scan.startup.mode' of connector 'kafka' is 'earliest'; allowed values: earliest-offset, latest-offset, group-offsets, timestamp, specific-offsets",
    );
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE b (x INT) WITH ('connector' = 'kafka', 'topic' = 't', 'format' = 'json')`,
      ),
    ).toThrow("connector 'kafka' needs option 'properties.bootstrap.servers'");
    expect(() =>
      tEnv.executeSql(`CREATE TABLE c (x INT) WITH (${base}, 'sink.semantic' = 'x')`),
    ).toThrow(
      /unknown option 'sink.semantic' of connector 'kafka'; its options are: .*sink.delivery-guarantee/,
    );
    expect(() =>
      tEnv.executeSql(`CREATE TABLE d (x INT, o BIGINT METADATA FROM 'ofset') WITH (${base})`),
    ).toThrow("connector 'kafka' has no metadata key 'ofset'; allowed: topic, partition, offset");
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE e (x INT) WITH (${base}, 'sink.delivery-guarantee' = 'exactly-once')`,
      ),
    ).toThrow("'sink.delivery-guarantee' = 'exactly-once' needs 'sink.transactional-id-prefix'");
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE f (x INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://h/db', 'table-name' = 't')`,
      ),
    ).toThrow("option 'url' must start with 'jdbc:postgresql://'");
  });

  it('fails a bad record naming the table, partition, offset and field', async () => {
    const topic = uniqueTopic('sql-bad');
    await createTopic(topic, 1);
    await produce(topic, [{ value: '{"n": 1}' }, { value: '{"n": "one"}' }]);
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(`
      CREATE TABLE bad (n INT) WITH (
        'connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${BROKERS[0]}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')`);
    tEnv.sqlQuery('SELECT n FROM bad').toDataStream().sinkTo(new CollectSink<Row>());
    await expect(env.execute('bad record')).rejects.toThrow(
      /table 'bad': record at topic \S+ partition 0 offset 1: field 'n' expects INT, got "one"/,
    );
  }, 60_000);
});
