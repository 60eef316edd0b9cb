/**
 * Window evictors (`WindowedStream.evictor`, `Evictors`): the scenarios of Flink's
 * EvictingWindowOperatorTest with its inputs and expected sums, run against Weir's general
 * window operator; then through the API: count windows built from a count trigger and a count
 * evictor, sessions, lateness, a batch oracle over shuffled input, a restore equal to an
 * uninterrupted run, rescaling, and parallelism 2 equal to 1.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyGroupOf, keyGroupRange } from '../../src/core/key-groups.js';
import { NO_TIMESTAMP } from '../../src/core/record-batch.js';
import {
  CollectSink,
  type Evictor,
  Evictors,
  type Key,
  OutputTag,
  type ProcessWindowFunction,
  StreamEnvironment,
  type Trigger,
  Triggers,
  type WindowAssigner,
  Windows,
} from '../../src/index.js';
import { evictingContents } from '../../src/runtime/windowing/evicting-contents.js';
import { listAggregation, processFiring } from '../../src/runtime/windowing/window-aggregation.js';
import { WindowOperator } from '../../src/runtime/windowing/window-operator.js';
import { KeyedOneInputHarness, type OperatorSnapshot } from '../../src/testing/index.js';
import { propertyRuns, testStateBackend } from '../helpers/state-backend.js';
import { bounded, type Ev, env1, ev, sorted } from '../helpers/timeline.js';

type In = readonly [key: string, value: number];

/** Flink's sum window function: `key sum` of the records it is given. */
const summing: ProcessWindowFunction<In, string, string> = {
  process(key, _ctx, elements, out) {
    out.collect(`${key} ${elements.reduce((s, e) => s + e[1], 0)}`);
  },
};

function evictingOperator(
  assigner: WindowAssigner<In>,
  trigger: Trigger<In>,
  evictor: Evictor<In>,
  allowedLateness = 0,
) {
  return new WindowOperator({
    assigner,
    trigger,
    allowedLateness,
    lateDataTag: undefined,
    aggregation: evictingContents(listAggregation<In>(), evictor),
    firing: processFiring(summing as ProcessWindowFunction<unknown, string, Key>, false),
  });
}

function harness(
  assigner: WindowAssigner<In>,
  trigger: Trigger<In>,
  evictor: Evictor<In>,
  restoreFrom?: OperatorSnapshot | readonly OperatorSnapshot[],
) {
  return new KeyedOneInputHarness(evictingOperator(assigner, trigger, evictor), (v: In) => v[0], {
    ...testStateBackend(),
    ...(restoreFrom === undefined ? {} : { restoreFrom }),
  });
}

type Step = readonly [key: string, value: number, timestamp: number];

function feed(h: ReturnType<typeof harness>, steps: readonly Step[]): void {
  for (const [k, v, t] of steps) h.processElement([k, v], t);
}

/** Flink's first batch of records for the global-window scenarios (value 1 unless given). */
const firstBatch = (values: readonly number[] = [1, 1, 1, 1, 1, 1, 1, 1]): Step[] => {
  const ts = [3000, 3999, 20, 0, 999, 1998, 1999, 1000];
  const keys = ['key2', 'key2', 'key1', 'key1', 'key1', 'key2', 'key2', 'key2'];
  return ts.map((t, i) => [keys[i]!, values[i]!, t] as const);
};

const global: WindowAssigner<In> = Windows.global();
const countTwo = Triggers.count<In>(2);

