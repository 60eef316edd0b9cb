/**
 * Scenarios of Flink's WindowOperatorTest (flink-streaming-java, DataStream API), with Flink's
 * inputs, watermarks, processing times and expected outputs, run against Weir's general window
 * operator in a keyed harness under a manual clock. Snapshots are taken and restored into a
 * fresh operator where Flink's test does so.
 *
 * Flink compares most outputs with `assertOutputEqualsSorted`: watermarks must be at the same
 * positions, records are compared as a sorted list. {@link expectSorted} does the same.
 *
 * Not ported, because Weir has no equivalent:
 * - testPointSessions: a custom assigner putting some records in windows `[t, t)`; Weir's
 *   assigners are a fixed set (and a dynamic gap must be positive, as in Flink).
 * - the `closeCalled` counts of testSlidingEventTimeWindowsApply/testTumblingEventTimeWindowsApply:
 *   Weir's window functions have no open/close lifecycle.
 * - serializers and state descriptors: Weir stores window contents as JSON, with no descriptor.
 *
 * Where Weir differs from Flink on purpose, the test says so: results of global windows are
 * stamped +Infinity (Flink: Long.MAX_VALUE), and Weir's largest event time is
 * `Number.MAX_SAFE_INTEGER` (Flink's: Long.MAX_VALUE).
 */
import { describe, expect, it } from 'vitest';
import type { Operator } from '../../src/core/operator.js';
import type { QueryableState } from '../../src/core/queryable-state.js';
import type { OperatorSnapshot } from '../../src/core/snapshot.js';
import { MAX_EVENT_TIME } from '../../src/core/timestamps.js';
import {
  type Key,
  OutputTag,
  type ProcessWindowFunction,
  type Trigger,
  Triggers,
  type Window,
  type WindowAssigner,
  Windows,
} from '../../src/index.js';
import { SliceWindowOperator } from '../../src/runtime/windowing/slice-window-operator.js';
import {
  listAggregation,
  processFiring,
  reduceAggregation,
  type WindowAggregation,
} from '../../src/runtime/windowing/window-aggregation.js';
import { WindowOperator } from '../../src/runtime/windowing/window-operator.js';
import { KeyedOneInputHarness } from '../../src/testing/index.js';

type In = readonly [key: string, value: number];
const keyOf = (v: In): string => v[0];

// ---- Flink's functions, as Weir window functions --------------------------------------------

/** Flink's SumReducer: the key of the later record, the sum of both values. */
const sum = (a: In, b: In): In => [b[0], a[1] + b[1]];

/** Flink's PassThroughWindowFunction / PassThroughFunction: every element as it is. */
const passThrough: ProcessWindowFunction<In, In, string> = {
  process(_key, _ctx, elements, out) {
    for (const e of elements) out.collect(e);
  },
};

/** Flink's RichSumReducer: `(key, sum of the values)`. */
const sumOfValues: ProcessWindowFunction<In, In, string> = {
  process(key, _ctx, elements, out) {
    out.collect([key, elements.reduce((s, e) => s + e[1], 0)]);
  },
};

type Session = readonly [label: string, start: number, end: number];

/** Flink's SessionWindowFunction / SessionProcessWindowFunction: `(key-sum, start, end)`. */
const sessionSum: ProcessWindowFunction<In, Session, string> = {
  process(key, ctx, elements, out) {
    const total = elements.reduce((s, e) => s + e[1], 0);
    out.collect([`${key}-${total}`, ctx.window.start, ctx.window.end]);
  },
};

/** Flink's ReducedSessionWindowFunction (and its process variant): `(key-value, start, end)` per element. */
const sessionEach: ProcessWindowFunction<In, Session, string> = {
  process(key, ctx, elements, out) {
    for (const e of elements) out.collect([`${key}-${e[1]}`, ctx.window.start, ctx.window.end]);
  },
};

/** Flink's PassThroughFunction2: `GOT: (k,v),(k,v)`. */
const got: ProcessWindowFunction<In, string, string> = {
  process(_key, _ctx, elements, out) {
    out.collect(`GOT: ${elements.map((e) => `(${e.join(',')})`).join(',')}`);
  },
};

/** Flink's EmptyReturnFunction. */
const emitsNothing: ProcessWindowFunction<In, In, string> = { process() {} };

// ---- operators and harnesses ------------------------------------------------------------------

interface Setup<OUT> {
  readonly assigner: WindowAssigner<In>;
  readonly trigger: Trigger<In>;
  readonly fn: ProcessWindowFunction<In, OUT, string>;
  /** Contents reduced with Flink's SumReducer (a ReducingState); else kept as a list. */
  readonly reduce?: boolean;
  readonly lateness?: number;
  readonly lateTag?: OutputTag<In>;
  /**
   * Run on the slice operator (tumbling and sliding windows, event-time trigger), which jobs
   * use for such windows, instead of the general one: both must give Flink's results.
   */
  readonly slices?: boolean;
}

