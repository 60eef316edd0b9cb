/**
 * The runtime-observable behaviours of Flink's AllWindowTranslationTest and WindowTranslationTest
 * (flink-streaming-java): every combination of window assigner, trigger, evictor and window
 * function the API offers must build an operator that produces output. Flink checks the operator
 * type and state descriptor, then pushes one element through a harness and only asserts that
 * something comes out. Here each combination runs as a whole job over 600 records and its output
 * is compared, window for window, with a plain batch computation of the same windows.
 *
 * Adapted:
 * - `windowAll` runs the window in one subtask as Flink's does, after a pre-aggregation in each
 *   of the 4 subtasks before it for reduce and aggregate (test/windows/window-all.test.ts).
 * - Flink's `apply(AllWindowFunction)` and `process(ProcessAllWindowFunction)` variants are one
 *   case each here: Weir has one kind of window function (ProcessWindowFunction).
 * - Flink's ingestion time is event time stamped by the source: here records carry their own
 *   timestamps, with monotonous watermarks.
 * - testReduceProcessingTime (and the other processing-time variants): which processing-time
 *   window a record lands in depends on the wall clock, so the check is that every record is
 *   counted once per window that holds it (size / slide windows), whatever the windows are.
 *
 * Not ported:
 * - testReduceWithRichReducerFails, testAggregateWithRichFunctionFails,
 *   testFoldWithRichFolderFails, testSessionWithFoldFails and the fold translation tests: Weir
 *   has no rich functions and no fold (Flink has since removed fold too).
 * - the checks of operator classes, state descriptors and serializers: Weir's plan has no such
 *   objects; its own plan tests cover the operator choice.
 */
import { describe, expect, it } from 'vitest';
import {
  type AggregateFunction,
  type AllWindowsKey,
  type DataStream,
  Evictors,
  type ProcessWindowFunction,
  StreamEnvironment,
  type Trigger,
  Triggers,
  WatermarkStrategy,
  type WindowAssigner,
  type WindowedStream,
  Windows,
} from '../../src/index.js';
import { collect } from '../helpers/timeline.js';

/** A record: its sequence number and a small value. */
interface Rec {
  readonly seq: number;
  readonly v: number;
  readonly ts: number;
}

const N = 600;
const STEP = 10;
/** Every 50 records a pause of 10 s, so that session windows with a 5 s gap close. */
const SESSION_GAP = 5_000;
const input: Rec[] = Array.from({ length: N }, (_, n) => ({
  seq: n,
  v: (n % 7) + 1,
  ts: n * STEP + Math.floor(n / 50) * 2 * SESSION_GAP,
}));

type Shape =
  | { readonly kind: 'tumbling'; readonly size: number }
  | { readonly kind: 'sliding'; readonly size: number; readonly slide: number }
  | { readonly kind: 'session'; readonly gap: number };

const assignerOf = (s: Shape): WindowAssigner<never> =>
  s.kind === 'tumbling'
    ? Windows.tumbling(s.size)
    : s.kind === 'sliding'
      ? Windows.sliding(s.size, s.slide)
      : Windows.session(s.gap);

/** The windows of the whole input, each with its records in input order: the batch answer. */
function batchWindows(shape: Shape): Map<string, Rec[]> {
  const windows = new Map<string, Rec[]>();
  const add = (start: number, end: number, r: Rec) => {
    const id = `${start}-${end}`;
    const list = windows.get(id) ?? [];
    list.push(r);
    windows.set(id, list);
  };
  if (shape.kind === 'session') {
    let group: Rec[] = [];
    const flush = () => {
      const first = group[0];
      const last = group[group.length - 1];
      if (first !== undefined && last !== undefined)
        for (const r of group) add(first.ts, last.ts + shape.gap, r);
      group = [];
    };
    for (const r of input) {
      const last = group[group.length - 1];
      if (last !== undefined && r.ts > last.ts + shape.gap) flush();
      group.push(r);
    }
    flush();
    return windows;
  }
  const slide = shape.kind === 'sliding' ? shape.slide : shape.size;
  for (const r of input) {
    const lastStart = r.ts - (r.ts % slide);
    for (let start = lastStart; start > r.ts - shape.size; start -= slide)
      add(start, start + shape.size, r);
  }
  return windows;
}

