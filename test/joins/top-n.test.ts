/**
 * Top-N per key (with and without rank numbers, retract and upsert) and per
 * window, against batch oracles (a stable sort of every key's rows), at
 * parallelism 1 and 2, and across a savepoint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  OutputTag,
  type Ranked,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { changelogModeOf } from '../helpers/internals.js';
import { deliver, KEYS, savepointRoundTrip } from './helpers.js';

interface Bid {
  readonly k: string;
  readonly t: number;
  readonly price: number;
  readonly id: number;
}

/** Highest price first; equal prices keep arrival order. */
const byPrice = (a: Bid, b: Bid) => b.price - a.price;

const bidsArb = (maxDelay: number) =>
  fc
    .array(
      fc.record({
        k: fc.constantFrom(...KEYS),
        t: fc.integer({ min: 0, max: 60 }),
        price: fc.integer({ min: 0, max: 15 }),
        delay: fc.integer({ min: 0, max: maxDelay }),
      }),
      { minLength: 1, maxLength: 50 },
    )
    .map((es) => es.map((e, id) => ({ ...e, id })));

function source(env: StreamEnvironment, arrival: readonly Bid[], bound: number) {
  return env
    .fromArray(arrival)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Bid>(bound).withTimestampAssigner((e) => e.t),
    );
}

/** Batch oracle: per key, the stable sort of its rows in arrival order, first n ids. */
function topIds(rows: readonly Bid[], n: number): Map<string, number[]> {
  const byKey = new Map<string, Bid[]>();
  for (const r of rows) byKey.set(r.k, [...(byKey.get(r.k) ?? []), r]);
  const out = new Map<string, number[]>();
  for (const [k, rs] of byKey)
    out.set(
      k,
      [...rs]
        .sort(byPrice)
        .slice(0, n)
        .map((r) => r.id),
    );
  return out;
}

/** Applies a retract stream of rows (no ranks); each -D must remove a present row. */
function applyRows(changes: readonly Change<Bid>[]): Map<string, number[]> {
  const sets = new Map<string, Set<number>>();
  for (const c of changes) {
    const set = sets.get(c.value.k) ?? new Set<number>();
    sets.set(c.value.k, set);
    if (c.kind === '+I') {
      expect(set.has(c.value.id)).toBe(false);
      set.add(c.value.id);
    } else {
      expect(c.kind).toBe('-D');
      expect(set.delete(c.value.id)).toBe(true);
    }
  }
  return new Map([...sets].map(([k, s]) => [k, [...s]]));
}

/** Applies a ranked stream: (key, rank) -> row; -U must retract the current occupant. */
function applyRanks(changes: readonly Change<Ranked<Bid>>[], mode: 'retract' | 'upsert') {
  const ranks = new Map<string, Map<number, number>>();
  for (const c of changes) {
    const m = ranks.get(c.value.row.k) ?? new Map<number, number>();
    ranks.set(c.value.row.k, m);
    const { rank, row } = c.value;
    switch (c.kind) {
      case '+I':
        expect(m.has(rank)).toBe(false);
        m.set(rank, row.id);
        break;
      case '-U':
        expect(mode).toBe('retract');
        expect(m.get(rank)).toBe(row.id);
        m.delete(rank);
        break;
      case '+U':
        if (mode === 'retract') expect(m.has(rank)).toBe(false);
        else expect(m.has(rank)).toBe(true);
        m.set(rank, row.id);
        break;
      default:
        throw new Error(`unexpected ${c.kind}`);
    }
  }
  const out = new Map<string, number[]>();
  for (const [k, m] of ranks) {
    const ids: number[] = [];
    for (let r = 1; r <= m.size; r++) ids.push(m.get(r)!);
    out.set(k, ids);
  }
  return out;
}

