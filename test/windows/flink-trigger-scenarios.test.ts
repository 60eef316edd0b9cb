/**
 * Scenarios of Flink's trigger tests (CountTriggerTest, EventTimeTriggerTest,
 * ProcessingTimeTriggerTest, PurgingTriggerTest, Continuous*TimeTriggerTest,
 * WindowOperatorContractTest, EvictingWindowOperatorTest's count windows), with
 * Flink's inputs and expected results, run against Weir's triggers and its
 * general window operator under a manual clock.
 */
import { describe, expect, it } from 'vitest';
import {
  type Key,
  type ProcessWindowFunction,
  type Trigger,
  type TriggerContext,
  type TriggerResult,
  Triggers,
  type ValueState,
  type Window,
  type WindowAssigner,
  Windows,
} from '../../src/index.js';
import { listAggregation, processFiring } from '../../src/runtime/windowing/window-aggregation.js';
import { WindowOperator } from '../../src/runtime/windowing/window-operator.js';
import { KeyedOneInputHarness } from '../../src/testing/index.js';
import { env1, ev } from '../helpers/timeline.js';

// ---- a trigger on its own, as Flink's TriggerTestHarness drives one -------------------------

const wid = (w: Window) => `${w.start}:${w.end}`;

/** One key's trigger state and timers per window, a watermark and a processing time. */
class TriggerHarness<T> {
  readonly state = new Map<string, Map<string, unknown>>();
  readonly eventTimers = new Map<string, Set<number>>();
  readonly processingTimers = new Map<string, Set<number>>();
  private readonly windows = new Map<string, Window>();
  watermark = Number.NEGATIVE_INFINITY;
  processingTime = 0;

  constructor(readonly trigger: Trigger<T>) {}

  private context(window: Window, merged: readonly Window[] = []): TriggerContext {
    const id = wid(window);
    this.windows.set(id, window);
    const timers = (m: Map<string, Set<number>>) => {
      const s = m.get(id) ?? new Set<number>();
      m.set(id, s);
      return s;
    };
    const states = () => {
      const s = this.state.get(id) ?? new Map<string, unknown>();
      this.state.set(id, s);
      return s;
    };
    return {
      currentWatermark: () => this.watermark,
      currentProcessingTime: () => this.processingTime,
      registerEventTimeTimer: (t) => void timers(this.eventTimers).add(t),
      deleteEventTimeTimer: (t) => void timers(this.eventTimers).delete(t),
      registerProcessingTimeTimer: (t) => void timers(this.processingTimers).add(t),
      deleteProcessingTimeTimer: (t) => void timers(this.processingTimers).delete(t),
      getState: <S>(name: string): ValueState<S> => ({
        value: () => states().get(name) as S | undefined,
        update: (v: S) => void states().set(name, v),
        clear: () => {
          states().delete(name);
          if (states().size === 0) this.state.delete(id);
        },
      }),
      mergedStates: <S>(name: string): S[] =>
        merged.flatMap((w) => {
          const v = this.state.get(wid(w))?.get(name);
          return v === undefined ? [] : [v as S];
        }),
    };
  }

  processElement(value: T, timestamp: number, window: Window): TriggerResult {
    return this.trigger.onElement(value, timestamp, window, this.context(window));
  }

  /** Fires due event-time timers in time order: the results per window. */
  advanceWatermark(time: number): [string, TriggerResult][] {
    this.watermark = time;
    return this.fireDue(this.eventTimers, time, (t, w, c) => this.trigger.onEventTime(t, w, c));
  }

  advanceProcessingTime(time: number): [string, TriggerResult][] {
    this.processingTime = time;
    return this.fireDue(this.processingTimers, time, (t, w, c) =>
      this.trigger.onProcessingTime(t, w, c),
    );
  }

  private fireDue(
    timers: Map<string, Set<number>>,
    time: number,
    call: (t: number, w: Window, c: TriggerContext) => TriggerResult,
  ): [string, TriggerResult][] {
    const results: [string, TriggerResult][] = [];
    for (;;) {
      let next: [string, number] | undefined;
      for (const [id, ts] of timers)
        for (const t of ts) if (t <= time && (next === undefined || t < next[1])) next = [id, t];
      if (next === undefined) return results;
      timers.get(next[0])!.delete(next[1]);
      const window = this.windows.get(next[0])!;
      results.push([next[0], call(next[1], window, this.context(window))]);
    }
  }

