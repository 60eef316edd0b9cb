/**
 * Event-time temporal joins (`FOR SYSTEM_TIME AS OF o.order_time`) against a versioned
 * `upsert-kafka` table on the real Kafka: INNER and LEFT joins of orders read out of order
 * (within the watermark's delay) from two partitions, against a plain as-of lookup over each
 * currency's versions sorted by time (fast-check: versions, deletes, orders, and their
 * order in the topic); and the plan-time refusals.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CollectSink, SqlError, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { BROKERS, createTopic, produce, uniqueTopic } from '../kafka/helpers.js';

beforeAll(() => registerSqlConnectors(externalSqlConnectors));

const T0 = Date.UTC(2026, 0, 1);
const CURRENCIES = ['EUR', 'GBP', 'JPY', 'USD'] as const;

/** A change of the rates table at `time`: a new rate for a currency, or its deletion (rate null). */
interface Version {
  readonly currency: string;
  readonly rate: number | null;
  readonly time: number;
}

interface Order {
  readonly id: number;
  readonly currency: string;
  readonly amount: number;
  readonly time: number;
}

/** The rate valid at `time`: the newest version at or before it (none if that one is a deletion). */
function rateAt(versions: readonly Version[], currency: string, time: number): number | null {
  let valid: Version | undefined;
  for (const v of versions) if (v.currency === currency && v.time <= time) valid = v;
  return valid?.rate ?? null;
}

const scenario = fc
  .record({
    // Versions of three currencies (USD never has one) at increasing times.
    versions: fc.array(
      fc.record({
        currency: fc.constantFrom('EUR', 'GBP', 'JPY'),
        rate: fc.option(fc.integer({ min: 1, max: 200 }), { freq: 5 }),
        gap: fc.integer({ min: 0, max: 4_000 }),
      }),
      { minLength: 1, maxLength: 25 },
    ),
    orders: fc.array(
      fc.record({
        currency: fc.constantFrom(...CURRENCIES),
        amount: fc.integer({ min: 1, max: 1_000 }),
        at: fc.integer({ min: 0, max: 60_000 }),
        // How far the order is read out of its time order (less than the watermark delay).
        disorder: fc.integer({ min: 0, max: 4_000 }),
        partition: fc.integer({ min: 0, max: 1 }),
      }),
      { minLength: 1, maxLength: 60 },
    ),
  })
  .map(({ versions, orders }) => {
    let time = T0;
    const v: Version[] = versions.map((x) => {
      time += x.gap + 1;
      return { currency: x.currency, rate: x.rate, time };
    });
    const o = orders.map((x, id) => ({ ...x, id, time: T0 + x.at }));
    return { versions: v, orders: o };
  });

async function runJoin(
  versions: readonly Version[],
  orders: readonly (Order & { disorder: number; partition: number })[],
): Promise<{ inner: string[]; left: string[] }> {
  const rates = uniqueTopic('sql-temporal-rates');
  const ordersTopic = uniqueTopic('sql-temporal-orders');
  await createTopic(rates, 1);
  await createTopic(ordersTopic, 2);
  await produce(
    rates,
    versions.map((v) => ({
      key: JSON.stringify({ currency: v.currency }),
      value:
        v.rate === null
          ? null
          : JSON.stringify({ currency: v.currency, rate: v.rate, update_time: v.time }),
      // A tombstone has no update_time: its version starts at the record's timestamp.
      timestamp: v.time,
    })),
  );
  // Each partition in time order except for the disorder, which the watermark delay covers.
  const shuffled = [...orders].sort((a, b) => a.time - a.disorder - (b.time - b.disorder));
  await produce(
    ordersTopic,
    shuffled.map((o) => ({
      value: JSON.stringify({
        id: o.id,
        currency: o.currency,
        amount: o.amount,
        order_time: o.time,
      }),
      partition: o.partition,
    })),
  );
  const env = new StreamEnvironment({ parallelism: 2 });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(`
    CREATE TABLE rates (
      currency STRING, rate INT, update_time TIMESTAMP(3),
      PRIMARY KEY (currency) NOT ENFORCED,
      WATERMARK FOR update_time AS update_time
    ) WITH (
      'connector' = 'upsert-kafka', 'topic' = '${rates}',
      'properties.bootstrap.servers' = '${BROKERS.join(',')}',
      'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset'
    );
    CREATE TABLE orders (
      id INT, currency STRING, amount INT, order_time TIMESTAMP(3),
      WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
    ) WITH (
      'connector' = 'kafka', 'topic' = '${ordersTopic}',
      'properties.bootstrap.servers' = '${BROKERS.join(',')}', 'format' = 'json',
      'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'
    );`);
  const collect = (sql: string) => {
    const table = tEnv.sqlQuery(sql);
    const sink = new CollectSink<unknown[]>();
    table
      .toDataStream()
      .map((row) => table.toJson(row))
      .sinkTo(sink);
    return sink;
  };
  const inner = collect(`
    SELECT o.id, o.amount * r.rate AS price, r.update_time
    FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
    ON o.currency = r.currency`);
  const left = collect(`
    SELECT o.id, r.rate
    FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
    ON r.currency = o.currency`);
  await env.execute('temporal join test');
  const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
  return { inner: sorted(inner.values), left: sorted(left.values) };
}