/** Flink's WindowOperator: Weir's general window operator, or the slice operator jobs run tumbling and sliding event-time windows with the default trigger on. */
function windowOperator<OUT>(s: Setup<OUT>): Operator<In, OUT> & QueryableState {
  const aggregation = (
    s.reduce === true ? reduceAggregation(sum) : listAggregation<In>()
  ) as WindowAggregation<In, unknown, unknown>;
  const firing = processFiring(s.fn as ProcessWindowFunction<unknown, OUT, Key>, s.reduce === true);
  const allowedLateness = s.lateness ?? 0;
  const a = s.assigner;
  if (s.slices === true) {
    if (a.kind !== 'tumbling' && a.kind !== 'sliding')
      throw new Error('slices: tumbling or sliding only');
    return new SliceWindowOperator<In, unknown, unknown, OUT>({
      size: a.size,
      slide: a.kind === 'sliding' ? a.slide : a.size,
      offset: a.offset,
      allowedLateness,
      lateDataTag: s.lateTag,
      aggregation,
      firing,
      queryable: true,
    });
  }
  return new WindowOperator<In, unknown, unknown, OUT>({
    assigner: a,
    trigger: s.trigger,
    allowedLateness,
    lateDataTag: s.lateTag,
    aggregation,
    firing,
    queryable: true,
  });
}

const harness = <OUT>(s: Setup<OUT>) => new KeyedOneInputHarness(windowOperator(s), keyOf);

/** Flink's snapshot, close, and a new operator restored from the snapshot. */
const restored = <OUT>(s: Setup<OUT>, snapshot: OperatorSnapshot) =>
  KeyedOneInputHarness.restored(() => windowOperator(s), keyOf, snapshot);

type Harness<OUT> = ReturnType<typeof harness<OUT>>;

/** Flink's most used operator: contents reduced by SumReducer and passed through, fired by event time. */
const summed = (assigner: WindowAssigner<In>, more: Partial<Setup<In>> = {}): Setup<In> => ({
  assigner,
  trigger: Triggers.eventTime<In>(),
  fn: passThrough,
  reduce: true,
  ...more,
});

const show = (v: unknown): string => (Array.isArray(v) ? `(${v.join(',')})` : String(v));

/** `(k,v)@t` for a record, `W t` for a watermark: the main output in order. */
function emitted<OUT>(h: Harness<OUT>): string[] {
  const out: string[] = [];
  for (const e of h.emitted()) {
    if (e.kind === 'record') out.push(`${show(e.value)}@${e.timestamp}`);
    else if (e.kind === 'watermark') out.push(`W ${e.time}`);
  }
  return out;
}

/** As Flink's assertOutputEqualsSorted: watermarks in place, records in any order. */
function expectSorted<OUT>(h: Harness<OUT>, expected: readonly string[]): void {
  const shape = (xs: readonly string[]) => ({
    positions: xs.map((x) => (x.startsWith('W ') ? x : 'record')),
    records: xs.filter((x) => !x.startsWith('W ')).sort(),
  });
  expect(shape(emitted(h))).toEqual(shape(expected));
}

const lateOf = (h: Harness<unknown>, tag: OutputTag<In>) =>
  h.sideOutput(tag).map((r) => `${show(r.value)}@${r.timestamp}`);

/** The contents of `key`'s windows, as Flink's test reads the window state. */
function contents(h: Harness<unknown>, key: string): unknown[] {
  const answer = (h.operator as Operator<In, unknown> & QueryableState).queryState(key);
  if (answer.kind !== 'value') return [];
  return (answer.value as { value: unknown }[]).map((w) => w.value);
}

const feed = (h: Harness<unknown>, records: readonly [string, number, number][]) => {
  for (const [key, value, ts] of records) h.processElement([key, value], ts);
};

const SECOND = 1000;

/** Both operators that run tumbling and sliding event-time windows: `slices` of {@link Setup}. */
const bothOperators = [
  ['general operator', false],
  ['slice operator', true],
] as const;

// ---- tumbling and sliding event-time windows -------------------------------------------------

const outOfOrder: [string, number, number][] = [
  ['key2', 1, 3999],
  ['key2', 1, 3000],
  ['key1', 1, 20],
  ['key1', 1, 0],
  ['key1', 1, 999],
  ['key2', 1, 1998],
  ['key2', 1, 1999],
  ['key2', 1, 1000],
];

/** A watermark with the records it fires, or Flink's snapshot, close and restore. */
type Step = readonly [watermark: number, fired: readonly string[]] | 'restore';

/**
 * Feeds `records`, then takes the steps, checking the output after each. After a restore the
 * new operator's output is checked, as Flink's test does.
 */
function watermarkSteps(s: Setup<In>, records: [string, number, number][], steps: Step[]): void {
  let h = harness(s);
  feed(h, records);
  const expected: string[] = [];
  for (const step of steps) {
    if (step === 'restore') {
      h = restored(s, h.snapshot());
      expected.length = 0;
      continue;
    }
    const [watermark, fired] = step;
    h.processWatermark(watermark);
    expected.push(...fired, `W ${watermark}`);
    expectSorted(h, expected);
  }
}