  /** As the window operator merges: onMerge on the result, then clear() on each merged window. */
  mergeWindows(target: Window, merged: readonly Window[]): void {
    this.trigger.onMerge!(target, this.context(target, merged));
    for (const w of merged) this.clear(w);
  }

  /** The trigger's clear(), then the window's state goes, as the window operator drops it. */
  clear(window: Window): void {
    this.trigger.clear(window, this.context(window));
    this.state.delete(wid(window));
  }

  stateEntries(window?: Window): number {
    if (window !== undefined) return this.state.get(wid(window))?.size ?? 0;
    let n = 0;
    for (const s of this.state.values()) n += s.size;
    return n;
  }

  timerCount(kind: 'event' | 'processing', window?: Window): number {
    const m = kind === 'event' ? this.eventTimers : this.processingTimers;
    if (window !== undefined) return m.get(wid(window))?.size ?? 0;
    let n = 0;
    for (const s of m.values()) n += s.size;
    return n;
  }
}

const w = (start: number, end: number): Window => ({ start, end });

describe("Flink's CountTriggerTest", () => {
  it('keeps the count of each window apart and fires at the count', () => {
    const h = new TriggerHarness(Triggers.count<number>(3));
    expect(h.processElement(1, 0, w(0, 2))).toBe('continue');
    expect(h.processElement(1, 0, w(2, 4))).toBe('continue');
    expect(h.timerCount('event') + h.timerCount('processing')).toBe(0);
    expect([h.stateEntries(w(0, 2)), h.stateEntries(w(2, 4))]).toEqual([1, 1]);
    expect(h.processElement(1, 0, w(0, 2))).toBe('continue');
    expect(h.processElement(1, 0, w(0, 2))).toBe('fire');
    expect(h.processElement(1, 0, w(2, 4))).toBe('continue');
    // The count restarts after a firing.
    expect([h.stateEntries(w(0, 2)), h.stateEntries(w(2, 4))]).toEqual([0, 1]);
    expect(h.processElement(1, 0, w(2, 4))).toBe('fire');
    expect(h.stateEntries()).toBe(0);
  });

  it('adds the counts of merged windows', () => {
    const h = new TriggerHarness(Triggers.count<number>(3));
    for (const win of [w(0, 2), w(2, 4), w(4, 6)])
      expect(h.processElement(1, 0, win)).toBe('continue');
    h.mergeWindows(w(0, 4), [w(0, 2), w(2, 4)]);
    expect(h.stateEntries(w(0, 4))).toBe(1);
    expect(h.processElement(1, 0, w(0, 4))).toBe('fire');
    expect(h.stateEntries(w(0, 4))).toBe(0);
    expect(h.processElement(1, 0, w(4, 6))).toBe('continue');
    expect(h.processElement(1, 0, w(4, 6))).toBe('fire');
    expect(h.stateEntries()).toBe(0);
  });

  it('a merge into a window that subsumes both keeps their sum', () => {
    const h = new TriggerHarness(Triggers.count<number>(3));
    h.processElement(1, 0, w(2, 4));
    h.processElement(1, 0, w(4, 6));
    h.mergeWindows(w(0, 8), [w(2, 4), w(4, 6)]);
    expect(h.stateEntries()).toBe(1);
    expect(h.processElement(1, 0, w(0, 8))).toBe('fire');
    expect(h.stateEntries()).toBe(0);
  });
});