/** A versioned table and orders, for planning only. */
const PLANNED_TABLES = `
  CREATE TABLE rates (currency STRING, rate INT, t TIMESTAMP(3),
    PRIMARY KEY (currency) NOT ENFORCED, WATERMARK FOR t AS t)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'r', 'properties.bootstrap.servers' = 'x:1',
    'key.format' = 'json', 'value.format' = 'json');
  CREATE TABLE orders (id INT, currency STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen');`;

function planError(query: string): SqlError {
  const tEnv = TableEnvironment.create(new StreamEnvironment());
  tEnv.executeSql(`
    CREATE TABLE plain (currency STRING, rate INT, t TIMESTAMP(3), WATERMARK FOR t AS t)
    WITH ('connector' = 'datagen');
    ${PLANNED_TABLES}`);
  try {
    tEnv.sqlQuery(query);
  } catch (error) {
    if (error instanceof SqlError) return error;
    throw error;
  }
  throw new Error('expected a SqlError');
}

describe('event-time temporal join', () => {
  it('INNER and LEFT joins equal an as-of lookup over the sorted versions', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ versions, orders }) => {
        const { inner, left } = await runJoin(versions, orders);
        const expectedInner: string[] = [];
        const expectedLeft: string[] = [];
        for (const o of orders) {
          const rate = rateAt(versions, o.currency, o.time);
          expectedLeft.push(JSON.stringify([o.id, rate]));
          if (rate === null) continue;
          const version = versions
            .filter((v) => v.currency === o.currency && v.time <= o.time)
            .at(-1);
          expectedInner.push(JSON.stringify([o.id, o.amount * rate, version?.time]));
        }
        expect(inner).toEqual(expectedInner.sort());
        expect(left).toEqual(expectedLeft.sort());
      }),
      { numRuns: 5 },
    );
  });

  it('refuses what is not an event-time temporal join against a versioned table, naming why', () => {
    expect(
      planError(
        'SELECT * FROM orders o JOIN plain FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency',
      ).message,
    ).toContain("FOR SYSTEM_TIME AS OF needs a versioned table: 'plain' has no PRIMARY KEY");
    expect(
      planError(
        'SELECT * FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.id = r.rate',
      ).message,
    ).toContain(
      "a temporal join's condition must equate the whole primary key (currency) of 'rates' with the left side; missing: currency",
    );
    expect(
      planError(
        'SELECT * FROM orders o FULL JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency',
      ).message,
    ).toContain('a temporal join (FOR SYSTEM_TIME AS OF) is an INNER or LEFT JOIN, not FULL');
    expect(
      planError(
        'SELECT * FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.id AS r ON o.currency = r.currency',
      ).message,
    ).toMatch(
      /^line 1, column \d+: FOR SYSTEM_TIME AS OF must name a time attribute of the left side: its rowtime/,
    );
  });

  it('EXPLAIN shows the temporal join over the versioned table', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`
    ${PLANNED_TABLES}`);
    const plan = tEnv.explainSql(
      'SELECT o.id, r.rate FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency',
    );
    expect(plan).toContain('temporal inner join');
    expect(plan).toContain('upsert');
  });
});
