/**
 * Updating (non-windowed) aggregations against plain-loop oracles: over
 * insert-only input (exact change sequence per key), over retract changelogs
 * (with and without `retract` on the aggregate function), upsert mode, state
 * TTL, and across a savepoint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  type ChangelogStream,
  type GroupResult,
  type RetractableAggregateFunction,
  StreamEnvironment,
  type UpdatingAggregateOptions,
  WatermarkStrategy,
} from '../../src/index.js';
import { materialize, materializeUpserts, perKey, withSavepoint } from './helpers.js';

interface Sale {
  readonly shop: string;
  readonly amount: number;
  readonly t: number;
}

interface Stats {
  readonly count: number;
  readonly total: number;
}

const stats: RetractableAggregateFunction<Sale, Stats, Stats> = {
  createAccumulator: () => ({ count: 0, total: 0 }),
  add: (s, acc) => ({ count: acc.count + 1, total: acc.total + s.amount }),
  retract: (s, acc) => ({ count: acc.count - 1, total: acc.total - s.amount }),
  getResult: (acc) => ({ count: acc.count, total: acc.total }),
};

/** Largest amount: no retract, so the operator keeps the rows of each group. */
const maxAmount: RetractableAggregateFunction<Sale, number | null, number | null> = {
  createAccumulator: () => null,
  add: (s, acc) => (acc === null || s.amount > acc ? s.amount : acc),
  getResult: (acc) => acc,
};

/** The change sequence of an updating aggregation over inserts, by plain loops. */
function oracleSequence(sales: readonly Sale[], mode: 'retract' | 'upsert'): Map<string, string[]> {
  const totals = new Map<string, Stats>();
  const out: Change<GroupResult<string, Stats>>[] = [];
  for (const s of sales) {
    const prev = totals.get(s.shop);
    const next = { count: (prev?.count ?? 0) + 1, total: (prev?.total ?? 0) + s.amount };
    totals.set(s.shop, next);
    if (prev === undefined) out.push({ kind: '+I', value: { key: s.shop, value: next } });
    else {
      if (mode === 'retract') out.push({ kind: '-U', value: { key: s.shop, value: prev } });
      out.push({ kind: '+U', value: { key: s.shop, value: next } });
    }
  }
  return perKey(out, (r) => r.key);
}

const saleArb = fc.record({
  shop: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
  amount: fc.integer({ min: 1, max: 50 }),
  t: fc.integer({ min: 0, max: 1_000 }),
});

