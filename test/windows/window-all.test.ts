/**
 * `windowAll` and `countWindowAll`, Flink's windows over a stream that is not keyed: every
 * record in one group, the window in one subtask whatever the job's parallelism. Each result is
 * compared with a plain batch computation over the same records.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALL_WINDOWS_KEY,
  CollectSink,
  type ProcessWindowFunction,
  StreamEnvironment,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import { collect, type Ev, ev, sorted } from '../helpers/timeline.js';

/** A shuffled stream of keyed events at parallelism `p`, with event time from `Ev.t`. */
function stream(env: StreamEnvironment, events: readonly Ev[]) {
  return env
    .fromArray(events)
    .rebalance()
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Ev>(1_000).withTimestampAssigner((e) => e.t),
    );
}

/** Sum of values per tumbling window of `size`, over all keys: `start:sum`. */
function batchTumblingSums(events: readonly Ev[], size: number): string[] {
  const sums = new Map<number, number>();
  for (const e of events) {
    const start = e.t - (e.t % size);
    sums.set(start, (sums.get(start) ?? 0) + e.v);
  }
  return sorted([...sums].map(([start, sum]) => `${start}:${sum}`));
}

const events = fc.array(
  fc.record({
    k: fc.constantFrom('a', 'b', 'c', 'd'),
    t: fc.integer({ min: 0, max: 20_000 }),
    v: fc.integer({ min: 1, max: 9 }),
  }),
  { maxLength: 200 },
);

describe('windowAll', () => {
  it('sums each tumbling window over every key once, at any parallelism, as a batch sum does', async () => {
    await fc.assert(
      fc.asyncProperty(events, fc.constantFrom(1, 2, 3), async (input, parallelism) => {
        const env = new StreamEnvironment({ parallelism });
        const sink = collect(
          stream(env, input)
            .windowAll(Windows.tumbling(5_000))
            .reduce((a, b) => ({ k: a.k, t: Math.max(a.t, b.t), v: a.v + b.v })),
        );
        await env.execute('window all');
        expect(sorted(sink.values.map((r) => `${r.window.start}:${r.value.v}`))).toEqual(
          batchTumblingSums(input, 5_000),
        );
        expect(new Set(sink.values.map((r) => r.key))).toEqual(
          new Set(input.length === 0 ? [] : [ALL_WINDOWS_KEY]),
        );
      }),
      { numRuns: 20 },
    );
  });

  it('runs the window in one subtask, after a pre-aggregation in every subtask before it', () => {
    const env = new StreamEnvironment({ parallelism: 3 });
    stream(env, [ev('a', 1)])
      .windowAll(Windows.tumbling(1_000))
      .aggregate({
        createAccumulator: () => 0,
        add: (e: Ev, acc: number) => acc + e.v,
        getResult: (acc: number) => acc,
        merge: (a: number, b: number) => a + b,
      })
      .map((r) => r.value)
      .sinkTo(new CollectSink<number>());
    const plan = env.explain().split('\n');
    // Each of the 3 subtasks before it pre-aggregates; the windows of all records fire in one.
    const local = plan.filter((line) => line.includes('local-window-combiner'));
    const window = plan.filter((line) => line.includes('slice-window'));
    expect(local).toHaveLength(1);
    expect(local[0]).toMatch(/parallelism=3\b/);
    expect(window).toHaveLength(1);
    expect(window[0]).toMatch(/parallelism=1\b.*keyed\(windowAll\)/);
  });

  it('gives a process window function every record of a window, with the key "all"', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const input = [ev('a', 100, 1), ev('b', 200, 2), ev('c', 1_100, 3), ev('a', 1_900, 4)];
    const listing: ProcessWindowFunction<Ev, string, typeof ALL_WINDOWS_KEY> = {
      process(key, ctx, elements, out) {
        const values = elements.map((e) => e.v).sort((a, b) => a - b);
        out.collect(`${key} ${ctx.window.start}-${ctx.window.end}: ${values.join(',')}`);
      },
    };
    const sink = collect(stream(env, input).windowAll(Windows.tumbling(1_000)).process(listing));
    await env.execute('window all process');
    expect(sorted(sink.values)).toEqual(['all 0-1000: 1,2', 'all 1000-2000: 3,4']);
  });

  it('sessions span records of every key', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    // Per key, no two records are within the gap; over all keys they form one session and two.
    const input = [ev('a', 0), ev('b', 400), ev('c', 800), ev('a', 1_200), ev('b', 5_000)];
    const sink = collect(
      stream(env, input)
        .windowAll(Windows.session(500))
        .reduce((a, b) => ({ k: a.k, t: a.t, v: a.v + b.v })),
    );
    await env.execute('window all sessions');
    expect(
      sorted(sink.values.map((r) => `${r.window.start}-${r.window.end}:${r.value.v}`)),
    ).toEqual(['0-1700:4', '5000-5500:1']);
  });
});

describe('countWindowAll', () => {
  it('fires every `size` records over all keys, and with a slide the last `size` every `slide`', async () => {
    const input = Array.from({ length: 10 }, (_, i) => ev(['a', 'b', 'c'][i % 3]!, i, i + 1));
    const run = async (size: number, slide?: number) => {
      // One source subtask and a forward chain keep the arrival order the count windows see.
      const env = new StreamEnvironment({ parallelism: 2 });
      const sink = collect(
        env
          .fromArray(input)
          .setParallelism(1)
          .countWindowAll(size, slide)
          .reduce((a, b) => ({ k: a.k, t: a.t, v: a.v + b.v })),
      );
      await env.execute('count window all');
      return sink.values.map((r) => r.value.v);
    };
    // Tumbling by 3 over values 1..10: 1+2+3, 4+5+6, 7+8+9, and the partial [10] at end of
    // input, as Weir's count windows do (count-windows.test.ts; Flink drops it).
    expect(await run(3)).toEqual([6, 15, 24, 10]);
    // The last 3 every 2 records: [1,2], [1..4] -> 2,3,4, [4..6], [6..8], [8..10].
    expect(await run(3, 2)).toEqual([3, 9, 15, 21, 27]);
  });

  it('refuses sizes and slides that are not positive whole numbers', () => {
    const env = new StreamEnvironment();
    const s = env.fromArray([1, 2, 3]);
    expect(() => s.countWindowAll(0)).toThrow(/count window size must be a positive whole number/);
    expect(() => s.countWindowAll(2, 1.5)).toThrow(/count window slide must be a positive/);
  });
});
