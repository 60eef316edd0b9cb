import { describe, expect, it } from 'vitest';
import {
  type DataStream,
  type ProcessFunction,
  StreamEnvironment,
  type WatermarkGenerator,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import {
  bounded,
  collect,
  countSum,
  type Ev,
  env1,
  ev,
  evs,
  fmtAll,
  lateCount,
  ScriptedSource,
  sleep,
  sorted,
  waitUntil,
} from '../helpers/timeline.js';

function renderTime(t: number): string {
  return t === Number.NEGATIVE_INFINITY ? '-inf' : t === Number.POSITIVE_INFINITY ? '+inf' : `${t}`;
}

/** For each record: `t W=<watermark when it arrived>` and `late` if t <= W. */
const probe: ProcessFunction<Ev, string> = {
  processElement(_e, ctx, out) {
    const w = ctx.timerService.currentWatermark();
    out.collect(`${ctx.timestamp} W=${renderTime(w)}${ctx.timestamp <= w ? ' late' : ''}`);
  },
};

function probeOf(stream: DataStream<Ev>): Promise<string[]> {
  return stream.process(probe).executeAndCollect();
}

describe('bounded out-of-orderness', () => {
  it('W = max - bound - 1: a record exactly `bound` behind the newest is on time', async () => {
    /*
     * bound 500
     *   arrival  1499  999   998
     *   W after   998  998   998
     *                  ^ 1499 - 500 = 999 > W: on time
     *                        ^ 501 behind: 998 <= W: late
     */
    expect(
      await probeOf(
        env1()
          .fromArray(evs('a', [1499, 999, 998]))
          .assignTimestampsAndWatermarks(bounded(500)),
      ),
    ).toEqual(['1499 W=-inf', '999 W=998', '998 W=998 late']);
  });

  it('windows see the same boundary', async () => {
    /*
     * tumbling 1000, bound 500
     *   1499 (W 998) then 999: [0,1000) has not fired (999 > 998): counted
     *   1500 (W 999) then 999: [0,1000) has passed (999 <= 999): late
     */
    const run = async (first: number) => {
      const env = env1();
      const sink = collect(
        env
          .fromArray([ev('a', first), ev('a', 999)])
          .assignTimestampsAndWatermarks(bounded(500))
          .keyBy((e) => e.k)
          .window(Windows.tumbling(1000))
          .aggregate(countSum),
      );
      const result = await env.execute();
      return { lines: fmtAll(sink.values), late: lateCount(result) };
    };
    expect(await run(1499)).toEqual({
      lines: ['a [0,1000) 1/1 on-time', 'a [1000,2000) 1/1 on-time'],
      late: 0,
    });
    expect(await run(1500)).toEqual({ lines: ['a [1000,2000) 1/1 on-time'], late: 1 });
  });

  it('watermarks follow batches: records of a batch see the watermark of the previous one', async () => {
    /*
     * bound 0, batchSize 3
     *   batch  [1 5 3]  [2 9 4]  [7]
     *   W after    4        8     8
     */
    const env = new StreamEnvironment({ batchSize: 3 });
    expect(
      await probeOf(
        env.fromArray(evs('a', [1, 5, 3, 2, 9, 4, 7])).assignTimestampsAndWatermarks(bounded(0)),
      ),
    ).toEqual([
      '1 W=-inf',
      '5 W=-inf',
      '3 W=-inf',
      '2 W=4 late',
      '9 W=4',
      '4 W=4 late',
      '7 W=8 late',
    ]);
  });

  it('rejects an invalid bound', () => {
    expect(() => WatermarkStrategy.forBoundedOutOfOrderness(-1)).toThrow(/maxOutOfOrderness/);
    expect(() => WatermarkStrategy.forBoundedOutOfOrderness(Number.NaN)).toThrow(
      /maxOutOfOrderness/,
    );
  });
});

describe('monotonous timestamps', () => {
  it('W = max - 1: equal timestamps are on time, smaller ones late', async () => {
    /*
     *   arrival  1  2  2  3  2
     *   W after  0  1  1  2  2
     */
    const out = await probeOf(
      env1()
        .fromArray(evs('a', [1, 2, 2, 3, 2]))
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.t),
        ),
    );
    expect(out).toEqual(['1 W=-inf', '2 W=0', '2 W=1', '3 W=1', '2 W=2 late']);
  });
});

/** Emits a watermark at the timestamp of every record of key 'P' (punctuation); nothing periodic. */
class Punctuated implements WatermarkGenerator<Ev> {
  onEvent(e: Ev, timestamp: number, output: { emitWatermark(t: number): void }): void {
    if (e.k === 'P') output.emitWatermark(timestamp);
  }
  onPeriodicEmit(): void {}
}

