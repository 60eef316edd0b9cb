/**
 * Lookup joins in Weir SQL against a real PostgreSQL table (`jdbc`): orders read from a file
 * look up their customer `FOR SYSTEM_TIME AS OF` a PROCTIME() column, with and without Flink's
 * `lookup.cache` options, at parallelism 1 and 2, against a nested-loop join of the same rows;
 * and the cache options' errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { cleanup, freshSchema, sql } from '../postgres/helpers.js';

const SCHEMA = 'sql_lookup_pg';
const dir = mkdtempSync(join(tmpdir(), 'weir-sql-lookup-pg-'));

interface Customer {
  id: number;
  name: string | null;
  tier: number;
}
interface Order {
  id: number;
  customer: number | null;
  amount: number;
}

/** Customers 0..59 but every seventh (so some orders find none); some names NULL. */
const customers: Customer[] = Array.from({ length: 60 }, (_, id) => ({
  id,
  name: id % 11 === 0 ? null : `customer ${id}`,
  tier: id % 3,
})).filter((c) => c.id % 7 !== 3);

/** 500 orders; keys repeat (the cache serves them), some are NULL or beyond the table. */
const orders: Order[] = Array.from({ length: 500 }, (_, id) => ({
  id,
  customer: id % 37 === 0 ? null : (id * 7919) % 70,
  amount: (id * 31) % 100,
}));

const ordersFile = join(dir, 'orders.csv');

beforeAll(async () => {
  registerSqlConnectors(externalSqlConnectors);
  await freshSchema(SCHEMA);
  await sql(`CREATE TABLE ${SCHEMA}.customers (id BIGINT PRIMARY KEY, name TEXT, tier INT)`);
  for (const c of customers)
    await sql(`INSERT INTO ${SCHEMA}.customers VALUES ($1, $2, $3)`, [c.id, c.name, c.tier]);
  writeFileSync(
    ordersFile,
    orders.map((o) => `${o.id},${o.customer ?? ''},${o.amount}\n`).join(''),
  );
});

afterAll(async () => {
  await cleanup(SCHEMA, []);
  rmSync(dir, { recursive: true, force: true });
});

function ddl(lookupOptions: string): string {
  return `
    CREATE TABLE orders (id INT, customer BIGINT, amount INT, pt AS PROCTIME())
      WITH ('connector' = 'filesystem', 'path' = '${ordersFile}', 'format' = 'csv');
    CREATE TABLE customers (id BIGINT, name STRING, tier INT, PRIMARY KEY (id) NOT ENFORCED)
      WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:54329/weir',
            'table-name' = '${SCHEMA}.customers', 'username' = 'weir', 'password' = 'weir'${lookupOptions});`;
}

async function run(lookupOptions: string, select: string, parallelism: number): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl(lookupOptions));
  const sink = new CollectSink<Row>();
  tEnv.sqlQuery(select).toDataStream().sinkTo(sink);
  await env.execute('lookup join postgres');
  return sink.values.map((r) => JSON.stringify(r)).sort();
}

const byId = new Map(customers.map((c) => [c.id, c]));
const sorted = (rows: readonly unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

const CACHES = {
  'no cache': '',
  'a partial cache': `, 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '20',
      'lookup.partial-cache.expire-after-write' = '1 min', 'lookup.max-retries' = '2'`,
};

describe('lookup join against a jdbc (PostgreSQL) table', () => {
  for (const [cacheName, options] of Object.entries(CACHES)) {
    for (const parallelism of [1, 2]) {
      it(`INNER and LEFT equal a nested-loop join (${cacheName}, parallelism ${parallelism})`, async () => {
        const inner = await run(
          options,
          `SELECT o.id, o.amount, c.name, c.tier FROM orders AS o
           JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.customer = c.id
           WHERE c.tier > 0`,
          parallelism,
        );
        const expectedInner = orders.flatMap((o) => {
          const c = o.customer === null ? undefined : byId.get(o.customer);
          return c !== undefined && c.tier > 0 ? [[o.id, o.amount, c.name, c.tier]] : [];
        });
        expect(expectedInner.length).toBeGreaterThan(100);
        expect(inner).toEqual(sorted(expectedInner));

        const left = await run(
          options,
          `SELECT o.id, c.id, c.name FROM orders AS o
           LEFT JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c
           ON o.customer = c.id AND c.tier <> 2`,
          parallelism,
        );
        const expectedLeft = orders.map((o) => {
          const c = o.customer === null ? undefined : byId.get(o.customer);
          return c !== undefined && c.tier !== 2 ? [o.id, c.id, c.name] : [o.id, null, null];
        });
        expect(left).toEqual(sorted(expectedLeft));
      }, 120_000);
    }
  }

  it('refuses a cache it cannot bound, and unknown cache kinds, naming the option', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(ddl(`, 'lookup.cache' = 'PARTIAL'`));
    expect(() =>
      tEnv.sqlQuery(
        'SELECT * FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.customer = c.id',
      ),
    ).toThrow("a lookup cache needs 'lookup.partial-cache.max-rows'");
    expect(() =>
      tEnv.executeSql(ddl(`, 'lookup.cache' = 'FULL'`).replaceAll('TABLE ', 'TABLE x_')),
    ).toThrow("option 'lookup.cache' of connector 'jdbc' is 'FULL'; allowed values: NONE, PARTIAL");
  });
});