const slidingEventTimeWindows = (s: Setup<In>) =>
  watermarkSteps(s, outOfOrder, [
    [999, ['(key1,3)@999']],
    [1999, ['(key1,3)@1999', '(key2,3)@1999']],
    [2999, ['(key1,3)@2999', '(key2,3)@2999']],
    'restore',
    [3999, ['(key2,5)@3999']],
    [4999, ['(key2,2)@4999']],
    [5999, ['(key2,2)@5999']],
    // Nothing is left to fire.
    [6999, []],
    [7999, []],
  ]);

const tumblingEventTimeWindows = (s: Setup<In>) =>
  watermarkSteps(s, outOfOrder, [
    [999, []],
    [1999, []],
    'restore',
    [2999, ['(key1,3)@2999', '(key2,3)@2999']],
    [3999, []],
    [4999, []],
    [5999, ['(key2,2)@5999']],
    [6999, []],
    [7999, []],
  ]);

describe.each(bothOperators)(
  "Flink's WindowOperatorTest: tumbling and sliding event-time windows, %s",
  (_name, slices) => {
    const sliding = Windows.sliding(3 * SECOND, SECOND);
    const tumbling = Windows.tumbling(3 * SECOND);
    const eventTime = Triggers.eventTime<In>();

    it('testSlidingEventTimeWindowsReduce (snapshot and restore mid-way)', () => {
      slidingEventTimeWindows(summed(sliding, { slices }));
    });

    it('testSlidingEventTimeWindowsApply (snapshot and restore mid-way)', () => {
      slidingEventTimeWindows({ assigner: sliding, trigger: eventTime, fn: sumOfValues, slices });
    });

    it('testTumblingEventTimeWindowsReduce (snapshot and restore mid-way)', () => {
      tumblingEventTimeWindows(summed(tumbling, { slices }));
    });

    it('testTumblingEventTimeWindowsApply (snapshot and restore mid-way)', () => {
      tumblingEventTimeWindows({ assigner: tumbling, trigger: eventTime, fn: sumOfValues, slices });
    });
  },
);

// ---- session windows ----------------------------------------------------------------------------

