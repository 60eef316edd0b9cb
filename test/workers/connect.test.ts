/** Connected streams run both ways: one thread at parallelism 1, two workers at parallelism 2. */
import { describe, expect, it } from 'vitest';
import { bothWays, fixture } from './harness.js';

describe('worker mode gives the single-thread output', () => {
  it('keyed co-process with timers and a side output, keyed co-map with state, non-keyed co-flat-map', async () => {
    const sinks = ['pairs-out', 'alone-out', 'counts-out', 'merged-out'];
    // Small batches: a watermark every 32 records.
    const r = await bothWays(fixture('connect.ts'), sinks, { batchSize: 32 });
    for (const name of sinks) expect(r.single[name]?.length, name).toBeGreaterThan(0);
    expect(r.workers).toEqual(r.single);
  });
});