describe("Flink's EvictingWindowOperatorTest, on the general window operator", () => {
  it('count trigger with a count evictor (before): the last 4 records every 2', () => {
    const h = harness(global, countTwo, Evictors.count(4));
    feed(h, firstBatch());
    expect(sorted(h.outputValues())).toEqual(['key1 2', 'key2 2', 'key2 4']);
    feed(h, [
      ['key1', 1, 10999],
      ['key2', 1, 1000],
    ]);
    expect(sorted(h.outputValues())).toEqual(
      sorted(['key2 2', 'key2 4', 'key1 2', 'key1 4', 'key2 4']),
    );
  });

  it('count evictor after the function: the function sees everything, then the window keeps 4', () => {
    const h = harness(global, countTwo, Evictors.count(4, { doEvictAfter: true }));
    feed(h, firstBatch());
    expect(sorted(h.outputValues())).toEqual(['key1 2', 'key2 2', 'key2 4']);
    feed(h, [
      ['key1', 1, 10999],
      ['key2', 1, 1000],
    ]);
    expect(sorted(h.outputValues())).toEqual(
      sorted(['key2 2', 'key2 4', 'key1 2', 'key1 4', 'key2 6']),
    );
    feed(h, [
      ['key2', 1, 1000],
      ['key2', 1, 1000],
    ]);
    expect(sorted(h.outputValues())).toEqual(
      sorted(['key2 2', 'key2 4', 'key1 2', 'key1 4', 'key2 6', 'key2 6']),
    );
  });

  it('time evictor after the function: the window keeps records within 2 s of its newest', () => {
    const h = harness(global, countTwo, Evictors.time(2000, { doEvictAfter: true }));
    const ts = [1000, 4000, 20, 0, 999, 3500, 2001, 1001];
    feed(
      h,
      firstBatch().map(([k, v], i) => [k, v, ts[i]!] as const),
    );
    expect(sorted(h.outputValues())).toEqual(['key1 2', 'key2 2', 'key2 3']);
    feed(h, [
      ['key1', 1, 10999],
      ['key2', 1, 1002],
    ]);
    expect(sorted(h.outputValues())).toEqual(
      sorted(['key2 2', 'key1 2', 'key2 3', 'key1 4', 'key2 5']),
    );
  });

  it('time evictor before the function, tumbling 4 s windows with a count trigger', () => {
    const h = harness(Windows.tumbling(4000), countTwo, Evictors.time(2000));
    feed(h, [
      ['key2', 1, 1000],
      ['key2', 1, 3999],
      ['key1', 1, 20],
      ['key1', 1, 0],
      ['key1', 1, 999],
      ['key1', 1, 5999],
      ['key2', 1, 3500],
      ['key2', 1, 2001],
      ['key2', 1, 1001],
    ]);
    const stamped = () => sorted(h.output().map((r) => `${r.value}@${r.timestamp}`));
    expect(stamped()).toEqual(['key1 2@3999', 'key2 1@3999', 'key2 3@3999']);
    feed(h, [
      ['key1', 1, 6500],
      ['key2', 1, 1002],
    ]);
    expect(stamped()).toEqual(
      sorted(['key2 1@3999', 'key1 2@3999', 'key2 3@3999', 'key1 2@7999', 'key2 3@3999']),
    );
  });

  it('time evictor without timestamps evicts nothing', () => {
    const h = harness(global, countTwo, Evictors.time(2000, { doEvictAfter: true }));
    feed(
      h,
      firstBatch().map(([k, v]) => [k, v, NO_TIMESTAMP] as const),
    );
    expect(sorted(h.outputValues())).toEqual(['key1 2', 'key2 2', 'key2 4']);
    feed(h, [
      ['key1', 1, NO_TIMESTAMP],
      ['key2', 1, NO_TIMESTAMP],
    ]);
    expect(sorted(h.outputValues())).toEqual(
      sorted(['key2 2', 'key1 2', 'key2 4', 'key1 4', 'key2 6']),
    );
  });

  const delta = (before: boolean) =>
    Evictors.delta<In>(2, (older, newer) => newer[1] - older[1], { doEvictAfter: !before });
  const deltaValues = [1, 4, 1, 1, 5, 5, 6, 1];

  it('delta evictor before the function: records 2 or more below the newest are evicted', () => {
    const h = harness(global, countTwo, delta(true));
    feed(h, firstBatch(deltaValues));
    expect(sorted(h.outputValues())).toEqual(sorted(['key2 4', 'key2 11', 'key1 2']));
    feed(h, [
      ['key1', 3, 10999],
      ['key2', 10, 1000],
    ]);
    expect(sorted(h.outputValues())).toEqual(
      sorted(['key2 4', 'key2 11', 'key1 2', 'key1 8', 'key2 10']),
    );
  });

  it('delta evictor after the function', () => {
    const h = harness(global, countTwo, delta(false));
    feed(h, firstBatch(deltaValues));
    expect(sorted(h.outputValues())).toEqual(sorted(['key2 5', 'key2 15', 'key1 2']));
    feed(h, [
      ['key1', 9, 10999],
      ['key2', 10, 1000],
    ]);
    expect(sorted(h.outputValues())).toEqual(
      sorted(['key2 5', 'key2 15', 'key1 2', 'key1 16', 'key2 22']),
    );
  });

  it('tumbling event-time windows with a count evictor fire the last 4 at the watermark', () => {
    const h = harness(Windows.tumbling(4000), Triggers.eventTime(), Evictors.count(4));
    feed(h, [
      ['key1', 1, 10],
      ['key1', 1, 100],
    ]);
    h.processWatermark(1999);
    feed(h, [
      ['key1', 1, 1997],
      ['key1', 1, 1998],
      ['key1', 1, 2310],
      ['key1', 1, 2310],
      ['key2', 1, 2310],
      ['key2', 1, 2310],
    ]);
    h.processWatermark(3999);
    expect(sorted(h.output().map((r) => `${r.value}@${r.timestamp}`))).toEqual([
      'key1 4@3999',
      'key2 2@3999',
    ]);
  });
});

