import { describe, expect, it } from 'vitest';
import { StreamEnvironment, Windows } from '../../src/index.js';
import { ManualClock } from '../../src/testing/manual-clock.js';
import { ClockScript } from '../helpers/clock-script.js';
import { collect, countSum, ev } from '../helpers/timeline.js';

/**
 * A processing-time window fires when its timer is due; a record that reaches the operator in
 * that same millisecond, after the firing, belongs to the next window. It once re-opened the
 * fired window and made it fire a second time (a CUMULATE over PROCTIME() on a busy machine
 * gave two results for one window), where Flink, whose timers fire only once the clock is past
 * them, gives one.
 *
 *   clock     500        999 (the timer of [0, 1000) fires)        999
 *   records   a                                                     b
 *   windows   [0, 1000): a, once          [1000, 2000): b
 */
describe('processing-time windows whose timer has fired', () => {
  it('take a record that arrives in the firing millisecond into the next window, once each', async () => {
    const clock = new ManualClock(500);
    const env = new StreamEnvironment({ parallelism: 1, batchSize: 1, clock });
    const sink = collect(
      env
        .fromSource(new ClockScript(clock, [ev('k', 0), 999, ev('k', 0, 5)]))
        .keyBy((e) => e.k)
        .window(Windows.tumblingProcessingTime(1000))
        .aggregate(countSum),
    );
    await env.execute('processing-time windows');
    expect(sink.values.map((r) => [r.window.start, r.window.end, r.value])).toEqual([
      [0, 1000, { count: 1, sum: 1 }],
      [1000, 2000, { count: 1, sum: 5 }],
    ]);
  });
});
