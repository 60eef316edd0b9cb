/**
 * Deduplication per key (keep first / last, by event time or arrival, with
 * TTL) and per window, against batch oracles, at parallelism 1 and 2, and
 * across a savepoint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  OutputTag,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { changelogModeOf } from '../helpers/internals.js';
import { ScriptedSource } from '../helpers/timeline.js';
import { deliver, KEYS, savepointRoundTrip } from './helpers.js';

interface Ev {
  readonly k: string;
  readonly t: number;
  readonly id: number;
}

const eventsArb = (maxDelay: number) =>
  fc
    .array(
      fc.record({
        k: fc.constantFrom(...KEYS),
        t: fc.integer({ min: 0, max: 60 }),
        delay: fc.integer({ min: 0, max: maxDelay }),
      }),
      { minLength: 1, maxLength: 40 },
    )
    .map((es) => es.map((e, id) => ({ ...e, id })));

function source(env: StreamEnvironment, arrival: readonly Ev[], bound: number) {
  return env
    .fromArray(arrival)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Ev>(bound).withTimestampAssigner((e) => e.t),
    );
}

type Keep = 'first' | 'last';
type Order = 'event-time' | 'arrival';

/** The batch answer: per key, the row with the smallest / largest t (event time) or the first / last arrival. */
function survivor(arrival: readonly Ev[], keep: Keep, order: Order): Map<string, number> {
  const byKey = new Map<string, Ev[]>();
  for (const e of arrival) byKey.set(e.k, [...(byKey.get(e.k) ?? []), e]);
  const out = new Map<string, number>();
  for (const [k, es] of byKey) {
    let best = es[0]!;
    if (order === 'arrival') best = keep === 'first' ? es[0]! : es[es.length - 1]!;
    else
      for (const e of es) {
        if (keep === 'last' ? e.t >= best.t : e.t < best.t) best = e;
      }
    out.set(k, best.id);
  }
  return out;
}

/** Applies a change stream per key, checking it is well formed (each -U retracts the current row). */
function materialize(
  changes: readonly Change<Ev>[],
  mode: 'retract' | 'upsert',
): Map<string, number> {
  const current = new Map<string, number>();
  let pendingRetract: Ev | undefined;
  for (const c of changes) {
    const k = c.value.k;
    switch (c.kind) {
      case '+I':
        expect(current.has(k)).toBe(false);
        current.set(k, c.value.id);
        break;
      case '-U':
        expect(mode).toBe('retract');
        expect(current.get(k)).toBe(c.value.id);
        pendingRetract = c.value;
        break;
      case '+U':
        if (mode === 'retract') expect(pendingRetract?.k).toBe(k);
        else expect(current.has(k)).toBe(true);
        pendingRetract = undefined;
        current.set(k, c.value.id);
        break;
      default:
        throw new Error(`unexpected ${c.kind}`);
    }
  }
  expect(pendingRetract).toBeUndefined();
  return current;
}

