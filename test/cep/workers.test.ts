import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bothWays } from '../workers/harness.js';

describe('CEP on worker threads', () => {
  it('gives the matches of a single-thread run', async () => {
    const { single, workers } = await bothWays(
      resolve(import.meta.dirname, 'fixtures', 'cep-job.ts'),
    );
    expect(single.out!.length).toBeGreaterThan(100);
    expect(workers.out).toEqual(single.out);
  }, 120_000);
});

describe('CEP with per-stage windows and a comparator on worker threads', () => {
  it('gives the matches of a single-thread run, ties in any arrival order', async () => {
    const { single, workers } = await bothWays(
      resolve(import.meta.dirname, 'fixtures', 'cep-ties-job.ts'),
    );
    expect(single.out!.length).toBeGreaterThan(100);
    expect(workers.out).toEqual(single.out);
  }, 120_000);
});
