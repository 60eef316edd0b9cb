/**
 * The broadcast state pattern on a stream that is not keyed
 * (`stream.connectBroadcast(rules, fn)`, Flink's BroadcastProcessFunction): the
 * scenarios of Flink's CoBroadcastWithNonKeyedOperatorTest (timestamps, watermarks,
 * side outputs, the state restored at a new parallelism), a job at parallelism 1 and
 * 2 against the same rules applied in a plain loop, and the refusal of timers.
 */
import { describe, expect, it } from 'vitest';
import { type BroadcastProcessFunction, OutputTag, StreamEnvironment } from '../../src/index.js';
import { type Emitted, TwoInputHarness } from '../../src/testing/index.js';

/** Records as `value@timestamp`, watermarks as `W<time>`. */
function rendered<T>(log: readonly Emitted<T>[]): string[] {
  return log.flatMap((e) => {
    if (e.kind === 'record') return [`${e.value}@${e.timestamp}`];
    if (e.kind === 'watermark') return [`W${e.time}`];
    return [];
  });
}

/** Puts every broadcast number in the state as `n -> 'n'`; every record emits the state's keys. */
const listing: BroadcastProcessFunction<string, number, string, number, string> = {
  processElement(value, ctx, out) {
    const keys = [...ctx.broadcastState.entries()].map(([k]) => k).sort();
    out.collect(`${value}:${keys.join(',')}`);
  },
  processBroadcastElement(value, ctx) {
    ctx.broadcastState.put(value, String(value));
  },
};

describe("Flink's CoBroadcastWithNonKeyedOperatorTest", () => {
  it('both inputs see their record timestamp and the watermark of both inputs', () => {
    const h = TwoInputHarness.forBroadcastProcessFunction<string, number, string, number, string>({
      processElement(value, ctx, out) {
        out.collect(`${value}WM:${ctx.timerService.currentWatermark()} TS:${ctx.timestamp}`);
      },
      processBroadcastElement(value, ctx, out) {
        out.collect(`${value}WM:${ctx.currentWatermark()} TS:${ctx.timestamp}`);
      },
    });
    h.processWatermark1(10);
    h.processWatermark2(10);
    h.processElement2(5, 12);
    h.processWatermark1(40);
    h.processWatermark2(40);
    h.processElement1('6', 13);
    h.processElement1('6', 15);
    h.processWatermark1(50);
    h.processWatermark2(50);
    expect(rendered(h.emitted())).toEqual([
      'W10',
      '5WM:10 TS:12@12',
      'W40',
      '6WM:40 TS:13@13',
      '6WM:40 TS:15@15',
      'W50',
    ]);
  });

  it('both inputs emit to side outputs', () => {
    const tag = new OutputTag<string>('side');
    const h = TwoInputHarness.forBroadcastProcessFunction<string, number, string, number, string>({
      processElement(value, ctx) {
        ctx.output(tag, `element:${value}`);
      },
      processBroadcastElement(value, ctx) {
        ctx.output(tag, `broadcast:${value}`);
      },
    });
    h.processElement2(5, 12);
    h.processElement1('6', 13);
    h.processElement1('7', 15);
    expect(h.sideOutput(tag).map((r) => `${r.value}@${r.timestamp}`)).toEqual([
      'broadcast:5@12',
      'element:6@13',
      'element:7@15',
    ]);
    expect(h.outputValues()).toEqual([]);
  });

  it('records read the broadcast state as the broadcast records left it', () => {
    const h = TwoInputHarness.forBroadcastProcessFunction(listing);
    h.processElement1('a', 1);
    h.processElement2(3, 2);
    h.processElement2(1, 3);
    h.processElement1('b', 4);
    expect(h.outputValues()).toEqual(['a:', 'b:1,3']);
  });

  it.each([
    [2, 3],
    [3, 2],
  ])(
    'restores the same broadcast state in every subtask when %i subtasks become %i',
    (from, to) => {
      const snapshots = Array.from({ length: from }, (_, subtaskIndex) => {
        const h = TwoInputHarness.forBroadcastProcessFunction(listing, {
          subtaskIndex,
          parallelism: from,
        });
        for (const n of [1, 2, 3]) h.processElement2(n, n);
        return h.snapshot();
      });
      for (let subtaskIndex = 0; subtaskIndex < to; subtaskIndex++) {
        const h = TwoInputHarness.forBroadcastProcessFunction(listing, {
          subtaskIndex,
          parallelism: to,
          restoreFrom: snapshots,
        });
        h.processElement1('x', 10);
        expect(h.outputValues()).toEqual(['x:1,2,3']);
      }
    },
  );

  it('keeps its operator state beside the broadcast state across a restore', () => {
    type Fn = BroadcastProcessFunction<string, number, string, number, string> & {
      seen?: { get(): number[]; update(v: number[]): void };
    };
    const counting = (): Fn => ({
      open(ctx) {
        const list = ctx.operatorState.getListState<number>('seen');
        this.seen = { get: () => [...list.get()], update: (v) => list.update(v) };
      },
      processElement(value, ctx, out) {
        const n = this.seen!.get().length + 1;
        this.seen!.update([...this.seen!.get(), n]);
        out.collect(`${value}#${n}:${[...ctx.broadcastState.entries()].length}`);
      },
      processBroadcastElement(value, ctx) {
        ctx.broadcastState.put(value, String(value));
      },
    });
    const first = TwoInputHarness.forBroadcastProcessFunction(counting());
    first.processElement2(7, 1);
    first.processElement1('a', 2);
    const restored = TwoInputHarness.forBroadcastProcessFunction(counting(), {
      restoreFrom: first.snapshot(),
    });
    restored.processElement1('b', 3);
    expect([...first.outputValues(), ...restored.outputValues()]).toEqual(['a#1:1', 'b#2:1']);
  });

  it('refuses timers, as Flink: they need keyed state', () => {
    const h = TwoInputHarness.forBroadcastProcessFunction<string, number, string, number, string>({
      processElement(_value, ctx) {
        (
          ctx.timerService as unknown as { registerEventTimeTimer(t: number): void }
        ).registerEventTimeTimer(5);
      },
      processBroadcastElement() {},
    });
    expect(() => h.processElement1('a', 1)).toThrow(/timers are only supported on keyed streams/);
  });
});

