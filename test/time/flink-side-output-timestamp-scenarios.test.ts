/**
 * Scenarios of Flink's SideOutputITCase and TimestampITCase (flink-tests, streaming runtime), with
 * Flink's inputs, watermarks and expected outputs, run as whole Weir jobs. Each `it` names the
 * Flink test method it ports.
 *
 * Flink observes watermarks with custom operators (`WatermarkReifier`, `CustomOperator`) put
 * into the job with `transform`. Weir jobs take no custom operators, so a sink whose writer
 * records `writeWatermark` calls plays that part: it sits where Flink's operator sits and sees
 * the same watermarks and records, per subtask. Flink's sources that emit watermarks themselves
 * (`SourceFunction` with `emitWatermark`) are a scripted {@link TimedSource} whose reader
 * reports the watermark after each record.
 *
 * Where Weir differs from Flink on purpose, the test says so:
 * - the final watermark at end of input is +Infinity (Flink: Long.MAX_VALUE);
 * - Weir has no `windowAll`: all-window scenarios key every record by one constant key, which
 *   is what Flink's all-windows are (one window operator instance seeing everything);
 * - Weir records without an event time carry `NO_TIMESTAMP` (-Infinity), where Flink's
 *   records have `hasTimestamp() == false`.
 *
 * Not ported, because Weir has no equivalent:
 * - SideOutputITCase.testSideOutputWithMultipleConsumersWithObjectReuse: Weir has no
 *   object-reuse setting; without it the scenario is testSideOutputWithMultipleConsumers.
 * - TimestampITCase.testEventTimeSourceWithProcessingTime and
 *   testErrorOnEventTimeOverProcessingTime: Weir has no stream time characteristic (Flink
 *   deprecated it in 1.12); a job is in event time wherever it assigns timestamps and
 *   watermarks, and in processing time wherever it uses processing-time windows or timers.
 * - The check in testTimestampExtractorWithAutoInterval that the extractor runs at the source's
 *   parallelism: Weir exposes no per-operator parallelism to assert on (its watermarks and
 *   timestamps, which the check is there to protect, are asserted).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CoProcessFunction,
  type DataStream,
  type KeyedCoProcessFunction,
  NO_TIMESTAMP,
  OutputTag,
  type PollStatus,
  type ProcessFunction,
  type RecordBatch,
  type Sink,
  type SinkContext,
  type SinkWriter,
  type Source,
  type SourceContext,
  type SourceReader,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { waitUntil } from '../helpers/timeline.js';

/** Weir's final watermark at end of input (Flink's Long.MAX_VALUE). */
const MAX_WATERMARK = Number.POSITIVE_INFINITY;

// ---- Flink's sources, sinks and functions, in Weir's terms ------------------------------------

/** A step of a {@link TimedSource}: a record (with an event time, or none) or a watermark. */
type TimedStep<T> = { readonly value: T; readonly time?: number } | { readonly watermark: number };

/**
 * Flink's `SourceFunction` calling `collectWithTimestamp`/`collect` and `emitWatermark`: one
 * record per poll; the watermarks scripted right behind a record are reported after it. After
 * the script it ends, or (unbounded) stays open without input until the job is stopped, as
 * Flink's `MyTimestampSourceInfinite`. Runs with parallelism 1, as Flink's non-parallel sources.
 */
class TimedSource<T> implements Source<T> {
  readonly parallelizable = false;
  /** Set once the reader has played the whole script. */
  finished = false;

  constructor(
    private readonly steps: readonly TimedStep<T>[],
    readonly bounded = true,
    readonly name = 'timed',
  ) {}

  createReader(_context: SourceContext): SourceReader<T> {
    let next = 0;
    let watermark = Number.NEGATIVE_INFINITY;
    let timer: NodeJS.Timeout | undefined;
    const steps = this.steps;
    const takeWatermarks = (): void => {
      for (let s = steps[next]; s !== undefined && 'watermark' in s; s = steps[++next]) {
        watermark = Math.max(watermark, s.watermark);
      }
    };
    return {
      open() {},
      poll: (): RecordBatch<T> | PollStatus => {
        takeWatermarks();
        const step = steps[next];
        if (step === undefined) {
          this.finished = true;
          return this.bounded ? 'end' : 'wait';
        }
        if ('watermark' in step) throw new Error('unreachable');
        next++;
        takeWatermarks();
        return { values: [step.value], timestamps: [step.time ?? NO_TIMESTAMP], keys: undefined };
      },
      available: () =>
        new Promise<void>((resolve) => {
          clearTimeout(timer);
          timer = setTimeout(resolve, 20);
        }),
      currentWatermark: () => watermark,
      // Positions, so that a job reading it can stop at a savepoint.
      snapshot: () => next,
      close() {
        clearTimeout(timer);
      },
    };
  }
}