describe("Flink's WindowOperatorTest: session windows", () => {
  const sessions = Windows.session(3 * SECOND);
  const eventTime = Triggers.eventTime<In>();

  // The same records in both of Flink's scenarios; they take the snapshot after a different
  // number of them. Flink runs each with a WindowFunction and with a ProcessWindowFunction; in
  // Weir both are a ProcessWindowFunction.
  const sessionRecords: [string, number, number][] = [
    ['key2', 1, 0],
    ['key2', 2, 1000],
    ['key2', 3, 2500],
    ['key1', 1, 10],
    ['key1', 2, 1000],
    ['key1', 3, 2500],
    ['key2', 4, 5501],
    ['key2', 5, 6000],
    ['key2', 5, 6000],
    ['key2', 6, 6050],
  ];

  it.each([
    ['testSessionWindows / testSessionWindowsWithProcessFunction', sessionSum, false, 5],
    [
      'testReduceSessionWindows / testReduceSessionWindowsWithProcessFunction',
      sessionEach,
      true,
      3,
    ],
  ] as const)('%s (restore mid-session)', (_name, fn, reduce, beforeSnapshot) => {
    const s: Setup<Session> = { assigner: sessions, trigger: eventTime, fn, reduce };
    let h = harness(s);
    feed(h, sessionRecords.slice(0, beforeSnapshot));
    expectSorted(h, []);

    h = restored(s, h.snapshot());
    feed(h, sessionRecords.slice(beforeSnapshot));
    h.processWatermark(12000);
    const expected = [
      '(key1-6,10,5500)@5499',
      '(key2-6,0,5500)@5499',
      '(key2-20,5501,9050)@9049',
      'W 12000',
    ];
    feed(h, [
      ['key2', 10, 15000],
      ['key2', 20, 15000],
    ]);
    h.processWatermark(17999);
    expected.push('(key2-30,15000,18000)@17999', 'W 17999');
    expectSorted(h, expected);
  });

  it('testSessionWindowsWithCountTrigger: merged sessions add their counts (restore between)', () => {
    const s: Setup<Session> = {
      assigner: sessions,
      trigger: Triggers.purging(Triggers.count<In>(4)),
      fn: sessionSum,
    };
    let h = harness(s);
    feed(h, [
      ['key2', 1, 0],
      ['key2', 2, 1000],
      ['key2', 3, 2500],
      ['key2', 4, 3500],
      ['key1', 1, 10],
      ['key1', 2, 1000],
    ]);
    const snapshot = h.snapshot();
    expectSorted(h, ['(key2-10,0,6500)@6499']);

    h = restored(s, snapshot);
    feed(h, [
      ['key1', 3, 2500],
      ['key1', 1, 6000],
      ['key1', 2, 6500],
      ['key1', 3, 7000],
    ]);
    expectSorted(h, []);
    // Bridges key1's two sessions of 3 records each: 7 records, so it fires.
    h.processElement(['key1', 10], 4500);
    expectSorted(h, ['(key1-22,10,10000)@9999']);
  });

  it('testSessionWindowsWithContinuousEventTimeTrigger: merging keeps the next early firing (restore between)', () => {
    const s: Setup<Session> = {
      assigner: sessions,
      trigger: Triggers.continuousEventTime<In>(2 * SECOND),
      fn: sessionSum,
    };
    let h = harness(s);
    // The first early firing is at 2000.
    feed(h, [
      ['key1', 1, 1500],
      ['key2', 1, 0],
      ['key2', 3, 2500],
      ['key2', 2, 1000],
    ]);
    h.processWatermark(2500);
    const expected = ['(key1-1,1500,4500)@4499', '(key2-6,0,5500)@5499', 'W 2500'];
    h.processElement(['key2', 5], 4000);
    h.processWatermark(3000);
    expected.push('W 3000');
    const snapshot = h.snapshot();
    expectSorted(h, expected);

    h = restored(s, snapshot);
    h.processElement(['key1', 2], 4000);
    h.processElement(['key2', 4], 3500);
    // The next early firing, at 4000.
    h.processWatermark(4000);
    expectSorted(h, ['(key1-3,1500,7000)@6999', '(key2-15,0,7000)@6999', 'W 4000']);
  });

  // Flink's gap extractor: key1 3 s; key2 1 s for the value 10, else 2 s.
  const gapOf = (v: In): number => (v[0] === 'key1' ? 3000 : v[1] === 10 ? 1000 : 2000);

  it('testDynamicEventTimeSessionWindows', () => {
    const h = harness({
      assigner: Windows.dynamicSession(gapOf),
      trigger: eventTime,
      fn: sessionSum,
    });
    // Different gaps for different keys.
    feed(h, [
      ['key1', 3, 10],
      ['key2', 4, 5000],
      ['key2', 5, 6000],
    ]);
    h.processWatermark(8999);
    const expected = ['(key1-3,10,3010)@3009', '(key2-9,5000,8000)@7999', 'W 8999'];
    // A record whose gap ends before the session does: the session keeps its later end.
    feed(h, [
      ['key2', 1, 9000],
      ['key2', 2, 10000],
      ['key2', 10, 10500],
    ]);
    h.processWatermark(12999);
    expected.push('(key2-13,9000,12000)@11999', 'W 12999');
    // A record whose gap ends after it: the session grows.
    feed(h, [
      ['key2', 10, 13000],
      ['key2', 10, 13500],
      ['key2', 1, 14000],
    ]);
    h.processWatermark(16999);
    expected.push('(key2-21,13000,16000)@15999', 'W 16999');
    expectSorted(h, expected);
  });
});

// ---- global windows: continuous event-time trigger, count trigger, end of stream ---------------

// Results of the global window carry its end, +Infinity in Weir (Flink: Long.MAX_VALUE).
const END = Number.POSITIVE_INFINITY;

describe("Flink's WindowOperatorTest: global windows", () => {
  it('testContinuousWatermarkTrigger', () => {
    const s: Setup<In> = summed(Windows.global(), {
      trigger: Triggers.continuousEventTime<In>(3 * SECOND),
    });
    // The global window ignores the timestamps but for the first early firing of each key.
    const records: [string, number, number][] = [
      ['key1', 1, 0],
      ['key2', 1, 3000],
      ['key2', 1, 3999],
      ['key1', 1, 20],
      ['key1', 1, 999],
      ['key2', 1, 1998],
      ['key2', 1, 1999],
      ['key2', 1, 1000],
    ];
    watermarkSteps(s, records, [
      [1000, []],
      [2000, []],
      [3000, [`(key1,3)@${END}`]],
      [4000, []],
      [5000, []],
      [6000, [`(key1,3)@${END}`, `(key2,5)@${END}`]],
      [7000, []],
      [8000, []],
    ]);
  });

  it('testCountTrigger (restore between)', () => {
    const s: Setup<In> = summed(Windows.global(), {
      trigger: Triggers.purging(Triggers.count<In>(4)),
    });
    let h = harness(s);
    feed(h, [
      ['key2', 1, 3000],
      ['key2', 1, 3999],
      ['key1', 1, 20],
      ['key1', 1, 0],
      ['key1', 1, 999],
      ['key2', 1, 1998],
      ['key2', 1, 1999],
    ]);
    const snapshot = h.snapshot();
    const before = emitted(h);
    expect(before).toEqual([`(key2,4)@${END}`]);

    h = restored(s, snapshot);
    h.processElement(['key2', 1], 1000);
    expectSorted(h, []);
    feed(h, [
      ['key1', 1, 10999],
      ['key2', 1, 1000],
      ['key2', 1, 1000],
      ['key2', 1, 1000],
    ]);
    expectSorted(h, [`(key1,4)@${END}`, `(key2,4)@${END}`]);
  });

  it('testEndOfStreamTrigger: the global window fires at the final watermark', () => {
    // Flink's end-of-stream trigger is an event-time timer at the global window's end, as
    // Weir's event-time trigger sets on it (Weir's default, never, fires in endInput instead).
    const h = harness(summed(Windows.global()));
    feed(h, outOfOrder);
    expectSorted(h, []);
    h.processWatermark(Number.POSITIVE_INFINITY);
    expectSorted(h, [`(key1,3)@${END}`, `(key2,5)@${END}`, `W ${END}`]);
  });
});

