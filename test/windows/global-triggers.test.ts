import { describe, expect, it } from 'vitest';
import { StreamEnvironment, Triggers, Windows } from '../../src/index.js';
import { testStateBackend } from '../helpers/state-backend.js';
import {
  bounded,
  collect,
  countSum,
  type Ev,
  env1,
  ev,
  evs,
  fmtAll,
  ScriptedSource,
} from '../helpers/timeline.js';

const G = '[-inf,+inf)';

describe('global windows with triggers', () => {
  it('a count trigger fires every n records, keeping the contents (updates)', async () => {
    /*
     * global, count(2), no purge
     *   a1 a2 | a3 a4 | a5      end of input
     *       ^ fire  ^ fire      ^ the fifth record has not been emitted: fire once more
     */
    const out = await env1()
      .fromArray([1, 2, 3, 4, 5].map((v) => ev('a', v, v)))
      .keyBy((e) => e.k)
      .window(Windows.global())
      .trigger(Triggers.count(2))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([
      `a ${G} 2/3 early`,
      `a ${G} 4/10 early upd`,
      `a ${G} 5/15 on-time upd`,
    ]);
  });

  it('does not repeat the last firing at end of input when nothing arrived since', async () => {
    /*
     *   a1 a2 | a3 a4 |  end
     *       ^       ^    nothing new since the last firing: no extra result
     */
    const out = await env1()
      .fromArray([1, 2, 3, 4].map((v) => ev('a', v, v)))
      .keyBy((e) => e.k)
      .window(Windows.global())
      .trigger(Triggers.count(2))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([`a ${G} 2/3 early`, `a ${G} 4/10 early upd`]);
  });

  it('a purging count trigger emits only what arrived since the last firing', async () => {
    /*
     * global, purging(count(2)), keys a and b interleaved
     *   a1 b1 a2 b2 a3 b3 a4 a5   end
     *         ^a    ^b    ^a      a5 and b3 are left: they fire at end of input
     */
    const input = [
      ev('a', 0, 1),
      ev('b', 0, 10),
      ev('a', 0, 2),
      ev('b', 0, 20),
      ev('a', 0, 3),
      ev('b', 0, 30),
      ev('a', 0, 4),
      ev('a', 0, 5),
    ];
    const out = await env1()
      .fromArray(input)
      .keyBy((e) => e.k)
      .window(Windows.global())
      .trigger(Triggers.purging(Triggers.count(2)))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([
      `a ${G} 2/3 early`,
      `b ${G} 2/30 early`,
      `a ${G} 2/7 early`,
      `a ${G} 1/5 on-time`,
      `b ${G} 1/30 on-time`,
    ]);
  });

  it('an event-time trigger on a global window fires once, at end of input', async () => {
    /*
     * The global window ends at +inf: its timer fires only when W = +inf (end of input).
     *   a@5 a@1 a@9 ─────────────── W = +inf → fire (3 records)
     */
    const env = env1();
    const sink = collect(
      env
        .fromArray(evs('a', [5, 1, 9]))
        .assignTimestampsAndWatermarks(bounded(0))
        .keyBy((e) => e.k)
        .window(Windows.global())
        .trigger(Triggers.eventTime())
        .aggregate(countSum),
    );
    await env.execute();
    expect(fmtAll(sink.values)).toEqual([`a ${G} 3/3 on-time`]);
    expect(sink.timestamps).toEqual([Number.POSITIVE_INFINITY]);
  });

  it('continuous event-time firing on a global window', async () => {
    /*
     * global, continuousEventTime(10), bound 0
     *   arrival  a@1  a@5  a@12  a@25  a@26
     *   W after    0    4    11    24    25
     *   timers   10 ────────^ fire (3 records), next 20
     *                             ^ 20 fires (4), next 30
     *   end of input: W = +inf, 30 fires (5) — the final result, on time
     */
    const out = await env1()
      .fromArray(evs('a', [1, 5, 12, 25, 26]))
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.global())
      .trigger(Triggers.continuousEventTime(10))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([
      `a ${G} 3/3 early`,
      `a ${G} 4/4 early upd`,
      `a ${G} 5/5 on-time upd`,
    ]);
  });
});

