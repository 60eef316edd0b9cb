import { describe, expect, it } from 'vitest';
import type { RecordBatch } from '../../src/core/record-batch.js';
import { CollectSink, GeneratorSource, StreamEnvironment } from '../../src/index.js';
import { MetricRegistry } from '../../src/metrics/registry.js';
import { ManualClock } from '../../src/testing/manual-clock.js';

interface Rec {
  readonly index: number;
  readonly a: number;
  readonly b: string;
}

/** Generates `count` records (index plus two random draws) with `seed` at `parallelism`, sorted by index. */
async function generate(
  seed: number | undefined,
  parallelism: number,
  count = 3_000,
): Promise<Rec[]> {
  const env = new StreamEnvironment({ parallelism, batchSize: 64 });
  const sink = new CollectSink<Rec>();
  env
    .fromSource(
      new GeneratorSource<Rec>({
        count,
        ...(seed === undefined ? {} : { seed }),
        generate: (index, random) => ({
          index,
          a: random.nextUint32(),
          b: random.pick(['x', 'y', 'z']) + random.int(1_000),
        }),
      }),
    )
    .sinkTo(sink);
  await env.execute(`generate seed ${seed} p${parallelism}`);
  return [...sink.values].sort((x, y) => x.index - y.index);
}

describe('GeneratorSource', () => {
  it('the same seed gives the same records at parallelism 1 and 3; another seed different ones', async () => {
    const p1 = await generate(42, 1);
    const p3 = await generate(42, 3);
    // Every index exactly once.
    expect(p1.map((r) => r.index)).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
    expect(p3).toEqual(p1);
    expect(await generate(42, 1)).toEqual(p1);

    const other = await generate(43, 3);
    expect(other.map((r) => r.index)).toEqual(p1.map((r) => r.index));
    const differing = other.filter((r, i) => r.a !== p1[i]!.a).length;
    // Independent 32-bit draws: practically every record differs.
    expect(differing).toBeGreaterThan(2_990);
    // No seed is seed 0.
    expect(await generate(undefined, 2)).toEqual(await generate(0, 1));
  });

  it('holds the rate limit over all subtasks: 1,500 records at 1,000/s take about 1.5 s', async () => {
    for (const parallelism of [1, 3]) {
      const env = new StreamEnvironment({ parallelism });
      const sink = new CollectSink<number>();
      env
        .fromSource(new GeneratorSource({ count: 1_500, ratePerSecond: 1_000, generate: (i) => i }))
        .sinkTo(sink);
      const started = performance.now();
      await env.execute(`rate p${parallelism}`);
      const seconds = (performance.now() - started) / 1000;
      expect(sink.values).toHaveLength(1_500);
      expect(seconds).toBeGreaterThanOrEqual(1.4);
      // Upper bound loose for a busy shared machine; an unlimited run takes milliseconds.
      expect(seconds).toBeLessThan(4);
    }
  });

  it('does not make up for a stall in a burst: at most a second of records is due at once', () => {
    const clock = new ManualClock(1_000_000);
    const reader = new GeneratorSource({
      count: 100_000,
      ratePerSecond: 1_000,
      generate: (i) => i,
    }).createReader({
      subtaskIndex: 0,
      parallelism: 1,
      batchSize: 64,
      clock,
      metrics: new MetricRegistry().group({ operator: 'generator' }),
      operatorId: 'generator',
      restoredPosition: undefined,
    });
    reader.open?.();
    /** Polls until the reader waits; the records it gave. */
    const drain = (): number[] => {
      const out: number[] = [];
      for (;;) {
        const r = reader.poll();
        if (r === 'wait' || r === 'end') return out;
        out.push(...(r as RecordBatch<number>).values);
      }
    };
    // On pace: 2 s give 2,000 records.
    clock.set(1_001_000);
    expect(drain()).toHaveLength(1_000);
    clock.set(1_002_000);
    expect(drain()).toHaveLength(1_000);
    // Held up for 30 s (the task blocked): one second's records, not 30 seconds' worth.
    clock.set(1_032_000);
    const burst = drain();
    expect(burst.length).toBeGreaterThanOrEqual(980);
    expect(burst.length).toBeLessThanOrEqual(1_000);
    // Then on pace again from there, with every index once and in order.
    clock.set(1_033_000);
    const next = drain();
    expect(next.length).toBeGreaterThanOrEqual(980);
    expect(next.length).toBeLessThanOrEqual(1_020);
    const all = [...burst, ...next];
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => 2_000 + i));
  });
});