// ---- processing time ------------------------------------------------------------------------------

describe("Flink's WindowOperatorTest: processing-time windows (manual clock)", () => {
  const processingTime = Triggers.processingTime<In>();

  it('testProcessingTimeTumblingWindows', () => {
    const h = harness(
      summed(Windows.tumblingProcessingTime(3 * SECOND), { trigger: processingTime }),
    );
    h.setProcessingTime(3);
    // Event times do not matter in processing time.
    feed(h, [
      ['key2', 1, MAX_EVENT_TIME],
      ['key2', 1, 7000],
      ['key2', 1, 7000],
      ['key1', 1, 7000],
      ['key1', 1, 7000],
    ]);
    h.setProcessingTime(5000);
    const expected = ['(key2,3)@2999', '(key1,2)@2999'];
    expectSorted(h, expected);
    feed(h, [
      ['key1', 1, 7000],
      ['key1', 1, 7000],
      ['key1', 1, 7000],
    ]);
    h.setProcessingTime(7000);
    expected.push('(key1,3)@5999');
    expectSorted(h, expected);
  });

  it('testProcessingTimeSlidingWindows', () => {
    const h = harness(
      summed(Windows.slidingProcessingTime(3 * SECOND, SECOND), { trigger: processingTime }),
    );
    h.setProcessingTime(3);
    h.processElement(['key2', 1], MAX_EVENT_TIME);
    h.setProcessingTime(1000);
    const expected = ['(key2,1)@999'];
    expectSorted(h, expected);
    feed(h, [
      ['key2', 1, MAX_EVENT_TIME],
      ['key2', 1, MAX_EVENT_TIME],
    ]);
    h.setProcessingTime(2000);
    expected.push('(key2,3)@1999');
    expectSorted(h, expected);
    feed(h, [
      ['key1', 1, MAX_EVENT_TIME],
      ['key1', 1, MAX_EVENT_TIME],
    ]);
    h.setProcessingTime(3000);
    expected.push('(key2,3)@2999', '(key1,2)@2999');
    expectSorted(h, expected);
    feed(h, [
      ['key1', 1, MAX_EVENT_TIME],
      ['key1', 1, MAX_EVENT_TIME],
      ['key1', 1, MAX_EVENT_TIME],
    ]);
    h.setProcessingTime(7000);
    expected.push('(key2,2)@3999', '(key1,5)@3999', '(key1,5)@4999', '(key1,3)@5999');
    expectSorted(h, expected);
  });

  it('testProcessingTimeSessionWindows', () => {
    const h = harness(
      summed(Windows.sessionProcessingTime(3 * SECOND), { trigger: processingTime }),
    );
    h.setProcessingTime(3);
    h.processElement(['key2', 1], 1);
    h.setProcessingTime(1000);
    h.processElement(['key2', 1], 1002);
    h.setProcessingTime(5000);
    const expected = ['(key2,2)@3999'];
    expectSorted(h, expected);
    feed(h, [
      ['key2', 1, 5000],
      ['key2', 1, 5000],
      ['key1', 1, 5000],
      ['key1', 1, 5000],
      ['key1', 1, 5000],
    ]);
    h.setProcessingTime(10000);
    expected.push('(key2,2)@7999', '(key1,3)@7999');
    expectSorted(h, expected);
  });

  it('testDynamicProcessingTimeSessionWindows', () => {
    const gapOf = (v: In): number => (v[0] === 'key1' ? 3000 : v[1] === 10 ? 1000 : 2000);
    // Flink's DynamicProcessingTimeSessionWindows: sessions on the wall clock, gap per record.
    const assigner = Windows.dynamicSessionProcessingTime(gapOf);
    const h = harness({ assigner, trigger: processingTime, fn: sessionSum });
    const at = (time: number, key: string, value: number) => {
      h.setProcessingTime(time);
      h.processElement([key, value], time);
    };
    at(10, 'key1', 3);
    at(5000, 'key2', 4);
    at(6000, 'key2', 5);
    h.setProcessingTime(8999);
    const expected = ['(key1-3,10,3010)@3009', '(key2-9,5000,8000)@7999'];
    expectSorted(h, expected);
    // A record whose gap ends before the session does: the session keeps its later end.
    at(9000, 'key2', 1);
    at(10000, 'key2', 2);
    at(10500, 'key2', 10);
    h.setProcessingTime(10500);
    expectSorted(h, expected);
    // A record whose gap ends after it: the session grows.
    at(13000, 'key2', 10);
    expected.push('(key2-13,9000,12000)@11999');
    at(13500, 'key2', 10);
    at(14000, 'key2', 1);
    h.setProcessingTime(16999);
    expected.push('(key2-21,13000,16000)@15999');
    expectSorted(h, expected);
  });
});

