/**
 * Lookup joins against the in-memory table (with simulated latency as a
 * fake of an external service): the result equals a plain-loop join of the
 * input with the table, inner and left, ordered and unordered, cached or
 * not, at parallelism 1 and 2; batching, caching (TTL, LRU), capacity,
 * timeouts, retries and lookup errors.
 */
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AsyncRetry,
  CollectSink,
  type DataStream,
  InMemoryLookupTable,
  type LookupTable,
  StreamEnvironment,
  WeirError,
} from '../../src/index.js';
import { LookupCache } from '../../src/runtime/operators/async/lookup-cache.js';
import { ScriptedSource, waitUntil } from '../helpers/timeline.js';

interface Order {
  readonly id: number;
  readonly customer: number;
}
interface Customer {
  readonly name: string;
  readonly tier: number;
}
interface Enriched {
  readonly id: number;
  readonly customer: number;
  readonly name: string | null;
}

const customers = (n: number): [number, Customer][] =>
  Array.from({ length: n }, (_, c) => [c, { name: `c${c}`, tier: c % 3 }]);

/** Plain-loop joins: the oracle. */
function innerJoin(orders: readonly Order[], table: ReadonlyMap<number, Customer>): Enriched[] {
  const out: Enriched[] = [];
  for (const o of orders) {
    const c = table.get(o.customer);
    if (c !== undefined) out.push({ id: o.id, customer: o.customer, name: c.name });
  }
  return out;
}
function leftJoin(orders: readonly Order[], table: ReadonlyMap<number, Customer>): Enriched[] {
  const out: Enriched[] = [];
  for (const o of orders) {
    out.push({ id: o.id, customer: o.customer, name: table.get(o.customer)?.name ?? null });
  }
  return out;
}

const byId = (a: Enriched, b: Enriched) => a.id - b.id;

