/**
 * `DataStream.connect` without keys: co-map, co-flat-map and co-process functions, with the
 * inputs and expectations of Flink's CoStreamMapTest, CoStreamFlatMapTest, CoProcessOperatorTest
 * and SelfConnectionTest, and as jobs (side outputs, timers refused, the plan).
 */
import { describe, expect, it } from 'vitest';
import {
  type CoFlatMapFunction,
  type Collector,
  CollectSink,
  type CoMapFunction,
  type CoProcessFunction,
  OutputTag,
  type ProcessContext,
  StreamEnvironment,
  WatermarkStrategy,
} from '../../src/index.js';
import { type Emitted, TwoInputHarness } from '../../src/testing/index.js';

/** Records as `value@timestamp` (`value` alone without one), watermarks as `W<time>`, idleness as `idle`. */
function rendered<T>(log: readonly Emitted<T>[]): string[] {
  return log.flatMap((e) => {
    if (e.kind === 'record')
      return [e.timestamp === undefined ? String(e.value) : `${e.value}@${e.timestamp}`];
    if (e.kind === 'watermark') return [`W${e.time}`];
    if (e.kind === 'idle') return ['idle'];
    return [];
  });
}

describe("Flink's CoStreamMapTest and CoStreamFlatMapTest", () => {
  it('a co-map keeps each record timestamp; the watermark is the least of both inputs', () => {
    const toText: CoMapFunction<number, number, string> = {
      map1: (d) => d.toFixed(1),
      map2: (i) => String(i),
    };
    const h = TwoInputHarness.forCoProcessFunction(toText);
    for (const [i, d] of [1.1, 1.2, 1.3].entries()) h.processElement1(d, i + 1);
    h.processWatermark1(3);
    h.processElement1(1.4, 4);
    h.processElement1(1.5, 5);
    h.processElement2(1, 1);
    h.processElement2(2, 2);
    h.processWatermark2(2);
    for (const i of [3, 4, 5]) h.processElement2(i, i);
    expect(rendered(h.emitted())).toEqual([
      '1.1@1',
      '1.2@2',
      '1.3@3',
      '1.4@4',
      '1.5@5',
      '1@1',
      '2@2',
      'W2',
      '3@3',
      '4@4',
      '5@5',
    ]);
  });

  it('a co-flat-map emits any number of records per input record, with its timestamp', () => {
    const letters: CoFlatMapFunction<string, number, string> = {
      flatMap1(word, out) {
        for (const c of word) out.collect(c);
      },
      flatMap2(n, out) {
        out.collect(String(n));
      },
    };
    const h = TwoInputHarness.forCoProcessFunction(letters);
    h.processElement1('abc', 1);
    h.processElement1('def', 2);
    h.processWatermark1(2);
    h.processElement1('ghi', 3);
    h.processElement2(1, 1);
    h.processElement2(2, 2);
    h.processWatermark2(3);
    for (const i of [3, 4, 5]) h.processElement2(i, i);
    expect(rendered(h.emitted())).toEqual([
      ...['a@1', 'b@1', 'c@1', 'd@2', 'e@2', 'f@2', 'g@3', 'h@3', 'i@3'],
      ...['1@1', '2@2', 'W2', '3@3', '4@4', '5@5'],
    ]);
  });

  it('open comes before the first record and close after the last, on an instance per subtask', async () => {
    const calls: string[] = [];
    const fn: CoFlatMapFunction<string, number, string> & { opened?: boolean } = {
      open(ctx) {
        this.opened = true;
        calls.push(`open ${ctx.subtaskIndex}/${ctx.parallelism}`);
      },
      flatMap1(value, out) {
        calls.push(`1 ${value} ${this.opened === true}`);
        out.collect(value);
      },
      flatMap2(value, out) {
        calls.push(`2 ${value} ${this.opened === true}`);
        out.collect(String(value));
      },
      close() {
        calls.push('close');
      },
    };
    const h = TwoInputHarness.forCoProcessFunction(fn);
    h.processElement1('Hello', 0);
    h.processElement2(42, 0);
    await h.close();
    expect(calls).toEqual(['open 0/1', '1 Hello true', '2 42 true', 'close']);
    expect(h.outputValues()).toEqual(['Hello', '42']);
    // The object passed in is a prototype: the subtask's fields are on its own instance.
    expect(fn.opened).toBeUndefined();
  });
});