const punctuated = () =>
  WatermarkStrategy.forGenerator<Ev>(() => new Punctuated()).withTimestampAssigner((e) => e.t);

describe('custom watermark generators', () => {
  it('a watermark emitted from onEvent splits the batch right after that record', async () => {
    /*
     * one batch (default batchSize): a@1 a@2 P@5 a@3 a@7
     *                                         ^ W 5 goes out here, before a@3
     */
    const out = await probeOf(
      new StreamEnvironment()
        .fromArray([ev('a', 1), ev('a', 2), ev('P', 5), ev('a', 3), ev('a', 7)])
        .assignTimestampsAndWatermarks(punctuated()),
    );
    expect(out).toEqual(['1 W=-inf', '2 W=-inf', '5 W=-inf', '3 W=5 late', '7 W=5']);
  });

  it('windows downstream fire at the punctuation, inside the batch', async () => {
    /*
     * tumbling 5: [0,5) fires at W 5 with a@1, a@2; a@3 after it is late.
     *   0    5    10
     *   |1 2 |P5 7|
     *     3 ✗
     */
    const env = new StreamEnvironment();
    const sink = collect(
      env
        .fromArray([ev('a', 1), ev('a', 2), ev('P', 5), ev('a', 3), ev('a', 7)])
        .assignTimestampsAndWatermarks(punctuated())
        .keyBy((e) => e.k)
        .window(Windows.tumbling(5))
        .aggregate(countSum),
    );
    const result = await env.execute();
    expect(fmtAll(sink.values)).toEqual([
      'a [0,5) 2/2 on-time',
      'P [5,10) 1/1 on-time',
      'a [5,10) 1/1 on-time',
    ]);
    expect(lateCount(result)).toBe(1);
  });

  it('a watermark lower than the current one is ignored', async () => {
    const out = await probeOf(
      new StreamEnvironment()
        .fromArray([ev('P', 5), ev('P', 4), ev('a', 5), ev('a', 6)])
        .assignTimestampsAndWatermarks(punctuated()),
    );
    expect(out).toEqual(['5 W=-inf', '4 W=5 late', '5 W=5 late', '6 W=5']);
  });

  it('onPeriodicEmit runs after every batch', async () => {
    /*
     * A generator that emits (number of batches seen * 100) periodically; batchSize 2.
     *   batch [a@1 a@2] → W 100; [a@3 a@4] → W 200; [a@5] → W 300
     */
    let created = 0;
    const strategy = WatermarkStrategy.forGenerator<Ev>(() => {
      created++;
      let batches = 0;
      return {
        onEvent() {},
        onPeriodicEmit(output) {
          batches++;
          output.emitWatermark(batches * 100);
        },
      };
    }).withTimestampAssigner((e) => e.t);
    const out = await probeOf(
      new StreamEnvironment({ batchSize: 2 })
        .fromArray(evs('a', [1, 2, 3, 4, 500]))
        .assignTimestampsAndWatermarks(strategy),
    );
    expect(out).toEqual(['1 W=-inf', '2 W=-inf', '3 W=100 late', '4 W=100 late', '500 W=200']);
    expect(created).toBe(1);
  });

  it('noWatermarks: event time advances only at end of input', async () => {
    const env = env1();
    const sink = collect(
      env
        .fromArray(evs('a', [1, 50, 2, 100]))
        .assignTimestampsAndWatermarks(
          WatermarkStrategy.noWatermarks<Ev>().withTimestampAssigner((e) => e.t),
        )
        .keyBy((e) => e.k)
        .window(Windows.tumbling(10))
        .aggregate(countSum),
    );
    const result = await env.execute();
    expect(fmtAll(sink.values)).toEqual([
      'a [0,10) 2/2 on-time',
      'a [50,60) 1/1 on-time',
      'a [100,110) 1/1 on-time',
    ]);
    expect(lateCount(result)).toBe(0);
  });
});

