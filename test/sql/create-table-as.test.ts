/**
 * CREATE TABLE ... AS SELECT (CTAS) and CREATE TABLE ... LIKE: the table each makes (its
 * schema as DESCRIBE shows it) and the rows that reach it, read back through the connector
 * (filesystem, Kafka against the real server) and compared with a plain computation over the
 * input; what Flink refuses is refused.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { BROKERS, createTopic, uniqueTopic } from '../kafka/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-ctas-'));
beforeAll(() => registerSqlConnectors(externalSqlConnectors));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Order {
  id: number;
  customer: string;
  amount: number;
}

const ORDERS: readonly Order[] = Array.from({ length: 60 }, (_, i) => ({
  id: i,
  customer: `c${(i * 7) % 5}`,
  amount: (i * 37) % 100,
}));

function writeOrders(): string {
  const path = join(dir, `orders-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(path, ORDERS.map((o) => `${o.id},${o.customer},${o.amount}\n`).join(''));
  return path;
}

const ordersDdl = (path: string) => `
  CREATE TABLE orders (id INT, customer STRING, amount INT)
  WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv')`;

/** Every row of a filesystem (JSON) or Kafka table, read back through its connector. */
async function readBack(ddl: string, name: string): Promise<string[]> {
  const env = new StreamEnvironment();
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl);
  const sink = new CollectSink<Row>();
  tEnv.sqlQuery(`SELECT * FROM ${name}`).toDataStream().sinkTo(sink);
  await env.execute('read back');
  return sink.values
    .map((r) => JSON.stringify(r.map((v) => (typeof v === 'bigint' ? Number(v) : v))))
    .sort();
}

const rows = (list: readonly unknown[][]): string[] => list.map((r) => JSON.stringify(r)).sort();

