import { describe, expect, it } from 'vitest';
import {
  CollectSink,
  type RecordBatch,
  type Sink,
  type SinkWriter,
  StreamEnvironment,
} from '../../src/index.js';

/** A sink that accepts a batch only every few milliseconds. */
class SlowSink<T> implements Sink<T> {
  readonly name = 'slow';
  received = 0;
  constructor(private readonly delayMs: number) {}
  createWriter(): SinkWriter<T> {
    let pending: Promise<void> | undefined;
    return {
      write: (batch: RecordBatch<T>) => {
        this.received += batch.values.length;
        pending = new Promise((resolve) =>
          setTimeout(() => {
            pending = undefined;
            resolve();
          }, this.delayMs),
        );
      },
      blocked: () => pending,
      close: () => pending,
    };
  }
}

describe('exchange', () => {
  it('routes every record of a key to one subtask, at any parallelism', async () => {
    for (const parallelism of [1, 2, 4]) {
      const env = new StreamEnvironment({ parallelism, batchSize: 7 });
      const out = await env
        .fromArray(Array.from({ length: 1000 }, (_, i) => ({ key: `k${i % 13}`, v: i })))
        .keyBy((r) => r.key)
        .reduce((a, b) => ({ key: a.key, v: a.v + b.v }))
        .executeAndCollect();
      const finals = new Map<string, number>();
      for (const r of out) finals.set(r.key, r.v);
      const expected = new Map<string, number>();
      for (let i = 0; i < 1000; i++)
        expected.set(`k${i % 13}`, (expected.get(`k${i % 13}`) ?? 0) + i);
      expect(finals).toEqual(expected);
      expect(out).toHaveLength(1000);
    }
  });

  it('produces identical results at parallelism 1, 2 and 4 through rebalance and union', async () => {
    const run = async (parallelism: number) => {
      const env = new StreamEnvironment({ parallelism, batchSize: 16 });
      const a = env.fromArray(Array.from({ length: 500 }, (_, i) => i)).rebalance();
      const b = env.fromArray(Array.from({ length: 300 }, (_, i) => i * 7));
      const out = await a
        .union(b)
        .map((x) => x * 2)
        .filter((x) => x % 3 !== 0)
        .executeAndCollect();
      return out.sort((x, y) => x - y);
    };
    const one = await run(1);
    expect(await run(2)).toEqual(one);
    expect(await run(4)).toEqual(one);
  });

  it('holds a fast source back while a slow sink drains: memory stays bounded', async () => {
    const env = new StreamEnvironment({ batchSize: 100, channelCapacity: 2 });
    const sink = new SlowSink<number>(2);
    let maxAhead = 0;
    let produced = 0;
    env
      .fromGenerator({ count: 20_000, generate: (i) => i })
      .map((x) => {
        produced++;
        maxAhead = Math.max(maxAhead, produced - sink.received);
        return x;
      })
      .rebalance()
      .sinkTo(sink);
    await env.execute();
    expect(sink.received).toBe(20_000);
    // At most the channel capacity plus the batch in flight, never the whole input.
    expect(maxAhead).toBeLessThanOrEqual(100 * 4);
  });

  it('collects side-effect-free: a sink sees each record once', async () => {
    const env = new StreamEnvironment({ parallelism: 3 });
    const sink = new CollectSink<number>();
    env
      .fromGenerator({ count: 10_000, generate: (i) => i })
      .keyBy((x) => x % 100)
      .map((x) => x)
      .sinkTo(sink);
    await env.execute();
    expect(sink.values.slice().sort((a, b) => a - b)).toEqual(
      Array.from({ length: 10_000 }, (_, i) => i),
    );
  });
});