describe('updating aggregation over inserts', () => {
  it('emits +I, then -U old / +U new per key, exactly as the plain loop (out-of-order and late input, p=1 and 2)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(saleArb, { minLength: 1, maxLength: 60 }),
        fc.constantFrom(1, 2),
        fc.constantFrom<'retract' | 'upsert'>('retract', 'upsert'),
        async (sales, parallelism, mode) => {
          const env = new StreamEnvironment({ parallelism, batchSize: 7 });
          const out = await env
            .fromArray<Sale>(sales)
            // A tight bound: most shuffled records are late, which a non-windowed aggregation ignores.
            .assignTimestampsAndWatermarks(
              WatermarkStrategy.forBoundedOutOfOrderness<Sale>(5).withTimestampAssigner((s) => s.t),
            )
            .keyBy((s) => s.shop)
            .updatingAggregate(stats, { mode })
            .executeAndCollect();
          expect(perKey(out, (r) => r.key)).toEqual(oracleSequence(sales, mode));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('declares its mode and upsert key', () => {
    const env = new StreamEnvironment();
    const keyed = env.fromArray<Sale>([]).keyBy((s) => s.shop);
    const retract = keyed.updatingAggregate(stats);
    const upsert = keyed.updatingAggregate(stats, { mode: 'upsert' });
    expect(retract.mode).toBe('retract');
    expect(retract.upsertKey).toBeUndefined();
    expect(upsert.mode).toBe('upsert');
    expect(upsert.upsertKey?.({ key: 'x', value: { count: 1, total: 1 } })).toBe('x');
  });

  it('does not emit an update that leaves the result unchanged', async () => {
    const env = new StreamEnvironment();
    const out = await env
      .fromArray<Sale>([
        { shop: 'a', amount: 5, t: 0 },
        { shop: 'a', amount: 3, t: 1 },
        { shop: 'a', amount: 9, t: 2 },
      ])
      .keyBy((s) => s.shop)
      .updatingAggregate(maxAmount)
      .executeAndCollect();
    expect(out).toEqual([
      { kind: '+I', value: { key: 'a', value: 5 } },
      { kind: '-U', value: { key: 'a', value: 5 } },
      { kind: '+U', value: { key: 'a', value: 9 } },
    ]);
  });

  it('with a TTL, a key idle longer than it starts over with +I', async () => {
    let now = 0;
    const env = new StreamEnvironment({ batchSize: 1, clock: { now: () => now } });
    const sales: Sale[] = [
      { shop: 'a', amount: 1, t: 0 },
      { shop: 'a', amount: 2, t: 10 },
      { shop: 'a', amount: 4, t: 5_000 },
    ];
    const out = await env
      .fromArray(sales)
      .map((s) => {
        now = s.t; // processing time follows the records
        return s;
      })
      .keyBy((s) => s.shop)
      .updatingAggregate(stats, { ttl: 1_000 })
      .executeAndCollect();
    expect(out).toEqual([
      { kind: '+I', value: { key: 'a', value: { count: 1, total: 1 } } },
      { kind: '-U', value: { key: 'a', value: { count: 1, total: 1 } } },
      { kind: '+U', value: { key: 'a', value: { count: 2, total: 3 } } },
      { kind: '+I', value: { key: 'a', value: { count: 1, total: 4 } } },
    ]);
  });

  it('refuses bad options with a clear message', () => {
    const keyed = new StreamEnvironment().fromArray<Sale>([]).keyBy((s) => s.shop);
    expect(() => keyed.updatingAggregate(stats, { ttl: -1 })).toThrow(
      /updatingAggregate\(\): ttl must be a positive number of milliseconds, got -1/,
    );
    expect(() =>
      keyed.updatingAggregate({} as RetractableAggregateFunction<Sale, number, number>),
    ).toThrow(/needs an object with createAccumulator, add and getResult/);
  });
});

/** Operations on a table of sales rows by id, turned into a retract changelog. */
type Op = { op: 'upsert'; id: number; shop: string; amount: number } | { op: 'delete'; id: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('upsert' as const),
    id: fc.integer({ min: 0, max: 12 }),
    shop: fc.constantFrom('a', 'b', 'c'),
    amount: fc.integer({ min: 1, max: 9 }),
  }),
  fc.record({ op: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 12 }) }),
);

interface Row extends Sale {
  readonly id: number;
}

function retractChangelog(ops: readonly Op[]): { changes: Change<Row>[]; final: Row[] } {
  const table = new Map<number, Row>();
  const changes: Change<Row>[] = [];
  ops.forEach((o, t) => {
    const prev = table.get(o.id);
    if (o.op === 'delete') {
      if (prev === undefined) return;
      table.delete(o.id);
      changes.push({ kind: '-D', value: prev });
      return;
    }
    const row = { id: o.id, shop: o.shop, amount: o.amount, t };
    table.set(o.id, row);
    if (prev === undefined) changes.push({ kind: '+I', value: row });
    else changes.push({ kind: '-U', value: prev }, { kind: '+U', value: row });
  });
  return { changes, final: [...table.values()] };
}

function groupOracle<R>(rows: readonly Row[], agg: (rows: Row[]) => R): string[] {
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const g = groups.get(r.shop) ?? [];
    g.push(r);
    groups.set(r.shop, g);
  }
  return [...groups].map(([key, g]) => JSON.stringify({ key, value: agg(g) })).sort();
}