// ---- allowed lateness and late data -------------------------------------------------------------

describe("Flink's WindowOperatorTest: allowed lateness and the late-data side output", () => {
  it('testLateness: a record within the lateness fires the window again; one beyond goes to the side output', () => {
    const late = new OutputTag<In>('late-output');
    const h = harness(
      summed(Windows.tumbling(2 * SECOND), {
        trigger: Triggers.purging(Triggers.eventTime<In>()),
        lateness: 500,
        lateTag: late,
      }),
    );
    h.processElement(['key2', 1], 500);
    h.processWatermark(1500);
    h.processElement(['key2', 1], 1300);
    h.processWatermark(2300);
    // Within the lateness (1999 + 500 > 2300): it fires at once, alone since the trigger purges.
    h.processElement(['key2', 1], 1997);
    h.processWatermark(6000);
    // Beyond it (1999 + 500 <= 6000).
    h.processElement(['key2', 1], 1998);
    h.processWatermark(7000);
    expectSorted(h, ['W 1500', '(key2,2)@1999', 'W 2300', '(key2,1)@1999', 'W 6000', 'W 7000']);
    expect(lateOf(h, late)).toEqual(['(key2,1)@1998']);
  });

  it.each(bothOperators)(
    'testCleanupTimeOverflow: a window ending near the largest event time is neither cleaned up early nor lost (%s)',
    (_name, slices) => {
      // Flink uses Long.MAX_VALUE - 1750; Weir's largest event time is Number.MAX_SAFE_INTEGER.
      const size = 1000;
      const lateness = 2000;
      const late = new OutputTag<In>('late-output');
      const h = harness(summed(Windows.tumbling(size), { lateness, lateTag: late, slices }));
      const timestamp = MAX_EVENT_TIME - 1750;
      const start = timestamp - (timestamp % size);
      const window: Window = { start, end: start + size };
      const windowMax = window.end - 1;
      h.processElement(['key2', 1], timestamp);
      // Its end plus the lateness is beyond the largest event time (in Flink it wraps around)...
      expect(windowMax + lateness).toBeGreaterThan(MAX_EVENT_TIME);
      expect(windowMax).toBeGreaterThan(MAX_EVENT_TIME - 1500);
      // ...so a watermark before its end must not clean it up.
      h.processWatermark(MAX_EVENT_TIME - 1500);
      expect(contents(h, 'key2')).toEqual([['key2', 1]]);
      h.processWatermark(windowMax);
      expectSorted(h, [`W ${MAX_EVENT_TIME - 1500}`, `(key2,1)@${windowMax}`, `W ${windowMax}`]);
      // Weir's addition: the cleanup time is capped at the largest event time (Flink's cleanup
      // time is capped at Long.MAX_VALUE), so the window is gone, and a record for it late, only
      // once the watermark reaches that time.
      h.processElement(['key2', 1], timestamp);
      expect(contents(h, 'key2')).toEqual([['key2', 2]]);
      h.processWatermark(MAX_EVENT_TIME);
      expect(contents(h, 'key2')).toEqual([]);
      h.processElement(['key2', 1], timestamp);
      expect(lateOf(h, late)).toEqual([`(key2,1)@${timestamp}`]);
    },
  );

  it.each(bothOperators)('testSideOutputDueToLatenessTumbling (%s)', (_name, slices) => {
    const late = new OutputTag<In>('late-output');
    const h = harness(summed(Windows.tumbling(2 * SECOND), { lateTag: late, slices }));
    h.processElement(['key2', 1], 1000);
    h.processWatermark(1985);
    // Not late: its window ends at 1999, after the watermark.
    h.processElement(['key2', 1], 1980);
    h.processWatermark(1999);
    // Late: its window has ended and the lateness is 0.
    h.processElement(['key2', 1], 1998);
    h.processElement(['key2', 1], 2001);
    h.processWatermark(2999);
    h.processWatermark(3999);
    expectSorted(h, ['W 1985', '(key2,2)@1999', 'W 1999', 'W 2999', '(key2,1)@3999', 'W 3999']);
    expect(lateOf(h, late)).toEqual(['(key2,1)@1998']);
  });

  it.each(bothOperators)(
    'testSideOutputDueToLatenessSliding: only a record all of whose windows ended is late (%s)',
    (_name, slices) => {
      const late = new OutputTag<In>('late-output');
      const h = harness(summed(Windows.sliding(3 * SECOND, SECOND), { lateTag: late, slices }));
      h.processElement(['key2', 1], 1000);
      h.processWatermark(1999);
      h.processElement(['key2', 1], 2000);
      h.processWatermark(3000);
      h.processElement(['key1', 1], 3001);
      // 2400 belongs to the windows ending at 2999 (already fired: skipped), 3999 and 4999.
      feed(h, [
        ['key2', 1, 2400],
        ['key2', 1, 2400],
        ['key1', 1, 3001],
        ['key2', 1, 3900],
      ]);
      h.processWatermark(6000);
      // Every window of 3001 has ended.
      h.processElement(['key1', 1], 3001);
      h.processWatermark(25000);
      expectSorted(h, [
        '(key2,1)@1999',
        'W 1999',
        '(key2,2)@2999',
        'W 3000',
        '(key2,5)@3999',
        '(key1,2)@3999',
        '(key2,4)@4999',
        '(key1,2)@4999',
        '(key2,1)@5999',
        '(key1,2)@5999',
        'W 6000',
        'W 25000',
      ]);
      expect(lateOf(h, late)).toEqual(['(key1,1)@3001']);
    },
  );

  /** The first steps of Flink's session lateness scenarios: two sessions, then a record bridging them. */
  function sessionsUpTo14600(h: Harness<Session>): string[] {
    h.processElement(['key2', 1], 1000);
    h.processWatermark(1999);
    h.processElement(['key2', 1], 2000);
    h.processWatermark(4998);
    // Not late: its session [1000, 5000) becomes [1000, 7500), which ends after the watermark.
    h.processElement(['key2', 1], 4500);
    // A new session.
    h.processElement(['key2', 1], 8500);
    h.processWatermark(7400);
    // Merges both sessions into one.
    h.processElement(['key2', 1], 7000);
    h.processWatermark(11501);
    // A new session.
    h.processElement(['key2', 1], 11600);
    h.processWatermark(14600);
    return [
      'W 1999',
      'W 4998',
      'W 7400',
      '(key2-5,1000,11500)@11499',
      'W 11501',
      '(key2-1,11600,14600)@14599',
      'W 14600',
    ];
  }

  const purgingEventTime = Triggers.purging(Triggers.eventTime<In>());
  const accumulating = Triggers.eventTime<In>();

  // Then records behind the watermark (`behind`); with enough lateness they join a session kept
  // for it, which fires again at once (`firedAtOnce`). Then a record at 14500 and the watermark
  // 20000 fire `last`.
  it.each([
    {
      // The two late records are not merged into a session of their own.
      name: 'testSideOutputDueToLatenessSessionZeroLatenessPurgingTrigger',
      trigger: purgingEventTime,
      lateness: 0,
      behind: [10000, 10100],
      firedAtOnce: [],
      last: '(key2-1,14500,17500)@17499',
      late: ['(key2,1)@10000', '(key2,1)@10100'],
    },
    {
      name: 'testSideOutputDueToLatenessSessionZeroLateness',
      trigger: accumulating,
      lateness: 0,
      behind: [10000],
      firedAtOnce: [],
      last: '(key2-1,14500,17500)@17499',
      late: ['(key2,1)@10000'],
    },
    {
      // Joins the purged session [11600, 14600), not cleaned up yet.
      name: 'testDropDueToLatenessSessionWithLatenessPurgingTrigger',
      trigger: purgingEventTime,
      lateness: 10,
      behind: [10000],
      firedAtOnce: ['(key2-1,10000,14600)@14599'],
      last: '(key2-1,10000,17500)@17499',
      late: [],
    },
    {
      // Joins [11600, 14600), which kept its record.
      name: 'testNotSideOutputDueToLatenessSessionWithLateness',
      trigger: accumulating,
      lateness: 10,
      behind: [10000],
      firedAtOnce: ['(key2-2,10000,14600)@14599'],
      last: '(key2-3,10000,17500)@17499',
      late: [],
    },
    {
      // Bridges both purged sessions, kept for the lateness.
      name: 'testNotSideOutputDueToLatenessSessionWithHugeLatenessPurgingTrigger',
      trigger: purgingEventTime,
      lateness: 10000,
      behind: [10000],
      firedAtOnce: ['(key2-1,1000,14600)@14599'],
      last: '(key2-1,1000,17500)@17499',
      late: [],
    },
    {
      // Bridges both sessions, which kept their records.
      name: 'testNotSideOutputDueToLatenessSessionWithHugeLateness',
      trigger: accumulating,
      lateness: 10000,
      behind: [10000],
      firedAtOnce: ['(key2-7,1000,14600)@14599'],
      last: '(key2-8,1000,17500)@17499',
      late: [],
    },
  ])('$name', ({ trigger, lateness, behind, firedAtOnce, last, late }) => {
    const lateTag = new OutputTag<In>('late-output');
    const h = harness({
      assigner: Windows.session(3 * SECOND),
      trigger,
      fn: sessionEach,
      reduce: true,
      lateness,
      lateTag,
    });
    const expected = sessionsUpTo14600(h);
    for (const ts of behind) h.processElement(['key2', 1], ts);
    expected.push(...firedAtOnce);
    expectSorted(h, expected);
    expect(lateOf(h, lateTag)).toEqual(late);
    h.processElement(['key2', 1], 14500);
    h.processWatermark(20000);
    h.processWatermark(100000);
    expected.push(last, 'W 20000', 'W 100000');
    expectSorted(h, expected);
    expect(lateOf(h, lateTag)).toEqual(late);
  });
});

