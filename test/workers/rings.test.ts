/**
 * The shared-memory rings between workers at their edges: rings far too small
 * for the traffic (256 bytes: every batch crosses in parts, and writers wait
 * for room all the time), with checkpoint barriers behind the waiting data and
 * a worker that dies while its rings hold data. Every run must give what one
 * thread gives.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runJobModule, StreamEnvironment, WeirError } from '../../src/index.js';
import { bothWays, committed, fixture, referenceOutput, scratchDirectory } from './harness.js';

const scratch = scratchDirectory('weir-rings-');

const job = fixture('checkpointed.ts');
const TINY_RING = 256;

describe('rings between workers', () => {
  let expected: string[];

  beforeAll(async () => {
    expected = await referenceOutput(job, scratch());
    expect(expected.length).toBeGreaterThan(100);
  }, 120_000);

  it('full rings: every batch crosses in parts, writers wait for room, and the results equal one thread', async () => {
    const { single, workers, results } = await bothWays(fixture('keyed-window.ts'), undefined, {
      workerRingBytes: TINY_RING,
    });
    expect(workers).toEqual(single);
    expect(results.workers.metric('weir_worker_ring_full_total')).toBeGreaterThan(0);
  }, 120_000);

  it('barriers behind full rings: checkpoints complete and the exactly-once output equals one thread', async () => {
    const out = join(scratch(), 'out-barriers');
    const run = await runJobModule(job, {
      args: [out],
      parallelism: 2,
      workers: 2,
      workerRingBytes: TINY_RING,
      checkpointing: { directory: join(scratch(), 'chk-barriers'), intervalMs: 50 },
    });
    expect(run.result.metric('weir_worker_ring_full_total')).toBeGreaterThan(0);
    expect(run.result.metric('weir_checkpoints_completed_total')).toBeGreaterThan(0);
    expect(run.result.metric('weir_checkpoints_failed_total')).toBe(0);
    expect(await committed(out)).toEqual(expected);
  }, 120_000);

  it('a worker that dies while its rings hold data: the job restarts from its checkpoint, exactly once', async () => {
    const out = join(scratch(), 'out-exit');
    const run = await runJobModule(job, {
      args: [out, 'exit', '2500'],
      parallelism: 2,
      workers: 2,
      workerRingBytes: TINY_RING,
      checkpointing: { directory: join(scratch(), 'chk-exit'), intervalMs: 50 },
      restartStrategy: { kind: 'fixed-delay', attempts: 2, delayMs: 10 },
    });
    expect(run.result.metric('weir_job_restarts_total')).toBe(1);
    expect(await committed(out)).toEqual(expected);
  }, 120_000);

  it('a worker that dies while its rings hold data, without restarts: the job fails naming the worker', async () => {
    const failure = await runJobModule(job, {
      args: [join(scratch(), 'out-exit-fail'), 'exit', '500'],
      parallelism: 2,
      workers: 2,
      workerRingBytes: TINY_RING,
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WeirError);
    expect((failure as WeirError).message).toMatch(/worker [01]/);
  }, 120_000);

  it('refuses a ring size that is not a power of two of at least 256 bytes', () => {
    for (const workerRingBytes of [0, 100, 1000, 1.5])
      expect(() => new StreamEnvironment({ workerRingBytes })).toThrow(
        /workerRingBytes must be a power of two/,
      );
  });
});
