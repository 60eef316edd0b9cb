import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runJobModule, StreamEnvironment, startJobModule, WeirError } from '../../src/index.js';
import { committed, fixture, referenceOutput, scratchDirectory } from './harness.js';

const scratch = scratchDirectory('weir-workers-');

const job = fixture('checkpointed.ts');

/** Resolves once the sink has written (not committed) output, then a little later. */
async function recordsFlowingInto(out: string): Promise<void> {
  while ((await readdir(out).catch(() => [])).length === 0)
    await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 150));
}

describe('worker failures', () => {
  let expected: string[];

  beforeAll(async () => {
    expected = await referenceOutput(job, scratch());
    expect(expected.length).toBeGreaterThan(100);
  });

  for (const fault of ['throw', 'exit'] as const) {
    it(`a worker that ${fault === 'throw' ? 'throws' : 'exits'} restarts the job from its latest checkpoint, exactly once`, async () => {
      const out = join(scratch(), `out-${fault}`);
      const run = await runJobModule(job, {
        args: [out, fault, '2500'],
        parallelism: 2,
        workers: 2,
        checkpointing: { directory: join(scratch(), `chk-${fault}`), intervalMs: 50 },
        restartStrategy: { kind: 'fixed-delay', attempts: 2, delayMs: 10 },
      });
      expect(run.result.metric('weir_job_restarts_total')).toBe(1);
      expect(await committed(out)).toEqual(expected);
    });
  }

  it('without restarts, the job fails naming the error, the operator and the worker', async () => {
    const out = join(scratch(), 'out-fail');
    const failure = await runJobModule(job, {
      args: [out, 'throw', '500'],
      parallelism: 2,
      workers: 2,
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WeirError);
    const message = (failure as WeirError).message;
    expect(message).toContain('injected failure at record 500');
    expect(message).toContain("operator 'fault'");
    expect(message).toMatch(/in worker [01]/);
    expect((failure as WeirError).operatorId).toBe('fault');
  });

  it('the restart strategy also restarts jobs on one thread', async () => {
    let calls = 0;
    const env = new StreamEnvironment({
      restartStrategy: { kind: 'fixed-delay', attempts: 3, delayMs: 1 },
    });
    const out = env
      .fromArray([1, 2, 3])
      .map((n) => {
        if (n === 2 && calls++ < 2) throw new Error('flaky');
        return n;
      })
      .executeAndCollect();
    expect((await out).sort()).toContain(3);
    expect(calls).toBe(3);
  });
});

describe('savepoints in worker mode', () => {
  it('a savepoint taken on two workers restores on one thread, and the output is exactly once', async () => {
    const reference = join(scratch(), 'sp-reference');
    await runJobModule(job, { args: [reference], parallelism: 1 });
    const out = join(scratch(), 'sp-out');
    const started = await startJobModule(job, { args: [out], parallelism: 2, workers: 2 });
    await recordsFlowingInto(out);
    const savepoint = await started.client.stopWithSavepoint(join(scratch(), 'savepoints'));
    const before = await committed(out);
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan((await committed(reference)).length);
    // Rescaled: the keyed state of two subtasks goes to one.
    await runJobModule(job, { args: [out], parallelism: 1, restoreFrom: savepoint });
    expect(await committed(out)).toEqual(await committed(reference));
  });

  it('a savepoint taken on one thread restores on two workers', async () => {
    const out = join(scratch(), 'sp-out-2');
    const started = await startJobModule(job, { args: [out], parallelism: 1 });
    await recordsFlowingInto(out);
    const savepoint = await started.client.stopWithSavepoint(join(scratch(), 'savepoints-2'));
    await runJobModule(job, { args: [out], parallelism: 2, workers: 2, restoreFrom: savepoint });
    expect(await committed(out)).toEqual(await committed(join(scratch(), 'sp-reference')));
  });
});