/** `start-end:value` per window of the batch answer, sorted. */
function expected(shape: Shape, value: (records: readonly Rec[]) => number): string[] {
  return [...batchWindows(shape)].map(([id, records]) => `${id}:${value(records)}`).sort();
}

const sumOf = (records: readonly Rec[]) => records.reduce((s, r) => s + r.v, 0);

/** Flink's windowAll over the input. */
function windowAll(
  shape: Shape,
  more: (w: WindowedStream<Rec, AllWindowsKey>) => WindowedStream<Rec, AllWindowsKey> = (w) => w,
): { env: StreamEnvironment; windowed: WindowedStream<Rec, AllWindowsKey> } {
  const env = new StreamEnvironment({ parallelism: 4 });
  const windowed = env
    .fromArray(input)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps<Rec>().withTimestampAssigner((r) => r.ts),
    )
    .windowAll(assignerOf(shape));
  return { env, windowed: more(windowed) };
}

async function run(env: StreamEnvironment, results: DataStream<string>): Promise<string[]> {
  const sink = collect(results);
  const result = await env.execute('all-window');
  expect(result.status).toBe('finished');
  return [...sink.values].sort();
}

const sumReducer = (a: Rec, b: Rec): Rec => ({ seq: b.seq, v: a.v + b.v, ts: b.ts });

const sumAggregate: AggregateFunction<Rec, number, number> = {
  createAccumulator: () => 0,
  add: (r, acc) => acc + r.v,
  getResult: (acc) => acc,
  merge: (a, b) => a + b,
};

/** Each pre-aggregated value with its window. */
function labelled<T>(valueFrom: (t: T) => number): ProcessWindowFunction<T, string, AllWindowsKey> {
  return {
    process(_key, ctx, elements, out) {
      for (const e of elements)
        out.collect(`${ctx.window.start}-${ctx.window.end}:${valueFrom(e)}`);
    },
  };
}

/** Flink's apply/process over all records of a window: their sum. */
const sumAll: ProcessWindowFunction<Rec, string, AllWindowsKey> = {
  process(_key, ctx, elements, out) {
    out.collect(`${ctx.window.start}-${ctx.window.end}:${sumOf(elements)}`);
  },
};

const SLIDING: Shape = { kind: 'sliding', size: 1000, slide: 100 };
const TUMBLING: Shape = { kind: 'tumbling', size: 1000 };
const SESSION: Shape = { kind: 'session', gap: SESSION_GAP };

