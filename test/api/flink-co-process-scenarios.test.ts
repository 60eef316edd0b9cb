/**
 * Scenarios of Flink's KeyedCoProcessOperatorTest and CoProcessOperatorTest (flink-streaming-java,
 * operators/co), with Flink's inputs, watermarks, processing times and expected outputs, run
 * against the operators behind `a.connect(b).keyBy(k1, k2).process(fn)` and
 * `a.connect(b).process(fn)` in Weir's two-input harness under a manual clock. Each `it` names
 * the Flink test method it ports. Snapshots are taken and restored into a fresh operator where
 * Flink's test does so.
 *
 * Flink's key selectors are kept: the first input (numbers) is keyed by its decimal string, the
 * second (strings) by itself, so `17` and `"17"` share a key.
 *
 * Where Weir differs from Flink on purpose, the test says so:
 * - a record without an event time has the timestamp `NO_TIMESTAMP` (-Infinity) in Weir, where
 *   Flink's `ctx.timestamp()` is null; the functions below print it as Flink does ("TS:null"),
 *   and the harness reports such records with an undefined timestamp;
 * - the current key is `ctx.key` (Flink's `ctx.getCurrentKey()`), the time domain of a timer is
 *   `ctx.timeDomain` ('event-time' | 'processing-time', Flink's `TimeDomain`);
 * - keyed state is declared in `open` from the runtime context (Flink's state descriptors
 *   and `getRuntimeContext().getState`), and a value state reads `undefined` when empty
 *   (Flink: null).
 *
 * Side outputs of co-process functions are covered as whole jobs by the port of
 * SideOutputITCase (test/time/flink-side-output-timestamp-scenarios.test.ts); the two cases
 * below repeat its keyed and non-keyed scenarios at the operator, where the event times of
 * side records (from either input and from timers) can be checked.
 *
 * Not ported: nothing; every test method of both classes has its scenario here.
 */
import { describe, expect, it } from 'vitest';
import {
  type Collector,
  type CoProcessFunction,
  type KeyedCoProcessFunction,
  type KeyedTimerService,
  NO_TIMESTAMP,
  OutputTag,
  type ValueState,
} from '../../src/index.js';
import { type Emitted, TwoInputHarness } from '../../src/testing/index.js';

// ---- Flink's key selectors and helpers -------------------------------------------------------

/** Flink's IntToStringKeySelector. */
const intToString = (n: number): string => `${n}`;
/** Flink's IdentityKeySelector. */
const identity = (s: string): string => s;

/** A record's event time as Flink prints `ctx.timestamp()`: null when it has none. */
const printed = (timestamp: number): string =>
  timestamp === NO_TIMESTAMP ? 'null' : `${timestamp}`;

/** An element of Flink's expected output queue: a record (with or without event time) or a watermark. */
type Expected = { readonly record: string; readonly ts?: number } | { readonly watermark: number };

const rec = (value: string, ts?: number): Expected =>
  ts === undefined ? { record: value } : { record: value, ts };
const wm = (time: number): Expected => ({ watermark: time });

/** What the harness saw, as Flink's output queue: records and watermarks, in order. */
function outputOf<IN1, IN2>(h: TwoInputHarness<IN1, IN2, string>): Expected[] {
  const out: Expected[] = [];
  for (const e of h.emitted() as readonly Emitted<string>[]) {
    if (e.kind === 'record') out.push(rec(e.value, e.timestamp));
    else if (e.kind === 'watermark') out.push(wm(e.time));
  }
  return out;
}

function keyedHarness(
  fn: KeyedCoProcessFunction<string, number, string, string>,
  restoreFrom?: ReturnType<TwoInputHarness<number, string, string>['snapshot']>,
): TwoInputHarness<number, string, string> {
  return TwoInputHarness.forKeyedCoProcessFunction(
    fn,
    intToString,
    identity,
    restoreFrom === undefined ? {} : { restoreFrom },
  );
}

// ---- Flink's functions ------------------------------------------------------------------------

/** Flink's WatermarkQueryingProcessFunction (keyed and non-keyed alike). */
function watermarkQuerying(): CoProcessFunction<number, string, string> &
  KeyedCoProcessFunction<string, number, string, string> {
  return {
    processElement1(value, ctx, out) {
      out.collect(`${value}WM:${ctx.timerService.currentWatermark()} TS:${printed(ctx.timestamp)}`);
    },
    processElement2(value, ctx, out) {
      out.collect(`${value}WM:${ctx.timerService.currentWatermark()} TS:${printed(ctx.timestamp)}`);
    },
  };
}