describe("Flink's CoProcessOperatorTest", () => {
  const querying = (
    what: (ctx: ProcessContext) => string,
  ): CoProcessFunction<number, string, string> => {
    const show = (value: unknown, ctx: ProcessContext) =>
      `${value}${what(ctx)} TS:${Number.isFinite(ctx.timestamp) ? ctx.timestamp : 'null'}`;
    return {
      processElement1: (value, ctx, out) => out.collect(show(value, ctx)),
      processElement2: (value, ctx, out) => out.collect(show(value, ctx)),
    };
  };

  it('a record sees its timestamp and the watermark of both inputs', () => {
    const h = TwoInputHarness.forCoProcessFunction(
      querying((ctx) => `WM:${ctx.timerService.currentWatermark()}`),
    );
    h.processWatermark1(17);
    h.processWatermark2(17);
    h.processElement1(5, 12);
    h.processWatermark1(42);
    h.processWatermark2(42);
    h.processElement2('6', 13);
    expect(rendered(h.emitted())).toEqual(['W17', '5WM:17 TS:12@12', 'W42', '6WM:42 TS:13@13']);
  });

  it('a record without a timestamp sees the processing time', () => {
    const h = TwoInputHarness.forCoProcessFunction(
      querying((ctx) => `PT:${ctx.timerService.currentProcessingTime()}`),
    );
    h.setProcessingTime(17);
    h.processElement1(5);
    h.setProcessingTime(42);
    h.processElement2('6');
    expect(rendered(h.emitted())).toEqual(['5PT:17 TS:null', '6PT:42 TS:null']);
  });

  it('an idle input leaves event time to the other one', () => {
    const h = TwoInputHarness.forCoProcessFunction(
      querying((ctx) => `WM:${ctx.timerService.currentWatermark()}`),
    );
    h.processWatermark1(10);
    h.processIdle2();
    h.processElement1(1, 11);
    h.processWatermark1(20);
    expect(rendered(h.emitted())).toEqual(['W10', '1WM:10 TS:11@11', 'W20']);
  });

  it('timers are refused on non-keyed inputs, as in Flink', () => {
    const h = TwoInputHarness.forCoProcessFunction<number, number, number>({
      processElement1(value, ctx) {
        // The type has no register methods; a JavaScript caller reaches them anyway.
        (
          ctx.timerService as unknown as { registerEventTimeTimer(t: number): void }
        ).registerEventTimeTimer(value);
      },
      processElement2() {},
    });
    expect(() => h.processElement1(5, 5)).toThrow(/timers are only supported on keyed streams/);
  });
});

