import { describe, expect, it } from 'vitest';
import {
  type Collector,
  type KeyedProcessContext,
  type KeyedProcessFunction,
  type KeyedRuntimeContext,
  type ListState,
  type MapState,
  type OnTimerContext,
  OutputTag,
  type ProcessFunction,
  StreamEnvironment,
  type ValueState,
} from '../../src/index.js';
import {
  bounded,
  collect,
  type Ev,
  env1,
  ev,
  ScriptedSource,
  sorted,
} from '../helpers/timeline.js';

function renderTime(t: number): string {
  return t === Number.NEGATIVE_INFINITY ? '-inf' : t === Number.POSITIVE_INFINITY ? '+inf' : `${t}`;
}

/** Keeps a count (value state), the values seen (list state) and value frequencies (map state). */
class StateKeeper implements KeyedProcessFunction<string, Ev, string> {
  private count!: ValueState<number>;
  private seen!: ListState<number>;
  private freq!: MapState<number, number>;

  open(ctx: KeyedRuntimeContext): void {
    this.count = ctx.state.getValueState<number>('count');
    this.seen = ctx.state.getListState<number>('seen');
    this.freq = ctx.state.getMapState<number, number>('freq');
  }

  processElement(e: Ev, ctx: KeyedProcessContext<string>, out: Collector<string>): void {
    const n = (this.count.value() ?? 0) + 1;
    this.count.update(n);
    this.seen.add(e.v);
    this.freq.put(e.v, (this.freq.get(e.v) ?? 0) + 1);
    if (e.v === 0) {
      // A zero resets the key's list and map.
      this.seen.clear();
      this.freq.clear();
    }
    const freq = [...this.freq.entries()].map(([v, c]) => `${v}x${c}`).join(' ');
    out.collect(`${ctx.key}: n=${n} seen=[${this.seen.get().join(',')}] freq={${freq}}`);
  }
}

describe('keyed state', () => {
  const input = [
    ev('a', 0, 1),
    ev('b', 0, 5),
    ev('a', 0, 2),
    ev('a', 0, 1),
    ev('b', 0, 5),
    ev('b', 0, 0),
    ev('b', 0, 7),
  ];
  const expected = [
    'a: n=1 seen=[1] freq={1x1}',
    'b: n=1 seen=[5] freq={5x1}',
    'a: n=2 seen=[1,2] freq={1x1 2x1}',
    'a: n=3 seen=[1,2,1] freq={1x2 2x1}',
    'b: n=2 seen=[5,5] freq={5x2}',
    'b: n=3 seen=[] freq={}',
    'b: n=4 seen=[7] freq={7x1}',
  ];

  it('value, list and map state are scoped to the key', async () => {
    const out = await env1()
      .fromArray(input)
      .keyBy((e) => e.k)
      .process(new StateKeeper())
      .executeAndCollect();
    expect(out).toEqual(expected);
  });

  it('is the same at parallelism 2 and 4', async () => {
    for (const p of [2, 4]) {
      const out = await env1(p)
        .fromArray(input)
        .keyBy((e) => e.k)
        .process(new StateKeeper())
        .executeAndCollect();
      expect(sorted(out)).toEqual(sorted(expected));
      // Per key, the order is the input order.
      expect(out.filter((l) => l.startsWith('a'))).toEqual(
        expected.filter((l) => l.startsWith('a')),
      );
      expect(out.filter((l) => l.startsWith('b'))).toEqual(
        expected.filter((l) => l.startsWith('b')),
      );
    }
  });

  it('each subtask gets its own instance of the function object', async () => {
    const opened: number[] = [];
    const fn: KeyedProcessFunction<string, Ev, string> & { subtask?: number } = {
      open(ctx) {
        this.subtask = ctx.subtaskIndex;
        opened.push(ctx.subtaskIndex);
      },
      processElement(_e, ctx, out) {
        out.collect(`${ctx.key}`);
      },
    };
    await env1(3)
      .fromArray([ev('a', 0), ev('b', 0)])
      .keyBy((e) => e.k)
      .process(fn)
      .executeAndCollect();
    expect(sorted(opened.map(String))).toEqual(['0', '1', '2']);
    expect(fn.subtask).toBeUndefined();
  });
});