/** Flink's ProcessingTimeQueryingProcessFunction (keyed and non-keyed alike). */
function processingTimeQuerying(): CoProcessFunction<number, string, string> &
  KeyedCoProcessFunction<string, number, string, string> {
  return {
    processElement1(value, ctx, out) {
      out.collect(
        `${value}PT:${ctx.timerService.currentProcessingTime()} TS:${printed(ctx.timestamp)}`,
      );
    },
    processElement2(value, ctx, out) {
      out.collect(
        `${value}PT:${ctx.timerService.currentProcessingTime()} TS:${printed(ctx.timestamp)}`,
      );
    },
  };
}

/**
 * Flink's EventTimeTriggeringStatefulProcessFunction / ProcessingTimeTriggeringStatefulProcessFunction:
 * the first record of a key is emitted, remembered, and sets a timer 5 after the current time;
 * the second clears the state and deletes the timer 4 after the current time (which is the
 * first one's only if time moved by one in between).
 */
function statefulTriggering(
  domain: 'event-time' | 'processing-time',
): KeyedCoProcessFunction<string, number, string, string> {
  // One harness per function: the state declared in `open` can live in the closure.
  let seen: ValueState<string>;
  const handle = (
    value: unknown,
    timers: KeyedTimerService,
    out: Collector<string>,
    channel: number,
  ): void => {
    const now =
      domain === 'event-time' ? timers.currentWatermark() : timers.currentProcessingTime();
    if (seen.value() === undefined) {
      out.collect(`INPUT${channel}:${value}`);
      seen.update(String(value));
      if (domain === 'event-time') timers.registerEventTimeTimer(now + 5);
      else timers.registerProcessingTimeTimer(now + 5);
    } else {
      seen.clear();
      if (domain === 'event-time') timers.deleteEventTimeTimer(now + 4);
      else timers.deleteProcessingTimeTimer(now + 4);
    }
  };
  return {
    open(context) {
      seen = context.state.getValueState<string>('seen-element');
    },
    processElement1(value, ctx, out) {
      handle(value, ctx.timerService, out, 1);
    },
    processElement2(value, ctx, out) {
      handle(value, ctx.timerService, out, 2);
    },
    onTimer(_time, ctx, out) {
      expect(ctx.timeDomain).toBe(domain);
      out.collect(`STATE:${seen.value()}`);
    },
  };
}

/** Flink's BothTriggeringProcessFunction: timers of both domains from both inputs, one of each deleted. */
const bothTriggering: KeyedCoProcessFunction<string, number, string, string> = {
  processElement1(_value, ctx) {
    ctx.timerService.registerProcessingTimeTimer(3);
    ctx.timerService.registerEventTimeTimer(6);
    ctx.timerService.deleteProcessingTimeTimer(3);
  },
  processElement2(_value, ctx) {
    ctx.timerService.registerEventTimeTimer(4);
    ctx.timerService.registerProcessingTimeTimer(5);
    ctx.timerService.deleteEventTimeTimer(4);
  },
  onTimer(_time, ctx, out) {
    out.collect(ctx.timeDomain === 'event-time' ? 'EVENT:1777' : 'PROC:1777');
  },
};

// ---- KeyedCoProcessOperatorTest -----------------------------------------------------------------

