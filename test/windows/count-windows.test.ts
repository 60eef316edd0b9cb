import { describe, expect, it } from 'vitest';
import {
  type ProcessWindowFunction,
  StreamEnvironment,
  Triggers,
  Windows,
} from '../../src/index.js';
import { testStateBackend } from '../helpers/state-backend.js';
import {
  collect,
  countSum,
  type Ev,
  env1,
  ev,
  fmtAll,
  sorted,
  sumReduce,
} from '../helpers/timeline.js';

const G = '[-inf,+inf)';

/** Lists the values of each firing: `key: v1,v2,...`. */
const listValues: ProcessWindowFunction<Ev, string, string> = {
  process(key, ctx, elements, out) {
    out.collect(
      `${key}: ${elements.map((e) => e.v).join(',')} ${ctx.timing}${ctx.isUpdate ? ' upd' : ''}`,
    );
  },
};

/** Records of keys a and b, interleaved, with values 1.. per key (no timestamps needed). */
function interleaved(aCount: number, bCount: number): Ev[] {
  const out: Ev[] = [];
  for (let i = 1; i <= Math.max(aCount, bCount); i++) {
    if (i <= aCount) out.push(ev('a', 0, i));
    if (i <= bCount) out.push(ev('b', 0, 10 * i));
  }
  return out;
}

describe('count windows', () => {
  it('countWindow(n) fires every n records of a key; the partial window fires at end of input', async () => {
    /*
     * countWindow(3)
     *   a: 1 2 3 | 4 5 6 | 7        → [1,2,3] [4,5,6], and [7] at end of input
     *   b: 10 20                     → [10,20] at end of input (Flink would drop both partials)
     */
    const out = await env1()
      .fromArray(interleaved(7, 2))
      .keyBy((e) => e.k)
      .countWindow(3)
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([
      `a ${G} 3/6 early`,
      `a ${G} 3/15 early`,
      `a ${G} 1/7 on-time`,
      `b ${G} 2/30 on-time`,
    ]);
  });

  it('countWindow(n) with a process function sees exactly the records of each window', async () => {
    const out = await env1()
      .fromArray(interleaved(7, 2))
      .keyBy((e) => e.k)
      .countWindow(3)
      .process(listValues)
      .executeAndCollect();
    expect(out).toEqual(['a: 1,2,3 early', 'a: 4,5,6 early', 'a: 7 on-time', 'b: 10,20 on-time']);
  });

  it('countWindow(n) emits nothing extra when the count divides the input', async () => {
    const out = await env1()
      .fromArray(interleaved(6, 0))
      .keyBy((e) => e.k)
      .countWindow(3)
      .reduce(sumReduce)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([`a ${G} 6 early`, `a ${G} 15 early`]);
  });

  it('countWindow(n, slide) fires every slide records with the last n', async () => {
    /*
     * countWindow(3, 2)
     *   a: 1 2 | 3 4 | 5 6 | 7
     *        ^ [1,2]  (fewer than 3 so far)
     *              ^ [2,3,4]
     *                    ^ [4,5,6]
     *                        ^ end of input: 7 not emitted yet → [5,6,7]
     *   b: 10 20 30 → [10,20] at 20; 30 left → [10,20,30] at end
     */
    const out = await env1()
      .fromArray(interleaved(7, 3))
      .keyBy((e) => e.k)
      .countWindow(3, 2)
      .process(listValues)
      .executeAndCollect();
    expect(out).toEqual([
      'a: 1,2 early',
      'b: 10,20 early',
      'a: 2,3,4 early upd',
      'a: 4,5,6 early upd',
      'a: 5,6,7 on-time upd',
      'b: 10,20,30 on-time upd',
    ]);
  });

  it('countWindow(n, slide) does not repeat the last window when the input ends on a firing', async () => {
    /*
     * countWindow(3, 2):  1 2 | 3 4 | 5 6 | end
     *                       ^ [1,2] ^ [2,3,4] ^ [4,5,6]   nothing left for end of input
     */
    const out = await env1()
      .fromArray(interleaved(6, 0))
      .keyBy((e) => e.k)
      .countWindow(3, 2)
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([
      `a ${G} 2/3 early`,
      `a ${G} 3/9 early upd`,
      `a ${G} 3/15 early upd`,
    ]);
  });

  it('countWindow(n, 1) slides record by record', async () => {
    /*
     * countWindow(2, 1):  1 | 2 | 3 | 4
     *                     ^[1] ^[1,2] ^[2,3] ^[3,4]
     */
    const out = await env1()
      .fromArray(interleaved(4, 0))
      .keyBy((e) => e.k)
      .countWindow(2, 1)
      .reduce(sumReduce)
      .executeAndCollect();
    // [1] [1,2] [2,3] [3,4]
    expect(out.map((r) => r.value.v)).toEqual([1, 3, 5, 7]);
  });

  it('is the same at parallelism 2 and 4', async () => {
    const input = [...interleaved(7, 5), ...interleaved(0, 0)];
    for (const k of ['c', 'd', 'e']) for (let i = 1; i <= 4; i++) input.push(ev(k, 0, i));
    const run = async (p: number) => {
      const env = new StreamEnvironment({ parallelism: p, batchSize: 3, ...testStateBackend() });
      const sink = collect(
        env
          .fromArray(input)
          .keyBy((e) => e.k)
          .countWindow(3)
          .aggregate(countSum),
      );
      await env.execute();
      return sorted(fmtAll(sink.values));
    };
    const base = await run(1);
    expect(base).toEqual(
      sorted([
        `a ${G} 3/6 early`,
        `a ${G} 3/15 early`,
        `a ${G} 1/7 on-time`,
        `b ${G} 3/60 early`,
        `b ${G} 2/90 on-time`,
        `c ${G} 3/6 early`,
        `c ${G} 1/4 on-time`,
        `d ${G} 3/6 early`,
        `d ${G} 1/4 on-time`,
        `e ${G} 3/6 early`,
        `e ${G} 1/4 on-time`,
      ]),
    );
    expect(await run(2)).toEqual(base);
    expect(await run(4)).toEqual(base);
  });

  it('rejects invalid counts when the job is built', () => {
    const keyed = env1()
      .fromArray([ev('a', 0)])
      .keyBy((e) => e.k);
    expect(() => keyed.countWindow(0)).toThrow(
      /count window size must be a positive whole number, got 0/,
    );
    expect(() => keyed.countWindow(2.5)).toThrow(/positive whole number/);
    expect(() => keyed.countWindow(3, 0)).toThrow(
      /count window slide must be a positive whole number, got 0/,
    );
  });

  it('a non-purging count trigger hands each firing its own elements array', async () => {
    const keep: ProcessWindowFunction<Ev, readonly Ev[], string> = {
      process(_key, _ctx, elements, out) {
        out.collect(elements);
      },
    };
    const out = await env1()
      .fromArray(interleaved(5, 0))
      .keyBy((e) => e.k)
      .window(Windows.global())
      .trigger(Triggers.count(2))
      .process(keep)
      .executeAndCollect();
    expect(out.map((list) => list.map((e) => e.v))).toEqual([
      [1, 2],
      [1, 2, 3, 4],
      [1, 2, 3, 4, 5],
    ]);
  });
});