describe("Flink's EventTimeTriggerTest and ProcessingTimeTriggerTest", () => {
  it('event time: one timer per window at its last millisecond; fires when the watermark reaches it', () => {
    const h = new TriggerHarness(Triggers.eventTime<number>());
    expect(h.processElement(1, 0, w(0, 2))).toBe('continue');
    expect(h.processElement(1, 0, w(0, 2))).toBe('continue');
    expect(h.processElement(1, 0, w(2, 4))).toBe('continue');
    expect(h.timerCount('event')).toBe(2);
    expect(h.advanceWatermark(2)).toEqual([['0:2', 'fire']]);
    expect(h.advanceWatermark(4)).toEqual([['2:4', 'fire']]);
    expect(h.timerCount('event')).toBe(0);
  });

  it('event time: a record of a window behind the watermark fires at once and sets no timer', () => {
    const h = new TriggerHarness(Triggers.eventTime<number>());
    h.advanceWatermark(2);
    expect(h.processElement(1, 0, w(0, 2))).toBe('fire');
    expect(h.timerCount('event')).toBe(0);
  });

  it('event time: clear() deletes the window timer; a merge sets the merged window timer', () => {
    const h = new TriggerHarness(Triggers.eventTime<number>());
    h.processElement(1, 0, w(0, 2));
    h.processElement(1, 0, w(2, 4));
    h.clear(w(2, 4));
    expect([h.timerCount('event', w(0, 2)), h.timerCount('event', w(2, 4))]).toEqual([1, 0]);
    h.processElement(1, 0, w(2, 4));
    h.mergeWindows(w(0, 4), [w(0, 2), w(2, 4)]);
    expect(h.timerCount('event')).toBe(1);
    expect(h.advanceWatermark(4)).toEqual([['0:4', 'fire']]);
  });

  it('event time: a merged window already behind the watermark gets no timer', () => {
    const h = new TriggerHarness(Triggers.eventTime<number>());
    h.processElement(1, 0, w(0, 2));
    h.processElement(1, 0, w(2, 4));
    h.advanceWatermark(10);
    h.mergeWindows(w(0, 4), [w(0, 2), w(2, 4)]);
    expect(h.timerCount('event')).toBe(0);
  });

  it('processing time: fires when the clock reaches the last millisecond; merge and clear', () => {
    const h = new TriggerHarness(Triggers.processingTime<number>());
    h.processElement(1, 0, w(0, 2));
    h.processElement(1, 0, w(2, 4));
    expect(h.timerCount('processing')).toBe(2);
    expect(h.advanceProcessingTime(2)).toEqual([['0:2', 'fire']]);
    expect(h.advanceProcessingTime(4)).toEqual([['2:4', 'fire']]);
    h.processElement(1, 0, w(0, 12));
    h.processElement(1, 0, w(10, 14));
    h.mergeWindows(w(0, 14), [w(0, 12), w(10, 14)]);
    expect(h.timerCount('processing')).toBe(1);
    expect(h.advanceProcessingTime(13)).toEqual([['0:14', 'fire']]);
  });
});

describe("Flink's PurgingTriggerTest", () => {
  /** A trigger answering `result` from every callback, recording the calls. */
  function answering(result: TriggerResult, calls: string[]): Trigger<number> {
    const answer = (call: string) => () => {
      calls.push(call);
      return result;
    };
    return {
      onElement: answer('element'),
      onEventTime: answer('event'),
      onProcessingTime: answer('processing'),
      onMerge: () => void calls.push('merge'),
      clear: () => void calls.push('clear'),
    };
  }

  it.each([
    ['continue', 'continue'],
    ['fire', 'fire-and-purge'],
    ['fire-and-purge', 'fire-and-purge'],
    ['purge', 'purge'],
  ] as const)(
    'turns %s into %s in every callback, and forwards merge and clear',
    (inner, outer) => {
      const calls: string[] = [];
      const h = new TriggerHarness(Triggers.purging(answering(inner, calls)));
      expect(h.processElement(1, 0, w(0, 2))).toBe(outer);
      expect(h.trigger.onEventTime(1, w(0, 2), {} as TriggerContext)).toBe(outer);
      expect(h.trigger.onProcessingTime(1, w(0, 2), {} as TriggerContext)).toBe(outer);
      h.mergeWindows(w(0, 4), [w(0, 2), w(2, 4)]);
      expect(calls).toEqual(['element', 'event', 'processing', 'merge', 'clear', 'clear']);
    },
  );
});

