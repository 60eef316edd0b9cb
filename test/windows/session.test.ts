import { describe, expect, it } from 'vitest';
import { OutputTag, type ProcessWindowFunction, Windows } from '../../src/index.js';
import {
  bounded,
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

async function sessions(
  input: Ev[],
  gap: number,
  opts: { bound?: number; lateness?: number; parallelism?: number; lateTag?: OutputTag<Ev> } = {},
) {
  const env = env1(opts.parallelism ?? 1);
  let windowed = env
    .fromArray(input)
    .assignTimestampsAndWatermarks(bounded(opts.bound ?? 0))
    .keyBy((e) => e.k)
    .window(Windows.session(gap))
    .allowedLateness(opts.lateness ?? 0);
  if (opts.lateTag !== undefined) windowed = windowed.sideOutputLateData(opts.lateTag);
  const results = windowed.aggregate(countSum);
  const sink = collect(results);
  const side =
    opts.lateTag === undefined ? undefined : collect(results.getSideOutput(opts.lateTag));
  const result = await env.execute();
  return {
    lines: fmtAll(sink.values),
    timestamps: sink.timestamps,
    late: lateCount(result),
    side: side?.values ?? [],
  };
}

describe('session windows', () => {
  it('merges sessions that overlap or touch, per key', async () => {
    /*
     * gap 10, bound 0 (W = max - 1)
     *
     *   arrival a@0 a@5 b@3 a@30 a@20 a@45
     *   W after  -1   4   4   29   29   44
     *
     *   a:  [0,10) + [5,15) → [0,15)                  fires at W 29 (after b's [3,13))
     *   b:  [3,13)                                    fires at W 29
     *   a:  [30,40), then a@20 (behind W, but [20,30) touches [30,40) at 30) → [20,40)
     *   a:  [45,55)                                   end of input
     *
     *   0    5    10   15   20   25   30   35   40   45   50   55
     *   [a0======[a5====)        [a20=====[a30=====)    [a45=====)
     *      [b3======)
     */
    const r = await sessions(
      [ev('a', 0), ev('a', 5), ev('b', 3), ev('a', 30), ev('a', 20), ev('a', 45)],
      10,
    );
    expect(r.lines).toEqual([
      'b [3,13) 1/1 on-time',
      'a [0,15) 2/2 on-time',
      'a [20,40) 2/2 on-time',
      'a [45,55) 1/1 on-time',
    ]);
    expect(r.timestamps).toEqual([12, 14, 39, 54]);
    expect(r.late).toBe(0);
  });

  it('merges an out-of-order record that arrives before the session it extends backwards', async () => {
    /*
     * gap 10, bound 20: a@10 then a@0. [0,10) touches [10,20) → [0,20).
     *   0         10         20
     *   [a0======)[a10======)
     */
    const r = await sessions([ev('a', 10), ev('a', 0), ev('a', 19)], 10, { bound: 20 });
    expect(r.lines).toEqual(['a [0,29) 3/3 on-time']);
  });

  it('does not merge sessions separated by more than the gap', async () => {
    // gap 10: [0,10) and [11,21) do not touch (10 < 11).
    const r = await sessions([ev('a', 0), ev('a', 11)], 10);
    expect(r.lines).toEqual(['a [0,10) 1/1 on-time', 'a [11,21) 1/1 on-time']);
  });

  it('a late record within the allowed lateness bridges two fired sessions into one update', async () => {
    /*
     * gap 10, allowedLateness 20, bound 0
     *
     *   arrival a@0  a@15  a@26  a@8  a@50  a@12
     *   W after  -1    14    25   25    49    49
     *                  ^ [0,10) fires (on-time)
     *                        ^ [15,25) fires (on-time)
     *                              ^ a@8: [8,18) touches [0,10) and [15,25): merged [0,25),
     *                                already past W → fires at once: late, update
     *                                    ^ [26,36) fires; [0,25) cleaned up (24 + 20 <= 49)
     *                                          ^ a@12: no session left, [12,22) past lateness → late
     *
     *   0    5    10   15   20   25   30   35
     *   [a0======)     [a15=====)[a26=====)
     *           [a8======)                      bridges
     */
    const lateTag = new OutputTag<Ev>('late');
    const r = await sessions(
      [ev('a', 0), ev('a', 15), ev('a', 26), ev('a', 8), ev('a', 50), ev('a', 12)],
      10,
      { lateness: 20, lateTag },
    );
    expect(r.lines).toEqual([
      'a [0,10) 1/1 on-time',
      'a [15,25) 1/1 on-time',
      'a [0,25) 3/3 late upd',
      'a [26,36) 1/1 on-time',
      'a [50,60) 1/1 on-time',
    ]);
    expect(r.timestamps).toEqual([9, 24, 24, 35, 59]);
    expect(r.late).toBe(1);
    expect(r.side).toEqual([ev('a', 12)]);
  });

  it('without lateness the bridging record is dropped', async () => {
    const r = await sessions([ev('a', 0), ev('a', 15), ev('a', 26), ev('a', 8)], 10);
    expect(r.lines).toEqual([
      'a [0,10) 1/1 on-time',
      'a [15,25) 1/1 on-time',
      'a [26,36) 1/1 on-time',
    ]);
    expect(r.late).toBe(1);
  });

  it('a late record that only touches an open session is not late', async () => {
    /*
     * gap 10, bound 0: a@20 then a@12 (W 19). [12,22) alone would be past W, but it
     * touches the open session [20,30) and joins it.
     */
    const r = await sessions([ev('a', 20), ev('a', 12)], 10);
    expect(r.lines).toEqual(['a [12,30) 2/2 on-time']);
    expect(r.late).toBe(0);
  });

  it('an on-time record extending a fired session (kept by the lateness) re-fires on time, as an update', async () => {
    /*
     * gap 10, allowedLateness 5, bound 0
     *   a@0 (W -1), b@10 (W 9: a's [0,10) fires), a@10 (on time: 10 > W; [10,20) touches
     *   [0,10) → [0,20), whose end has not passed), b@40 (W 39: [0,20) fires at its end)
     */
    const r = await sessions([ev('a', 0), ev('b', 10), ev('a', 10), ev('b', 40)], 10, {
      lateness: 5,
    });
    expect(r.lines).toEqual([
      'a [0,10) 1/1 on-time',
      'b [10,20) 1/1 on-time',
      'a [0,20) 2/2 on-time upd',
      'b [40,50) 1/1 on-time',
    ]);
  });

  it('supports a dynamic gap per record', async () => {
    /*
     * gap = value of the record
     *   a@0 gap 5 → [0,5); a@4 gap 2 → [4,6): merged [0,6)
     *   a@8 gap 10 → [8,18) (8 > 6: separate); a@17 gap 1 → [17,18) inside it
     *   b@0 gap 100 → [0,100)
     *
     *   0    5    10   15   20
     *   [a0=)
     *       [a4)
     *           [a8=========)
     *                    [a17)
     */
    const env = env1();
    const out = await env
      .fromArray([ev('a', 0, 5), ev('a', 4, 2), ev('b', 0, 100), ev('a', 8, 10), ev('a', 17, 1)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.dynamicSession<Ev>((e) => e.v))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([
      'a [0,6) 2/7 on-time',
      'a [8,18) 2/11 on-time',
      'b [0,100) 1/100 on-time',
    ]);
  });

  it('process gets all records of a merged session', async () => {
    const fn: ProcessWindowFunction<Ev, string, string> = {
      process(key, ctx, elements, out) {
        out.collect(
          `${key} [${ctx.window.start},${ctx.window.end}) ${elements.map((e) => e.t).join(',')}`,
        );
      },
    };
    const out = await env1()
      .fromArray([ev('a', 0), ev('a', 20), ev('a', 9), ev('a', 40)])
      .assignTimestampsAndWatermarks(bounded(20))
      .keyBy((e) => e.k)
      .window(Windows.session(10))
      .process(fn)
      .executeAndCollect();
    // [0,10) + [20,30) are bridged by [9,19)? 19 < 20: no. [0,10)+[9,19) → [0,19).
    expect(out).toEqual(['a [0,19) 0,9', 'a [20,30) 20', 'a [40,50) 40']);
  });

  it('reduce combines merged sessions', async () => {
    /*
     * gap 10, bound 20
     *   0         10   12        22
     *   [a0======)     [a12======)
     *         [a6======)              bridges both → [0,22)
     */
    const out = await env1()
      .fromArray([ev('a', 0, 1), ev('a', 12, 2), ev('a', 6, 4)])
      .assignTimestampsAndWatermarks(bounded(20))
      .keyBy((e) => e.k)
      .window(Windows.session(10))
      .reduce(sumReduce)
      .executeAndCollect();
    // [0,10) and [12,22) are bridged by [6,16).
    expect(fmtAll(out)).toEqual(['a [0,22) 7 on-time']);
  });

  it('is the same at parallelism 2 and 4', async () => {
    /*
     * gap 10, bound 5 (W = max - 6), allowedLateness 10
     *
     *   arrival a@0 b@1 c@2 a@5 b@30 c@9 a@22 b@12 c@60
     *   W after  -6  -5  -4  -1   24  24   24   24   54
     *                            ^ a [0,15), b [1,11), c [2,12) fire; b's and c's are
     *                              cleaned up at once (10 + 10 <= 24, 11 + 10 <= 24)
     *                                 ^ c@9: [9,19) is behind W but within lateness:
     *                                   a new window, fired at once as late (not an update)
     *                                           ^ b@12: the same, [12,22)
     */
    const input = [
      ev('a', 0),
      ev('b', 1),
      ev('c', 2),
      ev('a', 5),
      ev('b', 30),
      ev('c', 9),
      ev('a', 22),
      ev('b', 12),
      ev('c', 60),
    ];
    const base = await sessions(input, 10, { bound: 5, lateness: 10 });
    expect(base.lines).toEqual([
      'b [1,11) 1/1 on-time',
      'c [2,12) 1/1 on-time',
      'a [0,15) 2/2 on-time',
      'c [9,19) 1/1 late',
      'b [12,22) 1/1 late',
      'a [22,32) 1/1 on-time',
      'b [30,40) 1/1 on-time',
      'c [60,70) 1/1 on-time',
    ]);
    expect(base.late).toBe(0);
    for (const p of [2, 4]) {
      const r = await sessions(input, 10, { bound: 5, lateness: 10, parallelism: p });
      expect(sorted(r.lines)).toEqual(sorted(base.lines));
    }
  });
});
