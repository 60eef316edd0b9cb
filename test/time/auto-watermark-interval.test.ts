/**
 * `EnvironmentOptions.autoWatermarkIntervalMs` (Flink's
 * `setAutoWatermarkInterval`): the periodic interval of every watermark step
 * whose strategy sets none, so a live input that goes quiet can still
 * advance event time. Same set-up as the quiet live input of
 * periodic-interval.test.ts, with the interval on the environment.
 */
import { describe, expect, it } from 'vitest';
import {
  type Clock,
  StreamEnvironment,
  type WatermarkOutput,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import {
  collect,
  countSum,
  type Ev,
  ev,
  fmtAll,
  ScriptedSource,
  sleep,
  waitUntil,
} from '../helpers/timeline.js';

/** Time moves only when the test sets it. */
class ManualClock implements Clock {
  time = 0;
  now(): number {
    return this.time;
  }
}

describe('autoWatermarkIntervalMs', () => {
  it('refuses an interval that is not a positive whole number of ms', () => {
    for (const ms of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new StreamEnvironment({ autoWatermarkIntervalMs: ms })).toThrow(
        /autoWatermarkIntervalMs must be a positive whole number/,
      );
    }
  });

  /*
   * tumbling 1000, bound 500; the generator assumes the stream is complete
   * once it has had no record for 1 s of processing time (watermark max - 1).
   * The strategy sets no interval of its own.
   *
   *   a@500 a@1200, then quiet        W = 699: [0,1000) open
   *   clock +5 s, timer: quiet        W = 1199: [0,1000) fires (only with the env interval)
   */
  const start = (interval: number | undefined) => {
    const clock = new ManualClock();
    const strategy = WatermarkStrategy.forGenerator<Ev>(() => {
      let max = Number.NEGATIVE_INFINITY;
      let lastEventAt = clock.now();
      return {
        onEvent(_e: Ev, t: number) {
          max = Math.max(max, t);
          lastEventAt = clock.now();
        },
        onPeriodicEmit(out: WatermarkOutput) {
          if (max === Number.NEGATIVE_INFINITY) return;
          out.emitWatermark(clock.now() - lastEventAt >= 1000 ? max - 1 : max - 501);
        },
      };
    }).withTimestampAssigner((e) => e.t);
    const env = new StreamEnvironment({
      clock,
      ...(interval === undefined ? {} : { autoWatermarkIntervalMs: interval }),
    });
    const source = new ScriptedSource<Ev>([{ records: [ev('a', 500), ev('a', 1200)] }], false);
    const sink = collect(
      env
        .fromSource(source, strategy)
        .keyBy((e) => e.k)
        .window(Windows.tumbling(1000))
        .aggregate(countSum),
    );
    return { clock, source, sink, job: env.executeAsync('quiet') };
  };

  it('a quiet live source gets a periodic emission when it is set', async () => {
    const { clock, source, sink, job } = start(100);
    try {
      await waitUntil(() => source.finished, 3000, 'the script to play');
      await sleep(100);
      expect(sink.values).toEqual([]);
      clock.time = 5000;
      await waitUntil(() => sink.values.length > 0, 3000, 'the window to fire');
      expect(fmtAll(sink.values)).toEqual(['a [0,1000) 1/1 on-time']);
    } finally {
      await job.cancel();
    }
  }, 10_000);

  it('unset, the quiet source holds event time', async () => {
    const { clock, source, sink, job } = start(undefined);
    try {
      await waitUntil(() => source.finished, 3000, 'the script to play');
      clock.time = 5000;
      await sleep(300);
      expect(sink.values).toEqual([]);
    } finally {
      await job.cancel();
    }
  }, 10_000);
});