describe('topN', () => {
  it('emits +I / -D as rows enter and leave the top 2', async () => {
    //  key a, prices arrive 5, 3, 7, 4, 5
    //  5: +I5 | 3: +I3 | 7: +I7 -D3 | 4: (not in top 2) | 5: (equal to 5, ranks after it: out)
    const env = new StreamEnvironment({ batchSize: 1 });
    const bids = [5, 3, 7, 4, 5].map((price, id) => ({ k: 'a', t: id, price, id }));
    const out = await source(env, bids, 0)
      .keyBy((b) => b.k)
      .topN({ n: 2, compare: byPrice })
      .map((c) => `${c.kind}${c.value.price}`)
      .executeAndCollect();
    expect(out).toEqual(['+I5', '+I3', '+I7', '-D3']);
  });

  it('with rank numbers: every moved rank is retracted and re-emitted', async () => {
    const env = new StreamEnvironment({ batchSize: 1 });
    const bids = [5, 3, 7].map((price, id) => ({ k: 'a', t: id, price, id }));
    const ranked = source(env, bids, 0)
      .keyBy((b) => b.k)
      .topN({ n: 2, compare: byPrice, rankNumber: true });
    expect(changelogModeOf(ranked)).toBe('retract');
    const out = await ranked
      .map((c) => `${c.kind}#${c.value.rank}=${c.value.row.price}`)
      .executeAndCollect();
    expect(out).toEqual(['+I#1=5', '+I#2=3', '-U#1=5', '+U#1=7', '-U#2=3', '+U#2=5']);
    // The same changes with rows written by `ranked`, as the SQL planner's.
    const again = new StreamEnvironment({ batchSize: 1 });
    const rows = await source(again, bids, 0)
      .keyBy((b) => b.k)
      .topN({
        n: 2,
        compare: byPrice,
        rankNumber: true,
        ranked: (b, rank) => `${rank}=${b.price}`,
      })
      .map((c) => `${c.kind}#${c.value}`)
      .executeAndCollect();
    expect(rows).toEqual(out);
    expect(() =>
      source(new StreamEnvironment(), bids, 0)
        .keyBy((b) => b.k)
        .topN({ n: 2, compare: byPrice, ranked: () => 0 } as never),
    ).toThrow(/ranked must be a function/);
  });

  it('refuses bad options with clear errors', () => {
    const keyed = new StreamEnvironment().fromArray<Bid>([]).keyBy((b) => b.k);
    expect(() => keyed.topN({ n: 0, compare: byPrice })).toThrow(/n must be a positive/);
    expect(() => keyed.topN({ n: 2, compare: 'price' as never })).toThrow(/compare/);
    expect(() =>
      keyed.topN({ n: 2, compare: byPrice, mode: 'upsert' } as { n: 2; compare: typeof byPrice }),
    ).toThrow(/rankNumber/);
  });

  it('the applied changes equal the batch top-N, with and without ranks, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(
        bidsArb(30),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom<'rows' | 'retract' | 'upsert'>('rows', 'retract', 'upsert'),
        async (events, n, variant) => {
          const arrival = deliver(events);
          const expected = topIds(arrival, n);
          for (const parallelism of [1, 2]) {
            const env = new StreamEnvironment({ batchSize: 4, parallelism });
            const keyed = source(env, arrival, 5).keyBy((b) => b.k);
            if (variant === 'rows') {
              const out = await keyed.topN({ n, compare: byPrice }).executeAndCollect();
              const got = applyRows(out);
              // Same rows; their order is the ranking, compared through the oracle's order.
              for (const [k, ids] of expected)
                expect([...got.get(k)!].sort()).toEqual([...ids].sort());
              expect(got.size).toBe(expected.size);
            } else {
              const out = await keyed
                .topN({ n, compare: byPrice, rankNumber: true, mode: variant })
                .executeAndCollect();
              expect(applyRanks(out, variant)).toEqual(expected);
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('a run stopped with a savepoint and restored (also at another parallelism) equals an uninterrupted one', async () => {
    const { expected, got, beforeStop } = await savepointRoundTrip(
      (env, rate) =>
        env
          .fromGenerator({
            count: 6000,
            ...(rate === undefined ? {} : { ratePerSecond: rate }),
            generate: (i): Bid => ({ k: `k${i % 37}`, t: i, price: (i * 7919) % 1000, id: i }),
          })
          .setParallelism(1)
          .uid('bids')
          .assignTimestampsAndWatermarks(
            WatermarkStrategy.forMonotonousTimestamps<Bid>().withTimestampAssigner((b) => b.t),
          )
          .uid('wm')
          .keyBy((b) => b.k)
          .topN({ n: 3, compare: byPrice, rankNumber: true })
          .uid('top3')
          .map((c) => `${c.kind} ${c.value.row.k} #${c.value.rank} ${c.value.row.id}`),
      { parallelism: 2, restoreParallelism: 1, rate: 5_000, stopAfterMs: 150 },
    );
    expect(beforeStop).toBeGreaterThan(0);
    expect(beforeStop).toBeLessThan(expected.length);
    expect(got).toEqual(expected);
  });
});

describe('windowTopN', () => {
  type Spec = { size: number; slide: number };
  const startsOf = (t: number, { size, slide }: Spec) => {
    const out: number[] = [];
    for (let s = t - (((t % slide) + slide) % slide); s > t - size; s -= slide) out.push(s);
    return out;
  };

  /** Per key and window: the stable sort of its rows (arrival order), first n, as `key start rank id`. */
  function oracle(arrival: readonly Bid[], spec: Spec, n: number): string[] {
    const groups = new Map<string, Bid[]>();
    for (const b of arrival)
      for (const s of startsOf(b.t, spec)) {
        const id = `${b.k} ${s}`;
        groups.set(id, [...(groups.get(id) ?? []), b]);
      }
    const out: string[] = [];
    for (const [id, rows] of groups)
      [...rows]
        .sort(byPrice)
        .slice(0, n)
        .forEach((r, i) => {
          out.push(`${id} #${i + 1} ${r.id}`);
        });
    return out.sort();
  }

  async function run(arrival: readonly Bid[], spec: Spec, n: number, bound: number, p: number) {
    const env = new StreamEnvironment({ batchSize: 1, parallelism: p });
    const late = new OutputTag<Bid>('late');
    const ranked = source(env, arrival, bound)
      .keyBy((b) => b.k)
      .windowTopN(
        spec.size === spec.slide
          ? Windows.tumbling(spec.size)
          : Windows.sliding(spec.size, spec.slide),
        { n, compare: byPrice, lateDataTag: late },
      );
    const sink = new CollectSink<string>();
    ranked.map((r) => `${r.key} ${r.window.start} #${r.rank} ${r.row.id}`).sinkTo(sink);
    const lateSink = new CollectSink<Bid>();
    ranked.getSideOutput(late).sinkTo(lateSink);
    const result = await env.execute();
    return {
      rows: sink.values.sort(),
      late: lateSink.values,
      lateCount: result.metric('weir_window_late_records_total'),
    };
  }

  it('emits the final top n of every key and window, equal to the batch answer, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(
        bidsArb(10),
        fc.constantFrom<Spec>({ size: 10, slide: 10 }, { size: 20, slide: 5 }),
        fc.integer({ min: 1, max: 3 }),
        async (events, spec, n) => {
          const arrival = deliver(events);
          for (const p of [1, 2]) {
            const got = await run(arrival, spec, n, 10, p);
            expect(got.late).toEqual([]);
            expect(got.rows).toEqual(oracle(arrival, spec, n));
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('with late input (tumbling): equals the batch answer over the records not dropped; drops are counted', async () => {
    await fc.assert(
      fc.asyncProperty(bidsArb(60), fc.integer({ min: 1, max: 3 }), async (events, n) => {
        const arrival = deliver(events);
        const spec = { size: 10, slide: 10 };
        for (const p of [1, 2]) {
          const got = await run(arrival, spec, n, 3, p);
          const dropped = new Set(got.late.map((e) => e.id));
          expect(got.lateCount).toBe(dropped.size);
          expect(got.rows).toEqual(
            oracle(
              arrival.filter((e) => !dropped.has(e.id)),
              spec,
              n,
            ),
          );
        }
      }),
      { numRuns: 25 },
    );
  });
});