describe('deduplicate', () => {
  it('keep-last by event time: an older row does not replace a newer one; ties go to the later arrival', async () => {
    //  key a arrives: id0@5, id1@3 (older: ignored), id2@5 (tie: replaces), id3@9
    const env = new StreamEnvironment({ batchSize: 1 });
    const arrival: Ev[] = [
      { k: 'a', t: 5, id: 0 },
      { k: 'a', t: 3, id: 1 },
      { k: 'a', t: 5, id: 2 },
      { k: 'a', t: 9, id: 3 },
    ];
    const out = await source(env, arrival, 100)
      .keyBy((e) => e.k)
      .deduplicate({ keep: 'last', order: 'event-time' })
      .map((c) => `${c.kind}${c.value.id}`)
      .executeAndCollect();
    expect(out).toEqual(['+I0', '-U0', '+U2', '-U2', '+U3']);
  });

  it('keep-first by arrival emits each key once, as plain records', async () => {
    const env = new StreamEnvironment({ batchSize: 2 });
    const arrival: Ev[] = [
      { k: 'a', t: 5, id: 0 },
      { k: 'b', t: 3, id: 1 },
      { k: 'a', t: 1, id: 2 },
      { k: 'b', t: 9, id: 3 },
    ];
    const deduped = source(env, arrival, 100)
      .keyBy((e) => e.k)
      .deduplicate({ keep: 'first' });
    expect(changelogModeOf(deduped)).toBe('insert-only');
    const out = await deduped.executeAndCollect();
    expect(out.map((e) => e.id).sort()).toEqual([0, 1]);
  });

  it('declares its changelog: retract by default, upsert on request', () => {
    const env = new StreamEnvironment();
    const keyed = env.fromArray<Ev>([]).keyBy((e) => e.k);
    expect(changelogModeOf(keyed.deduplicate({ keep: 'last' }))).toBe('retract');
    expect(changelogModeOf(keyed.deduplicate({ keep: 'last', mode: 'upsert' }))).toBe('upsert');
    expect(changelogModeOf(keyed.deduplicate({ keep: 'first', order: 'event-time' }))).toBe(
      'retract',
    );
    expect(() => keyed.deduplicate({ keep: 'middle' as 'first' })).toThrow(
      /keep: 'first' or 'last'/,
    );
    expect(() => keyed.deduplicate({ keep: 'last', ttl: -1 })).toThrow(/ttl/);
  });

  it('equals the batch answer for every keep/order/mode, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventsArb(30),
        fc.constantFrom<Keep>('first', 'last'),
        fc.constantFrom<Order>('event-time', 'arrival'),
        fc.constantFrom<'retract' | 'upsert'>('retract', 'upsert'),
        async (events, keep, order, mode) => {
          const arrival = deliver(events);
          const expected = survivor(arrival, keep, order);
          for (const parallelism of [1, 2]) {
            const env = new StreamEnvironment({ batchSize: 3, parallelism });
            const keyed = source(env, arrival, 5).keyBy((e) => e.k);
            if (keep === 'first' && order === 'arrival') {
              const out = await keyed.deduplicate({ keep }).executeAndCollect();
              expect(new Map(out.map((e) => [e.k, e.id]))).toEqual(expected);
              expect(out).toHaveLength(expected.size);
            } else {
              const out = await keyed.deduplicate({ keep, order, mode }).executeAndCollect();
              expect(materialize(out, mode)).toEqual(expected);
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('with row, keeps and emits a projection of each kept record: the changes of the records themselves, projected', async () => {
    const project = (e: Ev) => ({ k: e.k, id: e.id });
    await fc.assert(
      fc.asyncProperty(
        eventsArb(30),
        fc.constantFrom<Keep>('first', 'last'),
        fc.constantFrom<'retract' | 'upsert'>('retract', 'upsert'),
        async (events, keep, mode) => {
          const arrival = deliver(events);
          const run = async (withRow: boolean) => {
            const env = new StreamEnvironment({ batchSize: 3 });
            const keyed = source(env, arrival, 5).keyBy((e) => e.k);
            let calls = 0;
            const out = withRow
              ? await keyed
                  .deduplicate({
                    keep,
                    order: 'event-time',
                    mode,
                    row: (e: Ev) => {
                      calls++;
                      return project(e);
                    },
                  })
                  .executeAndCollect()
              : (
                  await keyed.deduplicate({ keep, order: 'event-time', mode }).executeAndCollect()
                ).map((c) => ({ kind: c.kind, value: project(c.value) }));
            return { out, calls };
          };
          const plain = await run(false);
          const rows = await run(true);
          expect(rows.out).toEqual(plain.out);
          // Once per record that became its key's row: never for one that was dropped.
          expect(rows.calls).toBe(rows.out.filter((c) => c.kind !== '-U').length);
        },
      ),
      { numRuns: 30 },
    );
    const keyed = new StreamEnvironment().fromArray<Ev>([]).keyBy((e) => e.k);
    expect(() => keyed.deduplicate({ keep: 'first', order: 'arrival', row: project })).toThrow(
      /keeps no row when it keeps the first by arrival/,
    );
  });

  it('with a TTL, a key whose row expired counts as new', async () => {
    const env = new StreamEnvironment({ batchSize: 1 });
    const script = new ScriptedSource<Ev>(
      [
        { records: [{ k: 'a', t: 1, id: 0 }] },
        { records: [{ k: 'a', t: 2, id: 1 }] },
        { pauseMs: 250 },
        { records: [{ k: 'a', t: 3, id: 2 }] },
      ],
      true,
    );
    const out = await env
      .fromSource(script)
      .keyBy((e) => e.k)
      .deduplicate({ keep: 'first', ttl: 100 })
      .executeAndCollect();
    expect(out.map((e) => e.id)).toEqual([0, 2]);
  });

  it.each(['the records', 'a projection (row)'])(
    'a run stopped with a savepoint and restored (also at another parallelism) equals an uninterrupted one, keeping %s',
    async (kept) => {
      const row = kept === 'the records' ? {} : { row: (e: Ev) => ({ k: e.k, id: e.id }) };
      const { expected, got, beforeStop } = await savepointRoundTrip(
        (env, rate) =>
          env
            .fromGenerator({
              count: 6000,
              ...(rate === undefined ? {} : { ratePerSecond: rate }),
              generate: (i): Ev => ({ k: `k${(i * 7) % 101}`, t: i - (i % 9) * 13, id: i }),
            })
            .setParallelism(1)
            .uid('events')
            .assignTimestampsAndWatermarks(
              WatermarkStrategy.forBoundedOutOfOrderness<Ev>(200).withTimestampAssigner((e) => e.t),
            )
            .uid('wm')
            .keyBy((e) => e.k)
            .deduplicate({ keep: 'last', order: 'event-time', ...row })
            .uid('dedup')
            .map((c) => `${c.kind} ${c.value.k} ${c.value.id}`),
        { parallelism: 2, restoreParallelism: 1, rate: 5_000, stopAfterMs: 150 },
      );
      expect(beforeStop).toBeGreaterThan(0);
      expect(beforeStop).toBeLessThan(expected.length);
      expect(got).toEqual(expected);
    },
  );
});

describe('windowDeduplicate', () => {
  type Spec = { size: number; slide: number };
  const startsOf = (t: number, { size, slide }: Spec) => {
    const out: number[] = [];
    for (let s = t - (((t % slide) + slide) % slide); s > t - size; s -= slide) out.push(s);
    return out;
  };

  /** Per key and window: the row with the smallest (first) / largest (last) t, ties by arrival. */
  function oracle(arrival: readonly Ev[], spec: Spec, keep: Keep): string[] {
    const best = new Map<string, Ev>();
    for (const e of arrival) {
      for (const s of startsOf(e.t, spec)) {
        const id = `${e.k} ${s}`;
        const b = best.get(id);
        if (b === undefined || (keep === 'last' ? e.t >= b.t : e.t < b.t)) best.set(id, e);
      }
    }
    return [...best].map(([id, e]) => `${id} ${e.id}`).sort();
  }

  async function run(arrival: readonly Ev[], spec: Spec, keep: Keep, bound: number, p: number) {
    const env = new StreamEnvironment({ batchSize: 1, parallelism: p });
    const late = new OutputTag<Ev>('late');
    const deduped = source(env, arrival, bound)
      .keyBy((e) => e.k)
      .windowDeduplicate(
        spec.size === spec.slide
          ? Windows.tumbling(spec.size)
          : Windows.sliding(spec.size, spec.slide),
        { keep, lateDataTag: late },
      );
    const sink = new CollectSink<string>();
    deduped.map((r) => `${r.key} ${r.window.start} ${r.value.id}`).sinkTo(sink);
    const lateSink = new CollectSink<Ev>();
    deduped.getSideOutput(late).sinkTo(lateSink);
    const result = await env.execute();
    return {
      rows: sink.values.sort(),
      late: lateSink.values,
      lateCount: result.metric('weir_window_late_records_total'),
    };
  }

  const specArb = fc.constantFrom<Spec>({ size: 10, slide: 10 }, { size: 20, slide: 5 });

  it('emits one row per key and window, equal to the batch answer, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventsArb(10),
        specArb,
        fc.constantFrom<Keep>('first', 'last'),
        async (events, spec, keep) => {
          const arrival = deliver(events);
          for (const p of [1, 2]) {
            const got = await run(arrival, spec, keep, 10, p);
            expect(got.late).toEqual([]);
            expect(got.rows).toEqual(oracle(arrival, spec, keep));
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('with late input (tumbling): equals the batch answer over the records not dropped; drops are counted', async () => {
    await fc.assert(
      fc.asyncProperty(
        eventsArb(60),
        fc.constantFrom<Keep>('first', 'last'),
        async (events, keep) => {
          const arrival = deliver(events);
          const spec = { size: 10, slide: 10 };
          for (const p of [1, 2]) {
            const got = await run(arrival, spec, keep, 3, p);
            const dropped = new Set(got.late.map((e) => e.id));
            expect(got.lateCount).toBe(dropped.size);
            expect(got.rows).toEqual(
              oracle(
                arrival.filter((e) => !dropped.has(e.id)),
                spec,
                keep,
              ),
            );
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
