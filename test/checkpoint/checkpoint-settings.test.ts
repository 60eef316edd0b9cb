import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CheckpointOptions,
  type CheckpointStorage,
  CollectSink,
  DiscardingSink,
  LocalCheckpointStorage,
  type RestartStrategy,
  StreamEnvironment,
  WeirError,
} from '../../src/index.js';
import { defaultRestartStrategy } from '../../src/runtime/job/restart-strategy.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-chk-settings-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Write {
  readonly id: number;
  readonly start: number;
  readonly end: number;
}

/**
 * Local storage that records when each write starts and ends (on the clock
 * the coordinator uses), and fails the writes `fails` says to.
 */
function recordingStorage(
  writes: Write[],
  fails: (attempt: number) => boolean = () => false,
): CheckpointStorage {
  const local = new LocalCheckpointStorage(join(dir, 'chk'));
  let attempts = 0;
  return {
    async write(data) {
      const start = Date.now();
      if (fails(++attempts)) throw new Error('disk full');
      const path = await local.write(data);
      writes.push({ id: data.checkpointId, start, end: Date.now() });
      return path;
    },
    latest: () => local.latest(),
    prune: (retain) => local.prune(retain),
  };
}

/** An unbounded rate-limited stream: runs until cancelled. */
function endless(checkpointing: CheckpointOptions): StreamEnvironment {
  const env = new StreamEnvironment({ batchSize: 10, checkpointing });
  env
    .fromGenerator({ ratePerSecond: 5_000, generate: (i) => i })
    .map((x) => x * 2)
    .sinkTo(new DiscardingSink());
  return env;
}

/** Runs `env` until `done` holds (polled; generous, for a loaded machine), then cancels it. */
async function runUntil(env: StreamEnvironment, done: () => boolean, limitMs = 120_000) {
  const client = env.executeAsync('settings');
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > limitMs) {
      await client.cancel();
      throw new Error(`the job did not get there within ${limitMs} ms`);
    }
    await sleep(10);
  }
  return client.cancel();
}

const COUNT = 400;
const STALLED_RECORD = 50;

/**
 * A bounded job whose async step holds one record for `stallMs` (once), with
 * capacity 1: meanwhile nothing behind it moves, barriers included, so a
 * checkpoint started then cannot complete before the stall ends.
 */
function stalling(
  checkpointing: CheckpointOptions,
  stallMs: number,
  sink: CollectSink<number>,
  restartStrategy?: RestartStrategy,
): StreamEnvironment {
  const env = new StreamEnvironment({
    batchSize: 10,
    checkpointing,
    ...(restartStrategy === undefined ? {} : { restartStrategy }),
  });
  let stalled = false;
  env
    .fromGenerator({ count: COUNT, ratePerSecond: 4_000, generate: (i) => i })
    .rebalance()
    .flatMapAsync(
      async (x: number) => {
        if (x === STALLED_RECORD && !stalled) {
          stalled = true;
          await sleep(stallMs);
        }
        return [x];
      },
      { capacity: 1 },
    )
    .sinkTo(sink);
  return env;
}