describe('lookupJoin', () => {
  it('equals a plain-loop join for random input (inner/left, ordered/unordered, cache or not, parallelism 1 and 2)', async () => {
    const rows = customers(40);
    const tableMap = new Map(rows);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 59 }), { minLength: 0, maxLength: 150 }),
        fc.constantFrom('inner' as const, 'left' as const),
        fc.constantFrom('ordered' as const, 'unordered' as const),
        fc.boolean(),
        fc.constantFrom(1, 2),
        fc.integer({ min: 1, max: 20 }),
        async (keys, join, order, cached, parallelism, capacity) => {
          const orders = keys.map((customer, id) => ({ id, customer }));
          const table = new InMemoryLookupTable(rows, { latencyMs: (k) => k.length % 3 });
          const env = new StreamEnvironment({ batchSize: 7, parallelism });
          const sink = new CollectSink<Enriched>();
          const common = {
            key: (o: Order) => o.customer,
            order,
            capacity,
            maxBatchSize: 5,
            ...(cached ? { cache: { ttlMs: 60_000, maxSize: 10 } } : {}),
          };
          const input = env.fromArray(orders).rebalance();
          const joined =
            join === 'inner'
              ? input.lookupJoin(table, {
                  ...common,
                  select: (o, c) => ({ id: o.id, customer: o.customer, name: c.name }),
                })
              : input.lookupJoin(table, {
                  ...common,
                  join: 'left',
                  select: (o, c) => ({ id: o.id, customer: o.customer, name: c?.name ?? null }),
                });
          joined.sinkTo(sink);
          const result = await env.execute('lookup');
          const expected =
            join === 'inner' ? innerJoin(orders, tableMap) : leftJoin(orders, tableMap);
          expect([...sink.values].sort(byId)).toEqual(expected);
          if (order === 'ordered' && parallelism === 1) expect(sink.values).toEqual(expected);
          const unmatched = orders.filter((o) => !tableMap.has(o.customer)).length;
          expect(result.metric('weir_lookup_unmatched_total')).toBe(
            join === 'inner' ? unmatched : 0,
          );
          if (!cached) expect(result.metric('weir_lookup_cache_misses_total')).toBe(0);
          else
            expect(
              result.metric('weir_lookup_cache_hits_total') +
                result.metric('weir_lookup_cache_misses_total'),
            ).toBe(orders.length);
        },
      ),
      { numRuns: 24 },
    );
  });

  it('sends the distinct keys of a round in one lookup, at most maxBatchSize of them', async () => {
    const calls: number[][] = [];
    const table = new InMemoryLookupTable(customers(10), {
      latencyMs: (keys) => {
        calls.push([...keys]);
        return 1;
      },
    });
    const env = new StreamEnvironment({ batchSize: 20 });
    // 20 records per batch over 10 keys: at most 10 distinct keys per round.
    const orders = Array.from({ length: 100 }, (_, id) => ({ id, customer: (id * 7) % 10 }));
    const out = await env
      .fromArray(orders)
      .lookupJoin(table, {
        key: (o) => o.customer,
        select: (o, c) => `${o.id}:${c.name}`,
        capacity: 20,
        maxBatchSize: 4,
      })
      .executeAndCollect();
    expect(out).toEqual(orders.map((o) => `${o.id}:c${o.customer}`));
    for (const keys of calls) {
      expect(keys.length).toBeLessThanOrEqual(4);
      expect(new Set(keys).size).toBe(keys.length);
    }
    // Records sharing a key share the lookup: fewer keys asked than records.
    expect(table.stats.keys).toBeLessThan(orders.length);
  });

  it('serves repeated keys from the cache', async () => {
    const table = new InMemoryLookupTable(customers(5), { latencyMs: 1 });
    const env = new StreamEnvironment({ batchSize: 10 });
    const orders = Array.from({ length: 200 }, (_, id) => ({ id, customer: id % 8 }));
    const sink = new CollectSink<string>();
    env
      .fromArray(orders)
      .lookupJoin(table, {
        key: (o) => o.customer,
        join: 'left',
        select: (o, c) => `${o.id}:${c?.name ?? '-'}`,
        cache: { ttlMs: 60_000, maxSize: 100 },
      })
      .sinkTo(sink);
    const result = await env.execute('cached');
    expect(sink.values).toEqual(
      orders.map((o) => `${o.id}:${o.customer < 5 ? `c${o.customer}` : '-'}`),
    );
    // Each of the 8 keys (3 without a row: cached as missing) is asked once.
    expect(table.stats.keys).toBe(8);
    // Records whose key was not cached yet share the lookup in flight.
    const hits = result.metric('weir_lookup_cache_hits_total');
    expect(hits + result.metric('weir_lookup_cache_misses_total')).toBe(200);
    expect(hits).toBeGreaterThan(0);
  });

  it('looks a key up again once its cached row has expired, and sees the change', async () => {
    // With a latency the table answers asynchronously, so the cache applies.
    const table = new InMemoryLookupTable<string, string>([['a', 'old']], { latencyMs: 0 });
    const source = new ScriptedSource<string>(
      [
        { records: ['1'] },
        { pauseMs: 60 },
        { records: ['2'] },
        { pauseMs: 1300 },
        { records: ['3'] },
      ],
      true,
    );
    const env = new StreamEnvironment({ batchSize: 1 });
    const sink = new CollectSink<string>();
    env
      .fromSource(source)
      .lookupJoin(table, {
        key: () => 'a',
        select: (n, row) => `${n}:${row}`,
        cache: { ttlMs: 1000, maxSize: 10 },
      })
      .sinkTo(sink);
    const job = env.executeAsync('ttl');
    await waitUntil(() => sink.values.length === 1);
    table.set('a', 'new');
    await job.result;
    // 2 comes within the TTL (cached, old row); 3 after it (looked up again).
    expect(sink.values).toEqual(['1:old', '2:old', '3:new']);
    expect(table.stats.lookups).toBe(2);
  });

  it('cache: expires entries after the TTL and evicts the least recently used', () => {
    const cache = new LookupCache<string, number>(100, 2, true);
    cache.put('a', 1, 0);
    cache.put('b', 2, 0);
    expect(cache.get('a', 50)).toEqual({ row: 1 }); // a is now the most recent
    cache.put('c', 3, 60); // evicts b
    expect(cache.get('b', 60)).toBeUndefined();
    expect(cache.get('a', 99)).toEqual({ row: 1 });
    expect(cache.get('a', 100)).toBeUndefined(); // expired
    cache.put('x', undefined, 100);
    expect(cache.get('x', 150)).toEqual({ row: null }); // known to be missing
    const noMissing = new LookupCache<string, number>(100, 2, false);
    noMissing.put('x', undefined, 0);
    expect(noMissing.get('x', 1)).toBeUndefined();
  });

  for (const capacity of [1, 4]) {
    it(`has at most capacity ${capacity} records waiting on the table`, async () => {
      let inFlight = 0;
      let max = 0;
      const inner = new InMemoryLookupTable(customers(50), { latencyMs: 2 });
      const table: LookupTable<number, Customer> = {
        name: 'counting',
        async lookup(keys) {
          inFlight += keys.length;
          max = Math.max(max, inFlight);
          const rows = await inner.lookup(keys);
          inFlight -= keys.length;
          return rows;
        },
      };
      const env = new StreamEnvironment({ batchSize: 16 });
      // Distinct keys, so every record is its own key.
      const orders = Array.from({ length: 50 }, (_, id) => ({ id, customer: id }));
      const out = await env
        .fromArray(orders)
        .lookupJoin(table, { key: (o) => o.customer, select: (o) => o.id, capacity })
        .executeAndCollect();
      expect(out).toEqual(orders.map((o) => o.id));
      expect(max).toBe(capacity);
    });
  }

  it('retries a failed lookup and joins as if it had not failed', async () => {
    // The first two lookups that ask for key 3 fail.
    let failuresLeft = 2;
    const inner = new InMemoryLookupTable(customers(10), { latencyMs: 1 });
    const table: LookupTable<number, Customer> = {
      name: 'flaky',
      lookup(keys) {
        if (keys.includes(3) && failuresLeft-- > 0)
          return Promise.reject(new Error('connection reset'));
        return inner.lookup(keys);
      },
    };
    for (const parallelism of [1, 2]) {
      failuresLeft = 2;
      const env = new StreamEnvironment({ batchSize: 4, parallelism });
      const orders = Array.from({ length: 40 }, (_, id) => ({ id, customer: id % 12 }));
      const sink = new CollectSink<Enriched>();
      env
        .fromArray(orders)
        .rebalance()
        .lookupJoin(table, {
          key: (o) => o.customer,
          select: (o, c) => ({ id: o.id, customer: o.customer, name: c.name }),
          retry: AsyncRetry.exponentialBackoff({
            maxAttempts: 4,
            initialDelayMs: 1,
            maxDelayMs: 4,
          }),
        })
        .sinkTo(sink);
      const result = await env.execute('retry');
      expect([...sink.values].sort(byId)).toEqual(innerJoin(orders, new Map(customers(10))));
      expect(result.metric('weir_async_retries_total')).toBeGreaterThanOrEqual(2);
    }
  });

  it('fails the job naming the key and the table when a lookup fails', async () => {
    const table: LookupTable<number, Customer> = {
      name: 'broken',
      lookup: async (keys) => {
        if (keys.includes(7)) throw new Error('relation "customers" does not exist');
        return new Map();
      },
    };
    const env = new StreamEnvironment({ batchSize: 1 });
    const error = await env
      .fromArray([{ id: 1, customer: 7 }])
      .lookupJoin(table, { key: (o) => o.customer, select: (o) => o.id })
      .executeAndCollect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('LOOKUP_FAILED');
    expect((error as WeirError).message).toMatch(
      /failed on record \{"id":1,"customer":7\}: lookup of key 7 in table 'broken' failed: relation "customers" does not exist/,
    );
  });

  it('fails the job naming the record when a lookup times out', async () => {
    const table = new InMemoryLookupTable(customers(3), {
      latencyMs: (keys) => (keys.includes(2) ? 10_000 : 0),
    });
    const env = new StreamEnvironment({ batchSize: 1 });
    await expect(
      env
        .fromArray([0, 1, 2].map((c) => ({ id: c, customer: c })))
        .lookupJoin(table, { key: (o) => o.customer, select: (o) => o.id, timeoutMs: 50 })
        .executeAndCollect(),
    ).rejects.toThrow(/timed out after 50 ms \(1 attempt\) on record \{"id":2,"customer":2\}/);
  });

  it('joins synchronously against a table held in memory, inner and left, counting unmatched records', async () => {
    const rows = customers(5);
    const orders = Array.from({ length: 40 }, (_, i) => ({ id: i, customer: i % 8 }));
    const byId = new Map(rows);
    for (const parallelism of [1, 2]) {
      const table = new InMemoryLookupTable(rows);
      const env = new StreamEnvironment({ parallelism, batchSize: 7 });
      const src = env.fromArray<Order>(orders);
      const inner = src.lookupJoin(table, {
        key: (o) => o.customer,
        select: (o, c) => `${o.id}:${c.name}`,
      });
      const left = src.lookupJoin(table, {
        key: (o) => o.customer,
        join: 'left',
        select: (o, c) => `${o.id}:${c?.name ?? '-'}`,
      });
      const innerSink = new CollectSink<string>();
      const leftSink = new CollectSink<string>();
      inner.sinkTo(innerSink);
      left.sinkTo(leftSink);
      const result = await env.execute('sync lookup');
      const expectedLeft = orders.map((o) => `${o.id}:${byId.get(o.customer)?.name ?? '-'}`);
      expect([...leftSink.values].sort()).toEqual([...expectedLeft].sort());
      expect([...innerSink.values].sort()).toEqual(
        expectedLeft.filter((r) => !r.endsWith('-')).sort(),
      );
      // No async lookups: every key was answered by get().
      expect(table.stats.lookups).toBe(0);
      expect(table.stats.keys).toBe(80);
      expect(result.metric('weir_lookup_unmatched_total')).toBe(
        orders.filter((o) => !byId.has(o.customer)).length,
      );
    }
  });

  it('types the row as V for inner joins and V | null for left joins', () => {
    const env = new StreamEnvironment();
    const table = new InMemoryLookupTable<number, Customer>([]);
    const orders = env.fromArray<Order>([]);
    const inner = orders.lookupJoin(table, {
      key: (o) => o.customer,
      select: (o, c) => {
        expectTypeOf(c).toEqualTypeOf<Customer>();
        return { ...o, tier: c.tier };
      },
    });
    const left = orders.lookupJoin(table, {
      key: (o) => o.customer,
      join: 'left',
      select: (_o, c) => {
        expectTypeOf(c).toEqualTypeOf<Customer | null>();
        return c?.name ?? null;
      },
    });
    expectTypeOf(inner).toEqualTypeOf<DataStream<{ tier: number; id: number; customer: number }>>();
    expectTypeOf(left).toEqualTypeOf<DataStream<string | null>>();
  });

  it('refuses a key that is not a primitive, naming the record', async () => {
    const env = new StreamEnvironment();
    await expect(
      env
        .fromArray([{ id: 1, customer: { nested: 1 } }])
        .lookupJoin(new InMemoryLookupTable<number, Customer>([]), {
          key: (o) => o.customer as unknown as number,
          select: (o) => o.id,
        })
        .executeAndCollect(),
    ).rejects.toThrow(
      /on record \{"id":1,"customer":\{"nested":1\}\}: its lookup key is \{"nested":1\}/,
    );
  });
});