describe('evictors through the restore of a window operator', () => {
  const steps: Step[] = [
    ...firstBatch([1, 4, 1, 1, 5, 5, 6, 1]),
    ['key1', 3, 10999],
    ['key2', 10, 1000],
    ['key2', 7, 1200],
    ['key1', 2, 11000],
    ['key1', 2, 11001],
    ['key2', 1, 1300],
  ];
  const make = () => evictingOperator(global, countTwo, Evictors.count(3, { doEvictAfter: true }));

  it('a run restored at every point equals the uninterrupted one, also at a new parallelism', () => {
    const whole = harness(global, countTwo, Evictors.count(3, { doEvictAfter: true }));
    feed(whole, steps);
    const expected = sorted(whole.outputValues());
    for (let cut = 0; cut <= steps.length; cut++) {
      const first = harness(global, countTwo, Evictors.count(3, { doEvictAfter: true }));
      feed(first, steps.slice(0, cut));
      const snapshot = first.snapshot();
      // Restored into two subtasks: each gets its key groups, and only its keys' records.
      const outputs = [...first.outputValues()];
      for (let subtask = 0; subtask < 2; subtask++) {
        const second = KeyedOneInputHarness.restored(make, (v: In) => v[0], [snapshot], {
          ...testStateBackend(),
          subtaskIndex: subtask,
          parallelism: 2,
        });
        const { first: lo, last: hi } = keyGroupRange(subtask, 128, 2);
        const owned = steps.slice(cut).filter(([k]) => {
          const group = keyGroupOf(k, 128);
          return group >= lo && group <= hi;
        });
        feed(second, owned);
        outputs.push(...second.outputValues());
      }
      expect(sorted(outputs), `restored after ${cut} records`).toEqual(expected);
    }
  });
});

// ---- through the API ----------------------------------------------------------------------

const sumV = (a: Ev, b: Ev): Ev => ({ k: a.k, t: Math.max(a.t, b.t), v: a.v + b.v });