describe("Flink's ContinuousEventTimeTriggerTest", () => {
  it('a record of a window behind the watermark fires at once and leaves no state or timer', () => {
    const h = new TriggerHarness(Triggers.continuousEventTime<number>(3_600_000));
    h.advanceWatermark(2);
    expect(h.processElement(1, 1, w(0, 2))).toBe('fire');
    expect(h.stateEntries()).toBe(0);
    expect(h.timerCount('event')).toBe(0);
  });

  it('windows keep their own firings; clear() leaves no state', () => {
    const h = new TriggerHarness(Triggers.continuousEventTime<number>(3_600_000));
    for (const win of [w(0, 2), w(0, 2), w(2, 4), w(2, 4)])
      expect(h.processElement(1, win.start, win)).toBe('continue');
    expect(h.advanceWatermark(2)).toEqual([['0:2', 'fire']]);
    expect(h.advanceWatermark(4)).toEqual([['2:4', 'fire']]);
    h.clear(w(0, 2));
    h.clear(w(2, 4));
    expect(h.stateEntries()).toBe(0);
  });

  it('fires every interval of event time, then at the window end', () => {
    const h = new TriggerHarness(Triggers.continuousEventTime<number>(5));
    const win = w(0, 20);
    h.processElement(1, 1, win);
    expect(h.advanceWatermark(5)).toEqual([['0:20', 'fire']]);
    expect(h.advanceWatermark(10)).toEqual([['0:20', 'fire']]);
    expect(h.advanceWatermark(15)).toEqual([['0:20', 'fire']]);
    expect(h.advanceWatermark(19)).toEqual([['0:20', 'fire']]);
    h.clear(win);
    expect(h.stateEntries() + h.timerCount('event')).toBe(0);
  });

  it('a merged window fires when the watermark reaches its end', () => {
    const h = new TriggerHarness(Triggers.continuousEventTime<number>(3_600_000));
    h.processElement(1, 0, w(0, 2));
    h.processElement(1, 2, w(2, 4));
    h.mergeWindows(w(0, 4), [w(0, 2), w(2, 4)]);
    expect(h.advanceWatermark(4)).toEqual([['0:4', 'fire']]);
  });
});

// ---- the window operator with a trigger, under a manual clock ---------------------------

type In = readonly [key: string, value: number];

/** `key [start,end) v1,v2,...` for each firing. */
const listing: ProcessWindowFunction<In, string, string> = {
  process(key, ctx, elements, out) {
    out.collect(
      `${key} [${ctx.window.start},${ctx.window.end}) ${elements.map((e) => e[1]).join(',')}`,
    );
  },
};

/** Sums of each firing, as Flink's IntegerSumWindowFunction: `[start,end) sum`. */
const summing: ProcessWindowFunction<In, string, string> = {
  process(_key, ctx, elements, out) {
    const sum = elements.reduce((s, e) => s + e[1], 0);
    out.collect(`[${ctx.window.start},${ctx.window.end}) ${sum}`);
  },
};

function windowHarness(
  assigner: WindowAssigner<In>,
  trigger: Trigger<In>,
  fn: ProcessWindowFunction<In, string, string> = listing,
  allowedLateness = 0,
) {
  const op = new WindowOperator<In, In[], In[], string>({
    assigner,
    trigger,
    allowedLateness,
    lateDataTag: undefined,
    aggregation: listAggregation<In>(),
    firing: processFiring(fn as ProcessWindowFunction<unknown, string, Key>, false),
  });
  return new KeyedOneInputHarness(op, (v: In) => v[0]);
}

/** Output values with their timestamps: `value@t`. */
const stamped = (h: ReturnType<typeof windowHarness>) =>
  h.output().map((r) => `${r.value}@${r.timestamp}`);