describe('Flink KeyedCoProcessOperatorTest scenarios', () => {
  it('testTimestampAndWatermarkQuerying', () => {
    const h = keyedHarness(watermarkQuerying());
    h.processWatermark1(17);
    h.processWatermark2(17);
    h.processElement1(5, 12);
    h.processWatermark1(42);
    h.processWatermark2(42);
    h.processElement2('6', 13);

    expect(outputOf(h)).toEqual([wm(17), rec('5WM:17 TS:12', 12), wm(42), rec('6WM:42 TS:13', 13)]);
  });

  it('testTimestampAndProcessingTimeQuerying', () => {
    const h = keyedHarness(processingTimeQuerying());
    h.setProcessingTime(17);
    h.processElement1(5);
    h.setProcessingTime(42);
    h.processElement2('6');

    expect(outputOf(h)).toEqual([rec('5PT:17 TS:null'), rec('6PT:42 TS:null')]);
  });

  it('testEventTimeTimers', () => {
    const h = keyedHarness({
      processElement1(value, ctx, out) {
        out.collect(`INPUT1:${value}`);
        ctx.timerService.registerEventTimeTimer(5);
      },
      processElement2(value, ctx, out) {
        out.collect(`INPUT2:${value}`);
        ctx.timerService.registerEventTimeTimer(6);
      },
      onTimer(_time, ctx, out) {
        expect(ctx.timeDomain).toBe('event-time');
        out.collect(`${ctx.key}:1777`);
      },
    });
    h.processElement1(17, 42);
    h.processElement2('18', 42);
    h.processWatermark1(5);
    h.processWatermark2(5);
    h.processWatermark1(6);
    h.processWatermark2(6);

    expect(outputOf(h)).toEqual([
      rec('INPUT1:17', 42),
      rec('INPUT2:18', 42),
      rec('17:1777', 5),
      wm(5),
      rec('18:1777', 6),
      wm(6),
    ]);
  });

  it('testProcessingTimeTimers', () => {
    const h = keyedHarness({
      processElement1(value, ctx, out) {
        out.collect(`INPUT1:${value}`);
        ctx.timerService.registerProcessingTimeTimer(5);
      },
      processElement2(value, ctx, out) {
        out.collect(`INPUT2:${value}`);
        ctx.timerService.registerProcessingTimeTimer(6);
      },
      onTimer(_time, ctx, out) {
        expect(ctx.timeDomain).toBe('processing-time');
        out.collect('1777');
      },
    });
    h.processElement1(17);
    h.processElement2('18');
    h.setProcessingTime(5);
    h.setProcessingTime(6);

    expect(outputOf(h)).toEqual([rec('INPUT1:17'), rec('INPUT2:18'), rec('1777'), rec('1777')]);
  });

  it('testEventTimeTimerWithState: no state or timer leaks between keys', () => {
    const h = keyedHarness(statefulTriggering('event-time'));
    h.processWatermark1(1);
    h.processWatermark2(1);
    h.processElement1(17, 0); // sets a timer for 6
    h.processElement1(13, 0); // sets a timer for 6
    h.processWatermark1(2);
    h.processWatermark2(2);
    h.processElement1(13, 1); // deletes key 13's timer
    h.processElement2('42', 1); // sets a timer for 7
    h.processWatermark1(6);
    h.processWatermark2(6);
    h.processWatermark1(7);
    h.processWatermark2(7);

    expect(outputOf(h)).toEqual([
      wm(1),
      rec('INPUT1:17', 0),
      rec('INPUT1:13', 0),
      wm(2),
      rec('INPUT2:42', 1),
      rec('STATE:17', 6),
      wm(6),
      rec('STATE:42', 7),
      wm(7),
    ]);
  });

  it('testProcessingTimeTimerWithState: no state or timer leaks between keys', () => {
    const h = keyedHarness(statefulTriggering('processing-time'));
    h.setProcessingTime(1);
    h.processElement1(17); // sets a timer for 6
    h.processElement1(13); // sets a timer for 6
    h.setProcessingTime(2);
    h.processElement1(13); // deletes key 13's timer
    h.processElement2('42'); // sets a timer for 7
    h.setProcessingTime(6);
    h.setProcessingTime(7);

    expect(outputOf(h)).toEqual([
      rec('INPUT1:17'),
      rec('INPUT1:13'),
      rec('INPUT2:42'),
      rec('STATE:17'),
      rec('STATE:42'),
    ]);
  });

  it('testSnapshotAndRestore: timers of both domains, set from both inputs, survive a restore', async () => {
    const h = keyedHarness(bothTriggering);
    h.processElement1(5, 12);
    h.processElement2('5', 12);
    const snapshot = h.snapshot(0);
    await h.close();
    expect(outputOf(h)).toEqual([]);

    const restored = keyedHarness(bothTriggering, snapshot);
    restored.setProcessingTime(5);
    restored.processWatermark1(6);
    restored.processWatermark2(6);

    // The deleted timers (processing time 3, event time 4) stay deleted.
    expect(outputOf(restored)).toEqual([rec('PROC:1777'), rec('EVENT:1777', 6), wm(6)]);
    await restored.close();
  });

  it('testGetCurrentKeyFromContext', () => {
    const h = keyedHarness({
      processElement1(value, ctx, out) {
        out.collect(`${value},${ctx.key}`);
      },
      processElement2(value, ctx, out) {
        out.collect(`${value},${ctx.key}`);
      },
    });
    h.processElement1(5);
    h.processElement1(6);
    h.processElement2('hello');
    h.processElement2('world');

    expect(outputOf(h)).toEqual([rec('5,5'), rec('6,6'), rec('hello,hello'), rec('world,world')]);
  });

  it('SideOutputITCase.testKeyedCoProcessFunctionSideOutput, at the operator: side records from both inputs and from timers keep their event times', () => {
    const side = new OutputTag<string>('side');
    // Flink's function: the first input's values below 3 and the second's from 3 up pass, each
    // also to the side output with its key. Here a timer of each key adds a side record too.
    const h = TwoInputHarness.forKeyedCoProcessFunction<number, number, number, number>(
      {
        processElement1(value, ctx, out) {
          if (value < 3) {
            out.collect(value);
            ctx.output(side, `sideout1-${ctx.key}-${value}`);
            ctx.timerService.registerEventTimeTimer(ctx.timestamp + 10);
          }
        },
        processElement2(value, ctx, out) {
          if (value >= 3) {
            out.collect(value);
            ctx.output(side, `sideout2-${ctx.key}-${value}`);
            ctx.timerService.registerEventTimeTimer(ctx.timestamp + 10);
          }
        },
        onTimer(time, ctx) {
          ctx.output(side, `timer-${ctx.key}@${time}`);
        },
      },
      (n) => n,
      (n) => n,
    );
    for (const n of [1, 2, 3, 4, 5]) {
      h.processElement1(n, n);
      h.processElement2(n, n);
    }
    h.processWatermark1(12);
    h.processWatermark2(12);

    expect(h.output()).toEqual([1, 2, 3, 4, 5].map((n) => ({ value: n, timestamp: n })));
    expect(h.sideOutput(side)).toEqual([
      { value: 'sideout1-1-1', timestamp: 1 },
      { value: 'sideout1-2-2', timestamp: 2 },
      { value: 'sideout2-3-3', timestamp: 3 },
      { value: 'sideout2-4-4', timestamp: 4 },
      { value: 'sideout2-5-5', timestamp: 5 },
      { value: 'timer-1@11', timestamp: 11 },
      { value: 'timer-2@12', timestamp: 12 },
    ]);
    // Side records come before the watermark that fired their timers.
    const kinds = h.emitted().map((e) => e.kind);
    expect(kinds.lastIndexOf('side')).toBeLessThan(kinds.indexOf('watermark'));
  });
});

