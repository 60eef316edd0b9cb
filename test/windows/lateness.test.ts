import { describe, expect, it } from 'vitest';
import {
  OutputTag,
  type ProcessWindowFunction,
  Triggers,
  type WindowAssigner,
  Windows,
} from '../../src/index.js';
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
} from '../helpers/timeline.js';

type Path = 'slices' | 'general';

async function run(
  input: Ev[],
  assigner: WindowAssigner<Ev>,
  lateness: number,
  path: Path,
  parallelism = 1,
) {
  const env = env1(parallelism);
  const lateTag = new OutputTag<Ev>('late');
  let windowed = env
    .fromArray(input)
    .assignTimestampsAndWatermarks(bounded(0))
    .keyBy((e) => e.k)
    .window(assigner)
    .allowedLateness(lateness)
    .sideOutputLateData(lateTag);
  if (path === 'general') windowed = windowed.trigger(Triggers.eventTime());
  const results = windowed.aggregate(countSum);
  const main = collect(results);
  const side = collect(results.getSideOutput(lateTag));
  const result = await env.execute();
  return {
    lines: fmtAll(main.values),
    timestamps: main.timestamps,
    side: side.values,
    late: lateCount(result),
  };
}

describe.each<Path>(['slices', 'general'])('allowed lateness (%s operator)', (path) => {
  it('tumbling: late records within the lateness re-emit the window as a late update', async () => {
    /*
     * tumbling 10, allowedLateness 5, bound 0 (W = max - 1)
     *
     *   arrival  a@1  a@12  a@7  a@3  b@5  a@16  a@4
     *   W after    0    11   11   11   11    15   15
     *                   ^ [0,10) fires on time
     *                        ^ a@7: 9 <= W < 9 + 5 → update (late)
     *                             ^ a@3: another update
     *                                  ^ b@5: b's [0,10) never fired: late, not an update
     *                                        ^ W 15 >= 9 + 5: [0,10) is dropped
     *                                              ^ a@4: too late → side output + counter
     *   end: [10,20) fires on time
     *
     *   0         10         20
     *   |a1 a7 a3 |a12 a16   |
     *   |  b5     |          |
     */
    const r = await run(
      [ev('a', 1), ev('a', 12), ev('a', 7), ev('a', 3), ev('b', 5), ev('a', 16), ev('a', 4)],
      Windows.tumbling(10),
      5,
      path,
    );
    expect(r.lines).toEqual([
      'a [0,10) 1/1 on-time',
      'a [0,10) 2/2 late upd',
      'a [0,10) 3/3 late upd',
      'b [0,10) 1/1 late',
      'a [10,20) 2/2 on-time',
    ]);
    expect(r.timestamps).toEqual([9, 9, 9, 9, 19]);
    expect(r.side).toEqual([ev('a', 4)]);
    expect(r.late).toBe(1);
  });

  it('tumbling: the lateness boundary is exact (end - 1 + lateness)', async () => {
    /*
     * tumbling 10, lateness 5: [0,10) accepts records while W < 14.
     *   a@1 a@14 (W 13) a@9 → update        a@1 a@15 (W 14) a@9 → too late
     */
    const inTime = await run([ev('a', 1), ev('a', 14), ev('a', 9)], Windows.tumbling(10), 5, path);
    expect(inTime.lines).toEqual([
      'a [0,10) 1/1 on-time',
      'a [0,10) 2/2 late upd',
      'a [10,20) 1/1 on-time',
    ]);
    expect(inTime.late).toBe(0);
    const tooLate = await run([ev('a', 1), ev('a', 15), ev('a', 9)], Windows.tumbling(10), 5, path);
    expect(tooLate.lines).toEqual(['a [0,10) 1/1 on-time', 'a [10,20) 1/1 on-time']);
    expect(tooLate.side).toEqual([ev('a', 9)]);
    expect(tooLate.late).toBe(1);
  });

  it('without lateness a record behind the window end is dropped and counted', async () => {
    /*
     *   arrival  a@1  a@10  a@9  a@5
     *   W after    0     9    9    9
     *                    ^ [0,10) fires; a@9 and a@5 are late
     */
    const r = await run(
      [ev('a', 1), ev('a', 10), ev('a', 9), ev('a', 5)],
      Windows.tumbling(10),
      0,
      path,
    );
    expect(r.lines).toEqual(['a [0,10) 1/1 on-time', 'a [10,20) 1/1 on-time']);
    expect(r.side).toEqual([ev('a', 9), ev('a', 5)]);
    expect(r.late).toBe(2);
  });

  it('sliding: a late record updates only the windows still within the lateness', async () => {
    /*
     * sliding 10 / 5, lateness 5, bound 0
     *
     *   arrival  a@1  a@12  a@3  a@18  a@4
     *   W after    0    11   11    17   17
     *                   ^ [-5,5) and [0,10) fire
     *                        ^ a@3: [-5,5) is past 4 + 5 (dropped for it); [0,10) is
     *                          within 9 + 5 → [0,10) updated
     *                              ^ [5,15) fires; [0,10) dropped (14 <= 17)
     *                                    ^ a@4: both its windows are gone → late
     *
     *   -5    0    5    10   15   20   25
     *   [---------)                        1          (a@3 not added: past lateness)
     *         [---------)                  1 3
     *              [---------)             12
     *                   [---------)        12 18
     *                        [---------)   18
     */
    const r = await run(
      [ev('a', 1), ev('a', 12), ev('a', 3), ev('a', 18), ev('a', 4)],
      Windows.sliding(10, 5),
      5,
      path,
    );
    expect(r.lines).toEqual([
      'a [-5,5) 1/1 on-time',
      'a [0,10) 1/1 on-time',
      'a [0,10) 2/2 late upd',
      'a [5,15) 1/1 on-time',
      'a [10,20) 2/2 on-time',
      'a [15,25) 1/1 on-time',
    ]);
    expect(r.side).toEqual([ev('a', 4)]);
    expect(r.late).toBe(1);
  });

  it('sliding: a late record whose windows have not all fired is not late', async () => {
    /*
     * sliding 10 / 5, lateness 0: a@1, a@12 (W 11: [0,10) fired), a@7: [0,10) is
     * closed but [5,15) is open → accepted there, not counted as late.
     */
    const r = await run([ev('a', 1), ev('a', 12), ev('a', 7)], Windows.sliding(10, 5), 0, path);
    expect(r.lines).toEqual([
      'a [-5,5) 1/1 on-time',
      'a [0,10) 1/1 on-time',
      'a [5,15) 2/2 on-time',
      'a [10,20) 1/1 on-time',
    ]);
    expect(r.late).toBe(0);
  });

  it('counts late records over all subtasks', async () => {
    const input = [
      ev('a', 1),
      ev('b', 2),
      ev('c', 3),
      ev('d', 30),
      ev('a', 4),
      ev('b', 5),
      ev('c', 25),
      ev('d', 9),
    ];
    /*
     * tumbling 10, lateness 10, bound 0. After d@30, W = 29: [0,10) fires for a, b, c and
     * is at once past its lateness (9 + 10 <= 29), so a@4, b@5 and d@9 are late. c@25
     * lands in [20,30), whose end has passed but which is within its lateness: it fires
     * at once, late, not an update (nothing was emitted for c there).
     */
    for (const p of [1, 2, 4]) {
      const r = await run(input, Windows.tumbling(10), 10, path, p);
      expect(r.late).toBe(3);
      expect(sorted(r.side.map((e) => `${e.k}@${e.t}`))).toEqual(['a@4', 'b@5', 'd@9']);
      expect(sorted(r.lines)).toEqual(
        sorted([
          'a [0,10) 1/1 on-time',
          'b [0,10) 1/1 on-time',
          'c [0,10) 1/1 on-time',
          'c [20,30) 1/1 late',
          'd [30,40) 1/1 on-time',
        ]),
      );
    }
  });
});