describe('connect() in a job', () => {
  it("Flink's SelfConnectionTest: a stream connected with a map of itself", async () => {
    const env = new StreamEnvironment();
    const src = env.fromArray([1, 3, 5]);
    const out = await src
      .map((v) => `x ${v}`)
      .connect(src)
      .map({ map1: (s) => s, map2: (n) => String(n + 1) })
      .executeAndCollect();
    expect(out.sort()).toEqual(['2', '4', '6', 'x 1', 'x 3', 'x 5']);
  });

  it('connects streams of different parallelism through rebalanced inputs', async () => {
    const env = new StreamEnvironment({ parallelism: 3 });
    const src = env.fromArray([1, 3, 5]);
    const words = src.flatMap<string>((v, out) => out.collect(`x ${v}`)).rebalance();
    const longs = src.map((v) => v + 1).setParallelism(2);
    const out = await words
      .connect(longs)
      .flatMap<string>({
        flatMap1: (s, o) => o.collect(s),
        flatMap2: (n, o) => o.collect(String(n)),
      })
      .executeAndCollect();
    expect(out.sort()).toEqual(['2', '4', '6', 'x 1', 'x 3', 'x 5']);
  });

  it('a co-process function emits to side outputs from either input, with the record timestamps', async () => {
    const env = new StreamEnvironment();
    const strategy = <T extends { t: number }>() =>
      WatermarkStrategy.forMonotonousTimestamps<T>().withTimestampAssigner((r) => r.t);
    const readings = env
      .fromArray([
        { sensor: 'a', t: 1, celsius: 21 },
        { sensor: 'b', t: 2, celsius: 95 },
        { sensor: 'a', t: 3, celsius: -40 },
      ])
      .assignTimestampsAndWatermarks(strategy());
    const alerts = env
      .fromArray([
        { t: 2, text: 'door open' },
        { t: 4, text: '' },
      ])
      .assignTimestampsAndWatermarks(strategy());
    const outOfRange = new OutputTag<string>('out-of-range');
    const empty = new OutputTag<number>('empty-alert');
    const merged = readings.connect(alerts).process<string>({
      processElement1(r, ctx, out) {
        if (r.celsius < -30 || r.celsius > 60)
          ctx.output(outOfRange, `${r.sensor}@${ctx.timestamp}`);
        else out.collect(`${r.sensor}: ${r.celsius}`);
      },
      processElement2(a, ctx, out) {
        if (a.text === '') ctx.output(empty, ctx.timestamp);
        else out.collect(`alert: ${a.text}`);
      },
    });
    const { records, sideOutputs } = await merged.executeAndCollect({
      sideOutputs: { outOfRange, empty },
    });
    expect(records.sort()).toEqual(['a: 21', 'alert: door open']);
    expect(sideOutputs.outOfRange.sort()).toEqual(['a@3', 'b@2']);
    expect(sideOutputs.empty).toEqual([4]);
  });

  it('a co-process function that sets a timer fails the job, saying timers need keys', async () => {
    const env = new StreamEnvironment();
    const timing = {
      processElement1(value: number, ctx: ProcessContext, _out: Collector<number>) {
        (
          ctx.timerService as unknown as { registerProcessingTimeTimer(t: number): void }
        ).registerProcessingTimeTimer(value);
      },
      processElement2() {},
    };
    env
      .fromArray([1])
      .connect(env.fromArray([2]))
      .process(timing)
      .uid('timing')
      .sinkTo(new CollectSink());
    await expect(env.execute('timers')).rejects.toThrow(
      /timing.*timers are only supported on keyed streams.*connect\(other\) with keyBy\(key1, key2\)/s,
    );
  });

  it('refuses an object without the methods of its kind', () => {
    const env = new StreamEnvironment();
    const connected = env.fromArray([1]).connect(env.fromArray(['a']));
    const bad = { map1: (n: number) => n } as unknown as CoMapFunction<number, string, number>;
    expect(() => connected.map(bad)).toThrow(/needs an object with map1 and map2 methods/);
    expect(() =>
      connected.process({ processElement1() {} } as unknown as CoProcessFunction<
        number,
        string,
        number
      >),
    ).toThrow(/processElement1 and processElement2/);
    expect(() => connected.keyBy((n) => n, undefined as unknown as (s: string) => number)).toThrow(
      /key selector function for each input/,
    );
    expect(() => connected.map(null as never)).toThrow(/connect\(\.\.\.\)\.map\(\)/);
  });

  it('shows in the plan with both inputs, its uid, name and parallelism', () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    env
      .fromArray([1])
      .connect(env.fromArray(['a']))
      .map({ map1: String, map2: (s) => s })
      .uid('merge')
      .name('merge both')
      .setParallelism(3)
      .sinkTo(new CollectSink());
    const plan = env.explain();
    expect(plan).toMatch(
      /#2 co-process "merge both" uid=merge parallelism=3 <- #0 forward, #1 forward input=1/,
    );
    expect(plan).toMatch(
      /merge: co-process \(from #2\) parallelism=3 .*<- \[0\] rebalance, \[1\] rebalance input=1/,
    );
  });
});