/** Flink's `MyTimestampSource`: `i` at time `initial + i`, each followed by the watermark `initial + i`. */
function timestampSource(initial: number, count: number, bounded = true): TimedSource<number> {
  const steps: TimedStep<number>[] = [];
  for (let i = 0; i < count; i++) {
    steps.push({ value: i, time: initial + i }, { watermark: initial + i });
  }
  return new TimedSource(steps, bounded);
}

/** Flink's `MyNonWatermarkingSource`: `0..count-1` without event times or watermarks. */
function nonWatermarkingSource(count: number): TimedSource<number> {
  return new TimedSource(Array.from({ length: count }, (_, i) => ({ value: i })));
}

interface Seen<T> {
  readonly subtask: number;
  readonly value: T;
  readonly timestamp: number;
}

/**
 * Flink's `WatermarkReifier` and `CustomOperator` as a sink: it keeps, per subtask, the records
 * with their timestamps and the watermarks, and renders them as the reifier does (`E:value`,
 * `WM:time`).
 */
class ReifyingSink<T> implements Sink<T> {
  readonly name = 'reify';
  readonly records: Seen<T>[] = [];
  readonly watermarks = new Map<number, number[]>();
  private parallelism = 0;

  createWriter(context: SinkContext): SinkWriter<T> {
    const own: number[] = [];
    this.watermarks.set(context.subtaskIndex, own);
    this.parallelism = context.parallelism;
    return {
      write: (batch) => {
        batch.values.forEach((value, i) => {
          this.records.push({
            subtask: context.subtaskIndex,
            value,
            timestamp: batch.timestamps[i]!,
          });
        });
      },
      writeWatermark: (time) => {
        own.push(time);
      },
      close() {},
    };
  }

  /** Watermarks of every subtask, in subtask order (one list per subtask that ran). */
  watermarksPerSubtask(): number[][] {
    return Array.from({ length: this.parallelism }, (_, i) => this.watermarks.get(i) ?? []);
  }

  /** What Flink's `WatermarkReifier` emits, sorted as `TestListResultSink.getSortedResult`. */
  reified(): string[] {
    const lines = this.records.map((r) => `E:${String(r.value)}`);
    for (const ws of this.watermarks.values()) for (const w of ws) lines.push(`WM:${w}`);
    return lines.sort();
  }

  values(): T[] {
    return this.records.map((r) => r.value);
  }
}

/** Flink's `TestListResultSink.getSortedResult`: strings sorted, numbers in numeric order. */
function sortedValues<T extends string | number>(values: readonly T[]): T[] {
  return [...values].sort((a, b) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1,
  );
}

function sinkOf<T>(stream: DataStream<T>): ReifyingSink<T> {
  const sink = new ReifyingSink<T>();
  stream.sinkTo(sink);
  return sink;
}

/** Flink's `TestWatermarkAssigner`: each record's time is its value, a watermark at every record. */
function testWatermarkAssigner(): WatermarkStrategy<number> {
  return WatermarkStrategy.forGenerator<number>(() => ({
    onEvent(_value, timestamp, output) {
      output.emitWatermark(timestamp);
    },
  })).withTimestampAssigner((n) => n);
}

/** Flink's punctuated assigner `checkAndGetNextWatermark = extractedTimestamp - 1`. */
function watermarkOneBelow(): WatermarkStrategy<number> {
  return WatermarkStrategy.forGenerator<number>(() => ({
    onEvent(_value, timestamp, output) {
      output.emitWatermark(timestamp - 1);
    },
  })).withTimestampAssigner((n) => n);
}

/** Flink's `elements` of SideOutputITCase. */
const elements = [1, 2, 5, 3, 4];

/** The process function most side-output cases use: each value out, and `sideout-<value>` to `tag`. */
function passThroughWithSide(tag: OutputTag<string>): ProcessFunction<number, number> {
  return {
    processElement(value, ctx, out) {
      out.collect(value);
      ctx.output(tag, `sideout-${value}`);
    },
  };
}

/** Asserts what Flink's `CustomOperator(true)` asserts per record: the timestamp is the value. */
/** Flink's keyed co-process cases: the elements keyed by themselves on both inputs. */
function keyedConnect(
  env: StreamEnvironment,
  fn: KeyedCoProcessFunction<number, number, number, number>,
): DataStream<number> {
  return env
    .fromArray(elements)
    .keyBy((n) => n)
    .connect(env.fromArray(elements).keyBy((n) => n))
    .process(fn);
}