describe("Flink's ContinuousProcessingTimeTriggerTest, through the window operator", () => {
  it('tumbling processing-time windows fire every interval and at their last millisecond', () => {
    const h = windowHarness(
      Windows.tumblingProcessingTime(10),
      Triggers.continuousProcessingTime(5),
      summing,
    );
    h.setProcessingTime(0);
    h.processElement(['k', 1]);
    h.setProcessingTime(2);
    h.processElement(['k', 2]);
    h.setProcessingTime(5);
    expect(stamped(h)).toEqual(['[0,10) 3@9']);
    h.setProcessingTime(7);
    h.processElement(['k', 3]);
    // The last firing of [0, 10) is at 9, when the window ends (Flink caps it there).
    h.setProcessingTime(9);
    expect(stamped(h)).toEqual(['[0,10) 3@9', '[0,10) 6@9']);
    h.setProcessingTime(10);
    h.processElement(['k', 3]);
    h.setProcessingTime(15);
    expect(stamped(h).slice(2)).toEqual(['[10,20) 3@19']);
    h.setProcessingTime(18);
    h.processElement(['k', 3]);
    h.setProcessingTime(20);
    expect(stamped(h).slice(2)).toEqual(['[10,20) 3@19', '[10,20) 6@19']);
  });

  it('event-time windows fire on the wall clock, every interval', () => {
    const h = windowHarness(Windows.tumbling(10), Triggers.continuousProcessingTime(5), summing);
    h.setProcessingTime(0);
    h.processElement(['k', 1], 1);
    h.processElement(['k', 2], 3);
    h.processElement(['k', 3], 7);
    h.setProcessingTime(5);
    expect(stamped(h)).toEqual(['[0,10) 6@9']);
    h.processElement(['k', 3], 8);
    h.setProcessingTime(10);
    expect(stamped(h)).toEqual(['[0,10) 6@9', '[0,10) 9@9']);
    h.processElement(['k', 3], 12);
    h.setProcessingTime(15);
    expect(stamped(h)).toEqual(['[0,10) 6@9', '[0,10) 9@9', '[10,20) 3@19']);
  });

  it('processing-time sessions: the merged window keeps the pending firing, then fires at its end', () => {
    const h = windowHarness(
      Windows.sessionProcessingTime(10),
      Triggers.continuousProcessingTime(5),
      summing,
    );
    h.setProcessingTime(0);
    h.processElement(['k', 1]); // [0, 10)
    h.setProcessingTime(2);
    h.processElement(['k', 2]); // [2, 12): merged into [0, 12)
    h.setProcessingTime(5);
    expect(stamped(h)).toEqual(['[0,12) 3@11']);
    h.setProcessingTime(9);
    expect(stamped(h)).toHaveLength(1);
    h.setProcessingTime(10);
    expect(stamped(h)).toHaveLength(2);
    h.setProcessingTime(15);
    expect(stamped(h)).toEqual(['[0,12) 3@11', '[0,12) 3@11', '[0,12) 3@11']);
    // The window is gone.
    h.setProcessingTime(100);
    expect(stamped(h)).toHaveLength(3);
  });
});

/** A trigger answering with fixed results, registering the timers it is told to. */
function scripted(options: {
  onElement?: TriggerResult;
  onEventTime?: TriggerResult;
  onProcessingTime?: TriggerResult;
  eventTimerAt?: (window: Window) => number;
  processingTimerAt?: (window: Window) => number;
  log?: string[];
}): Trigger<In> {
  const log = options.log ?? [];
  return {
    onElement(_v, _t, window, ctx) {
      if (options.eventTimerAt) ctx.registerEventTimeTimer(options.eventTimerAt(window));
      if (options.processingTimerAt)
        ctx.registerProcessingTimeTimer(options.processingTimerAt(window));
      ctx.getState<string>('s').update('hello');
      return options.onElement ?? 'continue';
    },
    onEventTime(time, window) {
      log.push(`event ${time} ${wid(window)}`);
      return options.onEventTime ?? 'continue';
    },
    onProcessingTime(time, window) {
      log.push(`processing ${time} ${wid(window)}`);
      return options.onProcessingTime ?? 'continue';
    },
    onMerge() {},
    clear(window, ctx) {
      log.push(`clear ${wid(window)} state=${ctx.getState<string>('s').value() ?? '-'}`);
    },
  };
}

