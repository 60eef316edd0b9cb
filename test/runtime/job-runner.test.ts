import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import type { Sink, TwoPhaseCommitWriter } from '../../src/core/sink.js';
import { CollectSink, StreamEnvironment } from '../../src/index.js';
import { checkpointConfig } from '../../src/runtime/checkpoint/checkpoint-config.js';
import type { ExecutionPlan } from '../../src/runtime/execution/execution-plan.js';
import { JobRunner, type JobSettings } from '../../src/runtime/job/job-runner.js';
import { type JobEvent, type JobState, nextState } from '../../src/runtime/job/job-state.js';
import { envImpl } from '../helpers/internals.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-job-runner-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('job state', () => {
  const started: JobEvent = { kind: 'started' };
  const stop: JobEvent = { kind: 'stop' };
  const restart: JobEvent = { kind: 'failed', restart: true };
  const fail: JobEvent = { kind: 'failed', restart: false };
  const finished: JobEvent = { kind: 'ended', outcome: 'finished' };
  const stopped: JobEvent = { kind: 'ended', outcome: 'stopped' };

  it('runs, restarts and ends', () => {
    const path: [JobEvent, JobState][] = [
      [started, 'running'],
      [restart, 'restarting'],
      [started, 'running'],
      [restart, 'restarting'],
      [started, 'running'],
      [finished, 'finished'],
    ];
    let state: JobState = 'created';
    for (const [event, expected] of path) {
      state = nextState(state, event);
      expect(state).toBe(expected);
    }
  });

  it('fails when no restart is allowed, also before the first attempt ran', () => {
    expect(nextState('running', fail)).toBe('failed');
    expect(nextState('created', fail)).toBe('failed');
    expect(nextState('restarting', fail)).toBe('failed');
    // A restore that fails while starting is retried like any failure.
    expect(nextState('created', restart)).toBe('restarting');
  });

  it('stops from every live state and ends cancelled; a stopping job is never restarted', () => {
    for (const state of ['created', 'running', 'restarting', 'stopping'] as const)
      expect(nextState(state, stop)).toBe('stopping');
    expect(nextState('stopping', started)).toBe('stopping');
    expect(nextState('stopping', restart)).toBe('failed');
    expect(nextState('stopping', stopped)).toBe('cancelled');
    // Input that ran out before the stop took effect.
    expect(nextState('stopping', finished)).toBe('finished');
  });

  it('an ended job stays as it ended', () => {
    for (const state of ['finished', 'cancelled', 'failed'] as const)
      for (const event of [started, stop, restart, fail, finished, stopped])
        expect(nextState(state, event)).toBe(state);
  });
});

function settings(overrides: Partial<JobSettings> = {}): JobSettings {
  return {
    jobName: 'runner test',
    checkpointing: undefined,
    restartStrategy: { kind: 'none' },
    clock: systemClock,
    metrics: {},
    stateBackend: undefined,
    batchSize: 10,
    channelCapacity: 8,
    deployment: { kind: 'this-thread' },
    ...overrides,
  };
}