// ---- cleanup timers --------------------------------------------------------------------------------

/** Flink's EventTimeTriggerAccumGC: fire-and-purge at the window end and at end + `cleanupTime`. */
function accumulatingWithCleanup(cleanupTime: number): Trigger<In> {
  return {
    onElement(_v, _t, window, ctx) {
      const max = window.end - 1;
      if (max <= ctx.currentWatermark()) return 'fire';
      ctx.registerEventTimeTimer(max);
      return 'continue';
    },
    onEventTime(time, window) {
      const max = window.end - 1;
      return time === max || time === max + cleanupTime ? 'fire-and-purge' : 'continue';
    },
    onProcessingTime: () => 'continue',
    clear(window, ctx) {
      ctx.deleteEventTimeTimer(window.end - 1);
    },
    onMerge(window, ctx) {
      ctx.registerEventTimeTimer(window.end - 1);
    },
  };
}

/** Flink's FireEverytimeOnElementAndEventTimeTrigger. */
const fireAlways: Trigger<In> = {
  onElement: () => 'fire',
  onEventTime: () => 'fire',
  onProcessingTime: () => 'fire',
  clear() {},
};

describe("Flink's WindowOperatorTest: cleanup timers", () => {
  it('testCleanupTimerWithEmptyListStateForTumblingWindows2: the cleanup timer finds the purged window empty', () => {
    const h = harness({
      assigner: Windows.tumbling(2 * SECOND),
      trigger: accumulatingWithCleanup(100),
      fn: got,
      lateness: 100,
    });
    h.processElement(['key2', 1], 1000);
    h.processWatermark(1599);
    h.processWatermark(1999); // fires and purges
    h.processWatermark(2100); // the cleanup timer
    h.processWatermark(5000);
    expectSorted(h, ['W 1599', 'GOT: (key2,1)@1999', 'W 1999', 'W 2100', 'W 5000']);
  });

  it.each([
    ['testCleanupTimerWithEmptyListStateForTumblingWindows', false, false],
    ['testCleanupTimerWithEmptyReduceStateForTumblingWindows', true, false],
    ['testCleanupTimerWithEmptyListStateForTumblingWindows', false, true],
    ['testCleanupTimerWithEmptyReduceStateForTumblingWindows', true, true],
  ])('%s (on the slice operator: %s)', (_name, reduce, slices) => {
    const h = harness({
      assigner: Windows.tumbling(2 * SECOND),
      trigger: Triggers.eventTime<In>(),
      fn: passThrough,
      reduce,
      lateness: 1,
      slices,
    });
    h.processElement(['key2', 1], 1000);
    h.processWatermark(1599);
    h.processWatermark(1999); // fires
    h.processWatermark(2000); // the cleanup timer
    h.processWatermark(5000);
    expectSorted(h, ['W 1599', '(key2,1)@1999', 'W 1999', 'W 2000', 'W 5000']);
    expect(contents(h, 'key2')).toEqual([]);
  });

  it.each([
    ['testCleanupTimerWithEmptyListStateForSessionWindows', passThrough, false, '(key2,1)@3999'],
    [
      'testCleanupTimerWithEmptyReduceStateForSessionWindows',
      sessionEach,
      true,
      '(key2-1,1000,4000)@3999',
    ],
  ] as const)('%s', (_name, fn: ProcessWindowFunction<In, unknown, string>, reduce, fired) => {
    const h = harness({
      assigner: Windows.session(3 * SECOND),
      trigger: Triggers.eventTime<In>(),
      fn,
      reduce,
      lateness: 10,
    });
    h.processElement(['key2', 1], 1000);
    h.processWatermark(4998);
    h.processWatermark(14600);
    expectSorted(h, [fired, 'W 4998', 'W 14600']);
    expect(contents(h, 'key2')).toEqual([]);
  });

  it('testCleanupTimerWithEmptyStateNoResultForTumblingWindows: contents stay until the cleanup time', () => {
    const h = harness({
      assigner: Windows.tumbling(2 * SECOND),
      trigger: fireAlways,
      fn: emitsNothing,
      lateness: 1,
    });
    const held = [[['test_key', 1]]];
    h.processElement(['test_key', 1], 1000);
    expect(contents(h, 'test_key')).toEqual(held);
    for (const wm of [1599, 1699, 1799, 1999]) {
      h.processWatermark(wm);
      expect(contents(h, 'test_key')).toEqual(held);
    }
    h.processWatermark(2000); // the cleanup timer
    expect(contents(h, 'test_key')).toEqual([]);
    h.processWatermark(5000);
    expect(contents(h, 'test_key')).toEqual([]);
    expectSorted(h, ['W 1599', 'W 1699', 'W 1799', 'W 1999', 'W 2000', 'W 5000']);
  });
});