describe('union of inputs', () => {
  /*
   * input A (fast):  a@1000  a@5000  a@1500           W_A: 999, 4999, 4999
   * input B (slow):  b@100 b@200 ... b@900             W_B: 99 ... 899
   * union W = min(W_A, W_B) <= 899 while B runs: a@1500 is not late, and [1000,2000)
   * holds both a@1000 and a@1500. Alone, A's W 4999 would make a@1500 late.
   *
   *   0        1000       2000 ...   5000      6000
   *   |b b b...|a@1000    |          |a@5000   |
   *             a@1500 ← would be late without B holding W back
   */
  const a = [ev('a', 1000), ev('a', 5000), ev('a', 1500)];
  const b = evs('b', [100, 200, 300, 400, 500, 600, 700, 800, 900]);

  it('a slow input holds back the windows of a fast one', async () => {
    for (const p of [1, 2, 4]) {
      const env = env1(p);
      const fast = env.fromArray(a, 'A').assignTimestampsAndWatermarks(bounded(0));
      const slow = env.fromArray(b, 'B').assignTimestampsAndWatermarks(bounded(0));
      const sink = collect(
        fast
          .union(slow)
          .keyBy((e) => e.k)
          .window(Windows.tumbling(1000))
          .aggregate(countSum),
      );
      const result = await env.execute();
      expect(sorted(fmtAll(sink.values))).toEqual(
        sorted([
          'a [1000,2000) 2/2 on-time',
          'a [5000,6000) 1/1 on-time',
          'b [0,1000) 9/9 on-time',
        ]),
      );
      expect(lateCount(result)).toBe(0);
    }
  });

  it('without the slow input the same record is late', async () => {
    const env = env1();
    const sink = collect(
      env
        .fromArray(a, 'A')
        .assignTimestampsAndWatermarks(bounded(0))
        .keyBy((e) => e.k)
        .window(Windows.tumbling(1000))
        .aggregate(countSum),
    );
    const result = await env.execute();
    expect(fmtAll(sink.values)).toEqual(['a [1000,2000) 1/1 on-time', 'a [5000,6000) 1/1 on-time']);
    expect(lateCount(result)).toBe(1);
  });

  it('the union watermark is the minimum over its inputs', async () => {
    /*
     * A probe after the union: every record sees W <= the slow input's W so far.
     * B's W never exceeds 899 before B ends, so no record of B or A sees more.
     */
    const env = env1();
    const fast = env.fromArray(a, 'A').assignTimestampsAndWatermarks(bounded(0));
    const slow = env.fromArray(b, 'B').assignTimestampsAndWatermarks(bounded(0));
    const out = await fast.union(slow).process(probe).executeAndCollect();
    expect(out).toHaveLength(12);
    for (const line of out) {
      const w = line.match(/W=(-?\w+)/)![1]!;
      expect(w === '-inf' || Number(w) <= 899).toBe(true);
      expect(line.endsWith('late')).toBe(false);
    }
  });
});

describe('idleness', () => {
  /*
   * Two unbounded inputs, unioned, tumbling 1000, bound 0:
   *
   *   A: a@1000 a@2000 a@3000 a@4000 a@5000, then quiet (open)     W_A = 4999
   *   B: b@500, then quiet (open)                                   W_B = 499
   *
   *   Without idleness: W = min(4999, 499) = 499: nothing fires.
   *   With B.withIdleness(50 ms): B is left out once idle, W = 4999: every
   *   window ending at or before 5000 fires, including B's [0,1000).
   *
   *   0     1000    2000    3000    4000    5000    6000
   *   | b500 | a1000 | a2000 | a3000 | a4000 | a5000 |   ← stays open: W 4999 < 5999
   */
  const build = (idleB: boolean) => {
    const env = new StreamEnvironment();
    const sourceA = new ScriptedSource<Ev>(
      [1000, 2000, 3000, 4000, 5000].map((t) => ({ records: [ev('a', t)] })),
      false,
      'A',
    );
    const sourceB = new ScriptedSource<Ev>([{ records: [ev('b', 500)] }], false, 'B');
    const strategyB = idleB ? bounded(0).withIdleness(50) : bounded(0);
    const sink = collect(
      env
        .fromSource(sourceA, bounded(0))
        .union(env.fromSource(sourceB, strategyB))
        .keyBy((e) => e.k)
        .window(Windows.tumbling(1000))
        .aggregate(countSum),
    );
    return { env, sink, sourceA, sourceB };
  };

  it('an idle input no longer holds back the windows of the others', async () => {
    const { env, sink } = build(true);
    const job = env.executeAsync('idle');
    try {
      await waitUntil(() => sink.values.length >= 5, 3000, 'five windows to fire');
      await sleep(100);
      expect(sorted(fmtAll(sink.values))).toEqual(
        sorted([
          'b [0,1000) 1/1 on-time',
          'a [1000,2000) 1/1 on-time',
          'a [2000,3000) 1/1 on-time',
          'a [3000,4000) 1/1 on-time',
          'a [4000,5000) 1/1 on-time',
        ]),
      );
    } finally {
      const result = await job.cancel();
      expect(result.status).toBe('cancelled');
    }
    // Cancelling does not fire the open window [5000,6000).
    expect(sink.values).toHaveLength(5);
  }, 5000);

  it('without idleness a quiet input holds event time back', async () => {
    const { env, sink, sourceA, sourceB } = build(false);
    const job = env.executeAsync('not idle');
    try {
      await waitUntil(() => sourceA.finished && sourceB.finished, 3000, 'both scripts to play');
      await sleep(200);
      expect(sink.values).toEqual([]);
    } finally {
      await job.cancel();
    }
  }, 5000);
});