describe('CREATE TABLE ... AS SELECT', () => {
  it('creates the table with the query schema and writes its rows (filesystem)', async () => {
    const out = join(dir, 'big-orders');
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    const result = tEnv.executeSql(`${ordersDdl(writeOrders())};
      CREATE TABLE big_orders WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json')
      AS SELECT id, UPPER(customer) AS customer, amount * 2 AS doubled FROM orders WHERE amount >= 50;`);
    expect(result.statements).toEqual(['CREATE TABLE orders', 'CREATE TABLE big_orders']);
    await result.job?.result;
    expect(tEnv.describeTable('big_orders')).toEqual([
      { name: 'id', type: 'INT', extras: '' },
      { name: 'customer', type: 'STRING', extras: '' },
      { name: 'doubled', type: 'INT', extras: '' },
    ]);
    const expected = ORDERS.filter((o) => o.amount >= 50).map((o) => [
      o.id,
      o.customer.toUpperCase(),
      o.amount * 2,
    ]);
    expect(
      await readBack(
        `CREATE TABLE back (id INT, customer STRING, doubled INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json')`,
        'back',
      ),
    ).toEqual(rows(expected));
  }, 60_000);

  it('puts declared columns first: a new column is NULL, a declared type casts, PRIMARY KEY kept', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const result = tEnv.executeSql(`${ordersDdl(writeOrders())};
      CREATE TABLE totals (note STRING, total BIGINT, PRIMARY KEY (customer) NOT ENFORCED)
      WITH ('connector' = 'blackhole')
      AS SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM orders WHERE id < 0 GROUP BY customer;
      CREATE TABLE reordered (amount, id, customer)
      WITH ('connector' = 'blackhole') AS SELECT id, customer, amount FROM orders;`);
    await result.job?.result;
    expect(tEnv.describeTable('totals')).toEqual([
      { name: 'note', type: 'STRING', extras: '' },
      { name: 'total', type: 'BIGINT', extras: '' },
      // A PRIMARY KEY column is NOT NULL, as Flink's CTAS makes it.
      { name: 'customer', type: 'STRING NOT NULL', extras: 'PRIMARY KEY' },
      { name: 'n', type: 'BIGINT NOT NULL', extras: '' },
    ]);
    expect(tEnv.describeTable('reordered').map((c) => `${c.name} ${c.type}`)).toEqual([
      'amount INT',
      'id INT',
      'customer STRING',
    ]);
    // The same with rows: an insert-only query, so the file holds exactly the query's rows.
    const out2 = join(dir, 'notes');
    const env2 = new StreamEnvironment();
    const t2 = TableEnvironment.create(env2);
    await t2.executeSql(`${ordersDdl(writeOrders())};
      CREATE TABLE notes (note STRING, amount BIGINT, id)
      WITH ('connector' = 'filesystem', 'path' = '${out2}', 'format' = 'json')
      AS SELECT id, customer, amount FROM orders WHERE customer = 'c1';`).job?.result;
    expect(t2.describeTable('notes').map((c) => `${c.name} ${c.type}`)).toEqual([
      'note STRING',
      'amount BIGINT',
      'id INT',
      'customer STRING',
    ]);
    expect(
      await readBack(
        `CREATE TABLE back (note STRING, amount BIGINT, id INT, customer STRING) WITH ('connector' = 'filesystem', 'path' = '${out2}', 'format' = 'json')`,
        'back',
      ),
    ).toEqual(
      rows(ORDERS.filter((o) => o.customer === 'c1').map((o) => [null, o.amount, o.id, 'c1'])),
    );
  }, 60_000);

  it('runs in a statement set beside INSERT INTO, from a DataStream table, at parallelism 2', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('o', env.fromArray([...ORDERS]), {
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'customer', type: 'STRING' },
        { name: 'amount', type: 'INT' },
      ],
    });
    const [a, b] = [join(dir, 'set-a'), join(dir, 'set-b')];
    const result = tEnv.executeSql(`
      CREATE TABLE b (id INT) WITH ('connector' = 'filesystem', 'path' = '${b}', 'format' = 'json');
      EXECUTE STATEMENT SET BEGIN
        CREATE TABLE a WITH ('connector' = 'filesystem', 'path' = '${a}', 'format' = 'json')
          AS SELECT customer, amount FROM o WHERE amount < 20;
        INSERT INTO b SELECT id FROM o WHERE amount >= 90;
      END;`);
    await result.job?.result;
    expect(
      await readBack(
        `CREATE TABLE a (customer STRING, amount INT) WITH ('connector' = 'filesystem', 'path' = '${a}', 'format' = 'json')`,
        'a',
      ),
    ).toEqual(rows(ORDERS.filter((o) => o.amount < 20).map((o) => [o.customer, o.amount])));
    expect(
      await readBack(
        `CREATE TABLE b (id INT) WITH ('connector' = 'filesystem', 'path' = '${b}', 'format' = 'json')`,
        'b',
      ),
    ).toEqual(rows(ORDERS.filter((o) => o.amount >= 90).map((o) => [o.id])));
  }, 60_000);

  it('writes into a Kafka topic (real server) read back through the connector', async () => {
    const topic = uniqueTopic('sql-ctas');
    await createTopic(topic, 2);
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    const kafka = `'connector' = 'kafka', 'topic' = '${topic}',
      'properties.bootstrap.servers' = '${BROKERS[0]}', 'format' = 'json'`;
    await tEnv.executeSql(`${ordersDdl(writeOrders())};
      CREATE TABLE to_kafka (id BIGINT) WITH (${kafka})
      AS SELECT id, customer, amount % 10 AS digit FROM orders WHERE amount > 30;`).job?.result;
    expect(tEnv.describeTable('to_kafka').map((c) => `${c.name} ${c.type}`)).toEqual([
      'id BIGINT',
      'customer STRING',
      'digit INT',
    ]);
    expect(
      await readBack(
        `CREATE TABLE back (id BIGINT, customer STRING, digit INT) WITH (${kafka},
          'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')`,
        'back',
      ),
    ).toEqual(
      rows(ORDERS.filter((o) => o.amount > 30).map((o) => [o.id, o.customer, o.amount % 10])),
    );
  }, 60_000);

  it('refuses what Flink refuses and takes IF NOT EXISTS into an existing table', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(`${ordersDdl(writeOrders())};
      CREATE TABLE sink1 (id INT) WITH ('connector' = 'blackhole')`);
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE sink1 WITH ('connector' = 'blackhole') AS SELECT id FROM orders`,
      ),
    ).toThrow("table 'sink1' already exists");
    expect(() =>
      tEnv.executeSql(
        `CREATE TEMPORARY TABLE t2 WITH ('connector' = 'blackhole') AS SELECT id FROM orders`,
      ),
    ).toThrow('CREATE TEMPORARY TABLE ... AS SELECT is not supported');
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE t3 (nope) WITH ('connector' = 'blackhole') AS SELECT id FROM orders`,
      ),
    ).toThrow("column 'nope' of CREATE TABLE t3 needs a type");
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE t4 (id) WITH ('connector' = 'blackhole') AS SELECT id, amount FROM orders`,
      ),
    ).toThrow("names 1 of the query's 2 columns (not amount)");
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE t5 WITH ('connector' = 'blackhole') AS SELECT id, id FROM orders`,
      ),
    ).toThrow("two columns named 'id'");
    // EXPLAIN shows the CTAS's plan and its sink, and leaves no table behind.
    const [inSet] = tEnv.executeSql(
      `EXPLAIN EXECUTE STATEMENT SET BEGIN CREATE TABLE t7 WITH ('connector' = 'blackhole') AS SELECT id FROM orders; END`,
    ).explained;
    const [alone] = tEnv.executeSql(
      `EXPLAIN CREATE TABLE t8 WITH ('connector' = 'blackhole') AS SELECT id FROM orders WHERE id > 1`,
    ).explained;
    expect(inSet).toMatch(/t7/);
    expect(alone).toMatch(/t8/);
    expect(alone).toMatch(/where|filter/i);
    expect(tEnv.listTables()).not.toContain('t7');
    expect(tEnv.listTables()).not.toContain('t8');
    // [CREATE OR] REPLACE TABLE ... AS: the table is made again from the query.
    tEnv.buildScript(
      `CREATE OR REPLACE TABLE r1 WITH ('connector' = 'blackhole') AS SELECT id FROM orders;
       CREATE OR REPLACE TABLE r1 WITH ('connector' = 'blackhole') AS SELECT id, amount FROM orders;`,
    );
    expect(tEnv.describeTable('r1').map((c) => c.name)).toEqual(['id', 'amount']);
    tEnv.buildScript(
      `EXPLAIN CREATE OR REPLACE TABLE r1 WITH ('connector' = 'blackhole') AS SELECT amount FROM orders`,
    );
    expect(tEnv.describeTable('r1').map((c) => c.name)).toEqual(['id', 'amount']);
    tEnv.buildScript(
      `REPLACE TABLE r1 WITH ('connector' = 'blackhole') AS SELECT amount FROM orders`,
    );
    expect(tEnv.describeTable('r1').map((c) => c.name)).toEqual(['amount']);
    expect(() =>
      tEnv.buildScript(
        `REPLACE TABLE r2 WITH ('connector' = 'blackhole') AS SELECT id FROM orders`,
      ),
    ).toThrow("table 'r2' does not exist: REPLACE TABLE replaces one");
    expect(() =>
      tEnv.buildScript(`CREATE OR REPLACE TABLE r3 (id INT) WITH ('connector' = 'blackhole')`),
    ).toThrow('CREATE OR REPLACE TABLE needs AS SELECT');
    expect(() =>
      tEnv.buildScript(
        `CREATE OR REPLACE TABLE IF NOT EXISTS r1 WITH ('connector' = 'blackhole') AS SELECT id FROM orders`,
      ),
    ).toThrow(/IF NOT EXISTS cannot go with OR REPLACE/);
    expect(() => tEnv.executeSql(`CREATE TABLE t6 (a) WITH ('connector' = 'blackhole')`)).toThrow(
      "column 'a' needs a type",
    );
    const kept = tEnv.executeSql(
      `CREATE TABLE IF NOT EXISTS sink1 WITH ('connector' = 'blackhole') AS SELECT id FROM orders`,
    );
    expect(kept.statements).toEqual(['CREATE TABLE sink1']);
    await kept.job?.result;
  }, 60_000);
});

