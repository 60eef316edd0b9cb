/**
 * Scenarios of Flink's EvictingWindowOperatorTest (flink-streaming-java, DataStream API), with
 * Flink's records, timestamps, watermarks, evictors (CountEvictor, TimeEvictor, DeltaEvictor;
 * before and after the window function) and triggers (count and event time), run as whole jobs
 * through the public API: `window(...).trigger(...).evictor(...)` with a window function, one
 * record per batch at parallelism 1, so results come in the order the windows fire. Flink
 * compares its results sorted; the expected lists here are Flink's results in firing order, each
 * with its timestamp (the window's last millisecond). The same scenarios run against the general
 * window operator itself in evictors.test.ts; this file checks what a job built through the API
 * does, and the evictor edge cases around them.
 *
 * Deliberate differences from Flink:
 * - Results of global windows are stamped +Infinity, the global window's end - 1 in Weir (Flink:
 *   Long.MAX_VALUE).
 * - A window whose records an evictor removes before the window function emits nothing; Flink
 *   calls the function with no records (a reduce then passes on null). Weir emits nothing for a
 *   window without records anywhere else too, and a reduce has no value to give for none.
 * - The built-in evictors refuse a negative count or time and a NaN threshold when they are made
 *   (Flink's CountEvictor, TimeEvictor and DeltaEvictor accept them).
 * - At end of input a global window fires if it holds records that arrived since its last
 *   firing (see count-windows.test.ts); Flink leaves them. None of Flink's scenarios ends with
 *   such records; one edge case below does.
 *
 * Not ported, because Weir has no equivalent:
 * - the `closeCalled` counts: Weir's window functions have no open/close lifecycle.
 * - serializers and state descriptors: Weir stores a window's records and their timestamps as
 *   JSON, with no descriptor.
 * - the watermarks in Flink's expected output of testTumblingWindowWithApply: a job's sink sees
 *   only records.
 */
import { describe, expect, it } from 'vitest';
import {
  CollectSink,
  type Evictor,
  Evictors,
  type ProcessWindowFunction,
  StreamEnvironment,
  type Trigger,
  Triggers,
  WatermarkStrategy,
  type WindowAssigner,
  Windows,
} from '../../src/index.js';
import { testStateBackend } from '../helpers/state-backend.js';

type In = readonly [key: string, value: number];

/** A record, with its timestamp if it has one. */
type Rec = { readonly k: string; readonly v: number; readonly t?: number };
/** A watermark at its position in the input. */
type Mark = { readonly watermark: number };
type Item = Rec | Mark;

const rec = (k: string, v: number, t?: number): Item => (t === undefined ? { k, v } : { k, v, t });
const watermark = (time: number): Item => ({ watermark: time });
const isRecord = (i: Item): i is Rec => !('watermark' in i);

/** Flink's RichSumReducer: `key sum` of the records the function is given. */
const sumOfValues: ProcessWindowFunction<In, string, string> = {
  process(key, _ctx, elements, out) {
    out.collect(`${key} ${elements.reduce((s, e) => s + e[1], 0)}`);
  },
};

/** Flink's SumReducer: the key of the later record, the sum of both values. */
const sumReducer = (a: In, b: In): In => [b[0], a[1] + b[1]];

/** Flink's PassThroughWindowFunction after the reduce: the reduced record as `key sum`. */
const passThrough: ProcessWindowFunction<In, string, string> = {
  process(_key, _ctx, elements, out) {
    for (const [k, v] of elements) out.collect(`${k} ${v}`);
  },
};

interface Job {
  readonly input: readonly Item[];
  readonly assigner: WindowAssigner<In>;
  /** The default trigger of the assigner when not given. */
  readonly trigger?: Trigger<In>;
  readonly evictor: Evictor<In>;
  /** `apply`: RichSumReducer over the records; `reduce`: SumReducer, then PassThroughWindowFunction. */
  readonly fn?: 'apply' | 'reduce';
}

const bound = (t: number): string => (t === Number.POSITIVE_INFINITY ? '+inf' : `${t}`);

