/**
 * State of a ProcessWindowFunction (Flink's `Context.windowState()` / `globalState()` and
 * `clear(context)`): per-window state that lives across a window's early, on-time and late
 * firings and is gone once the window is cleaned up; per-key global state; `clear` called at
 * cleanup. On both window operators (the slice operator runs tumbling windows whose function
 * has no `clear`), through restores, rescaling and parallelism.
 */
import { describe, expect, it } from 'vitest';
import { keyGroupOf, keyGroupRange } from '../../src/core/key-groups.js';
import type { Operator } from '../../src/core/operator.js';
import {
  type Key,
  OutputTag,
  type ProcessWindowFunction,
  StreamEnvironment,
  Triggers,
  Windows,
} from '../../src/index.js';
import { SliceWindowOperator } from '../../src/runtime/windowing/slice-window-operator.js';
import { listAggregation, processFiring } from '../../src/runtime/windowing/window-aggregation.js';
import { WindowOperator } from '../../src/runtime/windowing/window-operator.js';
import { KeyedOneInputHarness, type OperatorSnapshot } from '../../src/testing/index.js';
import { testStateBackend } from '../helpers/state-backend.js';
import { bounded, type Ev, env1, ev, sorted } from '../helpers/timeline.js';

const cleared = new OutputTag<string>('cleared');

/** Counts each window's firings in window state and every firing of the key in global state. */
const counting: ProcessWindowFunction<Ev, string, string> = {
  process(key, ctx, elements, out) {
    const fired = ctx.windowState().getValueState<number>('fired');
    const n = (fired.value() ?? 0) + 1;
    fired.update(n);
    const total = ctx.globalState().getValueState<number>('total');
    total.update((total.value() ?? 0) + 1);
    out.collect(
      `${key} [${ctx.window.start},${ctx.window.end}) firing ${n} of ${total.value()} ${ctx.timing} (${elements.length})`,
    );
  },
};

/** `counting`, plus a clear that reports the window's count and clears it. */
const countingWithClear: ProcessWindowFunction<Ev, string, string> = {
  process: counting.process,
  clear(ctx) {
    const fired = ctx.windowState().getValueState<number>('fired');
    ctx.output(cleared, `${ctx.key} [${ctx.window.start},${ctx.window.end}) ${fired.value()}`);
    fired.clear();
  },
};

// a@1, a@2 and a@15 (watermark 14) fire [0,10); a@3, a@4 are late within the lateness; a@40 cleans up.
const input = [
  ev('a', 1),
  ev('b', 2),
  ev('a', 2),
  ev('a', 15),
  ev('a', 3),
  ev('b', 5),
  ev('a', 4),
  ev('a', 40),
  ev('a', 6), // too late: [0,10) is gone
];

function job(fn: ProcessWindowFunction<Ev, string, string>, parallelism = 1) {
  return new StreamEnvironment({ batchSize: 1, parallelism, ...testStateBackend() })
    .fromArray(input)
    .assignTimestampsAndWatermarks(bounded(0))
    .keyBy((e) => e.k)
    .window(Windows.tumbling(10))
    .allowedLateness(20)
    .process(fn);
}

const expected = [
  'a [0,10) firing 1 of 1 on-time (2)',
  'b [0,10) firing 1 of 1 on-time (1)',
  'a [0,10) firing 2 of 2 late (3)',
  'b [0,10) firing 2 of 2 late (2)',
  'a [0,10) firing 3 of 3 late (4)',
  'a [10,20) firing 1 of 4 on-time (1)',
  'a [40,50) firing 1 of 5 on-time (1)',
];

describe('ProcessWindowFunction window and global state', () => {
  it('window state counts a window’s firings across late firings; global state counts the key’s', async () => {
    const out = await job(counting).executeAndCollect();
    expect(out).toEqual(expected);
  });

  it('with clear (the general operator): the same firings, and clear once per key and window', async () => {
    const { records, sideOutputs } = await job(countingWithClear).executeAndCollect({
      sideOutputs: { cleared },
    });
    expect(records).toEqual(expected);
    expect(sorted(sideOutputs.cleared)).toEqual([
      'a [0,10) 3',
      'a [10,20) 1',
      'a [40,50) 1',
      'b [0,10) 2',
    ]);
  });

  it('parallelism 2 gives what parallelism 1 does', async () => {
    for (const fn of [counting, countingWithClear]) {
      const one = await job(fn, 1).executeAndCollect();
      const two = await job(fn, 2).executeAndCollect();
      expect(sorted(two)).toEqual(sorted(one));
    }
  });

  it('per-window state is refused for session windows; global state works there', async () => {
    const run = (fn: ProcessWindowFunction<Ev, string, string>) =>
      env1()
        .fromArray([ev('a', 1), ev('a', 3)])
        .assignTimestampsAndWatermarks(bounded(0))
        .keyBy((e) => e.k)
        .window(Windows.session(5))
        .process(fn)
        .executeAndCollect();
    await expect(run(counting)).rejects.toThrow(/per-window state/);
    const out = await run({
      process(key, ctx, elements, o) {
        const seen = ctx.globalState().getListState<number>('seen');
        for (const e of elements) seen.add(e.t);
        o.collect(`${key} ${seen.get().join(',')}`);
      },
    });
    expect(out).toEqual(['a 1,3']);
  });

  it('a count trigger on a global window: window state across firings, dropped at end of input', async () => {
    const ends: string[] = [];
    const out = await env1()
      .fromArray([1, 2, 3, 4, 5].map((v) => ev('a', v, v)))
      .keyBy((e) => e.k)
      .window(Windows.global())
      .trigger(Triggers.count(2))
      .process<string>({
        process(_key, ctx, elements, o) {
          const sum = ctx.windowState().getReducingState<number>({
            name: 'sum',
            reduce: (x, y) => x + y,
          });
          for (const e of elements) sum.add(e.v);
          o.collect(`${sum.get()}`);
        },
        clear(ctx) {
          ends.push(
            `${ctx.key} ${ctx
              .windowState()
              .getReducingState<number>({ name: 'sum', reduce: (x, y) => x + y })
              .get()}`,
          );
        },
      })
      .executeAndCollect();
    // Each firing sees the whole window (count triggers do not purge): 1+2, then +1+2+3+4, ...
    expect(out).toEqual(['3', '13', '28']);
    expect(ends).toEqual(['a 28']);
  });
});

