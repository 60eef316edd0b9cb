import { describe, expect, it } from 'vitest';
import { type ProcessWindowFunction, Triggers, Windows } from '../../src/index.js';
import {
  bounded,
  collect,
  countNoMerge,
  countSum,
  type Ev,
  env1,
  ev,
  evs,
  fmtAll,
  lateCount,
  sorted,
  sumReduce,
} from '../helpers/timeline.js';

type Path = 'slices' | 'general';

/** Runs a sliding count+sum window; `general` forces the per-window operator with an explicit trigger. */
async function slidingCountSum(
  input: Ev[],
  size: number,
  slide: number,
  offset: number,
  bound: number,
  path: Path = 'slices',
  parallelism = 1,
) {
  const env = env1(parallelism);
  const windowed = env
    .fromArray(input)
    .assignTimestampsAndWatermarks(bounded(bound))
    .keyBy((e) => e.k)
    .window(Windows.sliding(size, slide, offset));
  const sink = collect(
    (path === 'general' ? windowed.trigger(Triggers.eventTime()) : windowed).aggregate(countSum),
  );
  const result = await env.execute();
  return { lines: fmtAll(sink.values), timestamps: sink.timestamps, late: lateCount(result) };
}

describe('sliding event-time windows', () => {
  /*
   * sliding 10 / 5, bound 0 (W = max - 1), value = timestamp
   *
   *   arrival   a@1  a@7  a@12  a@6  a@20  a@3
   *   W after     0    6    11   11    19   19
   *                    ^ [-5,5) fires
   *                         ^ [0,10) fires
   *                               ^ a@6: [0,10) fired (dropped there), [5,15) open → accepted
   *                                    ^ [5,15) and [10,20) fire
   *                                          ^ a@3: [-5,5) and [0,10) both fired → late
   *
   *   -5    0    5    10   15   20   25   30
   *   [---------)                               1
   *         [---------)                         1 7
   *              [---------)                    7 12 6
   *                   [---------)               12
   *                        [---------)          20
   *                             [---------)     20
   */
  const input = [1, 7, 12, 6, 20, 3].map((t) => ev('a', t, t));
  const expected = [
    'a [-5,5) 1/1 on-time',
    'a [0,10) 2/8 on-time',
    'a [5,15) 3/25 on-time',
    'a [10,20) 1/12 on-time',
    'a [15,25) 1/20 on-time',
    'a [20,30) 1/20 on-time',
  ];

  it('fires overlapping windows in order of their end and drops records whose windows all fired', async () => {
    const r = await slidingCountSum(input, 10, 5, 0, 0);
    expect(r.lines).toEqual(expected);
    expect(r.timestamps).toEqual([4, 9, 14, 19, 24, 29]);
    expect(r.late).toBe(1);
  });

  it('gives the same result through the general window operator', async () => {
    const r = await slidingCountSum(input, 10, 5, 0, 0, 'general');
    expect(r.lines).toEqual(expected);
    expect(r.late).toBe(1);
  });

  /*
   * size 10, slide 1, bound 5: a record belongs to 10 windows.
   *
   *   arrival a@5 (W -1), a@0 (W -1), a@12 (W 6: windows ending <= 7 fire)
   *
   *   window start s:  -9 .. -5 | -4 .. 0 | 1 2 | 3 .. 5 | 6 .. 12
   *   records        :   {0}    |  {0,5}  | {5} | {5,12} | {12}
   */
  const bigInput = [ev('a', 5, 5), ev('a', 0, 0), ev('a', 12, 12)];
  const bigExpected = [
    'a [-9,1) 1/0 on-time',
    'a [-8,2) 1/0 on-time',
    'a [-7,3) 1/0 on-time',
    'a [-6,4) 1/0 on-time',
    'a [-5,5) 1/0 on-time',
    'a [-4,6) 2/5 on-time',
    'a [-3,7) 2/5 on-time',
    'a [-2,8) 2/5 on-time',
    'a [-1,9) 2/5 on-time',
    'a [0,10) 2/5 on-time',
    'a [1,11) 1/5 on-time',
    'a [2,12) 1/5 on-time',
    'a [3,13) 2/17 on-time',
    'a [4,14) 2/17 on-time',
    'a [5,15) 2/17 on-time',
    'a [6,16) 1/12 on-time',
    'a [7,17) 1/12 on-time',
    'a [8,18) 1/12 on-time',
    'a [9,19) 1/12 on-time',
    'a [10,20) 1/12 on-time',
    'a [11,21) 1/12 on-time',
    'a [12,22) 1/12 on-time',
  ];

  it('handles a size much larger than the slide (10 / 1)', async () => {
    const r = await slidingCountSum(bigInput, 10, 1, 0, 5);
    expect(r.lines).toEqual(bigExpected);
    expect(r.timestamps).toEqual(bigExpected.map((_, i) => i - 9 + 10 - 1));
    expect(r.late).toBe(0);
  });

  it('size 10 / 1 through the general operator', async () => {
    const r = await slidingCountSum(bigInput, 10, 1, 0, 5, 'general');
    expect(r.lines).toEqual(bigExpected);
  });

  /*
   * size 10, slide 3: the size is not a multiple of the slide, so window ends
   * (1, 4, 7, ...) are not aligned like window starts (0, 3, 6, ...).
   *
   *   arrival a@0 (W -1), a@4 (W 3), a@10 (W 9)
   *
   *   -9   -6   -3    0    3    6    9   12   15   18
   *   [----------)                                       0
   *        [----------)                                  0
   *             [-----------)                            0 4
   *                   [----------)                       0 4
   *                        [----------)                  4 10
   *                             [----------)             10
   *                                  [----------)        10
   */
  const oddInput = [ev('a', 0, 0), ev('a', 4, 4), ev('a', 10, 10)];
  const oddExpected = [
    'a [-9,1) 1/0 on-time',
    'a [-6,4) 1/0 on-time',
    'a [-3,7) 2/4 on-time',
    'a [0,10) 2/4 on-time',
    'a [3,13) 2/14 on-time',
    'a [6,16) 1/10 on-time',
    'a [9,19) 1/10 on-time',
  ];

  it('handles a size that is not a multiple of the slide (10 / 3)', async () => {
    const r = await slidingCountSum(oddInput, 10, 3, 0, 0);
    expect(r.lines).toEqual(oddExpected);
    expect(r.timestamps).toEqual([0, 3, 6, 9, 12, 15, 18]);
  });

  it('10 / 3 through the general operator', async () => {
    const r = await slidingCountSum(oddInput, 10, 3, 0, 0, 'general');
    expect(r.lines).toEqual(oddExpected);
  });

  it('10 / 3 keeps every window until it fires (no early clean-up of shared slices)', async () => {
    /*
     * a@0 then a@9 (W 8): the slice [0,1) still belongs to window [0,10),
     * which fires only at W >= 9.
     */
    const r = await slidingCountSum([ev('a', 0, 0), ev('a', 9, 9), ev('a', 30, 30)], 10, 3, 0, 0);
    expect(r.lines).toEqual([
      'a [-9,1) 1/0 on-time',
      'a [-6,4) 1/0 on-time',
      'a [-3,7) 1/0 on-time',
      'a [0,10) 2/9 on-time',
      'a [3,13) 1/9 on-time',
      'a [6,16) 1/9 on-time',
      'a [9,19) 1/9 on-time',
      'a [21,31) 1/30 on-time',
      'a [24,34) 1/30 on-time',
      'a [27,37) 1/30 on-time',
      'a [30,40) 1/30 on-time',
    ]);
  });

  it('applies an offset to the window starts', async () => {
    /*
     * sliding 10 / 5, offset 2: starts ... -8, -3, 2, 7 ...
     *   -8   -3    2    7   12   17
     *   [---------)                   1
     *        [---------)              1 6
     *             [---------)         6 8
     *                  [---------)    8
     */
    const r = await slidingCountSum([ev('a', 1, 1), ev('a', 6, 6), ev('a', 8, 8)], 10, 5, 2, 0);
    expect(r.lines).toEqual([
      'a [-8,2) 1/1 on-time',
      'a [-3,7) 2/7 on-time',
      'a [2,12) 2/14 on-time',
      'a [7,17) 1/8 on-time',
    ]);
  });

  it('handles negative timestamps', async () => {
    /*
     * sliding 4 / 2, records -5, -1, 0
     *   -8  -6  -4  -2   0   2   4
     *   [-------)                     -5
     *       [-------)                 -5
     *           [-------)             -1
     *               [-------)         -1 0
     *                   [-------)     0
     */
    const r = await slidingCountSum([ev('a', -5, -5), ev('a', -1, -1), ev('a', 0, 0)], 4, 2, 0, 0);
    expect(r.lines).toEqual([
      'a [-8,-4) 1/-5 on-time',
      'a [-6,-2) 1/-5 on-time',
      'a [-4,0) 1/-1 on-time',
      'a [-2,2) 2/-1 on-time',
      'a [0,4) 1/0 on-time',
    ]);
  });

  it('is the same at parallelism 2 and 4, with several keys', async () => {
    /*
     * sliding 10 / 5, bound 2 (W = max - 3)
     *   arrival a@1 b@2 b@3 a@7 c@9 a@6 a@12 b@14 b@20
     *   W after  -2  -1   0   4   6   6    9   11   17
     */
    const multi = [
      ev('a', 1),
      ev('b', 2),
      ev('b', 3),
      ev('a', 7),
      ev('c', 9),
      ev('a', 6),
      ev('a', 12),
      ev('b', 14),
      ev('b', 20),
    ];
    const base = await slidingCountSum(multi, 10, 5, 0, 2);
    expect(base.late).toBe(0);
    expect(base.lines).toEqual([
      'a [-5,5) 1/1 on-time',
      'b [-5,5) 2/2 on-time',
      'a [0,10) 3/3 on-time',
      'b [0,10) 2/2 on-time',
      'c [0,10) 1/1 on-time',
      'a [5,15) 3/3 on-time',
      'c [5,15) 1/1 on-time',
      'b [5,15) 1/1 on-time',
      'a [10,20) 1/1 on-time',
      'b [10,20) 1/1 on-time',
      'b [15,25) 1/1 on-time',
      'b [20,30) 1/1 on-time',
    ]);
    for (const p of [2, 4]) {
      const r = await slidingCountSum(multi, 10, 5, 0, 2, 'slices', p);
      expect(sorted(r.lines)).toEqual(sorted(base.lines));
    }
  });
});