/** Runs the job; its results as `key sum@timestamp`, in the order they were emitted. */
async function run(job: Job): Promise<string[]> {
  const env = new StreamEnvironment({ batchSize: 1, parallelism: 1, ...testStateBackend() });
  let items = env.fromArray(job.input);
  // Records with timestamps take them; watermarks go out where the input has them.
  if (job.input.some((i) => !isRecord(i) || i.t !== undefined)) {
    items = items.assignTimestampsAndWatermarks(
      WatermarkStrategy.forGenerator<Item>(() => ({
        onEvent(item, _t, output) {
          if (!isRecord(item)) output.emitWatermark(item.watermark);
        },
      })).withTimestampAssigner((item) => (isRecord(item) ? item.t! : item.watermark)),
    );
  }
  let windowed = items
    .filter(isRecord)
    .map((r): In => [r.k, r.v])
    .keyBy((r) => r[0])
    .window(job.assigner);
  if (job.trigger !== undefined) windowed = windowed.trigger(job.trigger);
  windowed = windowed.evictor(job.evictor);
  const results =
    job.fn === 'reduce' ? windowed.reduce(sumReducer, passThrough) : windowed.process(sumOfValues);
  const sink = new CollectSink<string>();
  results.sinkTo(sink);
  await env.execute();
  return sink.values.map((v, i) => `${v}@${bound(sink.timestamps[i]!)}`);
}

/** Stamps each result with the global window's end - 1. */
const ofGlobal = (results: readonly string[]): string[] => results.map((r) => `${r}@+inf`);

/** Flink's first records: two of key2, three of key1, three of key2 (value 1 unless given). */
const firstRecords = (
  timestamps: readonly (number | undefined)[],
  values: readonly number[] = [1, 1, 1, 1, 1, 1, 1, 1],
): Item[] => {
  const keys = ['key2', 'key2', 'key1', 'key1', 'key1', 'key2', 'key2', 'key2'];
  return keys.map((k, i) => rec(k, values[i]!, timestamps[i]));
};

const countTimestamps = [3000, 3999, 20, 0, 999, 1998, 1999, 1000];
const timeTimestamps = [1000, 4000, 20, 0, 999, 3500, 2001, 1001];
const deltaValues = [1, 4, 1, 1, 5, 5, 6, 1];

/** Flink's DeltaFunction of these tests: the newer value minus the older one. */
const deltaEvictor = (doEvictAfter: boolean) =>
  Evictors.delta<In>(2, (older, newer) => newer[1] - older[1], { doEvictAfter });

const global: WindowAssigner<In> = Windows.global();
const everyTwo = Triggers.count<In>(2);