describe('WindowedStream.evictor', () => {
  it('a global window with a count trigger and a count evictor is countWindow(size, slide)', async () => {
    const input = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5].map((v, i) =>
      ev(i % 3 === 0 ? 'a' : 'b', i, v),
    );
    const run = (build: (env: StreamEnvironment) => Promise<string[]>) => build(env1());
    const viaEvictor = await run(async (env) =>
      (
        await env
          .fromArray(input)
          .keyBy((e) => e.k)
          .window(Windows.global())
          .trigger(Triggers.count(2))
          .evictor(Evictors.count(3))
          .reduce(sumV)
          .executeAndCollect()
      ).map((r) => `${r.key} ${r.value.v} ${r.isUpdate}`),
    );
    const viaCount = await run(async (env) =>
      (
        await env
          .fromArray(input)
          .keyBy((e) => e.k)
          .countWindow(3, 2)
          .reduce(sumV)
          .executeAndCollect()
      ).map((r) => `${r.key} ${r.value.v} ${r.isUpdate}`),
    );
    expect(viaEvictor).toEqual(viaCount);
    expect(viaEvictor.length).toBeGreaterThan(3);
  });

  it('replaces the eviction of a sliding count window, as in Flink', async () => {
    const input = [1, 2, 3, 4, 5, 6].map((v, i) => ev('a', i, v));
    const out = await env1()
      .fromArray(input)
      .keyBy((e) => e.k)
      .countWindow(4, 2)
      .evictor(Evictors.count(1))
      .reduce(sumV)
      .executeAndCollect();
    expect(out.map((r) => r.value.v)).toEqual([2, 4, 6]);
  });

  it('aggregate and process see the records left; a window the evictor empties emits nothing', async () => {
    const dropAll: Evictor<Ev> = { evictBefore: (elements) => void elements.removeIf(() => true) };
    const input = [ev('a', 1, 1), ev('a', 2, 2), ev('b', 3, 3)];
    const keyed = () =>
      env1()
        .fromArray(input)
        .assignTimestampsAndWatermarks(bounded(0))
        .keyBy((e) => e.k)
        .window(Windows.tumbling(10));
    expect(await keyed().evictor(dropAll).reduce(sumV).executeAndCollect()).toEqual([]);
    const odd: Evictor<Ev> = {
      evictBefore(elements, size, window, ctx) {
        expect(size).toBe(elements.size);
        expect(window).toEqual({ start: 0, end: 10 });
        expect(ctx.currentWatermark()).toBeGreaterThanOrEqual(9);
        elements.removeIf((e) => e.value.v % 2 === 0);
      },
    };
    const listed = await keyed()
      .evictor(odd)
      .process<string>({
        process: (key, _ctx, elements, out) =>
          out.collect(`${key}:${elements.map((e) => e.v).join(',')}`),
      })
      .executeAndCollect();
    expect(sorted(listed)).toEqual(['a:1', 'b:3']);
  });

  it('session windows merge their records; aggregate needs no merge there', async () => {
    const input = [ev('a', 0, 1), ev('a', 8, 2), ev('a', 4, 3), ev('a', 30, 4)];
    const out = await env1()
      .fromArray(input)
      .assignTimestampsAndWatermarks(bounded(10))
      .keyBy((e) => e.k)
      .window(Windows.session(5))
      .evictor(Evictors.count(2))
      .aggregate({
        createAccumulator: () => [] as number[],
        add: (e: Ev, acc: number[]) => [...acc, e.v],
        getResult: (acc) => acc.join(','),
      })
      .executeAndCollect();
    // t=4 bridges [0,5) and [8,13): their records in window order, then its own: 1, 2, 3.
    expect(out.map((r) => `[${r.window.start},${r.window.end}) ${r.value}`)).toEqual([
      '[0,13) 2,3',
      '[30,35) 4',
    ]);
  });

  it('allowed lateness: a late record re-fires the window over what the evictor left', async () => {
    const late = new OutputTag<Ev>('late');
    const input = [
      ev('a', 1, 1),
      ev('a', 2, 2),
      ev('a', 3, 3),
      ev('a', 12, 0), // watermark 11: [0,10) fires with the last 2 (2+3)
      ev('a', 4, 10), // late within lateness: fires with 3+10
      ev('a', 40, 0), // watermark 39: [0,10) cleaned up
      ev('a', 5, 100), // too late
    ];
    const results = env1()
      .fromArray(input)
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .allowedLateness(20)
      .sideOutputLateData(late)
      .evictor(Evictors.count(2, { doEvictAfter: true }))
      .reduce(sumV);
    const { records: out, sideOutputs } = await results.executeAndCollect({
      sideOutputs: { late },
    });
    expect(
      out
        .filter((r) => r.window.start === 0)
        .map((r) => `${r.value.v} ${r.timing}${r.isUpdate ? ' upd' : ''}`),
    ).toEqual(['6 on-time', '15 late upd']);
    expect(sideOutputs.late.map((e) => e.v)).toEqual([100]);
  });

  it('refuses an object without evictBefore or evictAfter', () => {
    const w = env1()
      .fromArray([ev('a', 1)])
      .keyBy((e) => e.k)
      .countWindow(2);
    expect(() => w.evictor({} as Evictor<Ev>)).toThrow(/evictBefore/);
    expect(() => Evictors.count(-1)).toThrow();
    expect(() => Evictors.time(Number.NaN)).toThrow();
  });
});

// ---- oracle -------------------------------------------------------------------------------