describe('CREATE TABLE ... LIKE', () => {
  const base = (path: string) => `
    CREATE TABLE base (
      id INT, customer STRING, amount INT, ts TIMESTAMP(3),
      big AS amount > 50,
      WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,
      PRIMARY KEY (id) NOT ENFORCED
    ) PARTITIONED BY (customer)
    WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv')`;

  it('takes the source definition by default, its options overwritten; the copy reads the same rows', async () => {
    const path = join(dir, 'like-base');
    const copy = join(dir, 'like-copy.csv');
    const t0 = Date.UTC(2026, 0, 1);
    writeFileSync(
      copy,
      ORDERS.map(
        (o) =>
          `${o.id},${o.customer},${o.amount},${new Date(t0 + o.id * 1000).toISOString().replace('T', ' ').replace('Z', '')}\n`,
      ).join(''),
    );
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(`${base(path)};
      CREATE TABLE copy (extra AS amount * 10) WITH ('path' = '${copy}') LIKE base (EXCLUDING PARTITIONS)`);
    expect(tEnv.describeTable('copy')).toEqual([
      { name: 'id', type: 'INT NOT NULL', extras: 'PRIMARY KEY' },
      { name: 'customer', type: 'STRING', extras: '' },
      { name: 'amount', type: 'INT', extras: '' },
      { name: 'ts', type: 'TIMESTAMP(3)', extras: 'WATERMARK' },
      { name: 'big', type: 'BOOLEAN', extras: 'computed' },
      { name: 'extra', type: 'INT', extras: 'computed' },
    ]);
    const sink = new CollectSink<Row>();
    tEnv.sqlQuery('SELECT id, big, extra FROM copy').toDataStream().sinkTo(sink);
    await env.execute('read like copy');
    expect(rows(sink.values)).toEqual(
      rows(ORDERS.map((o) => [o.id, o.amount > 50, o.amount * 10])),
    );
  }, 60_000);

  it('follows each option: EXCLUDING ALL INCLUDING GENERATED, OVERWRITING GENERATED and WATERMARKS', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`${base(join(dir, 'x'))};
      CREATE TABLE only_generated WITH ('connector' = 'blackhole')
        LIKE base (EXCLUDING ALL, INCLUDING GENERATED);
      CREATE TABLE overwritten (
        big AS amount > 90, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
      ) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'z')}', 'format' = 'json')
        LIKE base (OVERWRITING GENERATED, OVERWRITING WATERMARKS, EXCLUDING OPTIONS, EXCLUDING CONSTRAINTS)`);
    expect(tEnv.describeTable('only_generated').map((c) => `${c.name} ${c.extras}`)).toEqual([
      'id ',
      'customer ',
      'amount ',
      'ts ',
      'big computed',
    ]);
    expect(tEnv.describeTable('overwritten').map((c) => `${c.name} ${c.extras}`)).toEqual([
      'id ',
      'customer PARTITION KEY',
      'amount ',
      'ts WATERMARK',
      'big computed',
    ]);
  });

  it('refuses the clashes Flink refuses and names the option to use', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    mkdirSync(join(dir, 'y'));
    tEnv.executeSql(`${base(join(dir, 'y'))};
      CREATE VIEW v AS SELECT id FROM base`);
    const like = (ddl: string) => () => tEnv.executeSql(ddl);
    expect(like(`CREATE TABLE a (id INT) WITH ('connector' = 'blackhole') LIKE base`)).toThrow(
      "a column named 'id' already exists in the LIKE clause's table 'base'",
    );
    expect(like(`CREATE TABLE a (big AS 1) WITH ('connector' = 'blackhole') LIKE base`)).toThrow(
      'EXCLUDING GENERATED or OVERWRITING GENERATED',
    );
    expect(like(`CREATE TABLE a WITH ('format' = 'json') LIKE base (INCLUDING ALL)`)).toThrow(
      "already has option 'format' = 'csv'",
    );
    expect(
      like(
        `CREATE TABLE a (PRIMARY KEY (amount) NOT ENFORCED) WITH ('connector' = 'blackhole') LIKE base (EXCLUDING OPTIONS)`,
      ),
    ).toThrow('already has a primary key (EXCLUDING CONSTRAINTS drops it)');
    expect(
      like(
        `CREATE TABLE a (WATERMARK FOR ts AS ts) WITH ('connector' = 'blackhole') LIKE base (EXCLUDING OPTIONS)`,
      ),
    ).toThrow("there already is a watermark for column 'ts'");
    expect(
      like(`CREATE TABLE a WITH ('connector' = 'blackhole') LIKE base (OVERWRITING CONSTRAINTS)`),
    ).toThrow("illegal merging strategy 'OVERWRITING' for 'CONSTRAINTS' option");
    expect(
      like(
        `CREATE TABLE a WITH ('connector' = 'blackhole') LIKE base (EXCLUDING OPTIONS, INCLUDING OPTIONS)`,
      ),
    ).toThrow('each LIKE option feature can be declared only once');
    expect(like(`CREATE TABLE a WITH ('connector' = 'blackhole') LIKE v`)).toThrow(
      "the table of a LIKE clause cannot be a view ('v')",
    );
    expect(like(`CREATE TABLE a WITH ('connector' = 'blackhole') LIKE nope`)).toThrow(
      "table or view 'nope' not found",
    );
  });
});