describe('updating aggregation over a changelog', () => {
  it('un-aggregates retracted rows: the materialized result equals GROUP BY over the final table (with and without retract, with and without mini-batch, p=1 and 2)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 80 }),
        fc.constantFrom(1, 2),
        // A bundle of a few rows empties and refills groups within it (a -D then a +I).
        fc.option(fc.integer({ min: 1, max: 25 }), { nil: undefined }),
        async (ops, parallelism, bundleSize) => {
          const { changes, final } = retractChangelog(ops);
          const options =
            bundleSize === undefined
              ? {}
              : { miniBatch: { size: bundleSize, allowLatencyMs: 3_600_000 } };
          const env = new StreamEnvironment({ parallelism, batchSize: 5 });
          const input = env.fromArray(changes).asChangelog('retract');
          const grouped = input.groupBy((r) => r.shop);
          const sums = grouped.updatingAggregate(stats, options).executeAndCollect();
          const out = await sums;
          expect(materialize(out)).toEqual(
            groupOracle(final, (g) => ({
              count: g.length,
              total: g.reduce((a, r) => a + r.amount, 0),
            })),
          );

          const env2 = new StreamEnvironment({ parallelism, batchSize: 5 });
          const maxes = await env2
            .fromArray(changes)
            .asChangelog('retract')
            .groupBy((r) => r.shop)
            .updatingAggregate(maxAmount, { mode: 'upsert', ...options })
            .executeAndCollect();
          expect(materializeUpserts(maxes, (r) => r.key)).toEqual(
            groupOracle(final, (g) => Math.max(...g.map((r) => r.amount))),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('aggregates an upsert changelog (+U replaces the row with the same id) like its table (p=1 and 2)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 80 }),
        fc.constantFrom(1, 2),
        async (ops, parallelism) => {
          const { changes, final } = retractChangelog(ops);
          // The same history as upserts: no -U, and an update is only its +U.
          const upserts = changes.filter((c) => c.kind !== '-U');
          const env = new StreamEnvironment({ parallelism, batchSize: 5 });
          const out = await env
            .fromArray(upserts)
            .asChangelog('upsert', (r) => r.id)
            .groupBy((r) => r.shop)
            .updatingAggregate(stats)
            .executeAndCollect();
          expect(materialize(out)).toEqual(
            groupOracle(final, (g) => ({
              count: g.length,
              total: g.reduce((a, r) => a + r.amount, 0),
            })),
          );
        },
      ),
      { numRuns: 20 },
    );
  });

  it('emits -D when the last row of a group is retracted', async () => {
    const env = new StreamEnvironment();
    const row = { id: 1, shop: 'a', amount: 3, t: 0 };
    const out = await env
      .fromArray<Change<Row>>([
        { kind: '+I', value: row },
        { kind: '-D', value: row },
      ])
      .asChangelog('retract')
      .groupBy((r) => r.shop)
      .updatingAggregate(stats)
      .executeAndCollect();
    expect(out).toEqual([
      { kind: '+I', value: { key: 'a', value: { count: 1, total: 3 } } },
      { kind: '-D', value: { key: 'a', value: { count: 1, total: 3 } } },
    ]);
  });

  it.each([
    ['without mini-batch', undefined],
    ['emptied and refilled within a bundle', 10],
    ['emptied at the end of a bundle, refilled in the next', 2],
    ['held in state, emptied by a bundle of its own', 1],
  ])('starts a group over after its last row was retracted (%s)', async (_what, size) => {
    const env = new StreamEnvironment({ batchSize: 1 });
    const row = (id: number, amount: number) => ({ id, shop: 'a', amount, t: 0 });
    const out = await env
      .fromArray<Change<Row>>([
        { kind: '+I', value: row(1, 3) },
        { kind: '-D', value: row(1, 3) },
        { kind: '+I', value: row(2, 5) },
        { kind: '+I', value: row(3, 1) },
      ])
      .asChangelog('retract')
      .groupBy((r) => r.shop)
      .updatingAggregate(
        stats,
        size === undefined ? {} : { miniBatch: { size, allowLatencyMs: 3_600_000 } },
      )
      .executeAndCollect();
    expect(materialize(out)).toEqual([JSON.stringify({ key: 'a', value: { count: 2, total: 6 } })]);
  });

  it('fails on a record that is not a change of the declared mode, naming it', async () => {
    const env = new StreamEnvironment();
    const bad = { kind: '-U', value: { id: 1 } } as Change<{ id: number }>;
    await expect(
      env
        .fromArray([bad])
        .asChangelog('upsert', (r) => r.id)
        .executeAndCollect(),
    ).rejects.toThrow(
      /a upsert changelog record must be \{ kind: '\+I' \| '\+U' \| '-D', value \}, got \{"kind":"-U","value":\{"id":1\}\}/,
    );
  });
});