type EvictorSpec =
  | { kind: 'count'; n: number }
  | { kind: 'time'; ms: number }
  | { kind: 'delta'; threshold: number };

function evictorOf(spec: EvictorSpec): Evictor<Ev> {
  switch (spec.kind) {
    case 'count':
      return Evictors.count(spec.n);
    case 'time':
      return Evictors.time(spec.ms);
    case 'delta':
      return Evictors.delta(spec.threshold, (a: Ev, b: Ev) => Math.abs(b.v - a.v));
  }
}

/** The same eviction as a batch computation over a window's records in arrival order. */
function evictBatch(records: readonly Ev[], spec: EvictorSpec): Ev[] {
  switch (spec.kind) {
    case 'count':
      return records.slice(Math.max(0, records.length - spec.n));
    case 'time': {
      const max = Math.max(...records.map((r) => r.t));
      return records.filter((r) => r.t > max - spec.ms);
    }
    case 'delta': {
      const last = records[records.length - 1]!;
      return records.filter((r) => Math.abs(last.v - r.v) < spec.threshold);
    }
  }
}

describe('evictor oracle', () => {
  const SIZE = 20;
  const BOUND = 15;
  const arbEvictor: fc.Arbitrary<EvictorSpec> = fc.oneof(
    fc.record({ kind: fc.constant('count' as const), n: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('time' as const), ms: fc.integer({ min: 0, max: 25 }) }),
    fc.record({ kind: fc.constant('delta' as const), threshold: fc.integer({ min: 1, max: 6 }) }),
  );
  // Records out of order by less than the bound: none is late, every window fires once.
  const arbInput = fc
    .array(
      fc.record({
        k: fc.constantFrom<string>('a', 'b', 'c'),
        t: fc.integer({ min: 0, max: 120 }),
        v: fc.integer({ min: 0, max: 9 }),
      }),
      { minLength: 1, maxLength: 40 },
    )
    .map((rs) => [...rs].sort((x, y) => x.t - y.t))
    .chain((rs) =>
      fc
        .array(fc.integer({ min: 0, max: BOUND - 1 }), {
          minLength: rs.length,
          maxLength: rs.length,
        })
        .map((jitter) => {
          const keyed = rs.map((r, i) => ({ r, at: r.t + jitter[i]! }));
          keyed.sort((x, y) => x.at - y.at);
          return keyed.map((x) => x.r);
        }),
    );

  it('tumbling windows with an evictor equal the batch eviction of each window, at parallelism 1 and 2', async () => {
    await fc.assert(
      fc.asyncProperty(arbInput, arbEvictor, async (input, spec) => {
        const expected: string[] = [];
        const groups = new Map<string, Ev[]>();
        for (const r of input) {
          const start = r.t - (r.t % SIZE);
          const id = `${r.k} ${start}`;
          groups.set(id, [...(groups.get(id) ?? []), r]);
        }
        for (const [id, records] of groups) {
          const kept = evictBatch(records, spec);
          if (kept.length > 0) expected.push(`${id} ${kept.map((r) => r.v).join(',')}`);
        }
        for (const parallelism of [1, 2]) {
          const env = new StreamEnvironment({ batchSize: 3, parallelism, ...testStateBackend() });
          const out = await env
            .fromArray(input)
            .assignTimestampsAndWatermarks(bounded(BOUND))
            .keyBy((e) => e.k)
            .window(Windows.tumbling(SIZE))
            .evictor(evictorOf(spec))
            .process<string>({
              process: (key, ctx, elements, o) =>
                o.collect(`${key} ${ctx.window.start} ${elements.map((e) => e.v).join(',')}`),
            })
            .executeAndCollect();
          expect(sorted(out)).toEqual(sorted(expected));
        }
      }),
      { numRuns: propertyRuns(25) },
    );
  });
});

describe('an evictor in the plan', () => {
  it('explain() names it on the window step', () => {
    const env = new StreamEnvironment();
    env
      .fromArray([1, 2, 3])
      .keyBy((n) => n % 2)
      .window(Windows.global())
      .trigger(Triggers.count(2))
      .evictor(Evictors.count(4))
      .reduce((a, b) => a + b)
      .sinkTo(new CollectSink());
    expect(env.explain()).toMatch(/an evictor \(keeps every record\)/);
  });
});
