/**
 * Two-phase window aggregation: at parallelism above 1, a tumbling or
 * sliding window whose function merges folds records per key and slice
 * before the keyed exchange. The results must be exactly those of the
 * one-phase plan (`localAggregation: false`): same windows, values, update
 * flags, late side output and late count, on in-order, late and duplicated
 * input, from one split source or several.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputTag, StreamEnvironment, type WindowAssigner, Windows } from '../../src/index.js';
import {
  LocalWindowCombiner,
  type LocalWindowElement,
} from '../../src/runtime/windowing/local-window-combiner.js';
import { aggregateAggregation } from '../../src/runtime/windowing/window-aggregation.js';
import { type Emitted, OneInputHarness, type OperatorSnapshot } from '../../src/testing/index.js';
import { propertyRuns, testStateBackend } from '../helpers/state-backend.js';
import {
  bounded,
  type CountSum,
  collect,
  countSum,
  type Ev,
  fmt,
  LATE_METRIC,
  sorted,
  sumReduce,
} from '../helpers/timeline.js';

const FOLDED = 'weir_window_local_folded_records_total';

type Spec = { size: number; slide: number; offset: number };

function assigner(s: Spec): WindowAssigner<Ev> {
  return s.size === s.slide
    ? Windows.tumbling(s.size, s.offset)
    : Windows.sliding(s.size, s.slide, s.offset);
}

interface Run {
  readonly results: string[];
  readonly reduced: string[];
  readonly late: string[];
  readonly lateCount: number;
  readonly folded: number;
}

async function run(
  arrival: readonly Ev[],
  spec: Spec,
  opts: {
    parallelism: number;
    split: boolean;
    bound: number;
    lateness: number;
    batchSize: number;
    local: boolean;
  },
): Promise<Run> {
  const env = new StreamEnvironment({
    parallelism: opts.parallelism,
    batchSize: opts.batchSize,
    localAggregation: opts.local,
    ...testStateBackend(),
  });
  const lateTag = new OutputTag<Ev>('late');
  const source = opts.split
    ? env.fromGenerator({ count: arrival.length, generate: (i) => arrival[i]! })
    : env.fromArray(arrival);
  const windowed = source
    .assignTimestampsAndWatermarks(bounded(opts.bound))
    .keyBy((e) => e.k)
    .window(assigner(spec))
    .allowedLateness(opts.lateness)
    .sideOutputLateData(lateTag);
  const results = windowed.aggregate(countSum);
  const main = collect(results);
  const late = collect(results.getSideOutput(lateTag));
  const reduced = collect(windowed.reduce(sumReduce));
  const result = await env.execute();
  return {
    results: sorted(main.values.map(fmt)),
    reduced: sorted(
      reduced.values.map(
        (r) =>
          `${r.key} [${r.window.start},${r.window.end}) ${r.value.v} ${r.timing} ${r.isUpdate}`,
      ),
    ),
    late: sorted(late.values.map((e) => JSON.stringify(e))),
    lateCount: result.metric(LATE_METRIC),
    folded: result.metric(FOLDED),
  };
}

const specArb: fc.Arbitrary<Spec> = fc.oneof(
  fc
    .record({ size: fc.constantFrom(5, 10, 50), offset: fc.integer({ min: -4, max: 4 }) })
    .map(({ size, offset }) => ({ size, slide: size, offset })),
  fc
    .constantFrom<[number, number]>([10, 5], [10, 3], [30, 10], [6, 4], [20, 6])
    .map(([size, slide]) => ({ size, slide, offset: 0 })),
);

/**
 * Events delivered in order of time + delay (at most `maxDelay`); some are
 * repeated (at-least-once input), `repeatDelay` later.
 */
const arrivalArb = (maxDelay: number, repeatDelay: number) =>
  fc
    .array(
      fc.record({
        k: fc.constantFrom('a', 'b', 'c', 'd'),
        t: fc.integer({ min: -50, max: 300 }),
        v: fc.integer({ min: -5, max: 20 }),
        delay: fc.integer({ min: 0, max: maxDelay }),
        repeat: fc.boolean(),
      }),
      { maxLength: 80 },
    )
    .map((events) =>
      events
        .flatMap((e, i) => {
          const one = { e, i, at: e.t + e.delay };
          return e.repeat ? [one, { ...one, at: one.at + repeatDelay }] : [one];
        })
        .sort((x, y) => x.at - y.at || x.i - y.i)
        .map(({ e }): Ev => ({ k: e.k, t: e.t, v: e.v })),
    );

