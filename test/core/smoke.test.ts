import { describe, expect, it } from 'vitest';
import { StreamEnvironment, Time, WatermarkStrategy, Windows } from '../../src/index.js';

interface Ev {
  user: string;
  t: number;
}

describe('smoke', () => {
  it('counts per key in tumbling windows', async () => {
    const env = new StreamEnvironment();
    const events: Ev[] = [
      { user: 'a', t: 1000 },
      { user: 'b', t: 1500 },
      { user: 'a', t: 2500 },
      { user: 'a', t: 1200 },
    ];
    const out = await env
      .fromArray(events)
      .assignTimestampsAndWatermarks(
        WatermarkStrategy.forBoundedOutOfOrderness<Ev>(2000).withTimestampAssigner((e) => e.t),
      )
      .keyBy((e) => e.user)
      .window(Windows.tumbling(Time.seconds(1)))
      .aggregate({
        createAccumulator: () => 0,
        add: (_e, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      })
      .executeAndCollect();
    expect(out.map((r) => [r.key, r.window.start, r.value])).toEqual([
      ['a', 1000, 2],
      ['b', 1000, 1],
      ['a', 2000, 1],
    ]);
  });
});