describe('window functions on sliding windows', () => {
  const input = [1, 7, 12].map((t) => ev('a', t, t));
  const windowed = () =>
    env1()
      .fromArray(input)
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.sliding(10, 5));

  it('reduce merges the slices of each window', async () => {
    const out = await windowed().reduce(sumReduce).executeAndCollect();
    expect(fmtAll(out)).toEqual([
      'a [-5,5) 1 on-time',
      'a [0,10) 8 on-time',
      'a [5,15) 19 on-time',
      'a [10,20) 12 on-time',
    ]);
  });

  it('aggregate without merge still works (general operator)', async () => {
    const out = await windowed().aggregate(countNoMerge).executeAndCollect();
    expect(fmtAll(out)).toEqual([
      'a [-5,5) 1 on-time',
      'a [0,10) 2 on-time',
      'a [5,15) 2 on-time',
      'a [10,20) 1 on-time',
    ]);
  });

  it('process sees every record of each window', async () => {
    const fn: ProcessWindowFunction<Ev, string, string> = {
      process(key, ctx, elements, out) {
        out.collect(
          `${key} [${ctx.window.start},${ctx.window.end}) ${elements.map((e) => e.t).join(',')}`,
        );
      },
    };
    const out = await windowed().process(fn).executeAndCollect();
    expect(out).toEqual(['a [-5,5) 1', 'a [0,10) 1,7', 'a [5,15) 7,12', 'a [10,20) 12']);
  });

  it('process does not leak records between windows that share slices', async () => {
    // Every firing merges slices into a fresh list: a window's list never holds another's records.
    const fn: ProcessWindowFunction<Ev, number, string> = {
      process(_key, _ctx, elements, out) {
        out.collect(elements.length);
      },
    };
    const out = await env1()
      .fromArray(evs('a', [0, 1, 2, 3, 4, 5, 6, 7]))
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.sliding(4, 2))
      .process(fn)
      .executeAndCollect();
    // windows [-2,2) [0,4) [2,6) [4,8) [6,10)
    expect(out).toEqual([2, 4, 4, 4, 2]);
  });
});