/** Runs the job, then checks the side output of `tag` and that the main output is every element. */
async function expectSideAndMain(
  env: StreamEnvironment,
  passThrough: DataStream<number>,
  tag: OutputTag<string>,
  name: string,
  side: readonly string[],
): Promise<void> {
  const sideSink = sinkOf(passThrough.getSideOutput(tag));
  const main = sinkOf(passThrough);
  await env.execute(name);
  expect(sortedValues(sideSink.values())).toEqual(side);
  expect(sortedValues(main.values())).toEqual([1, 2, 3, 4, 5]);
}

function expectTimestampsAreValues(sink: ReifyingSink<number>): void {
  for (const r of sink.records) expect(r.timestamp).toBe(r.value);
}

/** Asserts what Flink's `CustomOperator` asserts per watermark: each is above all before it. */
function expectStrictlyIncreasing(watermarks: readonly number[]): void {
  for (let i = 1; i < watermarks.length; i++) {
    expect(watermarks[i]!).toBeGreaterThan(watermarks[i - 1]!);
  }
}

// ---- SideOutputITCase -------------------------------------------------------------------------

describe("Flink's SideOutputITCase", () => {
  it('testWatermarkForwarding: every side output, used or not, gets every watermark', async () => {
    const side = new OutputTag<string>('side');
    const otherSide = new OutputTag<string>('other-side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const source = new TimedSource<number>([
      { value: 1, time: 0 },
      { watermark: 0 },
      { value: 2, time: 1 },
      { value: 5, time: 2 },
      { watermark: 2 },
      { value: 3, time: 3 },
      { value: 4, time: 4 },
    ]);
    // Weir runs the steps after a non-parallel source at its parallelism (1) unless told
    // otherwise; Flink runs them at the environment's (3), so the process step says so.
    const passThrough = env.fromSource(source).process(passThroughWithSide(side)).setParallelism(3);
    const sideSink = sinkOf(passThrough.getSideOutput(side));
    const otherSideSink = sinkOf(passThrough.getSideOutput(otherSide));
    const mainSink = sinkOf(passThrough.map((n) => String(n)));
    await env.execute('testWatermarkForwarding');

    // Three subtasks each see WM 0, 2 and the final one (Flink: WM:9223372036854775807).
    const watermarks = ['WM:0', 'WM:0', 'WM:0', 'WM:2', 'WM:2', 'WM:2'].concat(
      Array<string>(3).fill(`WM:${MAX_WATERMARK}`),
    );
    expect(sideSink.reified()).toEqual([
      'E:sideout-1',
      'E:sideout-2',
      'E:sideout-3',
      'E:sideout-4',
      'E:sideout-5',
      ...watermarks,
    ]);
    // Flink's test asserts the first side sink twice (a slip); its purpose, "watermarks are
    // forwarded to all side outputs", is that the unused side output sees them too.
    expect(otherSideSink.reified()).toEqual(watermarks);
    expect(mainSink.reified()).toEqual(['E:1', 'E:2', 'E:3', 'E:4', 'E:5', ...watermarks]);
  });

  it('testSideOutputWithMultipleConsumers', async () => {
    const tag = new OutputTag<string>('side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = env.fromArray(elements).process(passThroughWithSide(tag));
    const side1 = sinkOf(passThrough.getSideOutput(tag));
    const side2 = sinkOf(passThrough.getSideOutput(tag));
    const main = sinkOf(passThrough);
    await env.execute('testSideOutputWithMultipleConsumers');

    const expected = ['sideout-1', 'sideout-2', 'sideout-3', 'sideout-4', 'sideout-5'];
    expect(sortedValues(side1.values())).toEqual(expected);
    expect(sortedValues(side2.values())).toEqual(expected);
    expect(sortedValues(main.values())).toEqual([1, 2, 3, 4, 5]);
  });

  it('testDifferentSideOutputTypes', async () => {
    const strings = new OutputTag<string>('string');
    const ints = new OutputTag<number>('int');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = env.fromArray(elements).process<number>({
      processElement(value, ctx, out) {
        out.collect(value);
        ctx.output(strings, `sideout-${value}`);
        ctx.output(ints, 13);
      },
    });
    const stringSink = sinkOf(passThrough.getSideOutput(strings));
    const intSink = sinkOf(passThrough.getSideOutput(ints));
    const main = sinkOf(passThrough);
    await env.execute('testDifferentSideOutputTypes');

    expect(sortedValues(stringSink.values())).toEqual([
      'sideout-1',
      'sideout-2',
      'sideout-3',
      'sideout-4',
      'sideout-5',
    ]);
    expect(intSink.values()).toEqual([13, 13, 13, 13, 13]);
    expect(sortedValues(main.values())).toEqual([1, 2, 3, 4, 5]);
  });

  it('testSideOutputNameClash: two tags with the same name are refused', () => {
    const strings = new OutputTag<string>('side');
    const ints = new OutputTag<number>('side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = env.fromArray(elements).process<number>({
      processElement(value, ctx, out) {
        out.collect(value);
        ctx.output(strings, `sideout-${value}`);
        ctx.output(ints, 13);
      },
    });
    sinkOf(passThrough.getSideOutput(strings));
    // Flink throws UnsupportedOperationException from the second getSideOutput; Weir throws
    // its INVALID_ARGUMENT error there (side outputs are routed by id, so the two would mix).
    expect(() => passThrough.getSideOutput(ints)).toThrow(
      /side output 'side' .* another OutputTag of that id/,
    );
  });

  it('testProcessFunctionSideOutput', async () => {
    const tag = new OutputTag<string>('side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = env.fromArray(elements).process(passThroughWithSide(tag));
    await expectSideAndMain(env, passThrough, tag, 'testProcessFunctionSideOutput', [
      'sideout-1',
      'sideout-2',
      'sideout-3',
      'sideout-4',
      'sideout-5',
    ]);
  });

  /** The co-process function of Flink's co-process cases: input 1 below `split`, input 2 from it. */
  function splitting(
    split: number,
    tag1: OutputTag<string>,
    tag2: OutputTag<string>,
  ): Pick<CoProcessFunction<number, number, number>, 'processElement1' | 'processElement2'> {
    return {
      processElement1(value, ctx, out) {
        if (value < split) {
          out.collect(value);
          ctx.output(tag1, `sideout1-${value}`);
        }
      },
      processElement2(value, ctx, out) {
        if (value >= split) {
          out.collect(value);
          ctx.output(tag2, `sideout2-${value}`);
        }
      },
    };
  }

  /** As {@link splitting}, keyed, with the key in the side output (Flink's KeyedCoProcessFunction cases). */
  function splittingWithKey(
    split: number,
    tag1: OutputTag<string>,
    tag2: OutputTag<string>,
  ): KeyedCoProcessFunction<number, number, number, number> {
    return {
      processElement1(value, ctx, out) {
        if (value < split) {
          out.collect(value);
          ctx.output(tag1, `sideout1-${ctx.key}-${value}`);
        }
      },
      processElement2(value, ctx, out) {
        if (value >= split) {
          out.collect(value);
          ctx.output(tag2, `sideout2-${ctx.key}-${value}`);
        }
      },
    };
  }

  it('testCoProcessFunctionSideOutput', async () => {
    const tag = new OutputTag<string>('side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = env
      .fromArray(elements)
      .connect(env.fromArray(elements))
      .process(splitting(3, tag, tag));
    await expectSideAndMain(env, passThrough, tag, 'testCoProcessFunctionSideOutput', [
      'sideout1-1',
      'sideout1-2',
      'sideout2-3',
      'sideout2-4',
      'sideout2-5',
    ]);
  });

  it('testCoProcessFunctionSideOutputWithMultipleConsumers', async () => {
    const tag1 = new OutputTag<string>('side1');
    const tag2 = new OutputTag<string>('side2');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = env
      .fromArray(elements)
      .connect(env.fromArray(elements))
      .process(splitting(4, tag1, tag2));
    const side1 = sinkOf(passThrough.getSideOutput(tag1));
    const side2 = sinkOf(passThrough.getSideOutput(tag2));
    const main = sinkOf(passThrough);
    await env.execute('testCoProcessFunctionSideOutputWithMultipleConsumers');

    expect(sortedValues(side1.values())).toEqual(['sideout1-1', 'sideout1-2', 'sideout1-3']);
    expect(sortedValues(side2.values())).toEqual(['sideout2-4', 'sideout2-5']);
    expect(sortedValues(main.values())).toEqual([1, 2, 3, 4, 5]);
  });

  it('testKeyedProcessFunctionSideOutput', async () => {
    const tag = new OutputTag<string>('side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = env
      .fromArray(elements)
      .keyBy((n) => n)
      .process<number>({
        processElement(value, ctx, out) {
          out.collect(value);
          ctx.output(tag, `sideout-${value}`);
        },
      });
    await expectSideAndMain(env, passThrough, tag, 'testKeyedProcessFunctionSideOutput', [
      'sideout-1',
      'sideout-2',
      'sideout-3',
      'sideout-4',
      'sideout-5',
    ]);
  });

  // Flink's "legacy" keyed cases give a keyed connect a CoProcessFunction (no key in its
  // context); Weir's keyed connect takes a KeyedCoProcessFunction, whose context a function
  // written for CoProcessFunction's fits.
  it('testLegacyKeyedCoProcessFunctionSideOutput', async () => {
    const tag = new OutputTag<string>('side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const fn: KeyedCoProcessFunction<number, number, number, number> = splitting(3, tag, tag);
    const passThrough = keyedConnect(env, fn);
    await expectSideAndMain(env, passThrough, tag, 'testLegacyKeyedCoProcessFunctionSideOutput', [
      'sideout1-1',
      'sideout1-2',
      'sideout2-3',
      'sideout2-4',
      'sideout2-5',
    ]);
  });

  it('testKeyedCoProcessFunctionSideOutput', async () => {
    const tag = new OutputTag<string>('side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = keyedConnect(env, splittingWithKey(3, tag, tag));
    await expectSideAndMain(env, passThrough, tag, 'testKeyedCoProcessFunctionSideOutput', [
      'sideout1-1-1',
      'sideout1-2-2',
      'sideout2-3-3',
      'sideout2-4-4',
      'sideout2-5-5',
    ]);
  });

  it('testLegacyKeyedCoProcessFunctionSideOutputWithMultipleConsumers', async () => {
    const tag1 = new OutputTag<string>('side1');
    const tag2 = new OutputTag<string>('side2');
    const env = new StreamEnvironment({ parallelism: 3 });
    const fn: KeyedCoProcessFunction<number, number, number, number> = splitting(4, tag1, tag2);
    const passThrough = keyedConnect(env, fn);
    const side1 = sinkOf(passThrough.getSideOutput(tag1));
    const side2 = sinkOf(passThrough.getSideOutput(tag2));
    const main = sinkOf(passThrough);
    await env.execute('testLegacyKeyedCoProcessFunctionSideOutputWithMultipleConsumers');

    expect(sortedValues(side1.values())).toEqual(['sideout1-1', 'sideout1-2', 'sideout1-3']);
    expect(sortedValues(side2.values())).toEqual(['sideout2-4', 'sideout2-5']);
    expect(sortedValues(main.values())).toEqual([1, 2, 3, 4, 5]);
  });

  it('testKeyedCoProcessFunctionSideOutputWithMultipleConsumers', async () => {
    const tag1 = new OutputTag<string>('side1');
    const tag2 = new OutputTag<string>('side2');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = keyedConnect(env, splittingWithKey(4, tag1, tag2));
    const side1 = sinkOf(passThrough.getSideOutput(tag1));
    const side2 = sinkOf(passThrough.getSideOutput(tag2));
    const main = sinkOf(passThrough);
    await env.execute('testKeyedCoProcessFunctionSideOutputWithMultipleConsumers');

    expect(sortedValues(side1.values())).toEqual(['sideout1-1-1', 'sideout1-2-2', 'sideout1-3-3']);
    expect(sortedValues(side2.values())).toEqual(['sideout2-4-4', 'sideout2-5-5']);
    expect(sortedValues(main.values())).toEqual([1, 2, 3, 4, 5]);
  });

  it('testProcessFunctionSideOutputWithWrongTag: a tag nothing is emitted to stays empty', async () => {
    const side = new OutputTag<string>('side');
    const otherSide = new OutputTag<string>('other-side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const sink = sinkOf(
      env.fromArray(elements).process(passThroughWithSide(otherSide)).getSideOutput(side),
    );
    await env.execute('testProcessFunctionSideOutputWithWrongTag');
    expect(sink.values()).toEqual([]);
  });

  /*
   * The window cases: times are the values, a watermark at every record, sliding windows of
   * 1 ms sliding by 1 ms (one window [t, t+1) per record).
   *
   *   arrival:    1   2   5   3   4
   *   watermark:  1   2   5   5   5
   *   3 and 4 arrive behind the watermark 5: [3,4) and [4,5) have fired already (empty).
   */

  it('testAllWindowLateArrivingEvents: late records of an all-window go to the side output', async () => {
    const lateTag = new OutputTag<number>('late');
    const env = new StreamEnvironment({ parallelism: 1 });
    // Weir has no windowAll: one constant key puts every record in the one window operator.
    const windowed = env
      .fromArray(elements)
      .assignTimestampsAndWatermarks(testWatermarkAssigner())
      .keyBy(() => 0)
      .window(Windows.sliding(1, 1))
      .sideOutputLateData(lateTag)
      .process<number>({
        process(_key, _ctx, values, out) {
          for (const v of values) out.collect(v);
        },
      });
    const late = sinkOf(
      windowed.getSideOutput(lateTag).flatMap<string>((n, out) => out.collect(`late-${n}`)),
    );
    await env.execute('testAllWindowLateArrivingEvents');
    expect(sortedValues(late.values())).toEqual(['late-3', 'late-4']);
  });

  it('testKeyedWindowLateArrivingEvents: within the allowed lateness a record still fires its window', async () => {
    const lateTag = new OutputTag<number>('late');
    const env = new StreamEnvironment({ parallelism: 3 });
    // Lateness 2: [3,4) is cleaned up at watermark 3 + 2 = 5 (3 is late), [4,5) only at 6
    // (4 fires its window at once).
    const windowed = env
      .fromArray(elements)
      .assignTimestampsAndWatermarks(testWatermarkAssigner())
      .keyBy((n) => n)
      .window(Windows.sliding(1, 1))
      .allowedLateness(2)
      .sideOutputLateData(lateTag)
      .process<string>({
        process(key, _ctx, values, out) {
          for (const v of values) out.collect(`${key}-${v}`);
        },
      });
    const results = sinkOf(windowed);
    const late = sinkOf(windowed.getSideOutput(lateTag));
    await env.execute('testKeyedWindowLateArrivingEvents');
    expect(sortedValues(results.values())).toEqual(['1-1', '2-2', '4-4', '5-5']);
    expect(late.values()).toEqual([3]);
  });

  it('testProcessdWindowFunctionSideOutput', async () => {
    const tag = new OutputTag<string>('side');
    const env = new StreamEnvironment({ parallelism: 3 });
    const windowed = env
      .fromArray(elements)
      .assignTimestampsAndWatermarks(testWatermarkAssigner())
      .keyBy((n) => n)
      .window(Windows.sliding(1, 1))
      .process<number>({
        process(key, ctx, _values, out) {
          out.collect(key);
          ctx.output(tag, `sideout-${key}`);
        },
      });
    const side = sinkOf(windowed.getSideOutput(tag));
    const main = sinkOf(windowed);
    await env.execute('testProcessdWindowFunctionSideOutput');
    expect(sortedValues(side.values())).toEqual(['sideout-1', 'sideout-2', 'sideout-5']);
    expect(sortedValues(main.values())).toEqual([1, 2, 5]);
  });

  it('testProcessAllWindowFunctionSideOutput', async () => {
    const tag = new OutputTag<string>('side');
    const env = new StreamEnvironment({ parallelism: 1 });
    // Weir has no windowAll: one constant key, as above.
    const windowed = env
      .fromArray(elements)
      .assignTimestampsAndWatermarks(testWatermarkAssigner())
      .keyBy(() => 0)
      .window(Windows.sliding(1, 1))
      .process<number>({
        process(_key, ctx, values, out) {
          for (const v of values) {
            out.collect(v);
            ctx.output(tag, `sideout-${v}`);
          }
        },
      });
    const side = sinkOf(windowed.getSideOutput(tag));
    const main = sinkOf(windowed);
    await env.execute('testProcessAllWindowFunctionSideOutput');
    expect(sortedValues(side.values())).toEqual(['sideout-1', 'sideout-2', 'sideout-5']);
    expect(sortedValues(main.values())).toEqual([1, 2, 5]);
  });

  it('testUnionOfTwoSideOutputs: side outputs union with each other, themselves and other streams', async () => {
    const oddTag = new OutputTag<number>('odds');
    const evenTag = new OutputTag<number>('even');
    const env = new StreamEnvironment({ parallelism: 3 });
    const passThrough = env.fromArray([1, 2, 3, 4]).process<number>({
      processElement(value, ctx, out) {
        if (value % 2 !== 0) ctx.output(oddTag, value);
        else ctx.output(evenTag, value);
        out.collect(value);
      },
    });
    const evens = passThrough.getSideOutput(evenTag);
    const odds = passThrough.getSideOutput(oddTag);
    const evensSink = sinkOf(evens);
    const oddsSink = sinkOf(odds);
    const main = sinkOf(passThrough);
    const oddsUEvens = sinkOf(odds.union(evens));
    const evensUOdds = sinkOf(evens.union(odds));
    const oddsUOdds = sinkOf(odds.union(odds));
    const evensUEvens = sinkOf(evens.union(evens));
    const oddsUEvensExternal = sinkOf(odds.union(env.fromArray([2, 4])));
    await env.execute('testUnionOfTwoSideOutputs');

    expect(sortedValues(oddsSink.values())).toEqual([1, 3]);
    expect(sortedValues(evensSink.values())).toEqual([2, 4]);
    expect(sortedValues(main.values())).toEqual([1, 2, 3, 4]);
    expect(sortedValues(oddsUEvens.values())).toEqual([1, 2, 3, 4]);
    expect(sortedValues(evensUOdds.values())).toEqual([1, 2, 3, 4]);
    expect(sortedValues(oddsUOdds.values())).toEqual([1, 1, 3, 3]);
    expect(sortedValues(evensUEvens.values())).toEqual([2, 2, 4, 4]);
    expect(sortedValues(oddsUEvensExternal.values())).toEqual([1, 2, 3, 4]);
  });
});

// ---- TimestampITCase --------------------------------------------------------------------------

describe("Flink's TimestampITCase", () => {
  /** Flink's PARALLELISM: 2 task managers with 3 slots each. */
  const PARALLELISM = 6;

  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** Flink's topology: `source1.union(source2).map(identity).connect(source2).map(identity, identity)`. */
  function unionThenConnect(
    env: StreamEnvironment,
    source1: TimedSource<number>,
    source2: TimedSource<number>,
  ): DataStream<number> {
    const second = env.fromSource(source2);
    return env
      .fromSource(source1)
      .union(second)
      .map((n) => n)
      .connect(second)
      .map({ map1: (n) => n, map2: (n) => n });
  }

  it('testWatermarkPropagation: watermarks pass union, map and connect, and end at the final one', async () => {
    const numWatermarks = 10;
    const env = new StreamEnvironment({ parallelism: PARALLELISM });
    const sink = sinkOf(
      unionThenConnect(
        env,
        timestampSource(0, numWatermarks),
        timestampSource(0, numWatermarks / 2),
      ),
    );
    await env.execute('testWatermarkPropagation');

    expectTimestampsAreValues(sink);
    const perSubtask = sink.watermarksPerSubtask();
    expect(perSubtask).toHaveLength(PARALLELISM);
    for (const watermarks of perSubtask) {
      expectStrictlyIncreasing(watermarks);
      // Only numWatermarks / 2 are certain: the other source stops emitting after that.
      expect(watermarks.slice(0, numWatermarks / 2)).toEqual([0, 1, 2, 3, 4]);
      expect(watermarks.at(-1)).toBe(MAX_WATERMARK);
    }
  });

  it('testWatermarkPropagationNoFinalWatermarkOnStop: stopping at a savepoint emits no final watermark', async () => {
    const numWatermarks = 10;
    const dir = mkdtempSync(join(tmpdir(), 'weir-flink-timestamps-'));
    dirs.push(dir);
    const env = new StreamEnvironment({ parallelism: PARALLELISM });
    const source1 = timestampSource(0, numWatermarks, false);
    const source2 = timestampSource(0, numWatermarks / 2, false);
    const sink = sinkOf(unionThenConnect(env, source1, source2));
    const job = env.executeAsync('testWatermarkPropagationNoFinalWatermarkOnStop');
    // Flink stops whenever the job runs; waiting until both scripts are played makes the
    // watermarks the test accepts (a gapless run from 0, not ending in the final one) non-empty.
    await waitUntil(() => source1.finished && source2.finished, 60_000, 'the sources');
    await waitUntil(
      () => sink.watermarksPerSubtask().every((ws) => ws.includes(numWatermarks / 2 - 1)),
      60_000,
      'the watermarks',
    );
    await job.stopWithSavepoint(dir);
    await job.result;

    expectTimestampsAreValues(sink);
    for (const watermarks of sink.watermarksPerSubtask()) {
      expect(watermarks).toEqual(watermarks.map((_, j) => j));
      expect(watermarks).not.toContain(MAX_WATERMARK);
    }
  });

  it('testTimestampHandling: timestamps pass maps, the network and connect', async () => {
    const numElements = 10;
    const env = new StreamEnvironment({ parallelism: PARALLELISM });
    const sink = sinkOf(
      env
        .fromSource(timestampSource(0, numElements))
        .map((n) => n)
        .connect(env.fromSource(timestampSource(0, numElements)))
        .map({ map1: (n) => n, map2: (n) => n }),
    );
    await env.execute('testTimestampHandling');
    expect(sink.records).toHaveLength(2 * numElements);
    expectTimestampsAreValues(sink);
  });

  it('testDisabledTimestamps: records without event time stay without one', async () => {
    const numElements = 10;
    const env = new StreamEnvironment({ parallelism: PARALLELISM });
    const sink = sinkOf(
      env
        .fromSource(nonWatermarkingSource(numElements))
        .map((n) => n)
        .connect(env.fromSource(nonWatermarkingSource(numElements)))
        .map({ map1: (n) => n, map2: (n) => n }),
    );
    await env.execute('testDisabledTimestamps');
    expect(sink.records).toHaveLength(2 * numElements);
    // Flink: `hasTimestamp()` is false; Weir marks a record without event time NO_TIMESTAMP.
    for (const r of sink.records) expect(r.timestamp).toBe(NO_TIMESTAMP);
  });

  /** Flink's source `1..numElements` without timestamps, one record at a time (its latch). */
  function oneByOne(values: readonly number[]): TimedSource<number> {
    return new TimedSource(values.map((value) => ({ value })));
  }

  it('testTimestampExtractorWithAutoInterval: an ascending extractor gives watermark t - 1 per record', async () => {
    const numElements = 10;
    const env = new StreamEnvironment({ parallelism: 1, autoWatermarkIntervalMs: 10 });
    const source = oneByOne(Array.from({ length: numElements }, (_, i) => i + 1));
    // Flink's AscendingTimestampExtractor: the watermark trails the largest timestamp by 1 ms.
    const sink = sinkOf(
      env
        .fromSource(source)
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.forMonotonousTimestamps<number>().withTimestampAssigner((n) => n),
        ),
    );
    await env.execute('testTimestampExtractorWithAutoInterval');
    expectTimestampsAreValues(sink);
    expect(sink.watermarksPerSubtask()).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, MAX_WATERMARK]]);
  });

  it('testTimestampExtractorWithCustomWatermarkEmit: punctuated watermarks are forwarded', async () => {
    const numElements = 10;
    const env = new StreamEnvironment({ parallelism: 1, autoWatermarkIntervalMs: 10 });
    const source = oneByOne(Array.from({ length: numElements }, (_, i) => i + 1));
    const sink = sinkOf(env.fromSource(source).assignTimestampsAndWatermarks(watermarkOneBelow()));
    await env.execute('testTimestampExtractorWithCustomWatermarkEmit');
    expectTimestampsAreValues(sink);
    expect(sink.watermarksPerSubtask()).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, MAX_WATERMARK]]);
  });

  it('testTimestampExtractorWithDecreasingCustomWatermarkEmit: decreasing watermarks are not emitted', async () => {
    const numElements = 10;
    const env = new StreamEnvironment({ parallelism: 1, autoWatermarkIntervalMs: 1 });
    // index, then index - 1: every second punctuated watermark is below the one before.
    const source = oneByOne(Array.from({ length: numElements }, (_, i) => [i + 1, i]).flat());
    const sink = sinkOf(env.fromSource(source).assignTimestampsAndWatermarks(watermarkOneBelow()));
    await env.execute('testTimestampExtractorWithDecreasingCustomWatermarkEmit');
    expectTimestampsAreValues(sink);
    const [watermarks] = sink.watermarksPerSubtask();
    expectStrictlyIncreasing(watermarks!);
    expect(watermarks).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, MAX_WATERMARK]);
  });

  /**
   * The source of the LongMaxWatermarkFromSource cases: `index` at `index`, `index - 1` at
   * `index - 1`, then the watermark `index - 1`, for index 1..10; then the final watermark twice.
   */
  function watermarkingSource(numElements: number): TimedSource<number> {
    const steps: TimedStep<number>[] = [];
    for (let index = 1; index <= numElements; index++) {
      steps.push(
        { value: index, time: index },
        { value: index - 1, time: index - 1 },
        { watermark: index - 1 },
      );
    }
    steps.push({ watermark: MAX_WATERMARK }, { watermark: MAX_WATERMARK });
    return new TimedSource(steps);
  }

  it('testTimestampExtractorWithLongMaxWatermarkFromSource: only the final watermark passes a silent punctuated assigner, once', async () => {
    const env = new StreamEnvironment({ parallelism: 2, autoWatermarkIntervalMs: 1 });
    const silent = WatermarkStrategy.forGenerator<number>(() => ({
      onEvent() {},
    })).withTimestampAssigner((n) => n);
    const sink = sinkOf(
      env.fromSource(watermarkingSource(10)).assignTimestampsAndWatermarks(silent).rebalance(),
    );
    await env.execute('testTimestampExtractorWithLongMaxWatermarkFromSource');
    // Flink checks its first subtask; every subtask sees exactly one final watermark.
    expect(sink.watermarksPerSubtask()).toEqual([[MAX_WATERMARK], [MAX_WATERMARK]]);
  });

  it('testTimestampExtractorWithLongMaxWatermarkFromSource2: the same with a silent periodic assigner', async () => {
    const env = new StreamEnvironment({ parallelism: 2, autoWatermarkIntervalMs: 10 });
    const silent = WatermarkStrategy.forGenerator<number>(() => ({
      onEvent() {},
      onPeriodicEmit() {},
    })).withTimestampAssigner((n) => n);
    const sink = sinkOf(
      env.fromSource(watermarkingSource(10)).assignTimestampsAndWatermarks(silent).rebalance(),
    );
    await env.execute('testTimestampExtractorWithLongMaxWatermarkFromSource2');
    // Flink checks its first subtask; every subtask sees exactly one final watermark.
    expect(sink.watermarksPerSubtask()).toEqual([[MAX_WATERMARK], [MAX_WATERMARK]]);
  });

  it('testErrorOnEventTimeWithoutTimestamps: an event-time window over records without event time fails', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const source1 = env.fromArray<readonly [string, number]>([
      ['a', 1],
      ['b', 2],
    ]);
    source1
      .keyBy((t) => t[0])
      .window(Windows.tumbling(5_000))
      .reduce((a) => a)
      .sinkTo(new ReifyingSink());
    await expect(env.execute('testErrorOnEventTimeWithoutTimestamps')).rejects.toThrow(
      /event-time window .* without a timestamp/,
    );
  });
});