describe('TwoInputHarness.forBroadcastProcessFunction with a key selector', () => {
  it('runs a keyed broadcast function: its timers see the key and the broadcast state', () => {
    const h = TwoInputHarness.forBroadcastProcessFunction<
      string,
      string,
      number,
      string,
      string,
      number
    >(
      {
        processElement(_value, ctx) {
          ctx.timerService.registerEventTimeTimer(10);
        },
        processBroadcastElement(value, ctx) {
          ctx.broadcastState.put('limit', value);
        },
        onTimer(time, ctx, out) {
          out.collect(`${ctx.key}@${time} limit=${ctx.broadcastState.get('limit')}`);
        },
      },
      { keySelector: (v: string) => v.split(':')[0]! },
    );
    h.processElement2(7, 0);
    h.processElement1('a:1', 1);
    h.processElement1('b:1', 2);
    h.processElement1('a:2', 3);
    h.processWatermark1(10);
    h.processWatermark2(10);
    expect(h.outputValues().sort()).toEqual(['a@10 limit=7', 'b@10 limit=7']);
  });
});

interface Reading {
  readonly sensor: string;
  readonly value: number;
  readonly t: number;
}

/** A threshold per sensor, broadcast; readings above their sensor's threshold pass. */
const alerting: BroadcastProcessFunction<Reading, [string, number], string, string, number> = {
  processElement(r, ctx, out) {
    const limit = ctx.broadcastState.get(r.sensor);
    if (limit !== undefined && r.value > limit) out.collect(`${r.sensor}@${r.t}=${r.value}`);
  },
  processBroadcastElement([sensor, limit], ctx) {
    ctx.broadcastState.put(sensor, limit);
  },
};

describe('connectBroadcast on a stream that is not keyed, in a job', () => {
  const readings: Reading[] = Array.from({ length: 400 }, (_, i) => ({
    sensor: `s${i % 4}`,
    value: (i * 37) % 100,
    t: 1_000 + i,
  }));
  const limits: [string, number][] = [
    ['s0', 50],
    ['s1', 80],
    ['s2', 10],
    ['s3', 99],
  ];

  it.each([1, 2])(
    'gives what the rules give applied in a loop (parallelism %i)',
    async (parallelism) => {
      const env = new StreamEnvironment({ parallelism, batchSize: 16 });
      const rules = env.fromArray(limits);
      const stream = env.fromArray(readings).rebalance();
      // Readings that arrive before every rule is in place wait for the last rule.
      const held: BroadcastProcessFunction<Reading, [string, number], string, string, number> & {
        waiting?: Reading[];
      } = {
        open() {
          this.waiting = [];
        },
        processElement(r, ctx, out) {
          if (ctx.broadcastState.size < limits.length) this.waiting!.push(r);
          else alerting.processElement(r, ctx, out);
        },
        processBroadcastElement(rule, ctx, out) {
          alerting.processBroadcastElement(rule, ctx, out);
          if (ctx.broadcastState.size < limits.length) return;
          for (const r of this.waiting!.splice(0)) {
            const limit = ctx.broadcastState.get(r.sensor)!;
            if (r.value > limit) out.collect(`${r.sensor}@${r.t}=${r.value}`);
          }
        },
      };
      const out = await stream.connectBroadcast(rules, held).executeAndCollect();
      const limitOf = new Map(limits);
      const expected = readings
        .filter((r) => r.value > limitOf.get(r.sensor)!)
        .map((r) => `${r.sensor}@${r.t}=${r.value}`);
      expect(out.sort()).toEqual(expected.sort());
    },
  );
});