describe("Flink's WindowOperatorContractTest", () => {
  it('onElement is called per window of the record, and fire emits each window without purging it', () => {
    const h = windowHarness(Windows.sliding(4, 2), scripted({ onElement: 'fire' }));
    h.processElement(['k', 42], 1);
    // Windows of t=1: [0, 4) and [-2, 2), latest start first as Flink assigns them.
    expect(h.outputValues()).toEqual(['k [0,4) 42', 'k [-2,2) 42']);
    h.processElement(['k', 43], 1);
    expect(h.outputValues().slice(2)).toEqual(['k [0,4) 42,43', 'k [-2,2) 42,43']);
  });

  it('fire-and-purge emits then empties the window; purge empties it silently', () => {
    const fp = windowHarness(Windows.tumbling(2), scripted({ onElement: 'fire-and-purge' }));
    fp.processElement(['k', 1], 0);
    fp.processElement(['k', 2], 0);
    expect(fp.outputValues()).toEqual(['k [0,2) 1', 'k [0,2) 2']);

    const p = windowHarness(
      Windows.tumbling(2),
      scripted({ onElement: 'purge', onEventTime: 'fire', eventTimerAt: () => 1 }),
    );
    p.processElement(['k', 1], 0);
    p.processElement(['k', 2], 0);
    // The timer fires on an empty window: nothing to emit.
    p.processWatermark(1);
    expect(p.outputValues()).toEqual([]);
  });

  it('timers fire the window in their domain; the emitted records carry the window end - 1', () => {
    const e = windowHarness(
      Windows.tumbling(2),
      scripted({ onEventTime: 'fire', eventTimerAt: () => 1 }),
    );
    e.processElement(['k', 0], 0);
    expect(e.outputValues()).toEqual([]);
    e.processWatermark(1);
    expect(stamped(e)).toEqual(['k [0,2) 0@1']);

    const p = windowHarness(
      Windows.tumbling(2),
      scripted({ onProcessingTime: 'fire-and-purge', processingTimerAt: () => 1 }),
    );
    p.processElement(['k', 0], 0);
    p.setProcessingTime(1);
    expect(stamped(p)).toEqual(['k [0,2) 0@1']);
  });

  it('clear() is called once, at the cleanup time (end - 1 + lateness), with the trigger state still there', () => {
    const log: string[] = [];
    const h = windowHarness(Windows.tumbling(2), scripted({ onElement: 'fire', log }), listing, 20);
    h.processElement(['k', 0], 0);
    h.processWatermark(1);
    h.processWatermark(20);
    expect(log.filter((l) => l.startsWith('clear'))).toEqual([]);
    h.processWatermark(21);
    expect(log).toEqual(['event 21 0:2', 'clear 0:2 state=hello']);
    // The window and its trigger state are gone: a record for it now is late.
    h.processElement(['k', 5], 1);
    expect(h.outputValues()).toEqual(['k [0,2) 0']);
  });

  it('processing-time windows are cleaned up at their end, whatever the lateness', () => {
    const log: string[] = [];
    const h = windowHarness(Windows.tumblingProcessingTime(2), scripted({ log }), listing, 100);
    h.setProcessingTime(0);
    h.processElement(['k', 0]);
    h.setProcessingTime(1);
    expect(log).toEqual(['processing 1 0:2', 'clear 0:2 state=hello']);
  });

  it('global windows are never cleaned up by time', () => {
    const log: string[] = [];
    const h = windowHarness(Windows.global(), scripted({ log }));
    h.processElement(['k', 0], 0);
    h.processWatermark(Number.MAX_SAFE_INTEGER);
    expect(log).toEqual([]);
  });

  it('a record of a window past its cleanup time is dropped without calling the trigger', () => {
    const log: string[] = [];
    let elements = 0;
    const trigger = scripted({ onElement: 'fire', log });
    const counting: Trigger<In> = {
      ...trigger,
      onElement: (v, t, win, ctx) => {
        elements++;
        return trigger.onElement(v, t, win, ctx);
      },
    };
    const h = windowHarness(Windows.tumbling(2), counting);
    h.processWatermark(20);
    h.processElement(['k', 0], 0);
    expect(elements).toBe(0);
    expect(h.outputValues()).toEqual([]);
  });

  it('a merge reads the state of the merged windows before their clear() (a trigger that clears its own state)', () => {
    /** Flink's CountTrigger as users write it: clear() drops the count. */
    const countClearing: Trigger<In> = {
      onElement(_v, _t, _w, ctx) {
        const s = ctx.getState<number>('count');
        const n = (s.value() ?? 0) + 1;
        if (n >= 3) {
          s.clear();
          return 'fire';
        }
        s.update(n);
        return 'continue';
      },
      onEventTime: () => 'continue',
      onProcessingTime: () => 'continue',
      onMerge(_w, ctx) {
        const total = ctx.mergedStates<number>('count').reduce((a, b) => a + b, 0);
        if (total > 0) ctx.getState<number>('count').update(total);
      },
      clear(_w, ctx) {
        ctx.getState<number>('count').clear();
      },
    };
    const h = windowHarness(Windows.session(10), countClearing);
    h.processElement(['k', 0], 0);
    h.processElement(['k', 20], 20);
    // Bridges [0, 10) and [20, 30): counts 1 + 1 + this record = 3.
    h.processElement(['k', 10], 10);
    expect(h.outputValues()).toEqual(['k [0,30) 0,20,10']);
  });

  it('the built-in count trigger counts across merged sessions', () => {
    const h = windowHarness(Windows.session(10), Triggers.purging(Triggers.count<In>(3)));
    h.processElement(['k', 0], 0);
    h.processElement(['k', 20], 20);
    h.processElement(['k', 10], 10);
    h.processElement(['k', 11], 11);
    expect(h.outputValues()).toEqual(['k [0,30) 0,20,10']);
  });
});

