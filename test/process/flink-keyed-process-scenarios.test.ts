/**
 * Scenarios of Flink's KeyedProcessOperatorTest, with its inputs and expected
 * output (records with their timestamps, and watermarks, in order), run on
 * Weir's keyed process operator under a manual clock; and Flink's end of
 * bounded input, where every pending event-time timer fires.
 */
import { describe, expect, it } from 'vitest';
import {
  type KeyedProcessFunction,
  type OnTimerContext,
  OutputTag,
  StreamEnvironment,
  type ValueState,
  WatermarkStrategy,
} from '../../src/index.js';
import { type Emitted, KeyedOneInputHarness } from '../../src/testing/index.js';

type Domain = OnTimerContext<number>['timeDomain'];

/** Records as `value@timestamp` (`value` alone without one), watermarks as `W<time>`. */
function rendered<T>(log: readonly Emitted<T>[]): string[] {
  return log.flatMap((e) => {
    if (e.kind === 'record')
      return [e.timestamp === undefined ? String(e.value) : `${e.value}@${e.timestamp}`];
    if (e.kind === 'watermark') return [`W${e.time}`];
    return [];
  });
}

const identity = (n: number) => n;

describe("Flink's KeyedProcessOperatorTest", () => {
  const querying = (domain: Domain): KeyedProcessFunction<number, number, string> => ({
    processElement(value, ctx, out) {
      const time =
        domain === 'event-time'
          ? ctx.timerService.currentWatermark()
          : ctx.timerService.currentProcessingTime();
      const ts = Number.isFinite(ctx.timestamp) ? ctx.timestamp : 'null';
      out.collect(`${value}TIME:${time} TS:${ts}`);
    },
  });

  it('a record sees its timestamp and the current watermark', () => {
    const h = KeyedOneInputHarness.forProcessFunction(querying('event-time'), identity);
    h.processWatermark(17);
    h.processElement(5, 12);
    h.processWatermark(42);
    h.processElement(6, 13);
    expect(rendered(h.emitted())).toEqual(['W17', '5TIME:17 TS:12@12', 'W42', '6TIME:42 TS:13@13']);
  });

  it('a record without a timestamp sees the processing time', () => {
    const h = KeyedOneInputHarness.forProcessFunction(querying('processing-time'), identity);
    h.setProcessingTime(17);
    h.processElement(5);
    h.setProcessingTime(42);
    h.processElement(6);
    expect(rendered(h.emitted())).toEqual(['5TIME:17 TS:null', '6TIME:42 TS:null']);
  });

  const triggering = (
    domain: Domain,
    seen: string[],
  ): KeyedProcessFunction<number, number, number> => ({
    processElement(value, ctx, out) {
      out.collect(value);
      const ts = ctx.timerService;
      if (domain === 'event-time') ts.registerEventTimeTimer(ts.currentWatermark() + 5);
      else ts.registerProcessingTimeTimer(ts.currentProcessingTime() + 5);
    },
    onTimer(time, ctx, out) {
      seen.push(`${ctx.key} ${ctx.timeDomain} ${time} ${ctx.timestamp}`);
      out.collect(1777);
    },
  });

  it('an event-time timer fires before the watermark that reaches it, stamped with its time', () => {
    const seen: string[] = [];
    const h = KeyedOneInputHarness.forProcessFunction(triggering('event-time', seen), identity);
    h.processWatermark(0);
    h.processElement(17, 42);
    h.processWatermark(5);
    expect(rendered(h.emitted())).toEqual(['W0', '17@42', '1777@5', 'W5']);
    expect(seen).toEqual(['17 event-time 5 5']);
  });

  it('a processing-time timer fires from the clock; its output has no timestamp', () => {
    const seen: string[] = [];
    const h = KeyedOneInputHarness.forProcessFunction(
      triggering('processing-time', seen),
      identity,
    );
    h.processElement(17);
    h.setProcessingTime(5);
    expect(rendered(h.emitted())).toEqual(['17', '1777']);
    // ctx.timestamp in onTimer is the timer's time in either domain.
    expect(seen).toEqual(['17 processing-time 5 5']);
  });

  const stateful = (
    domain: Domain,
  ): KeyedProcessFunction<number, number, string> & { seen?: ValueState<number> } => ({
    open(ctx) {
      this.seen = ctx.state.getValueState<number>('seen-element');
    },
    processElement(value, ctx, out) {
      const ts = ctx.timerService;
      const now = domain === 'event-time' ? ts.currentWatermark() : ts.currentProcessingTime();
      if (this.seen!.value() === undefined) {
        out.collect(`INPUT:${value}`);
        this.seen!.update(value);
        if (domain === 'event-time') ts.registerEventTimeTimer(now + 5);
        else ts.registerProcessingTimeTimer(now + 5);
      } else {
        // One time unit later, the timer set 5 after the first record is 4 after now.
        this.seen!.clear();
        if (domain === 'event-time') ts.deleteEventTimeTimer(now + 4);
        else ts.deleteProcessingTimeTimer(now + 4);
      }
    },
    onTimer(_time, ctx, out) {
      expect(ctx.timeDomain).toBe(domain);
      out.collect(`STATE:${this.seen!.value()}`);
    },
  });

  it('event-time timers and state stay with their key; a deleted timer does not fire', () => {
    const h = KeyedOneInputHarness.forProcessFunction(stateful('event-time'), identity);
    h.processWatermark(1);
    h.processElement(17, 0); // timer at 6
    h.processElement(13, 0); // timer at 6
    h.processWatermark(2);
    h.processElement(42, 1); // timer at 7
    h.processElement(13, 1); // deletes 13's timer
    h.processWatermark(6);
    h.processWatermark(7);
    expect(rendered(h.emitted())).toEqual([
      'W1',
      'INPUT:17@0',
      'INPUT:13@0',
      'W2',
      'INPUT:42@1',
      'STATE:17@6',
      'W6',
      'STATE:42@7',
      'W7',
    ]);
  });

  it('processing-time timers and state stay with their key; a deleted timer does not fire', () => {
    const h = KeyedOneInputHarness.forProcessFunction(stateful('processing-time'), identity);
    h.setProcessingTime(1);
    h.processElement(17);
    h.processElement(13);
    h.setProcessingTime(2);
    h.processElement(13);
    h.processElement(42);
    h.setProcessingTime(6);
    h.setProcessingTime(7);
    expect(rendered(h.emitted())).toEqual([
      'INPUT:17',
      'INPUT:13',
      'INPUT:42',
      'STATE:17',
      'STATE:42',
    ]);
  });

  it('timers of both domains survive a snapshot and restore; deleted ones stay deleted', () => {
    const both: KeyedProcessFunction<number, number, string> = {
      processElement(_value, ctx) {
        const ts = ctx.timerService;
        ts.registerProcessingTimeTimer(3);
        ts.registerEventTimeTimer(4);
        ts.registerProcessingTimeTimer(5);
        ts.registerEventTimeTimer(6);
        ts.deleteProcessingTimeTimer(3);
        ts.deleteEventTimeTimer(4);
      },
      onTimer(_time, ctx, out) {
        expect(ctx.key).toBe(5);
        out.collect(ctx.timeDomain === 'event-time' ? 'EVENT:1777' : 'PROC:1777');
      },
    };
    const h = KeyedOneInputHarness.forProcessFunction(both, identity);
    h.processElement(5, 12);
    const snapshot = h.snapshot();
    const restored = KeyedOneInputHarness.forProcessFunction(both, identity, {
      restoreFrom: snapshot,
    });
    restored.setProcessingTime(5);
    restored.processWatermark(6);
    expect(rendered(restored.emitted())).toEqual(['PROC:1777', 'EVENT:1777@6', 'W6']);
  });

  it('side outputs carry the timestamp of the record', () => {
    const ints = new OutputTag<number>('int-out');
    const longs = new OutputTag<bigint>('long-out');
    const h = KeyedOneInputHarness.forProcessFunction<number, number, string>(
      {
        processElement(value, ctx, out) {
          out.collect(`IN:${value}`);
          ctx.output(ints, value);
          ctx.output(longs, BigInt(value));
        },
      },
      identity,
    );
    h.processElement(42, 17);
    expect(h.output()).toEqual([{ value: 'IN:42', timestamp: 17 }]);
    expect(h.sideOutput(ints)).toEqual([{ value: 42, timestamp: 17 }]);
    expect(h.sideOutput(longs)).toEqual([{ value: 42n, timestamp: 17 }]);
  });
});

describe('event-time timers at the end of bounded input (as Flink, watermark Long.MAX_VALUE)', () => {
  it('every pending timer fires once, in time order, and a coalesced timer fires once', async () => {
    const env = new StreamEnvironment({ parallelism: 2, batchSize: 3 });
    const out = await env
      .fromArray(Array.from({ length: 12 }, (_, i) => ({ k: i % 3, t: i * 10 })))
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forMonotonousTimestamps<{ k: number; t: number }>().withTimestampAssigner(
          (e) => e.t,
        ),
      )
      .keyBy((e) => e.k)
      .process<string>({
        processElement(e, ctx) {
          // Far beyond any watermark the input makes; every key registers the same time twice.
          ctx.timerService.registerEventTimeTimer(1_000_000 + e.k);
          ctx.timerService.registerEventTimeTimer(2_000_000);
        },
        onTimer(time, ctx, out) {
          out.collect(`${ctx.key}@${time}/${ctx.timeDomain}`);
        },
      })
      .executeAndCollect();
    expect(out.sort()).toEqual([
      '0@1000000/event-time',
      '0@2000000/event-time',
      '1@1000001/event-time',
      '1@2000000/event-time',
      '2@1000002/event-time',
      '2@2000000/event-time',
    ]);
  });
});