/** A job of numbered records through `map`, into a collecting sink. */
function numbers(
  map: (n: number) => number,
  options: { count?: number; ratePerSecond?: number } = {},
): { plan: ExecutionPlan; sink: CollectSink<number> } {
  const env = new StreamEnvironment({ batchSize: 10 });
  const sink = new CollectSink<number>();
  env
    .fromGenerator({ generate: (i) => i, ...options })
    .map(map)
    .sinkTo(sink);
  return { plan: envImpl(env).plan(), sink };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe('job runner', () => {
  it('restarts after the fixed delay from the latest checkpoint', async () => {
    let failedAt: number | undefined;
    let firstAfterRestart: { n: number; at: number } | undefined;
    const { plan, sink } = numbers(
      (n) => {
        if (failedAt !== undefined && firstAfterRestart === undefined)
          firstAfterRestart = { n, at: performance.now() };
        if (n === 300 && failedAt === undefined) {
          failedAt = performance.now();
          throw new Error('flaky');
        }
        return n;
      },
      { count: 400, ratePerSecond: 2_000 },
    );
    const runner = new JobRunner(
      plan,
      settings({
        checkpointing: checkpointConfig({ directory: join(dir, 'restart'), intervalMs: 20 }),
        restartStrategy: { kind: 'fixed-delay', attempts: 1, delayMs: 100 },
      }),
    );
    const client = runner.start();
    await until(() => runner.jobState === 'restarting');
    const result = await client.result;
    expect(result.status).toBe('finished');
    expect(runner.jobState).toBe('finished');
    expect(result.metric('weir_job_restarts_total')).toBe(1);
    // Not from scratch: from a checkpoint taken before the failure.
    expect(firstAfterRestart!.n).toBeGreaterThan(0);
    expect(firstAfterRestart!.n).toBeLessThanOrEqual(300);
    expect(firstAfterRestart!.at - failedAt!).toBeGreaterThanOrEqual(100);
    expect(new Set(sink.values).size).toBe(400);
    expect(client.monitor.exceptions()[0]).toMatchObject({
      message: expect.stringContaining('flaky'),
      fatal: false,
    });
  });

  it('fails with the last error once the attempts are used up', async () => {
    let calls = 0;
    const { plan } = numbers(
      () => {
        calls++;
        throw new Error(`failure ${calls}`);
      },
      { count: 5 },
    );
    const runner = new JobRunner(
      plan,
      settings({ restartStrategy: { kind: 'fixed-delay', attempts: 2, delayMs: 1 } }),
    );
    const client = runner.start();
    await expect(client.result).rejects.toThrow('failure 3');
    expect(calls).toBe(3);
    expect(runner.jobState).toBe('failed');
    expect(client.monitor.status).toBe('failed');
    expect(client.metrics.total('weir_job_restarts_total')).toBe(2);
  });

  it('a job cancelled while it waits to restart ends cancelled, without waiting out the delay', async () => {
    let calls = 0;
    const { plan } = numbers(
      (n) => {
        if (calls++ === 0) throw new Error('flaky');
        return n;
      },
      { count: 5 },
    );
    const runner = new JobRunner(
      plan,
      settings({ restartStrategy: { kind: 'fixed-delay', attempts: 1, delayMs: 60_000 } }),
    );
    const client = runner.start();
    await until(() => runner.jobState === 'restarting');
    const cancelledAt = performance.now();
    const result = await client.cancel();
    expect(performance.now() - cancelledAt).toBeLessThan(5_000);
    expect(result.status).toBe('cancelled');
    expect(runner.jobState).toBe('cancelled');
    expect(client.monitor.status).toBe('cancelled');
    expect(calls).toBe(1);
  });

  it('a savepoint asked for before the job runs is taken once it does', async () => {
    const { plan } = numbers((n) => n, { ratePerSecond: 1_000 });
    const runner = new JobRunner(plan, settings());
    const client = runner.start();
    expect(runner.jobState).toBe('created');
    const path = await client.triggerSavepoint(join(dir, 'early'));
    expect(runner.jobState).toBe('running');
    expect((await stat(join(path, '_metadata.json'))).isFile()).toBe(true);
    expect((await client.cancel()).status).toBe('cancelled');
  });

  it('a savepoint under way when the job fails is refused, not left waiting, and the restarted job takes the next', async () => {
    let preCommits = 0;
    const sink: Sink<number> = {
      name: 'fails at its first barrier',
      createWriter: (): TwoPhaseCommitWriter<number> => ({
        write() {},
        preCommit(id) {
          if (preCommits++ === 0) throw new Error('cannot seal the transaction');
          return id;
        },
        commit() {},
        recover() {},
        close() {},
      }),
    };
    const env = new StreamEnvironment({ batchSize: 10 });
    env.fromGenerator({ generate: (i) => i, ratePerSecond: 1_000 }).sinkTo(sink);
    const runner = new JobRunner(
      envImpl(env).plan(),
      settings({ restartStrategy: { kind: 'fixed-delay', attempts: 1, delayMs: 1 } }),
    );
    const client = runner.start();
    await expect(client.triggerSavepoint(join(dir, 'failing'), { final: true })).rejects.toThrow(
      "job 'runner test' failed and restarts: the savepoint under way was not taken",
    );
    const path = await client.triggerSavepoint(join(dir, 'after-restart'));
    expect((await stat(join(path, '_metadata.json'))).isFile()).toBe(true);
    expect(client.metrics.total('weir_job_restarts_total')).toBe(1);
    expect((await client.cancel()).status).toBe('cancelled');
  });

  it('a savepoint asked for after the job ended is refused', async () => {
    const { plan } = numbers((n) => n, { count: 20 });
    const client = new JobRunner(plan, settings()).start();
    expect((await client.result).status).toBe('finished');
    await expect(client.triggerSavepoint(join(dir, 'late'))).rejects.toThrow(
      "job 'runner test' is no longer running",
    );
    await expect(client.stopWithSavepoint(join(dir, 'late'))).rejects.toThrow(
      "job 'runner test' finished its input before it could stop; no savepoint was taken",
    );
  });

  it('stop with savepoint ends the job as cancelled', async () => {
    const { plan, sink } = numbers((n) => n, { ratePerSecond: 1_000 });
    const runner = new JobRunner(plan, settings());
    const client = runner.start();
    await until(() => sink.values.length > 0);
    const path = await client.stopWithSavepoint(join(dir, 'stop'));
    expect((await stat(join(path, '_metadata.json'))).isFile()).toBe(true);
    expect((await client.result).status).toBe('cancelled');
    expect(runner.jobState).toBe('cancelled');
  });

  it('refuses to start twice', () => {
    const { plan } = numbers((n) => n, { count: 1 });
    const runner = new JobRunner(plan, settings());
    const client = runner.start();
    expect(() => runner.start()).toThrow('was started already');
    return client.result;
  });
});
