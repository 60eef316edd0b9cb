/**
 * The PostgreSQL lookup table against the real server: lookup joins equal a
 * plain-loop join with the table's rows (inner and left, parallelism 1 and
 * 2), the cache saves queries, a row changed in the table is seen once its
 * cached copy has expired, and a failing query fails the job naming the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresLookupTable } from '../../src/connectors/postgres/index.js';
import { CollectSink, StreamEnvironment, WeirError } from '../../src/index.js';
import { ManualClock } from '../../src/testing/manual-clock.js';
import { ScriptedSource, waitUntil } from '../helpers/timeline.js';
import { cleanup, freshSchema, PG_URL, sql } from './helpers.js';

const SCHEMA = 'weir_lookup_test';

interface Customer {
  readonly id: number;
  readonly name: string;
  readonly tier: number;
}

beforeAll(async () => {
  await freshSchema(SCHEMA);
  await sql(
    `CREATE TABLE ${SCHEMA}.customers (id integer PRIMARY KEY, name text NOT NULL, tier integer NOT NULL)`,
  );
  await sql(
    `INSERT INTO ${SCHEMA}.customers SELECT g, 'customer ' || g, g % 3 FROM generate_series(0, 39) g`,
  );
  await sql(`CREATE TABLE ${SCHEMA}.settings (name text PRIMARY KEY, value text NOT NULL)`);
  await sql(`INSERT INTO ${SCHEMA}.settings VALUES ('mode', 'old')`);
});

afterAll(async () => {
  await cleanup(SCHEMA, []);
});

const customers = () =>
  new PostgresLookupTable<number, Customer>({
    connection: PG_URL,
    table: `${SCHEMA}.customers`,
    keyColumn: 'id',
    columns: ['id', 'name', 'tier'],
    row: (r) => ({ id: r.id as number, name: r.name as string, tier: r.tier as number }),
  });

interface Order {
  readonly id: number;
  readonly customer: number;
}

describe('PostgresLookupTable', () => {
  for (const parallelism of [1, 2]) {
    for (const join of ['inner', 'left'] as const) {
      it(`${join} join at parallelism ${parallelism} equals a plain-loop join with the table`, async () => {
        const rows = await sql<Customer>(`SELECT id, name, tier FROM ${SCHEMA}.customers`);
        const table = new Map(rows.map((r) => [r.id, r]));
        const orders: Order[] = Array.from({ length: 300 }, (_, id) => ({
          id,
          customer: (id * 17) % 55,
        }));
        const env = new StreamEnvironment({ batchSize: 16, parallelism });
        const sink = new CollectSink<string>();
        const input = env.fromArray(orders).rebalance();
        const common = { key: (o: Order) => o.customer, capacity: 20, maxBatchSize: 10 };
        (join === 'inner'
          ? input.lookupJoin(customers(), {
              ...common,
              select: (o, c) => `${o.id}:${c.name}:${c.tier}`,
            })
          : input.lookupJoin(customers(), {
              ...common,
              join: 'left',
              select: (o, c) => `${o.id}:${c?.name ?? '-'}:${c?.tier ?? '-'}`,
            })
        ).sinkTo(sink);
        const result = await env.execute('pg lookup');
        const expected: string[] = [];
        for (const o of orders) {
          const c = table.get(o.customer);
          if (c !== undefined) expected.push(`${o.id}:${c.name}:${c.tier}`);
          else if (join === 'left') expected.push(`${o.id}:-:-`);
        }
        expect([...sink.values].sort()).toEqual(expected.sort());
        const unmatched = orders.filter((o) => !table.has(o.customer)).length;
        expect(result.metric('weir_lookup_unmatched_total')).toBe(join === 'inner' ? unmatched : 0);
      });
    }
  }

  it('answers repeated keys from the cache instead of the database', async () => {
    const orders: Order[] = Array.from({ length: 400 }, (_, id) => ({ id, customer: id % 10 }));
    const run = async (cached: boolean) => {
      const env = new StreamEnvironment({ batchSize: 20 });
      const sink = new CollectSink<string>();
      env
        .fromArray(orders)
        .lookupJoin(customers(), {
          key: (o) => o.customer,
          select: (o, c) => `${o.id}:${c.name}`,
          capacity: 10,
          ...(cached ? { cache: { ttlMs: 60_000, maxSize: 100 } } : {}),
        })
        .sinkTo(sink);
      const result = await env.execute('pg cache');
      expect(sink.values).toEqual(orders.map((o) => `${o.id}:customer ${o.customer}`));
      return result;
    };
    const uncached = await run(false);
    const cached = await run(true);
    // With the cache each of the 10 keys is read once.
    expect(cached.metric('weir_lookup_keys_total')).toBe(10);
    expect(cached.metric('weir_lookup_cache_hits_total')).toBeGreaterThan(300);
    expect(uncached.metric('weir_lookup_keys_total')).toBeGreaterThan(100);
    expect(cached.metric('weir_lookup_requests_total')).toBeLessThan(
      uncached.metric('weir_lookup_requests_total'),
    );
  });

  it('sees a row changed in the table once its cached copy has expired', async () => {
    const settings = new PostgresLookupTable<string, string>({
      connection: PG_URL,
      table: `${SCHEMA}.settings`,
      keyColumn: 'name',
      row: (r) => r.value as string,
    });
    const source = new ScriptedSource<string>(
      [
        { records: ['1'] },
        { pauseMs: 100 },
        { records: ['2'] },
        { pauseMs: 1800 },
        { records: ['3'] },
      ],
      true,
    );
    // Processing time moves only when the test moves it: a loaded machine cannot stretch the
    // 100 ms pause past the TTL.
    const clock = new ManualClock(Date.now());
    const env = new StreamEnvironment({ batchSize: 1, clock });
    const sink = new CollectSink<string>();
    env
      .fromSource(source)
      .lookupJoin(settings, {
        key: () => 'mode',
        select: (n, value) => `${n}:${value}`,
        cache: { ttlMs: 1500, maxSize: 10 },
      })
      .sinkTo(sink);
    const job = env.executeAsync('pg ttl');
    await waitUntil(() => sink.values.length === 1);
    await sql(`UPDATE ${SCHEMA}.settings SET value = 'new' WHERE name = 'mode'`);
    // 2 arrives within the TTL (the cached row), 3 after it (read again).
    clock.set(clock.now() + 100);
    await waitUntil(() => sink.values.length === 2);
    clock.set(clock.now() + 1800);
    const result = await job.result;
    expect(sink.values).toEqual(['1:old', '2:old', '3:new']);
    expect(result.metric('weir_lookup_cache_hits_total')).toBe(1);
    expect(result.metric('weir_lookup_requests_total')).toBe(2);
  });

  it('fails the job naming the key when the query fails', async () => {
    const missing = new PostgresLookupTable<number>({
      connection: PG_URL,
      table: `${SCHEMA}.no_such_table`,
      keyColumn: 'id',
    });
    const env = new StreamEnvironment({ batchSize: 1 });
    const error = await env
      .fromArray([{ id: 1, customer: 7 }])
      .lookupJoin(missing, { key: (o) => o.customer, select: (o) => o.id })
      .executeAndCollect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('LOOKUP_FAILED');
    expect((error as WeirError).message).toMatch(
      /on record \{"id":1,"customer":7\}: lookup of key 7 in table 'weir_lookup_test.no_such_table' failed: relation "weir_lookup_test.no_such_table" does not exist/,
    );
  });

  it('refuses a bad configuration when the table is created', () => {
    expect(
      () => new PostgresLookupTable({ connection: PG_URL, table: '', keyColumn: 'id' }),
    ).toThrow(/table must be a table name/);
    expect(
      () =>
        new PostgresLookupTable({ connection: PG_URL, table: 't', keyColumn: 'id', poolSize: 0 }),
    ).toThrow(/poolSize must be a whole number/);
  });
});