describe("Flink's EvictingWindowOperatorTest: count trigger with a count evictor (countWindow(4, 2))", () => {
  it('sums the last 4 records of a key every 2 of its records', async () => {
    const input = [
      ['key2', 3000],
      ['key2', 3999],
      ['key1', 20],
      ['key1', 0],
      ['key1', 999],
      ['key2', 1998],
      ['key2', 1999],
      ['key2', 1000],
      ['key1', 10999],
      ['key2', 1000],
    ] as const;
    const out = await env1()
      .fromArray(input.map(([k, t]) => ev(k, t, 1)))
      .keyBy((e) => e.k)
      .countWindow(4, 2)
      .reduce((a, b) => ({ k: b.k, t: b.t, v: a.v + b.v }))
      .executeAndCollect();
    expect(out.map((r) => `${r.key} ${r.value.v}`)).toEqual([
      'key2 2',
      'key1 2',
      'key2 4',
      'key1 4',
      'key2 4',
    ]);
  });
});

describe("Flink's ProcessingTimeoutTriggerTest", () => {
  // A window far in the future, so only the timeout's timer is due (Flink's harness starts its
  // clock at Long.MIN_VALUE for the same reason).
  const win = w(10_000, 10_002);

  it('fires at the timeout from the first record, then clears itself and the wrapped trigger', () => {
    const h = new TriggerHarness(Triggers.processingTimeout(Triggers.count<number>(3), 50));
    expect(h.processElement(1, 0, win)).toBe('continue');
    expect(h.processElement(1, 0, win)).toBe('continue');
    // One entry for the timeout, one for the count.
    expect(h.stateEntries()).toBe(2);
    expect([h.timerCount('processing'), h.timerCount('event')]).toEqual([1, 0]);
    expect(h.advanceProcessingTime(40)).toEqual([]);
    expect(h.advanceProcessingTime(50)).toEqual([['10000:10002', 'fire']]);
    expect(h.stateEntries()).toBe(0);
    expect([h.timerCount('processing'), h.timerCount('event')]).toEqual([0, 0]);
    // The wrapped trigger counts afresh.
    expect(h.processElement(1, 0, win)).toBe('continue');
    expect(h.processElement(1, 0, win)).toBe('continue');
    expect(h.processElement(1, 0, win)).toBe('fire');
  });

  it('with resetTimerOnNewRecord the timeout runs from the latest record', () => {
    const h = new TriggerHarness(
      Triggers.processingTimeout(Triggers.count<number>(3), 50, { resetTimerOnNewRecord: true }),
    );
    expect(h.advanceProcessingTime(0)).toEqual([]);
    expect(h.processElement(1, 0, win)).toBe('continue');
    expect(h.advanceProcessingTime(10)).toEqual([]);
    expect(h.processElement(1, 0, win)).toBe('continue');
    expect(h.stateEntries()).toBe(2);
    expect([h.timerCount('processing'), h.timerCount('event')]).toEqual([1, 0]);
    // Not at 50 (first record + 50) but at 60 (latest + 50).
    expect(h.advanceProcessingTime(50)).toEqual([]);
    expect(h.advanceProcessingTime(60)).toEqual([['10000:10002', 'fire']]);
    expect(h.stateEntries()).toBe(0);
    expect(h.timerCount('processing')).toBe(0);
    expect(h.processElement(1, 0, win)).toBe('continue');
    expect(h.processElement(1, 10, win)).toBe('continue');
    expect(h.processElement(1, 20, win)).toBe('fire');
  });

  it('with clearOnTimeout off, the timeout and the wrapped trigger keep their state', () => {
    const h = new TriggerHarness(
      Triggers.processingTimeout(Triggers.count<number>(3), 50, { clearOnTimeout: false }),
    );
    h.processElement(1, 0, win);
    h.processElement(1, 0, win);
    expect(h.stateEntries()).toBe(2);
    expect(h.advanceProcessingTime(50)).toEqual([['10000:10002', 'fire']]);
    expect(h.stateEntries()).toBe(2);
    expect([h.timerCount('processing'), h.timerCount('event')]).toEqual([0, 0]);
  });

  it('a purging wrapped trigger makes the timeout purge too', () => {
    const h = new TriggerHarness(
      Triggers.processingTimeout(Triggers.purging(Triggers.processingTime<number>()), 50, {
        clearOnTimeout: false,
      }),
    );
    h.processElement(1, 0, win);
    h.processElement(1, 0, win);
    // The timeout's state; the timeout's timer and the window's end.
    expect(h.stateEntries()).toBe(1);
    expect(h.timerCount('processing')).toBe(2);
    expect(h.advanceProcessingTime(50)).toEqual([['10000:10002', 'fire-and-purge']]);
    expect(h.stateEntries()).toBe(1);
    expect(h.timerCount('processing')).toBe(1);
  });

  it('a firing of the wrapped trigger on a record clears the pending timeout', () => {
    const h = new TriggerHarness(Triggers.processingTimeout(Triggers.count<number>(2), 50));
    h.processElement(1, 0, win);
    expect(h.processElement(1, 0, win)).toBe('fire');
    expect([h.stateEntries(), h.timerCount('processing')]).toEqual([0, 0]);
    expect(h.advanceProcessingTime(100)).toEqual([]);
  });

  it('through the window operator: an event-time window emits early when its records wait too long', () => {
    const h = windowHarness(
      Windows.tumbling(1000),
      Triggers.processingTimeout(Triggers.eventTime<In>(), 100),
      summing,
    );
    h.setProcessingTime(0);
    h.processElement(['k', 1], 10);
    h.processElement(['k', 2], 20);
    h.setProcessingTime(100);
    expect(stamped(h)).toEqual(['[0,1000) 3@999']);
    // The timeout cleared the wrapped trigger; the next record starts it again.
    h.processElement(['k', 4], 30);
    h.processWatermark(999);
    expect(stamped(h)).toEqual(['[0,1000) 3@999', '[0,1000) 7@999']);
    h.setProcessingTime(300);
    expect(stamped(h)).toHaveLength(2);
  });

  it('rejects a timeout that is not a positive whole number of ms', () => {
    expect(() => Triggers.processingTimeout(Triggers.count<number>(2), 0)).toThrow(/positive/);
  });
});

