/**
 * A watermark generator with `onUpstreamWatermark` in the middle of a job: it is handed every
 * upstream watermark and emits its own from it, where an assigner without it drops them (and
 * only the final one at end of input passes). Records late by the re-expressed watermark are
 * dropped by the window after it.
 *
 *   t:          1   5   12  3   15
 *   watermark:  0   4   11  11  14     (bounded by 0, after every record)
 *   [0, 10) fires at 11: the record at 3 is late when passed on, kept when dropped
 */
import { describe, expect, it } from 'vitest';
import {
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkStrategy,
  Windows,
} from '../../src/index.js';
import {
  bounded,
  collect,
  countSum,
  type Ev,
  env1,
  evs,
  fmtAll,
  lateCount,
  sorted,
} from '../helpers/timeline.js';

/** Passes each upstream watermark on, shifted by `shift`. */
class Following implements WatermarkGenerator<Ev> {
  constructor(private readonly shift: number) {}
  onEvent(): void {}
  onUpstreamWatermark(watermark: number, output: WatermarkOutput): void {
    output.emitWatermark(watermark + this.shift);
  }
}

async function run(generator: () => WatermarkGenerator<Ev>, shift: number) {
  const env = env1();
  const windows = env
    .fromArray(evs('a', [1, 5, 12, 3, 15]), 'events')
    .assignTimestampsAndWatermarks(bounded(0))
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forGenerator(generator).withTimestampAssigner((e) => e.t + shift),
    )
    .keyBy((e) => e.k)
    .window(Windows.tumbling(10))
    .aggregate(countSum);
  const sink = collect(windows);
  const result = await env.execute('upstream watermarks');
  return { lines: sorted(fmtAll(sink.values)), late: lateCount(result) };
}

describe('a watermark generator that follows upstream watermarks', () => {
  it('re-expresses each upstream watermark, so late records are late downstream too', async () => {
    const followed = await run(() => new Following(0), 0);
    expect(followed.late).toBe(1);
    expect(followed.lines).toEqual(['a [0,10) 2/2 on-time', 'a [10,20) 2/2 on-time']);
    // Shifted by 5 (times and watermarks alike): the windows cut the stream elsewhere.
    const shifted = await run(() => new Following(5), 5);
    expect(shifted.late).toBe(1);
    expect(shifted.lines).toEqual([
      'a [0,10) 1/1 on-time',
      'a [10,20) 2/2 on-time',
      'a [20,30) 1/1 on-time',
    ]);
  });

  it('without it, upstream watermarks stop at the assigner and no record is late', async () => {
    const dropped = await run(() => ({ onEvent() {} }), 0);
    expect(dropped.late).toBe(0);
    expect(dropped.lines).toEqual(['a [0,10) 3/3 on-time', 'a [10,20) 2/2 on-time']);
  });
});
