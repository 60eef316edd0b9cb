/**
 * A job restored from a checkpoint whose sealed (pending) part file was damaged or removed
 * before the restored sink could commit it: no restart can bring those records back (the
 * checkpoint's sources are past them), so the job fails at once, without restarts, naming the
 * file, and publishes nothing of it; it used to restart for as long as its restart strategy
 * allowed (for ever, under the default exponential delay). An intact file recovers, every
 * record once.
 *
 * The crash between a checkpoint's completion and its commit is staged with a sink that seals
 * files as the real one does (under the real sink's operator id) and fails the job when asked
 * to commit one: the first checkpoint with a sealed file is then the newest the job completed
 * (or an older one of the newer checkpoints, which keep its uncommitted file).
 */
import { readdir, readFile, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRestartable } from '../../../src/core/errors.js';
import type { TwoPhaseCommitWriter } from '../../../src/core/sink.js';
import {
  DiscardingSink,
  ExactlyOnceFileSink,
  type JobClient,
  type RestartStrategy,
  type Sink,
  type SinkContext,
  StreamEnvironment,
  WeirError,
} from '../../../src/index.js';
import { serializeError } from '../../../src/runtime/workers/protocol.js';
import { tempDir } from './helpers.js';

const COUNT = 200;

/** The real sink, whose process "crashes" when a checkpoint with a sealed file completes. */
class CrashesOnCommit implements Sink<number> {
  readonly name = 'crashes on commit';
  readonly commitsOnCheckpoint = true;
  constructor(private readonly real: ExactlyOnceFileSink<number>) {}
  createWriter(context: SinkContext): TwoPhaseCommitWriter<number> {
    const writer = this.real.createWriter(context) as TwoPhaseCommitWriter<number>;
    return {
      write: (batch) => writer.write(batch),
      blocked: () => writer.blocked?.(),
      preCommit: (id: number) => writer.preCommit(id),
      commit: (committables) => {
        if (committables.some((c) => c !== null)) throw new Error('crash before the commit');
      },
      recover: (committables) => writer.recover(committables),
      close: () => writer.close(),
    };
  }
}

/** Numbers 0..COUNT-1 into `sink`, checkpointing into `checkpoints`, restarting 3 times at most. */
function start(
  sink: Sink<number>,
  checkpoints: string,
  restoreFrom?: string,
  restartStrategy: RestartStrategy = { kind: 'fixed-delay', attempts: 3, delayMs: 10 },
): JobClient {
  const env = new StreamEnvironment({
    parallelism: 1,
    batchSize: 10,
    checkpointing: { directory: checkpoints, intervalMs: 20 },
    restartStrategy,
  });
  env
    .fromGenerator<number>({ count: COUNT, ratePerSecond: 2_000, generate: (i) => i })
    .uid('numbers')
    .sinkTo(sink)
    .uid('parts');
  return env.executeAsync('parts', restoreFrom === undefined ? {} : { restoreFrom });
}

/**
 * Runs the crashing job to its failure; returns the sealed files it left, oldest first (the
 * first is the one every checkpoint after its own holds uncommitted).
 */
async function crashAfterCheckpoint(directory: string, checkpoints: string): Promise<string[]> {
  const client = start(
    new CrashesOnCommit(new ExactlyOnceFileSink({ directory })),
    checkpoints,
    undefined,
    { kind: 'none' },
  );
  await expect(client.result).rejects.toThrow(/crash before the commit/);
  const checkpointOf = (f: string) => Number(/-(\d+)\.[a-z0-9]+\.pending$/.exec(f)?.[1]);
  return (await readdir(directory))
    .filter((f) => f.endsWith('.pending'))
    .sort((a, b) => checkpointOf(a) - checkpointOf(b));
}

async function restoreFailure(
  directory: string,
  checkpoints: string,
): Promise<{ error: unknown; client: JobClient }> {
  const client = start(new ExactlyOnceFileSink({ directory }), checkpoints, 'latest');
  const error = await client.result.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, client };
}

const committed = async (directory: string) =>
  (await readdir(directory)).filter((f) => f.startsWith('part-'));

describe('ExactlyOnceFileSink: a damaged sealed file at recovery', () => {
  it('an intact one is committed and the job ends with every record once', async () => {
    const directory = await tempDir();
    const checkpoints = join(await tempDir(), 'chk');
    await crashAfterCheckpoint(directory, checkpoints);
    const client = start(new ExactlyOnceFileSink({ directory }), checkpoints, 'latest');
    expect((await client.result).status).toBe('finished');
    const lines: number[] = [];
    for (const f of await committed(directory)) {
      const text = await readFile(join(directory, f), 'utf8');
      for (const l of text.split('\n')) if (l !== '') lines.push(Number(l));
    }
    expect(lines.sort((a, b) => a - b)).toEqual(Array.from({ length: COUNT }, (_, i) => i));
  }, 60_000);

  for (const damage of ['cut short', 'removed'] as const) {
    it(`one ${damage} fails the job without a restart, naming the file`, async () => {
      const directory = await tempDir();
      const checkpoints = join(await tempDir(), 'chk');
      const pending = await crashAfterCheckpoint(directory, checkpoints);
      const before = await committed(directory);
      // The first sealed file, which the restored checkpoint holds uncommitted.
      const path = join(directory, pending[0] as string);
      if (damage === 'cut short') await truncate(path, 3);
      else await rm(path);
      const { error, client } = await restoreFailure(directory, checkpoints);
      expect(error).toBeInstanceOf(WeirError);
      expect((error as WeirError).restartable).toBe(false);
      expect((error as WeirError).message).toContain(path);
      expect((error as WeirError).message).toMatch(
        damage === 'cut short' ? /it has 3 bytes, \d+ were sealed/ : /was removed/,
      );
      expect(client.monitor.restarts()).toBe(0);
      // Nothing of it was published.
      expect(await committed(directory)).toEqual(before);
    }, 60_000);
  }

  it('other failures still restart', async () => {
    const env = new StreamEnvironment({
      parallelism: 1,
      restartStrategy: { kind: 'fixed-delay', attempts: 2, delayMs: 1 },
    });
    env
      .fromArray([1])
      .map(() => {
        throw new Error('boom');
      })
      .sinkTo(new DiscardingSink());
    const client = env.executeAsync('boom');
    await client.result.catch(() => undefined);
    expect(client.monitor.restarts()).toBe(2);
  });

  it('the verdict survives wrapping and the way from a worker thread to the main thread', () => {
    const lost = new WeirError('SINK_FAILED', 'gone', { restartable: false });
    const wrapped = new WeirError('INTERNAL', 'task failed', { cause: lost });
    expect(isRestartable(wrapped)).toBe(false);
    expect(serializeError(wrapped).restartable).toBe(false);
    expect(isRestartable(new WeirError('SINK_FAILED', 'outage', { cause: new Error('x') }))).toBe(
      true,
    );
    expect(serializeError(new Error('x')).restartable).toBeUndefined();
  });
});
