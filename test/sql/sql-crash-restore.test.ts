/**
 * A `weir sql -f` job killed with SIGKILL and started again with `--from latest`: a statement
 * set of an updating GROUP BY (upserted by key) and a window aggregation (appended, no key)
 * from a Kafka topic into PostgreSQL, exactly once. The kill comes while the job reads the
 * second part of the input; the tables after the second run must equal a batch computation
 * over every record: no window row twice or missing, no order counted twice.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWeir } from '../cli/run-cli.js';
import { BROKERS, createTopic, produce, uniqueTopic } from '../kafka/helpers.js';
import { cleanup, freshSchema, sql, until } from '../postgres/helpers.js';

const SCHEMA = 'sql_crash_restore';
const dir = mkdtempSync(join(tmpdir(), 'weir-sql-crash-'));

/** Orders per partition; the topic has two. */
const PER_PARTITION = 1_500;

interface Order {
  readonly id: number;
  readonly customer: string;
  /** Cents, written to the topic as a decimal text. */
  readonly cents: number;
  /** Event time, ms since 2026-01-01 00:00 UTC. */
  readonly at: number;
}

/** Order i: 7 customers, 0-999.99, about 20 per second of event time, slightly out of order. */
function order(i: number): Order {
  return {
    id: i,
    customer: `c${(i * 31) % 7}`,
    cents: (i * 7919) % 100_000,
    at: i * 50 + ((i * 13) % 7) * 100,
  };
}

const EPOCH = Date.UTC(2026, 0, 1);

function json(o: Order): string {
  const ts = new Date(EPOCH + o.at).toISOString().replace('T', ' ').replace('Z', '');
  const amount = `${Math.floor(o.cents / 100)}.${String(o.cents % 100).padStart(2, '0')}`;
  return JSON.stringify({ id: o.id, customer: o.customer, amount, ts });
}

const cents = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

beforeAll(async () => {
  await freshSchema(SCHEMA);
});

afterAll(async () => {
  await cleanup(SCHEMA, []);
  rmSync(dir, { recursive: true, force: true });
});

describe('a SQL job killed and restored', () => {
  it('gives the rows of a batch computation, each window row once', async () => {
    const topic = uniqueTopic('sql-crash');
    await createTopic(topic, 2);
    const all = Array.from({ length: 2 * PER_PARTITION }, (_, i) => order(i));
    const send = (orders: readonly Order[]) =>
      produce(
        topic,
        orders.map((o) => ({ value: json(o), key: String(o.id), partition: o.id % 2 })),
      );
    await sql(
      `CREATE TABLE ${SCHEMA}.totals (customer text PRIMARY KEY, n bigint, total numeric(38, 2))`,
    );
    await sql(
      `CREATE TABLE ${SCHEMA}.per_minute (customer text, window_start timestamp(3), n bigint, total numeric(38, 2))`,
    );
    const checkpoints = join(dir, 'checkpoints');
    const script = join(dir, 'job.sql');
    const jdbc = (table: string) =>
      `'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:54329/weir',
       'table-name' = '${SCHEMA}.${table}', 'username' = 'weir', 'password' = 'weir',
       'sink.delivery-guarantee' = 'exactly-once'`;
    writeFileSync(
      script,
      `CREATE TABLE orders (
         id BIGINT, customer STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
         WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
       ) WITH (
         'connector' = 'kafka', 'topic' = '${topic}',
         'properties.bootstrap.servers' = '${BROKERS.join(',')}',
         'scan.startup.mode' = 'earliest-offset',
         'scan.bounded.mode' = 'specific-offsets',
         'scan.bounded.specific-offsets' = 'partition:0,offset:${PER_PARTITION};partition:1,offset:${PER_PARTITION}',
         'format' = 'json'
       );
       CREATE TABLE totals (customer STRING, n BIGINT, total DECIMAL(38, 2),
         PRIMARY KEY (customer) NOT ENFORCED) WITH (${jdbc('totals')});
       CREATE TABLE per_minute (customer STRING, window_start TIMESTAMP(3), n BIGINT,
         total DECIMAL(38, 2)) WITH (${jdbc('per_minute')});
       EXECUTE STATEMENT SET BEGIN
         INSERT INTO totals SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer;
         INSERT INTO per_minute SELECT customer, window_start, COUNT(*), SUM(amount)
           FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
           GROUP BY customer, window_start, window_end;
       END;\n`,
    );
    const args = [
      'sql',
      '-f',
      script,
      '--checkpoint-dir',
      checkpoints,
      '--checkpoint-interval',
      '0.2',
      '-p',
      '2',
    ];

    // First run: the first half of each partition, then more while it runs, then a kill.
    const half = PER_PARTITION; // orders 0..half-1: 750 per partition
    await send(all.slice(0, half));
    const first = startWeir(args, 120_000);
    // Window rows are committed by a completed checkpoint: the job is well under way.
    await until(
      async () => (await sql(`SELECT 1 FROM ${SCHEMA}.per_minute LIMIT 1`)).length > 0,
      60_000,
      'committed window rows of the first run',
    ).catch((e: Error) => {
      first.child.kill('SIGKILL');
      throw new Error(`${e.message}\n${first.output('stderr')}`);
    });
    await send(all.slice(half, half + 600));
    // Killed once a checkpoint has committed some of those orders: the next ones are read,
    // counted and written into a transaction that no checkpoint completes.
    await until(
      async () => {
        const [row] = await sql<{ n: string | null }>(
          `SELECT sum(n)::text AS n FROM ${SCHEMA}.totals`,
        );
        return Number(row?.n ?? 0) > half;
      },
      60_000,
      'committed totals of the second part',
    );
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(readdirSync(checkpoints).some((f) => f.startsWith('chk-'))).toBe(true);

    // Second run: the rest of the input, from the newest checkpoint.
    await send(all.slice(half + 600));
    const second = await startWeir([...args, '--from', 'latest'], 120_000).done;
    expect(second.stderr).toMatch(/finished/);
    expect(second.code).toBe(0);

    // The batch computation over every order.
    const totals = new Map<string, { n: number; cents: number }>();
    const windows = new Map<string, { n: number; cents: number }>();
    for (const o of all) {
      const t = totals.get(o.customer) ?? { n: 0, cents: 0 };
      totals.set(o.customer, { n: t.n + 1, cents: t.cents + o.cents });
      const start = new Date(EPOCH + Math.floor(o.at / 60_000) * 60_000).toISOString();
      const key = `${o.customer} ${start.slice(0, 19).replace('T', ' ')}`;
      const w = windows.get(key) ?? { n: 0, cents: 0 };
      windows.set(key, { n: w.n + 1, cents: w.cents + o.cents });
    }
    const totalRows = await sql<{ customer: string; n: string; total: string }>(
      `SELECT customer, n::text, total::text FROM ${SCHEMA}.totals ORDER BY customer COLLATE "C"`,
    );
    expect(totalRows).toEqual(
      [...totals]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([customer, t]) => ({ customer, n: String(t.n), total: cents(t.cents) })),
    );
    const windowRows = await sql<{ key: string; n: string; total: string }>(
      `SELECT customer || ' ' || to_char(window_start, 'YYYY-MM-DD HH24:MI:SS') AS key,
         n::text, total::text FROM ${SCHEMA}.per_minute`,
    );
    windowRows.sort((a, b) => (a.key < b.key ? -1 : 1));
    expect(windowRows).toEqual(
      [...windows]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, w]) => ({ key, n: String(w.n), total: cents(w.cents) })),
    );
  }, 240_000);
});