describe('late firings seen by a process window function', () => {
  it('context.timing and context.isUpdate follow the firings', async () => {
    const fn: ProcessWindowFunction<Ev, string, string> = {
      process(key, ctx, elements, out) {
        out.collect(
          `${key} [${ctx.window.start},${ctx.window.end}) ${elements.map((e) => e.t).join(',')} ${ctx.timing} upd=${ctx.isUpdate}`,
        );
      },
    };
    const out = await env1()
      .fromArray([ev('a', 1), ev('a', 12), ev('a', 7)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .allowedLateness(5)
      .process(fn)
      .executeAndCollect();
    expect(out).toEqual([
      'a [0,10) 1 on-time upd=false',
      'a [0,10) 1,7 late upd=true',
      'a [10,20) 12 on-time upd=false',
    ]);
  });

  it('the elements array a firing received is not changed by later late records', async () => {
    // The function emits the array itself; a late update must not alter what was emitted.
    const fn: ProcessWindowFunction<Ev, readonly Ev[], string> = {
      process(_key, _ctx, elements, out) {
        out.collect(elements);
      },
    };
    const out = await env1()
      .fromArray([ev('a', 1), ev('a', 12), ev('a', 7), ev('a', 8)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .allowedLateness(5)
      .process(fn)
      .executeAndCollect();
    expect(out.map((list) => list.map((e) => e.t))).toEqual([[1], [1, 7], [1, 7, 8], [12]]);
  });
});