describe('AllWindowTranslationTest (runtime behaviour)', () => {
  it('testReduceEventTime', async () => {
    const { env, windowed } = windowAll(SLIDING);
    const out = await run(
      env,
      windowed.reduce(sumReducer).map((r) => `${r.window.start}-${r.window.end}:${r.value.v}`),
    );
    expect(out).toEqual(expected(SLIDING, sumOf));
  });

  it('testReduceWithWindowFunctionEventTime / testReduceWithProcessWindowFunctionEventTime', async () => {
    const { env, windowed } = windowAll(TUMBLING);
    const out = await run(
      env,
      windowed.reduce(
        sumReducer,
        labelled((r: Rec) => r.v),
      ),
    );
    expect(out).toEqual(expected(TUMBLING, sumOf));
  });

  it('testAggregateEventTime', async () => {
    const { env, windowed } = windowAll(SLIDING);
    const out = await run(
      env,
      windowed.aggregate(sumAggregate).map((r) => `${r.window.start}-${r.window.end}:${r.value}`),
    );
    expect(out).toEqual(expected(SLIDING, sumOf));
  });

  it('testAggregateWithWindowFunctionEventTime / testAggregateWithProcessWindowFunctionEventTime', async () => {
    const { env, windowed } = windowAll(TUMBLING);
    const out = await run(
      env,
      windowed.aggregate(
        sumAggregate,
        labelled((n: number) => n),
      ),
    );
    expect(out).toEqual(expected(TUMBLING, sumOf));
  });

  it('testApplyEventTime / testProcessEventTime', async () => {
    const { env, windowed } = windowAll(TUMBLING);
    const out = await run(env, windowed.process(sumAll));
    expect(out).toEqual(expected(TUMBLING, sumOf));
  });

  it('testReduceWithCustomTrigger (count trigger of 1: a firing per record and window)', async () => {
    const { env, windowed } = windowAll(SLIDING, (w) => w.trigger(Triggers.count<Rec>(1)));
    const out = await run(
      env,
      windowed.reduce(sumReducer).map((r) => `${r.window.start}-${r.window.end}:${r.value.v}`),
    );
    // Each record fires each of its windows with the running sum of the window so far.
    const firings: string[] = [];
    for (const [id, records] of batchWindows(SLIDING)) {
      let sum = 0;
      for (const r of records) {
        sum += r.v;
        firings.push(`${id}:${sum}`);
      }
    }
    expect(out).toEqual(firings.sort());
  });

  it('testReduceWithEvictor (count evictor of 5)', async () => {
    const { env, windowed } = windowAll(SLIDING, (w) => w.evictor(Evictors.count<Rec>(5)));
    const out = await run(
      env,
      windowed.reduce(sumReducer).map((r) => `${r.window.start}-${r.window.end}:${r.value.v}`),
    );
    expect(out).toEqual(expected(SLIDING, (records) => sumOf(records.slice(-5))));
  });

  it('testApplyWithEvictor / testProcessWithEvictor (time evictor of 100 ms)', async () => {
    const { env, windowed } = windowAll(TUMBLING, (w) => w.evictor(Evictors.time<Rec>(100)));
    const out = await run(env, windowed.process(sumAll));
    // Kept: the records newer than the window's newest timestamp minus 100 ms.
    expect(out).toEqual(
      expected(TUMBLING, (records) => {
        const newest = Math.max(...records.map((r) => r.ts));
        return sumOf(records.filter((r) => r.ts > newest - 100));
      }),
    );
  });

  it('testMergingWindowsWithEvictor (sessions, count evictor of 5)', async () => {
    const { env, windowed } = windowAll(SESSION, (w) => w.evictor(Evictors.count<Rec>(5)));
    const out = await run(env, windowed.process(sumAll));
    expect(out).toEqual(expected(SESSION, (records) => sumOf(records.slice(-5))));
    expect(out).toHaveLength(N / 50);
  });

  it('session windows with reduce and aggregate (merging pre-aggregated contents)', async () => {
    const reduced = windowAll(SESSION);
    const viaReduce = await run(
      reduced.env,
      reduced.windowed
        .reduce(sumReducer)
        .map((r) => `${r.window.start}-${r.window.end}:${r.value.v}`),
    );
    const aggregated = windowAll(SESSION);
    const viaAggregate = await run(
      aggregated.env,
      aggregated.windowed.aggregate(
        sumAggregate,
        labelled((n: number) => n),
      ),
    );
    expect(viaReduce).toEqual(expected(SESSION, sumOf));
    expect(viaAggregate).toEqual(expected(SESSION, sumOf));
  });

  it('testMergingAssignerWithNonMergingTriggerFails', () => {
    const { windowed } = windowAll(SESSION);
    const nonMerging: Trigger<Rec> = {
      onElement: () => 'continue',
      onEventTime: () => 'continue',
      onProcessingTime: () => 'continue',
      clear: () => {},
    };
    expect(() => windowed.trigger(nonMerging)).toThrow(/merging/);
  });

  for (const [name, assigner, perRecord] of [
    ['testReduceProcessingTime (sliding)', () => Windows.slidingProcessingTime(1000, 100), 10],
    ['testReduceProcessingTime (tumbling)', () => Windows.tumblingProcessingTime(1000), 1],
  ] as const) {
    it(name, async () => {
      const env = new StreamEnvironment({ parallelism: 4 });
      const counted = env
        .fromArray(input)
        .map((r) => ({ count: 1, sum: r.v }))
        .windowAll(assigner())
        .reduce((a, b) => ({ count: a.count + b.count, sum: a.sum + b.sum }));
      const sink = collect(counted);
      const result = await env.execute('all-window processing time');
      expect(result.status).toBe('finished');
      const count = sink.values.reduce((n, r) => n + r.value.count, 0);
      const sum = sink.values.reduce((n, r) => n + r.value.sum, 0);
      // Every record once per processing-time window that holds it.
      expect(count).toBe(N * perRecord);
      expect(sum).toBe(sumOf(input) * perRecord);
    });
  }
});