/** Registers an event-time timer at `t + delay` per record; logs elements and timers. */
function timerLogger(delay: number): KeyedProcessFunction<string, Ev, string> {
  return {
    processElement(e, ctx, out) {
      ctx.timerService.registerEventTimeTimer(e.t + delay);
      out.collect(`el ${ctx.key}@${ctx.timestamp}`);
    },
    onTimer(t, ctx, out) {
      out.collect(
        `timer ${ctx.key}@${t} ts=${ctx.timestamp} W=${renderTime(ctx.timerService.currentWatermark())} ${ctx.timeDomain}`,
      );
    },
  };
}

describe('event-time timers', () => {
  it('fire when the watermark passes them, in timestamp order, and the rest at end of input', async () => {
    /*
     * timer = t + 10, bound 0 (W = max - 1)
     *
     *   arrival  a@1   b@5   a@3   a@20       b@30       end
     *   timers   11    15    13    30         40
     *   W after   0     4     4    19         29         +inf
     *                              ^ 11(a) 13(a) 15(b) fire, in time order
     *                                                    ^ 30(a) 40(b)
     */
    const env = env1();
    const sink = collect(
      env
        .fromArray([ev('a', 1), ev('b', 5), ev('a', 3), ev('a', 20), ev('b', 30)])
        .assignTimestampsAndWatermarks(bounded(0))
        .keyBy((e) => e.k)
        .process(timerLogger(10)),
    );
    await env.execute();
    expect(sink.values).toEqual([
      'el a@1',
      'el b@5',
      'el a@3',
      'el a@20',
      'timer a@11 ts=11 W=19 event-time',
      'timer a@13 ts=13 W=19 event-time',
      'timer b@15 ts=15 W=19 event-time',
      'el b@30',
      'timer a@30 ts=30 W=+inf event-time',
      'timer b@40 ts=40 W=+inf event-time',
    ]);
    // Records emitted from onTimer carry the timer's time.
    expect(sink.timestamps).toEqual([1, 5, 3, 20, 11, 13, 15, 30, 30, 40]);
  });

  it('a timer at exactly the watermark fires', async () => {
    // timer = t + 0: a@5 registers 5; a@6 brings W to 5.
    const out = await env1()
      .fromArray([ev('a', 5), ev('a', 6)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .process(timerLogger(0))
      .executeAndCollect();
    expect(out).toEqual([
      'el a@5',
      'el a@6',
      'timer a@5 ts=5 W=5 event-time',
      'timer a@6 ts=6 W=+inf event-time',
    ]);
  });

  it('registering the same timer twice fires it once per key', async () => {
    /*
     * Every record registers a timer at the end of its 10 ms bucket (t - t % 10 + 9).
     *   a@1 a@2 a@5 b@3 → timers a@9 (three times), b@9; a@12 → a@19
     */
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(e, ctx) {
        ctx.timerService.registerEventTimeTimer(e.t - (e.t % 10) + 9);
      },
      onTimer(t, ctx, out) {
        out.collect(`${ctx.key}@${t}`);
      },
    };
    const out = await env1()
      .fromArray([ev('a', 1), ev('a', 2), ev('a', 5), ev('b', 3), ev('a', 12)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .process(fn)
      .executeAndCollect();
    expect(out).toEqual(['a@9', 'b@9', 'a@19']);
  });

  it('deleted timers do not fire (a timeout reset by every record)', async () => {
    /*
     * Each record deletes the key's pending timeout and registers t + 10.
     *   arrival  a@1   a@5        b@7   a@16        c@40         end
     *   timeout  11    15 (del 11) 17   26 (del 15)  50
     *   W after   0     4          6    15           39          +inf
     *                                   ^ 15 was deleted before W reached it
     *                                               ^ b@17, a@26 fire
     *                                                            ^ c@50
     */
    class Timeout implements KeyedProcessFunction<string, Ev, string> {
      private pending!: ValueState<number>;
      open(ctx: KeyedRuntimeContext): void {
        this.pending = ctx.state.getValueState<number>('pending');
      }
      processElement(e: Ev, ctx: KeyedProcessContext<string>): void {
        const previous = this.pending.value();
        if (previous !== undefined) ctx.timerService.deleteEventTimeTimer(previous);
        this.pending.update(e.t + 10);
        ctx.timerService.registerEventTimeTimer(e.t + 10);
      }
      onTimer(t: number, ctx: OnTimerContext<string>, out: Collector<string>): void {
        this.pending.clear();
        out.collect(`timeout ${ctx.key}@${t}`);
      }
    }
    const out = await env1()
      .fromArray([ev('a', 1), ev('a', 5), ev('b', 7), ev('a', 16), ev('c', 40)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .process(new Timeout())
      .executeAndCollect();
    expect(out).toEqual(['timeout b@17', 'timeout a@26', 'timeout c@50']);
  });

  it('a timer registered from onTimer fires in the same advance if it is due', async () => {
    // a@1 registers 5; onTimer(5) registers 7 and (once) 100. W 9 fires 5 and 7; end fires 100.
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(_e, ctx) {
        ctx.timerService.registerEventTimeTimer(5);
      },
      onTimer(t, ctx, out) {
        out.collect(`${t}`);
        if (t === 5) {
          ctx.timerService.registerEventTimeTimer(7);
          ctx.timerService.registerEventTimeTimer(100);
        }
      },
    };
    const out = await env1()
      .fromArray([ev('a', 1), ev('a', 10)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .process(fn)
      .executeAndCollect();
    expect(out).toEqual(['5', '7', '100']);
  });

  it('a periodic timer (each firing registers the next) lets the end of input finish', async () => {
    /*
     * a@1 registers 10; every firing registers t + 10.
     *   W 24 (after a@25): 10 fires → 20 fires (<= 24) → 30 is pending
     *   end of input (W = +inf): 30 fires; the 40 it registers is later than every
     *   timer pending at end of input, so it stays pending and the job ends.
     *   (Flink would loop forever here.)
     */
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(e, ctx) {
        if (e.t === 1) ctx.timerService.registerEventTimeTimer(10);
      },
      onTimer(t, ctx, out) {
        out.collect(`${t}`);
        ctx.timerService.registerEventTimeTimer(t + 10);
      },
    };
    const out = await env1()
      .fromArray([ev('a', 1), ev('a', 25)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .process(fn)
      .executeAndCollect();
    expect(out).toEqual(['10', '20', '30']);
  }, 3000);

  it('state read in onTimer belongs to the timer key', async () => {
    class SumAtEnd implements KeyedProcessFunction<string, Ev, string> {
      private sum!: ValueState<number>;
      open(ctx: KeyedRuntimeContext): void {
        this.sum = ctx.state.getValueState<number>('sum');
      }
      processElement(e: Ev, ctx: KeyedProcessContext<string>): void {
        this.sum.update((this.sum.value() ?? 0) + e.v);
        ctx.timerService.registerEventTimeTimer(1000);
      }
      onTimer(_t: number, ctx: OnTimerContext<string>, out: Collector<string>): void {
        out.collect(`${ctx.key}=${this.sum.value()}`);
      }
    }
    for (const p of [1, 2, 4]) {
      const out = await env1(p)
        .fromArray([ev('a', 1, 1), ev('b', 2, 10), ev('c', 3, 100), ev('a', 4, 2), ev('b', 5, 20)])
        .assignTimestampsAndWatermarks(bounded(0))
        .keyBy((e) => e.k)
        .process(new SumAtEnd())
        .executeAndCollect();
      expect(sorted(out)).toEqual(['a=3', 'b=30', 'c=100']);
    }
  });
});

describe('processing-time timers', () => {
  it('fire from the wall clock after a short delay', async () => {
    /*
     * wall clock: 0 ms [a@1 b@2] ──────── 150 ms: end of input
     *                   timers now+20 ─┘ fire in between
     */
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(_e, ctx) {
        ctx.timerService.registerProcessingTimeTimer(ctx.timerService.currentProcessingTime() + 20);
      },
      onTimer(t, ctx, out) {
        const late = ctx.timerService.currentProcessingTime() >= t;
        out.collect(`${ctx.key} ${ctx.timeDomain} due=${late} ts=${ctx.timestamp === t}`);
      },
    };
    const source = new ScriptedSource<Ev>(
      [{ records: [ev('a', 1), ev('b', 2)] }, { pauseMs: 150 }],
      true,
    );
    const env = new StreamEnvironment();
    const sink = collect(
      env
        .fromSource(source, bounded(0))
        .keyBy((e) => e.k)
        .process(fn),
    );
    await env.execute();
    expect(sink.values).toEqual([
      'a processing-time due=true ts=true',
      'b processing-time due=true ts=true',
    ]);
    // Output of processing-time timers has no event time.
    expect(sink.timestamps).toEqual([Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  }, 5000);

  it('a deleted processing-time timer does not fire', async () => {
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(e, ctx) {
        const due = ctx.timerService.currentProcessingTime() + 20;
        ctx.timerService.registerProcessingTimeTimer(due);
        if (e.k === 'b') ctx.timerService.deleteProcessingTimeTimer(due);
      },
      onTimer(_t, ctx, out) {
        out.collect(ctx.key);
      },
    };
    const source = new ScriptedSource<Ev>(
      [{ records: [ev('a', 1), ev('b', 2)] }, { pauseMs: 150 }],
      true,
    );
    const out = await new StreamEnvironment()
      .fromSource(source, bounded(0))
      .keyBy((e) => e.k)
      .process(fn)
      .executeAndCollect();
    expect(out).toEqual(['a']);
  }, 5000);

  it('pending processing-time timers are discarded at end of input (the job does not wait)', async () => {
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(_e, ctx) {
        ctx.timerService.registerProcessingTimeTimer(
          ctx.timerService.currentProcessingTime() + 60_000,
        );
      },
      onTimer(_t, ctx, out) {
        out.collect(ctx.key);
      },
    };
    const started = Date.now();
    const out = await env1()
      .fromArray([ev('a', 1)])
      .keyBy((e) => e.k)
      .process(fn)
      .executeAndCollect();
    expect(out).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
  }, 5000);
});

describe('side outputs', () => {
  const negatives = new OutputTag<Ev>('negatives');

  it('a keyed process function emits to a side output, with the record timestamp', async () => {
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(e, ctx, out) {
        if (e.v < 0) ctx.output(negatives, e);
        else out.collect(`${ctx.key}:${e.v}`);
      },
    };
    const env = env1();
    const main = env
      .fromArray([ev('a', 1, 1), ev('b', 2, -2), ev('a', 3, -3), ev('b', 4, 4)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .process(fn);
    const mainSink = collect(main);
    const sideSink = collect(main.getSideOutput(negatives));
    await env.execute();
    expect(mainSink.values).toEqual(['a:1', 'b:4']);
    expect(sideSink.values).toEqual([ev('b', 2, -2), ev('a', 3, -3)]);
    expect(sideSink.timestamps).toEqual([2, 3]);
  });

  it('side outputs from onTimer carry the timer time', async () => {
    const alerts = new OutputTag<string>('alerts');
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(e, ctx) {
        ctx.timerService.registerEventTimeTimer(e.t + 5);
      },
      onTimer(t, ctx) {
        ctx.output(alerts, `${ctx.key}@${t}`);
      },
    };
    const env = env1();
    const main = env
      .fromArray([ev('a', 1), ev('b', 2)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .process(fn);
    const side = collect(main.getSideOutput(alerts));
    const mainSink = collect(main);
    await env.execute();
    expect(mainSink.values).toEqual([]);
    expect(side.values).toEqual(['a@6', 'b@7']);
    expect(side.timestamps).toEqual([6, 7]);
  });

  it('a non-keyed process function emits to a side output', async () => {
    const evens = new OutputTag<number>('evens');
    const fn: ProcessFunction<number, number> = {
      processElement(v, ctx, out) {
        if (v % 2 === 0) ctx.output(evens, v);
        else out.collect(v);
      },
    };
    const env = new StreamEnvironment();
    const main = env.fromArray([1, 2, 3, 4, 5]).process(fn);
    const side = collect(main.getSideOutput(evens));
    const odd = collect(main);
    await env.execute();
    expect(odd.values).toEqual([1, 3, 5]);
    expect(side.values).toEqual([2, 4]);
  });

  it('two side outputs of one function are kept apart; an unread tag is dropped', async () => {
    const small = new OutputTag<number>('small');
    const big = new OutputTag<number>('big');
    const unread = new OutputTag<number>('unread');
    const fn: KeyedProcessFunction<string, Ev, string> = {
      processElement(e, ctx) {
        ctx.output(e.v < 10 ? small : big, e.v);
        ctx.output(unread, e.v);
      },
    };
    const env = env1(2);
    const main = env
      .fromArray([ev('a', 1, 1), ev('b', 2, 20), ev('a', 3, 3), ev('c', 4, 40)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .process(fn);
    const s = collect(main.getSideOutput(small));
    const b = collect(main.getSideOutput(big));
    await env.execute();
    expect([...s.values].sort((x, y) => x - y)).toEqual([1, 3]);
    expect([...b.values].sort((x, y) => x - y)).toEqual([20, 40]);
  });
});
