import { describe, expect, it } from 'vitest';
import {
  OutputTag,
  type ProcessWindowFunction,
  Triggers,
  type WindowResult,
  Windows,
} from '../../src/index.js';
import {
  bounded,
  type CountSum,
  collect,
  countSum,
  type Ev,
  env1,
  ev,
  fmtAll,
  lateCount,
  sorted,
  sumReduce,
} from '../helpers/timeline.js';

/*
 * tumbling 10, bound 3 (W = max - 4), one record per batch:
 *
 *   arrival  a@1 b@3 a@8 a@12 a@6 b@13 a@9  b@25 a@17
 *   W after   -3  -1   4    8   8    9   9    21   21
 *                                   ^ [0,10) fires (W >= 9)
 *                                        ^ a@9: [0,10) fired, lateness 0 → late
 *                                             ^ [10,20) fires
 *                                                  ^ a@17 late
 *   event time  0        10        20        30
 *               |a1 b3 a6 a8 | a12 b13 | b25      |   end of input → [20,30) fires
 */
const MAIN: Ev[] = [
  ev('a', 1, 1),
  ev('b', 3, 2),
  ev('a', 8, 3),
  ev('a', 12, 4),
  ev('a', 6, 5),
  ev('b', 13, 6),
  ev('a', 9, 7),
  ev('b', 25, 8),
  ev('a', 17, 9),
];

const MAIN_EXPECTED = [
  'a [0,10) 3/9 on-time',
  'b [0,10) 1/2 on-time',
  'a [10,20) 1/4 on-time',
  'b [10,20) 1/6 on-time',
  'b [20,30) 1/8 on-time',
];