describe("Flink's DeltaTrigger", () => {
  it('fires when a record is further than the threshold from the record of the last firing', () => {
    const h = new TriggerHarness(Triggers.delta<number>(5, (a, b) => Math.abs(b - a)));
    const win = w(0, 100);
    // The first record is the reference.
    expect(h.processElement(10, 0, win)).toBe('continue');
    expect(h.processElement(15, 0, win)).toBe('continue');
    expect(h.processElement(16, 0, win)).toBe('fire');
    // The record that fired is the new reference.
    expect(h.processElement(20, 0, win)).toBe('continue');
    expect(h.processElement(21, 0, win)).toBe('continue');
    expect(h.processElement(22, 0, win)).toBe('fire');
    expect([h.timerCount('processing'), h.timerCount('event')]).toEqual([0, 0]);
    expect(h.stateEntries()).toBe(1);
    h.clear(win);
    expect(h.stateEntries()).toBe(0);
  });

  it('through the window operator: global windows of a key emit each time the price moves', () => {
    const h = windowHarness(
      Windows.global(),
      Triggers.delta<In>(4, (a, b) => Math.abs(b[1] - a[1])),
      summing,
    );
    for (const [v, t] of [
      [1, 1],
      [3, 2],
      [6, 3],
      [7, 4],
      [11, 5],
    ] as const)
      h.processElement(['k', v], t);
    // 6 - 1 > 4 fires (1 + 3 + 6); 11 - 6 > 4 fires again (10 + 7 + 11).
    expect(h.output().map((r) => r.value)).toEqual([
      '[-Infinity,Infinity) 10',
      '[-Infinity,Infinity) 28',
    ]);
  });
});