/** Sales of 13 shops from a generator (paced at `rate`), with `stats` per shop. */
function salesStats(
  count: number,
  parallelism: number,
  rate: number | undefined,
  options: UpdatingAggregateOptions<Stats>,
): { env: StreamEnvironment; changes: ChangelogStream<GroupResult<string, Stats>> } {
  const env = new StreamEnvironment({ parallelism, batchSize: 20 });
  const changes = env
    .fromGenerator({
      count,
      ...(rate === undefined ? {} : { ratePerSecond: rate }),
      generate: (i): Sale => ({ shop: `s${(i * 7) % 13}`, amount: i % 10, t: i }),
    })
    .setParallelism(1)
    .uid('sales')
    .keyBy((s) => s.shop)
    .updatingAggregate(stats, options)
    .uid('stats');
  return { env, changes };
}

describe('updating aggregation across a savepoint', () => {
  it('a run stopped with a savepoint and restored (p=1 -> 2) emits the same changes as an uninterrupted one', async () => {
    const N = 3_000;
    const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<
      GroupResult<string, Stats>
    >((parallelism, rate) => salesStats(N, parallelism, rate, {}), {
      parallelism: 1,
      restoredParallelism: 2,
      rate: 6_000,
    });
    expect(beforeSavepoint).toBeGreaterThan(0);
    expect(beforeSavepoint).toBeLessThan(uninterrupted.length);
    expect(perKey(restored, (r) => r.key)).toEqual(perKey(uninterrupted, (r) => r.key));
  });
});

describe('mini-batch updating aggregation across a savepoint', () => {
  it('emits its open bundle before the snapshot, so a restored run leaves the rows of an uninterrupted one', async () => {
    const N = 3_000;
    const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<
      GroupResult<string, Stats>
    >(
      // A bundle larger than what arrives before the savepoint, and no latency flush: only the
      // snapshot empties it then.
      (parallelism, rate) =>
        salesStats(N, parallelism, rate, {
          miniBatch: { size: 5_000, allowLatencyMs: 3_600_000 },
        }),
      { parallelism: 1, restoredParallelism: 2, rate: 6_000 },
    );
    expect(beforeSavepoint).toBeGreaterThan(0);
    // A change per group for the whole input, with no bundle flushed in between.
    expect(uninterrupted.length).toBe(13);
    const expected = Array.from({ length: 13 }, (_, k) => {
      const mine = Array.from({ length: N }, (_, i) => i).filter((i) => (i * 7) % 13 === k);
      const total = mine.reduce((a, i) => a + (i % 10), 0);
      return JSON.stringify({ key: `s${k}`, value: { count: mine.length, total } });
    }).sort();
    expect(materialize(uninterrupted)).toEqual(expected);
    // materialize throws on a retraction of a row never emitted (a change lost at the savepoint).
    expect(materialize(restored)).toEqual(expected);
  });

  it('refuses a bundle without a positive size and latency', () => {
    const env = new StreamEnvironment({ parallelism: 1 });
    const keyed = env.fromArray<Sale>([]).keyBy((s) => s.shop);
    expect(() =>
      keyed.updatingAggregate(stats, { miniBatch: { size: 0, allowLatencyMs: 1000 } }),
    ).toThrow(/miniBatch needs a positive integer size and a positive allowLatencyMs/);
  });
});