describe('two-phase window aggregation', () => {
  it('equals the one-phase plan on shuffled, late and repeated input from one source subtask', async () => {
    let folded = 0;
    await fc.assert(
      fc.asyncProperty(
        arrivalArb(40, 7),
        specArb,
        fc.constantFrom(0, 5),
        fc.constantFrom(0, 4, 15),
        fc.constantFrom(2, 4),
        fc.constantFrom(1, 3, 16),
        async (arrival, spec, bound, lateness, parallelism, batchSize) => {
          const opts = { parallelism, split: false, bound, lateness, batchSize };
          const two = await run(arrival, spec, { ...opts, local: true });
          const one = await run(arrival, spec, { ...opts, local: false });
          expect(two.results).toEqual(one.results);
          expect(two.reduced).toEqual(one.reduced);
          expect(two.late).toEqual(one.late);
          expect(two.lateCount).toBe(one.lateCount);
          expect(one.folded).toBe(0);
          folded += two.folded;
        },
      ),
      { numRuns: propertyRuns(150) },
    );
    // The property is not vacuous: most records were folded before the exchange.
    expect(folded).toBeGreaterThan(propertyRuns(1000));
  }, 60_000);

  // With several source subtasks, which records are late depends on how their
  // streams interleave at the window (in either plan); within the bound none is.
  it('equals the one-phase plan on shuffled and repeated input from split sources', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(0, 5, 20)
          .chain((bound) => fc.tuple(fc.constant(bound), arrivalArb(bound, 0))),
        specArb,
        fc.constantFrom(2, 4),
        fc.constantFrom(1, 3, 16),
        async ([bound, arrival], spec, parallelism, batchSize) => {
          const opts = { parallelism, split: true, bound, lateness: 0, batchSize };
          const two = await run(arrival, spec, { ...opts, local: true });
          const one = await run(arrival, spec, { ...opts, local: false });
          expect(two.lateCount).toBe(0);
          expect(two.results).toEqual(one.results);
          expect(two.reduced).toEqual(one.reduced);
          expect(two.folded).toBe(2 * arrival.length);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  }, 60_000);

  it('moves one partial per key and slice across the exchange instead of every record', async () => {
    const arrival: Ev[] = [];
    for (let i = 0; i < 4000; i++) arrival.push({ k: `k${i % 10}`, t: Math.floor(i / 4), v: 1 });
    const opts = { parallelism: 2, split: true, bound: 0, lateness: 0, batchSize: 100 };
    const two = await run(arrival, { size: 100, slide: 100, offset: 0 }, { ...opts, local: true });
    const one = await run(arrival, { size: 100, slide: 100, offset: 0 }, { ...opts, local: false });
    expect(two.results).toEqual(one.results);
    // Each of 4000 records is counted by two windows (aggregate and reduce): all folded.
    expect(two.folded).toBe(8000);
    expect(two.results).toHaveLength(100);
  });
});

/**
 * The local half on its own in a harness, with the lines of what it sends.
 * `restoreFrom` starts it as part of a restored job.
 */
function harness(restoreFrom?: OperatorSnapshot | readonly OperatorSnapshot[]) {
  type Element = LocalWindowElement<Ev, CountSum>;
  const combiner = new LocalWindowCombiner<Ev, CountSum>({
    pane: 10,
    offset: 0,
    aggregation: aggregateAggregation(countSum),
    selectKey: (e) => e.k,
    folding: true,
    maxEntries: 1000,
  });
  const h = new OneInputHarness<Ev, Element | Ev>(combiner, {
    operatorId: 'w/local',
    parallelism: 2,
    ...(restoreFrom === undefined ? {} : { restoreFrom }),
  });
  const line = (e: Emitted<Element | Ev>): string => {
    if (e.kind === 'record') {
      const el = e.value as Element;
      return el.sliceEnd === undefined
        ? `raw ${el.key}@${el.record.t}`
        : `partial ${el.key}@${el.sliceEnd}=${el.accumulator.count}`;
    }
    if (e.kind === 'watermark') return `watermark ${e.time}`;
    return e.kind === 'idle' ? 'idle' : 'side?';
  };
  // What the window half is sent; end of output (after endInput) is not part of it.
  const sent = () =>
    h
      .emitted()
      .filter((e) => e.kind !== 'end')
      .map(line);
  const feed = (events: [string, number][]) =>
    h.processElements(
      events.map(([k, t]) => ({ k, t, v: 1 })),
      events.map(([, t]) => t),
    );
  return { h, sent, feed };
}

describe('the local half of a two-phase window', () => {
  it('sends a slice ahead of the watermark that reaches its end, and possibly late records as they are', () => {
    const { h, sent, feed } = harness();
    feed([
      ['a', 1],
      ['a', 5],
      ['b', 12],
      ['a', 19],
    ]);
    expect(sent()).toEqual([]);
    h.processWatermark(9); // slice [0,10) ends at 9
    feed([
      ['a', 8],
      ['a', 15],
    ]); // 8 is at or behind the watermark: the window operator decides
    h.processWatermark(25);
    h.endInput();
    expect(sent()).toEqual([
      'partial a@10=2',
      'watermark 9',
      'raw a@8',
      'partial b@20=1',
      'partial a@20=2',
      'watermark 25',
    ]);
  });

  it('flushes before a checkpoint barrier and keeps its watermark in the snapshot', () => {
    const { h, sent, feed } = harness();
    h.processWatermark(3);
    feed([
      ['a', 4],
      ['b', 30],
    ]);
    const snapshot = h.snapshot(1);
    expect(sent()).toEqual(['watermark 3', 'partial a@10=1', 'partial b@40=1']);
    expect(snapshot.union).toEqual([{ subtask: 0, watermark: 3, wasIdle: false }]);

    // Restored, it treats records of slices at or behind that watermark as possibly late.
    h.processWatermark(12);
    const later = h.snapshot(2);
    const restored = harness(later);
    restored.feed([
      ['a', 2],
      ['a', 17],
    ]);
    restored.h.endInput();
    expect(restored.sent()).toEqual(['raw a@2', 'partial a@20=1']);
  });

  it('stops folding once its input was idle, and after a restore without progress of its own', () => {
    const { h, sent, feed } = harness();
    feed([['a', 4]]);
    h.processIdle();
    feed([['a', 6]]);
    expect(sent()).toEqual(['partial a@10=1', 'idle', 'raw a@6']);
    const snapshot = h.snapshot(1);
    const after = harness(snapshot);
    after.feed([['b', 50]]);
    expect(after.sent()).toEqual(['raw b@50']);

    // A restored job that held no state of this operator.
    const fresh = harness([]);
    fresh.feed([['b', 50]]);
    expect(fresh.sent()).toEqual(['raw b@50']);
  });
});