describe("Flink's EvictingWindowOperatorTest, as jobs", () => {
  it('testCountEvictorEvictAfter: the function sees every record, then the window keeps the last 4', async () => {
    const out = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: Evictors.count(4, { doEvictAfter: true }),
      input: [
        ...firstRecords(countTimestamps),
        rec('key1', 1, 10999),
        rec('key2', 1, 1000),
        rec('key2', 1, 1000),
        rec('key2', 1, 1000),
      ],
    });
    expect(out).toEqual(ofGlobal(['key2 2', 'key1 2', 'key2 4', 'key1 4', 'key2 6', 'key2 6']));
  });

  it('testTimeEvictorEvictAfter: the window keeps the records within 2 s of its newest', async () => {
    const out = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: Evictors.time(2000, { doEvictAfter: true }),
      input: [...firstRecords(timeTimestamps), rec('key1', 1, 10999), rec('key2', 1, 1002)],
    });
    expect(out).toEqual(ofGlobal(['key2 2', 'key1 2', 'key2 3', 'key1 4', 'key2 5']));
  });

  it('testTimeEvictorEvictBefore: tumbling 4 s windows fired every 2 records see the last 2 s', async () => {
    const out = await run({
      assigner: Windows.tumbling(4000),
      trigger: everyTwo,
      evictor: Evictors.time(2000),
      input: [
        rec('key2', 1, 1000),
        rec('key2', 1, 3999),
        rec('key1', 1, 20),
        rec('key1', 1, 0),
        rec('key1', 1, 999),
        rec('key1', 1, 5999),
        rec('key2', 1, 3500),
        rec('key2', 1, 2001),
        rec('key2', 1, 1001),
        rec('key1', 1, 6500),
        rec('key2', 1, 1002),
      ],
    });
    expect(out).toEqual([
      'key2 1@3999',
      'key1 2@3999',
      'key2 3@3999',
      'key1 2@7999',
      'key2 3@3999',
    ]);
  });

  it('testTimeEvictorNoTimestamp: records without timestamps are never evicted by time', async () => {
    const none = Array.from({ length: 8 }, () => undefined);
    const out = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: Evictors.time(2000, { doEvictAfter: true }),
      input: [...firstRecords(none), rec('key1', 1), rec('key2', 1)],
    });
    expect(out).toEqual(ofGlobal(['key2 2', 'key1 2', 'key2 4', 'key1 4', 'key2 6']));
  });

  it('testDeltaEvictorEvictBefore: records 2 or more below the newest are gone before the function', async () => {
    const out = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: deltaEvictor(false),
      input: [
        ...firstRecords(countTimestamps, deltaValues),
        rec('key1', 3, 10999),
        rec('key2', 10, 1000),
      ],
    });
    expect(out).toEqual(ofGlobal(['key2 4', 'key1 2', 'key2 11', 'key1 8', 'key2 10']));
  });

  it('testDeltaEvictorEvictAfter: the function sees every record, then the far ones go', async () => {
    const out = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: deltaEvictor(true),
      input: [
        ...firstRecords(countTimestamps, deltaValues),
        rec('key1', 9, 10999),
        rec('key2', 10, 1000),
      ],
    });
    expect(out).toEqual(ofGlobal(['key2 5', 'key1 2', 'key2 15', 'key1 16', 'key2 22']));
  });

  const countWindowInput = [
    ...firstRecords(countTimestamps),
    rec('key1', 1, 10999),
    rec('key2', 1, 1000),
  ];
  const countWindowResults = ofGlobal(['key2 2', 'key1 2', 'key2 4', 'key1 4', 'key2 4']);

  it('testCountTrigger: a reduce over the last 4 records, every 2 records of a key', async () => {
    const out = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: Evictors.count(4),
      fn: 'reduce',
      input: countWindowInput,
    });
    expect(out).toEqual(countWindowResults);
  });

  it('testCountTriggerWithApply: the same with a function over the records', async () => {
    const out = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: Evictors.count(4),
      input: countWindowInput,
    });
    expect(out).toEqual(countWindowResults);
  });

  it('testTumblingWindowWithApply: the event-time trigger fires the last 4 records of each window', async () => {
    const out = await run({
      assigner: Windows.tumbling(4000),
      evictor: Evictors.count(4),
      input: [
        rec('key1', 1, 10),
        rec('key1', 1, 100),
        watermark(1999),
        rec('key1', 1, 1997),
        rec('key1', 1, 1998),
        // Not late, but more than 4 records in the window.
        rec('key1', 1, 2310),
        rec('key1', 1, 2310),
        rec('key2', 1, 2310),
        rec('key2', 1, 2310),
        watermark(3999),
      ],
    });
    expect(out.sort()).toEqual(['key1 4@3999', 'key2 2@3999']);
  });
});

