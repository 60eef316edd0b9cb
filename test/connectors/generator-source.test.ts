import { describe, expect, it } from 'vitest';
import { CollectSink, GeneratorSource, StreamEnvironment } from '../../src/index.js';

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
});