describe('continuous event-time trigger on time windows', () => {
  it('fires early every interval of event time, then on time at the end of the window', async () => {
    /*
     * tumbling 100, continuousEventTime(20), bound 0
     *
     *   arrival  a@5  a@15  a@25  a@45  a@99  a@130
     *   W after    4    14    24    44    98    129
     *                         ^ timer 20: early (5,15,25); next 40
     *                               ^ timer 40: early (+45); next 60
     *                                     ^ timer 60 (W jumped over 80): early (+99); next 100 is past the window
     *                                           ^ timer 99: on time
     *   [100,200): a@130 → early timer 140, end timer 199; at end of input W = +inf passes
     *   both: only the firing at the end is emitted (an early one would repeat it)
     *
     *   0    20   40   60   80   100  120  140
     *   |  5 15 25  45          99 | 130
     */
    const out = await env1()
      .fromArray([5, 15, 25, 45, 99, 130].map((t) => ev('a', t)))
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(100))
      .trigger(Triggers.continuousEventTime(20))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([
      'a [0,100) 3/3 early',
      'a [0,100) 4/4 early upd',
      'a [0,100) 5/5 early upd',
      'a [0,100) 5/5 on-time upd',
      'a [100,200) 1/1 on-time',
    ]);
  });

  it('a watermark that jumps past the whole window fires it once, on time', async () => {
    /*
     * a@5 (early timer 20, end timer 99), then a@300: W 299 passes both timers.
     */
    const out = await env1()
      .fromArray([ev('a', 5), ev('a', 300)])
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(100))
      .trigger(Triggers.continuousEventTime(20))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual(['a [0,100) 1/1 on-time', 'a [300,400) 1/1 on-time']);
  });

  it('purging continuous trigger emits deltas', async () => {
    /*
     * tumbling 100, purging(continuousEventTime(50)), bound 0
     *   a@10 a@20 (W 19) a@60 (W 59: timer 50 fires {10,20,60} — a batch is processed
     *   before the watermark it produces — and purges) a@70, end: 99 fires {70}
     */
    const out = await env1()
      .fromArray([10, 20, 60, 70].map((t) => ev('a', t)))
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(100))
      .trigger(Triggers.purging(Triggers.continuousEventTime(50)))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual(['a [0,100) 3/3 early', 'a [0,100) 1/1 on-time']);
  });

  it('a count trigger on tumbling windows: contents left at the window end are cleaned up without firing (as in Flink)', async () => {
    /*
     * tumbling 10, count(2): a@1 a@2 → fire; a@3 remains; the window is cleaned up
     * when W passes 9 and the count trigger does not fire on time.
     */
    const out = await env1()
      .fromArray([1, 2, 3, 11, 12].map((t) => ev('a', t)))
      .assignTimestampsAndWatermarks(bounded(0))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(10))
      .trigger(Triggers.count(2))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual(['a [0,10) 2/2 early', 'a [10,20) 2/2 early']);
  });
});

describe('processing-time triggers', () => {
  it('a continuous processing-time trigger with a short interval fires between batches', async () => {
    /*
     * wall clock:  0 ms         150 ms        300 ms
     *   batches    [a1 a2]      [a4]          end
     *   firings       ^ within 20 ms ^ within 20 ms      (purging: each firing holds the new records)
     */
    const source = new ScriptedSource<Ev>(
      [
        { records: [ev('a', 0, 1), ev('a', 0, 2)] },
        { pauseMs: 150 },
        { records: [ev('a', 0, 4)] },
        { pauseMs: 150 },
      ],
      true,
    );
    const env = new StreamEnvironment(testStateBackend());
    const out = await env
      .fromSource(source)
      .keyBy((e) => e.k)
      .window(Windows.global())
      .trigger(Triggers.purging(Triggers.continuousProcessingTime(20)))
      .aggregate(countSum)
      .executeAndCollect();
    expect(fmtAll(out)).toEqual([`a ${G} 2/3 early`, `a ${G} 1/4 early`]);
  }, 5000);

  it('tumbling processing-time windows fire when the wall clock passes their end', async () => {
    const source = new ScriptedSource<Ev>(
      [
        { records: [ev('a', 0, 1), ev('b', 0, 2), ev('a', 0, 3)] },
        { pauseMs: 120 },
        { records: [ev('a', 0, 4)] },
        { pauseMs: 120 },
      ],
      true,
    );
    const env = new StreamEnvironment(testStateBackend());
    const out = await env
      .fromSource(source)
      .keyBy((e) => e.k)
      .window(Windows.tumblingProcessingTime(50))
      .aggregate(countSum)
      .executeAndCollect();
    expect(out.map((r) => `${r.key} ${r.value.count}/${r.value.sum} ${r.timing}`)).toEqual([
      'a 2/4 on-time',
      'b 1/2 on-time',
      'a 1/4 on-time',
    ]);
    for (const r of out) expect(r.window.end - r.window.start).toBe(50);
  }, 5000);

  it('processing-time windows still open at end of input fire once', async () => {
    const env = new StreamEnvironment(testStateBackend());
    const out = await env
      .fromArray([ev('a', 0, 1), ev('a', 0, 2)])
      .keyBy((e) => e.k)
      .window(Windows.tumblingProcessingTime(60_000))
      .aggregate(countSum)
      .executeAndCollect();
    expect(out.map((r) => `${r.key} ${r.value.count}/${r.value.sum} ${r.timing}`)).toEqual([
      'a 2/3 early',
    ]);
  });
});