describe('evictor edge cases, against Flink', () => {
  it('CountEvictor: removes in arrival order, not by timestamp', async () => {
    const out = await run({
      assigner: global,
      trigger: Triggers.count(3),
      evictor: Evictors.count(1),
      fn: 'reduce',
      input: [rec('a', 1, 300), rec('a', 10, 100), rec('a', 100, 200)],
    });
    expect(out).toEqual(ofGlobal(['a 100']));
  });

  it('TimeEvictor: removes a record exactly the window size older than the newest, keeps one a millisecond newer', async () => {
    const out = await run({
      assigner: global,
      trigger: Triggers.count(3),
      evictor: Evictors.time(2000),
      input: [rec('a', 1, 1000), rec('a', 10, 1001), rec('a', 100, 3000)],
    });
    expect(out).toEqual(ofGlobal(['a 110']));
  });

  it('DeltaEvictor: removes a record whose delta equals the threshold', async () => {
    const out = await run({
      assigner: global,
      trigger: Triggers.count(3),
      evictor: deltaEvictor(false),
      input: [rec('a', 2, 1), rec('a', 3, 2), rec('a', 4, 3)],
    });
    // Deltas to the newest (4): 2 (evicted), 1, 0.
    expect(out).toEqual(ofGlobal(['a 7']));
  });

  it('EvictingWindowOperator.emitWindowContents: evictBefore gets the size before eviction, evictAfter the size the function saw; what they remove is gone', async () => {
    const seen: string[] = [];
    const dropFirstBeforeAndAfter: Evictor<In> = {
      evictBefore(elements, size, window) {
        seen.push(`before ${size} ${window.start === Number.NEGATIVE_INFINITY ? 'global' : ''}`);
        let first = true;
        elements.removeIf(() => {
          const drop = first;
          first = false;
          return drop;
        });
      },
      evictAfter(elements, size) {
        seen.push(`after ${size} ${elements.size}`);
        let first = true;
        elements.removeIf(() => {
          const drop = first;
          first = false;
          return drop;
        });
      },
    };
    const out = await run({
      assigner: global,
      trigger: Triggers.count(3),
      evictor: dropFirstBeforeAndAfter,
      input: [1, 2, 3, 4, 5, 6].map((v) => rec('a', v, v)),
    });
    // Firing 1: [1,2,3] -> before drops 1 -> the function sums 2+3 -> after drops 2, keeps [3].
    // Firing 2: [3,4,5,6] -> before drops 3 -> 4+5+6 -> after drops 4, keeps [5,6].
    expect(out).toEqual(ofGlobal(['a 5', 'a 15']));
    expect(seen).toEqual(['before 3 global', 'after 2 2', 'before 4 global', 'after 3 3']);
  });

  it('EvictingWindowOperator.emitWindowContents, a difference: a window emptied before the function emits nothing (Flink calls the function with no records)', async () => {
    const emptied = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: Evictors.count(0),
      input: firstRecords(countTimestamps),
    });
    expect(emptied).toEqual([]);
    // Emptied after the function, every firing has its records; at end of input the record
    // each key holds unfired fires too.
    const after = await run({
      assigner: global,
      trigger: everyTwo,
      evictor: Evictors.count(0, { doEvictAfter: true }),
      input: firstRecords(countTimestamps),
    });
    expect(after).toEqual(ofGlobal(['key2 2', 'key1 2', 'key2 2', 'key2 1', 'key1 1']));
  });

  it('TimeEvictor of 0 ms: no record is newer than the newest, so all go', async () => {
    const out = await run({
      assigner: Windows.tumbling(4000),
      trigger: everyTwo,
      evictor: Evictors.time(0, { doEvictAfter: true }),
      input: [rec('a', 1, 10), rec('a', 2, 10), rec('a', 4, 20), rec('a', 8, 30)],
    });
    // The first firing empties the window afterwards; the second sees only its own two.
    expect(out).toEqual(['a 3@3999', 'a 12@3999']);
  });

  it('CountEvictor.of, TimeEvictor.of, DeltaEvictor.of, a difference: counts, times and thresholds that mean nothing are refused', () => {
    const refused = (make: () => unknown, message: RegExp) => {
      expect(make).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
      expect(make).toThrow(message);
    };
    refused(() => Evictors.count(-1), /count evictor needs a whole number >= 0, got -1/);
    refused(() => Evictors.count(1.5), /count evictor needs a whole number >= 0, got 1.5/);
    refused(() => Evictors.time(-1), /time evictor needs a number of ms >= 0, got -1/);
    refused(() => Evictors.time(Number.NaN), /time evictor needs a number of ms >= 0, got NaN/);
    refused(() => Evictors.delta(Number.NaN, () => 0), /delta evictor needs a threshold, got NaN/);
  });
});