describe('tumbling event-time windows', () => {
  it('fires each window when the watermark reaches end - 1, drops and counts late records', async () => {
    const env = env1();
    const sink = collect(
      env
        .fromArray(MAIN)
        .assignTimestampsAndWatermarks(bounded(3))
        .keyBy((e) => e.k)
        .window(Windows.tumbling(10))
        .aggregate(countSum),
    );
    const result = await env.execute();
    expect(fmtAll(sink.values)).toEqual(MAIN_EXPECTED);
    // Results carry the window's last timestamp.
    expect(sink.timestamps).toEqual([9, 9, 19, 19, 29]);
    expect(lateCount(result)).toBe(2);
  });

  it('gives the same result through the general window operator (explicit event-time trigger)', async () => {
    const env = env1();
    const sink = collect(
      env
        .fromArray(MAIN)
        .assignTimestampsAndWatermarks(bounded(3))
        .keyBy((e) => e.k)
        .window(Windows.tumbling(10))
        .trigger(Triggers.eventTime())
        .aggregate(countSum),
    );
    const result = await env.execute();
    expect(sorted(fmtAll(sink.values))).toEqual(sorted(MAIN_EXPECTED));
    expect(lateCount(result)).toBe(2);
  });

  it('is the same at parallelism 2 and 4', async () => {
    for (const p of [2, 4]) {
      const env = env1(p);
      const sink = collect(
        env
          .fromArray(MAIN)
          .assignTimestampsAndWatermarks(bounded(3))
          .keyBy((e) => e.k)
          .window(Windows.tumbling(10))
          .aggregate(countSum),
      );
      const result = await env.execute();
      expect(sorted(fmtAll(sink.values))).toEqual(sorted(MAIN_EXPECTED));
      expect(lateCount(result)).toBe(2);
    }
  });

  it('handles negative timestamps and a window at the epoch boundary', async () => {
    /*
     * tumbling 10, bound 0
     *   -20       -10        0        10
     *    | -15     | -10 -1  | 0 9    |
     */
    const env = env1();
    const out = await env
      .fromArray([ev('a', -15), ev('a', -10), ev('a', -1), ev('a', 0), ev('a', 9)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([
      'a [-20,-10) 1/1 on-time',
      'a [-10,0) 2/2 on-time',
      'a [0,10) 2/2 on-time',
    ]);
  });

  it('shifts windows by a positive or negative offset', async () => {
    /*
     * offset 3:   [-7,3) [3,13) [13,23)        offset -3:  [-3,7) [7,17) [17,27)
     *   records 2 | 3 12 | 13 22                 records 2 3 | 12 13 | 22
     */
    const input = [2, 3, 12, 13, 22].map((t) => ev('a', t));
    const run = async (offset: number) => {
      const env = env1();
      return fmtAll(
        await env
          .fromArray(input)
          .assignTimestampsAndWatermarks(bounded(0))
          .keyBy((e) => e.k)
          .window(Windows.tumbling(10, offset))
          .aggregate(countSum)
          .executeAndCollect(),
      );
    };
    expect(await run(3)).toEqual([
      'a [-7,3) 1/1 on-time',
      'a [3,13) 2/2 on-time',
      'a [13,23) 2/2 on-time',
    ]);
    expect(await run(-3)).toEqual([
      'a [-3,7) 2/2 on-time',
      'a [7,17) 2/2 on-time',
      'a [17,27) 1/1 on-time',
    ]);
  });

  it('sends records past the window to the late side output with their timestamps', async () => {
    const env = env1();
    const late = new OutputTag<Ev>('late');
    const results = env
      .fromArray(MAIN)
      .assignTimestampsAndWatermarks(bounded(3))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .sideOutputLateData(late)
      .aggregate(countSum);
    const main = collect(results);
    const side = collect(results.getSideOutput(late));
    const result = await env.execute();
    expect(fmtAll(main.values)).toEqual(MAIN_EXPECTED);
    expect(side.values).toEqual([ev('a', 9, 7), ev('a', 17, 9)]);
    expect(side.timestamps).toEqual([9, 17]);
    expect(lateCount(result)).toBe(2);
  });
});

describe('window functions on tumbling windows', () => {
  /*
   * tumbling 10, bound 0:  a@1 a@4 b@5 | a@11 a@15
   *                        0          10         20
   */
  const input = [ev('a', 1, 1), ev('a', 4, 2), ev('b', 5, 10), ev('a', 11, 3), ev('a', 15, 4)];
  const keyed = () =>
    env1()
      .fromArray(input)
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10));

  it('reduce combines the records of each window', async () => {
    const out = await keyed().reduce(sumReduce).executeAndCollect();
    expect(fmtAll(out)).toEqual([
      'a [0,10) 3 on-time',
      'b [0,10) 10 on-time',
      'a [10,20) 7 on-time',
    ]);
  });

  it('aggregate folds into an accumulator', async () => {
    const out = await keyed().aggregate(countSum).executeAndCollect();
    expect(fmtAll(out)).toEqual([
      'a [0,10) 2/3 on-time',
      'b [0,10) 1/10 on-time',
      'a [10,20) 2/7 on-time',
    ]);
  });

  it('process sees all records of the window in arrival order, and the window metadata', async () => {
    const fn: ProcessWindowFunction<Ev, string, string> = {
      process(key, ctx, elements, out) {
        const ts = elements.map((e) => e.t).join(',');
        out.collect(
          `${key} [${ctx.window.start},${ctx.window.end}) ${ts} ${ctx.timing} upd=${ctx.isUpdate} wm=${ctx.currentWatermark()}`,
        );
      },
    };
    const out = await keyed().process(fn).executeAndCollect();
    expect(out).toEqual([
      'a [0,10) 1,4 on-time upd=false wm=10',
      'b [0,10) 5 on-time upd=false wm=10',
      'a [10,20) 11,15 on-time upd=false wm=Infinity',
    ]);
  });

  it('aggregate + process gives the window function the single pre-aggregated result', async () => {
    const fn: ProcessWindowFunction<CountSum, string, string> = {
      process(key, ctx, elements, out) {
        out.collect(
          `${key}@${ctx.window.start}: n=${elements.length} count=${elements[0]!.count} sum=${elements[0]!.sum}`,
        );
      },
    };
    const out = await keyed().aggregate(countSum, fn).executeAndCollect();
    expect(out).toEqual([
      'a@0: n=1 count=2 sum=3',
      'b@0: n=1 count=1 sum=10',
      'a@10: n=1 count=2 sum=7',
    ]);
  });

  it('reduce + process gives the window function the reduced record', async () => {
    const fn: ProcessWindowFunction<Ev, string, string> = {
      process(key, ctx, elements, out) {
        out.collect(`${key}@${ctx.window.start}: ${elements.map((e) => e.v).join(',')}`);
      },
    };
    const out = await keyed().reduce(sumReduce, fn).executeAndCollect();
    expect(out).toEqual(['a@0: 3', 'b@0: 10', 'a@10: 7']);
  });

  it('process function side outputs carry the window end - 1 timestamp', async () => {
    const tag = new OutputTag<string>('sizes');
    const fn: ProcessWindowFunction<Ev, string, string> = {
      process(key, ctx, elements, out) {
        out.collect(key);
        ctx.output(tag, `${key}:${elements.length}`);
      },
    };
    const env = env1();
    const main = env
      .fromArray(input)
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .process(fn);
    const side = collect(main.getSideOutput(tag));
    await env.execute();
    expect(side.values).toEqual(['a:2', 'b:1', 'a:2']);
    expect(side.timestamps).toEqual([9, 9, 19]);
  });

  it('emits nothing for windows without records', async () => {
    /*
     *   0    10   20 ... 90   100
     *   | a5 |    |  ... | a95 |      only [0,10) and [90,100) have records
     */
    const env = env1();
    const out: WindowResult<string, CountSum>[] = await env
      .fromArray([ev('a', 5), ev('a', 95)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual(['a [0,10) 1/1 on-time', 'a [90,100) 1/1 on-time']);
  });
});