// ---- CoProcessOperatorTest ----------------------------------------------------------------------

describe('Flink CoProcessOperatorTest scenarios', () => {
  it('testTimestampAndWatermarkQuerying', () => {
    const h = TwoInputHarness.forCoProcessFunction<number, string, string>(watermarkQuerying());
    h.processWatermark1(17);
    h.processWatermark2(17);
    h.processElement1(5, 12);
    h.processWatermark1(42);
    h.processWatermark2(42);
    h.processElement2('6', 13);

    expect(outputOf(h)).toEqual([wm(17), rec('5WM:17 TS:12', 12), wm(42), rec('6WM:42 TS:13', 13)]);
  });

  it('testTimestampAndProcessingTimeQuerying', () => {
    const h = TwoInputHarness.forCoProcessFunction<number, string, string>(
      processingTimeQuerying(),
    );
    h.setProcessingTime(17);
    h.processElement1(5);
    h.setProcessingTime(42);
    h.processElement2('6');

    expect(outputOf(h)).toEqual([rec('5PT:17 TS:null'), rec('6PT:42 TS:null')]);
  });

  it('SideOutputITCase.testCoProcessFunctionSideOutput, at the operator: side records of both inputs keep their event times', () => {
    const side = new OutputTag<string>('side');
    const h = TwoInputHarness.forCoProcessFunction<number, number, number>({
      processElement1(value, ctx, out) {
        if (value < 3) {
          out.collect(value);
          ctx.output(side, `sideout1-${value}`);
        }
      },
      processElement2(value, ctx, out) {
        if (value >= 3) {
          out.collect(value);
          ctx.output(side, `sideout2-${value}`);
        }
      },
    });
    for (const n of [1, 2, 3, 4, 5]) {
      h.processElement1(n, n);
      h.processElement2(n, n);
    }
    h.processWatermark1(5);
    h.processWatermark2(5);

    expect(h.output()).toEqual([1, 2, 3, 4, 5].map((n) => ({ value: n, timestamp: n })));
    expect(h.sideOutput(side)).toEqual([
      { value: 'sideout1-1', timestamp: 1 },
      { value: 'sideout1-2', timestamp: 2 },
      { value: 'sideout2-3', timestamp: 3 },
      { value: 'sideout2-4', timestamp: 4 },
      { value: 'sideout2-5', timestamp: 5 },
    ]);
    expect(h.watermarks()).toEqual([5]);
  });
});