// ---- on the operators: cleanup, restore and rescaling -------------------------------------

type Make = () => Operator<Ev, string>;

const operators: Record<string, Make> = {
  'slice operator': () =>
    new SliceWindowOperator({
      size: 10,
      slide: 10,
      offset: 0,
      allowedLateness: 20,
      lateDataTag: undefined,
      aggregation: listAggregation<Ev>(),
      firing: processFiring(counting as ProcessWindowFunction<unknown, string, Key>, false),
    }),
  'general operator': () =>
    new WindowOperator({
      assigner: Windows.tumbling(10),
      trigger: Triggers.eventTime(),
      allowedLateness: 20,
      lateDataTag: undefined,
      aggregation: listAggregation<Ev>(),
      firing: processFiring(
        countingWithClear as ProcessWindowFunction<unknown, string, Key>,
        false,
      ),
    }),
};

/** Records as `[record]` and watermarks as `watermark` steps, as a job with bound 0 sees them. */
type Step = Ev | number;
const steps: Step[] = input.flatMap((e, i) => {
  const max = Math.max(...input.slice(0, i + 1).map((r) => r.t));
  return [e, max - 1];
});

function feed(h: KeyedOneInputHarness<string, Ev, string>, part: readonly Step[]): void {
  for (const s of part) {
    if (typeof s === 'number') h.processWatermark(s);
    else h.processElement(s, s.t);
  }
}

/** The window namespaces (`start:end`) that hold keyed state rows in a snapshot. */
function windowNamespaces(snapshot: OperatorSnapshot): string[] {
  const found = new Set<string>();
  for (const entries of Object.values(snapshot.keyed ?? {})) {
    for (const e of entries) {
      // State rows are [state, key, namespace, userKey, value]; other entries are the operator's.
      const row = Array.isArray(e) && e.length >= 5 && typeof e[2] === 'string';
      if (row && typeof e[0] === 'string' && !e[0].startsWith('__weir.') && e[2] !== '')
        found.add(String(e[2]));
    }
  }
  return [...found].sort();
}

describe.each(Object.entries(operators))('window state on the %s', (_name, make) => {
  const harness = (options = {}) =>
    new KeyedOneInputHarness(make(), (e: Ev) => e.k, { ...testStateBackend(), ...options });

  it('window state lives until the window is cleaned up, then it is gone', () => {
    const h = harness();
    feed(h, steps.slice(0, 10)); // up to a@3: [0,10) fired (a twice), kept for the lateness
    expect(windowNamespaces(h.snapshot(undefined, 'savepoint'))).toEqual(['0:10']);
    h.processWatermark(29);
    expect(windowNamespaces(h.snapshot(undefined, 'savepoint'))).toEqual(['10:20']);
    h.processWatermark(100);
    expect(windowNamespaces(h.snapshot(undefined, 'savepoint'))).toEqual([]);
  });

  it('a run restored at every point, at parallelism 1 and 2, equals the uninterrupted one', () => {
    const whole = harness();
    feed(whole, steps);
    whole.processWatermark(Number.POSITIVE_INFINITY);
    const want = sorted(whole.outputValues());
    for (let cut = 0; cut <= steps.length; cut++) {
      const first = harness();
      feed(first, steps.slice(0, cut));
      const snapshot = first.snapshot();
      for (const parallelism of [1, 2]) {
        const outputs = [...first.outputValues()];
        for (let subtask = 0; subtask < parallelism; subtask++) {
          const { first: lo, last: hi } = keyGroupRange(subtask, 128, parallelism);
          const owns = (k: string) => keyGroupOf(k, 128) >= lo && keyGroupOf(k, 128) <= hi;
          const second = harness({ restoreFrom: [snapshot], subtaskIndex: subtask, parallelism });
          feed(
            second,
            steps.slice(cut).filter((s) => typeof s === 'number' || owns(s.k)),
          );
          second.processWatermark(Number.POSITIVE_INFINITY);
          outputs.push(...second.outputValues());
        }
        expect(sorted(outputs), `cut ${cut}, parallelism ${parallelism}`).toEqual(want);
      }
    }
  });
});