describe('checkpoint settings', () => {
  it('minPauseMs: the next checkpoint starts at least that long after the previous one completed', async () => {
    const paused: Write[] = [];
    await runUntil(
      endless({
        directory: dir,
        intervalMs: 10,
        minPauseMs: 100,
        storage: recordingStorage(paused),
      }),
      () => paused.length >= 3,
    );
    for (let k = 1; k < paused.length; k++)
      expect(paused[k]!.start - paused[k - 1]!.end).toBeGreaterThanOrEqual(100);
    // Without the pause, checkpoints 10 ms apart follow one another closer than that (at least
    // once in twenty, however loaded the machine).
    const unpaused: Write[] = [];
    await runUntil(
      endless({ directory: dir, intervalMs: 10, storage: recordingStorage(unpaused) }),
      () => unpaused.length >= 20,
    );
    const gaps = unpaused.slice(1).map((w, k) => w.start - unpaused[k]!.end);
    expect(Math.min(...gaps)).toBeLessThan(100);
  });

  it('timeoutMs: a checkpoint that cannot complete in time is abandoned, and later ones complete', async () => {
    const writes: Write[] = [];
    const sink = new CollectSink<number>();
    const result = await stalling(
      {
        directory: dir,
        intervalMs: 20,
        timeoutMs: 100,
        tolerableFailures: 100,
        storage: recordingStorage(writes),
      },
      500,
      sink,
    ).execute('stalling');
    expect(result.status).toBe('finished');
    expect(sink.values).toEqual(Array.from({ length: COUNT }, (_, i) => i));
    // The stall outlasts the timeout several times over: those checkpoints failed, never written.
    expect(result.metric('weir_checkpoints_failed_total')).toBeGreaterThanOrEqual(2);
    const ids = writes.map((w) => w.id);
    const highest = Math.max(...ids);
    const missing = Array.from({ length: highest }, (_, i) => i + 1).filter(
      (id) => !ids.includes(id),
    );
    expect(missing.length).toBe(result.metric('weir_checkpoints_failed_total'));
    expect(result.metric('weir_checkpoints_completed_total')).toBe(writes.length);
  });

  it('a timed-out checkpoint beyond tolerableFailures fails the job, saying why', async () => {
    const failure = await stalling(
      { directory: dir, intervalMs: 20, timeoutMs: 100, storage: recordingStorage([]) },
      500,
      new CollectSink<number>(),
    )
      .execute('intolerant')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(failure).toBeInstanceOf(WeirError);
    expect((failure as WeirError).message).toMatch(
      /^checkpoint \d+ failed \(timeout\); 1 consecutive failures exceed the tolerated 0$/,
    );
  });

  it('a timed-out checkpoint does not end a job with the default restart strategy of checkpointed jobs', async () => {
    const sink = new CollectSink<number>();
    const client = stalling(
      { directory: dir, intervalMs: 20, timeoutMs: 100 },
      500,
      sink,
      defaultRestartStrategy(true),
    ).executeAsync('outlives a slow checkpoint');
    const result = await client.result;
    expect(result.status).toBe('finished');
    expect(result.metric('weir_checkpoints_failed_total')).toBeGreaterThanOrEqual(1);
    // At least once: on a busy machine a checkpoint after the restart can time out too.
    expect(result.metric('weir_job_restarts_total')).toBeGreaterThanOrEqual(1);
    expect(client.monitor.exceptions().some((e) => /\(timeout\)/.test(e.message))).toBe(true);
    // Restarted from a checkpoint: every record arrives, some of them twice.
    expect(new Set(sink.values).size).toBe(COUNT);
  });

  it('tolerableFailures: that many consecutive failures are tolerated, one more fails the job', async () => {
    const bounded = (storage: CheckpointStorage) => {
      const env = new StreamEnvironment({
        batchSize: 10,
        checkpointing: { directory: dir, intervalMs: 10, tolerableFailures: 2, storage },
      });
      const sink = new CollectSink<number>();
      env.fromGenerator({ count: 3_000, ratePerSecond: 10_000, generate: (i) => i }).sinkTo(sink);
      return { env, sink };
    };
    // The first two writes fail, then storage recovers: the job finishes.
    const tolerated: Write[] = [];
    const ok = bounded(recordingStorage(tolerated, (attempt) => attempt <= 2));
    const result = await ok.env.execute('tolerated');
    expect(result.status).toBe('finished');
    expect(ok.sink.values).toHaveLength(3_000);
    expect(result.metric('weir_checkpoints_failed_total')).toBe(2);
    expect(tolerated.length).toBeGreaterThan(0);

    // Storage never recovers: the third consecutive failure fails the job.
    const failing = bounded(recordingStorage([], () => true));
    const client = failing.env.executeAsync('doomed');
    const failure = await client.result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(WeirError);
    expect((failure as WeirError).message).toMatch(
      /^checkpoint 3 could not be stored \(disk full\); 3 consecutive failures exceed the tolerated 2$/,
    );
    expect(client.metrics.total('weir_checkpoints_failed_total')).toBeGreaterThanOrEqual(3);
  });

  it('retained: only that many completed checkpoints stay on disk, the newest', async () => {
    const directory = join(dir, 'retained');
    const env = endless({ directory, intervalMs: 15, retained: 2 });
    const client = env.executeAsync('retaining');
    await sleep(400);
    const result = await client.cancel();
    expect(result.metric('weir_checkpoints_completed_total')).toBeGreaterThan(3);
    const kept = (await readdir(directory)).filter((name) => name.startsWith('chk-')).sort();
    const newest = client.monitor.lastCheckpoint()!.id;
    expect(kept).toEqual([
      `chk-${String(newest - 1).padStart(10, '0')}`,
      `chk-${String(newest).padStart(10, '0')}`,
    ]);
  });
});
