import { describe, expect, it } from 'vitest';
import {
  type NexmarkEvent,
  NexmarkSource,
  nexmarkConfig,
  nexmarkEvent,
  nexmarkEventTime,
} from '../../src/connectors/nexmark/index.js';
import { systemClock } from '../../src/core/clock.js';
import { CollectSink, StreamEnvironment } from '../../src/index.js';
import { MetricRegistry } from '../../src/metrics/registry.js';

function context(subtaskIndex: number, parallelism: number, restoredPosition?: number) {
  return {
    subtaskIndex,
    parallelism,
    batchSize: 4,
    clock: systemClock,
    metrics: new MetricRegistry().group({ operator: 'nexmark' }),
    operatorId: 'nexmark',
    restoredPosition,
  };
}

describe('NexmarkSource', () => {
  it('emits the sequential stream at any parallelism, each record stamped with its event time', async () => {
    const config = { maxEvents: 5_000, seed: 3 };
    const expected = Array.from({ length: 5_000 }, (_, i) =>
      JSON.stringify(nexmarkEvent(i, nexmarkConfig(config))),
    ).sort();
    for (const parallelism of [1, 3]) {
      const env = new StreamEnvironment({ parallelism, batchSize: 100 });
      const sink = new CollectSink<NexmarkEvent>();
      env.fromSource(new NexmarkSource({ config })).sinkTo(sink);
      await env.execute('nexmark source');
      expect(sink.values.map((e) => JSON.stringify(e)).sort()).toEqual(expected);
      expect(sink.timestamps).toEqual(sink.values.map(nexmarkEventTime));
    }
  });

  it('splits by index modulo the parallelism and resumes from a snapshot', () => {
    const source = new NexmarkSource({ config: { maxEvents: 20 } });
    expect(source.bounded).toBe(true);
    const reader = source.createReader(context(1, 3));
    const first = reader.poll();
    if (typeof first === 'string') throw new Error(`expected a batch, got ${first}`);
    expect(first.values).toEqual([1, 4, 7, 10].map((i) => nexmarkEvent(i, source.config)));
    expect(reader.snapshot?.(1)).toBe(13);
    const resumed = source.createReader(context(1, 3, 13));
    const rest = resumed.poll();
    if (typeof rest === 'string') throw new Error(`expected a batch, got ${rest}`);
    expect(rest.values).toEqual([13, 16, 19].map((i) => nexmarkEvent(i, source.config)));
    expect(resumed.poll()).toBe('end');
    expect(() => source.createReader(context(1, 3, 12))).toThrow(RangeError);
  });

  it('is unbounded without maxEvents', () => {
    expect(new NexmarkSource().bounded).toBe(false);
  });
});
