import { describe, expect, it } from 'vitest';
import { Windows } from '../../src/index.js';
import {
  bounded,
  collect,
  countSum,
  env1,
  evs,
  ScriptedSource,
  sleep,
  waitUntil,
} from '../helpers/timeline.js';

/**
 * A live stream goes quiet: event time stops, so the window would stay open.
 *
 *   wall clock   ... now-3s ........ now-2s ......... now
 *   records      [● ● ●)                              (then silence)
 *   window       [now-3s, now-2s)  ends 2 s ago in wall-clock terms
 *   bound 60 s:  the watermark alone would not reach the window's end for a minute
 */
describe('closing windows by processing time', () => {
  const setup = (closeMs: number | undefined) => {
    const env = env1();
    const start = Math.floor(Date.now() / 1000) * 1000 - 3000;
    const source = new ScriptedSource(
      [{ records: evs('a', [start, start + 100, start + 900]) }],
      false,
    );
    let windows = env
      .fromSource(source)
      .assignTimestampsAndWatermarks(bounded(60_000))
      .keyBy((e) => e.k)
      .window(Windows.tumbling(1000));
    if (closeMs !== undefined) windows = windows.closeByProcessingTime(closeMs);
    const sink = collect(windows.aggregate(countSum));
    return { env, sink, start };
  };

  it('fires a window once the wall clock is past its end plus the grace, with no newer events', async () => {
    const { env, sink, start } = setup(300);
    const job = env.executeAsync('quiet stream');
    await waitUntil(() => sink.values.length > 0, 5000, 'the window to close');
    await job.cancel();
    expect(sink.values).toEqual([
      {
        key: 'a',
        window: { start, end: start + 1000 },
        value: { count: 3, sum: 3 },
        timing: 'on-time',
        isUpdate: false,
      },
    ]);
  });

  it('is off by default: the window waits for event time', async () => {
    const { env, sink } = setup(undefined);
    const job = env.executeAsync('quiet stream');
    await sleep(800);
    await job.cancel();
    expect(sink.values).toEqual([]);
  });

  it('rejects a negative grace', () => {
    expect(() =>
      env1()
        .fromArray(evs('a', [1]))
        .keyBy((e) => e.k)
        .window(Windows.tumbling(10))
        .closeByProcessingTime(-1),
    ).toThrow(/grace/);
  });
});
