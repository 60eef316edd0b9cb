/**
 * Checkpoints in object storage (`s3://bucket/prefix`), against the real
 * S3-compatible test server (scripts/s3.sh): restore after a failure with
 * the heap and the disk backend (whose incremental snapshots reference
 * earlier checkpoints in the bucket), savepoints, damaged objects, and the
 * lease taken with conditional writes. Output is committed by an
 * exactly-once file sink and compared with an uninterrupted run's.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import { StreamEnvironment, WeirError } from '../../src/index.js';
import {
  checkpointStorageAt,
  readCheckpoint,
} from '../../src/runtime/checkpoint/checkpoint-storage.js';
import { cacheDirectoryFor } from '../../src/runtime/checkpoint/store/content-cache.js';
import { freshS3Location, keyOf, testBucket, useTestS3 } from '../helpers/s3.js';

useTestS3();

const COUNT = 6_000;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weir-s3-chk-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function committedLines(out: string): Promise<string[]> {
  const files = (await readdir(out).catch(() => [] as string[])).filter((f) => !f.startsWith('.'));
  const lines: string[] = [];
  for (const f of files) {
    lines.push(...(await readFile(join(out, f), 'utf8')).split('\n').filter(Boolean));
  }
  return lines.sort();
}

type Backend = 'heap' | 'disk';

function environment(checkpoints: string, backend: Backend, ratePerSecond?: number) {
  const env = new StreamEnvironment({
    batchSize: 50,
    parallelism: 2,
    checkpointing: { directory: checkpoints, intervalMs: 50, retained: 2 },
    stateBackend:
      backend === 'disk'
        ? { kind: 'disk', workingDirectory: join(dir, `state-${Math.random()}`) }
        : { kind: 'heap' },
  });
  return { env, ratePerSecond };
}

/** Running sums per key (keyed state) into exactly-once part files. */
function buildJob(
  { env, ratePerSecond }: ReturnType<typeof environment>,
  out: string,
  failNow?: () => boolean,
): void {
  env
    .fromGenerator({
      count: COUNT,
      ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
      generate: (i) => ({ k: i % 7, v: i }),
    })
    .uid('gen')
    // One source subtask: the running sums do not depend on how subtasks interleave.
    .setParallelism(1)
    .map((r) => {
      // A job meant to fail also fails at its last record: on a busy machine the
      // test may see its moment only after the source has ended, and it must not finish.
      if (failNow !== undefined && (failNow() || r.v === COUNT - 1))
        throw new Error('injected failure');
      return r;
    })
    .keyBy((r) => r.k)
    .reduce((a, b) => ({ k: a.k, v: a.v + b.v }))
    .uid('sum')
    .sinkTo(new ExactlyOnceFileSink({ directory: out }))
    .uid('sink');
}

let expected: Promise<string[]> | undefined;
/** The committed output of an uninterrupted run. */
function uninterrupted(): Promise<string[]> {
  expected ??= (async () => {
    const out = join(dir, 'reference');
    const job = environment(join(dir, 'reference-chk'), 'heap');
    buildJob(job, out);
    await job.env.execute('reference');
    return committedLines(out);
  })();
  return expected;
}

/** Whether a complete checkpoint below `location` is incremental (its metadata references others). */
async function hasIncremental(location: string): Promise<boolean> {
  for (const key of (await objectsUnder(location)).filter((k) => k.endsWith('/_metadata.json'))) {
    const metadata = await testBucket().get(key);
    if (metadata === undefined) continue;
    const parsed = JSON.parse(metadata.body.toString('utf8')) as { references?: number[] };
    if ((parsed.references?.length ?? 0) > 0) return true;
  }
  return false;
}

/** Keys of the objects below a location. */
async function objectsUnder(location: string): Promise<string[]> {
  return (await testBucket().list(`${keyOf(location)}/`, false)).keys;
}

describe('checkpoints in S3', () => {
  for (const backend of ['heap', 'disk'] as const) {
    it(`a failed job restores from the latest checkpoint in S3 (${backend} backend) and commits exactly an uninterrupted run's output`, async () => {
      const checkpoints = freshS3Location(`restore-${backend}`);
      const out = join(dir, `out-${backend}`);
      const failing = environment(checkpoints, backend, 2_000);
      let failNow = false;
      buildJob(failing, out, () => failNow);
      const client = failing.env.executeAsync('failing');
      // It fails once output is committed and, with the disk backend, an
      // incremental checkpoint (a delta on one before it) is in the bucket.
      await expect
        .poll(
          async () =>
            (await committedLines(out)).length > 0 &&
            (backend === 'heap' || (await hasIncremental(checkpoints))),
          { timeout: 30_000, interval: 50 },
        )
        .toBe(true);
      failNow = true;
      await expect(client.result).rejects.toThrow(/injected failure/);
      const partial = await committedLines(out);
      expect(partial.length).toBeGreaterThan(0);
      expect(partial.length).toBeLessThan(COUNT);

      const keys = await objectsUnder(checkpoints);
      expect(keys).toContain(`${keyOf(checkpoints)}/_committed.json`);
      const complete = keys.filter((k) => k.endsWith('/_metadata.json'));
      expect(complete.length).toBeGreaterThan(0);
      // Retention (2) prunes in the bucket; one more may have been written as
      // the job failed. With the disk backend, the bases of deltas stay too.
      if (backend === 'heap') expect(complete.length).toBeLessThanOrEqual(3);

      const resumed = environment(checkpoints, backend);
      buildJob(resumed, out);
      await resumed.env.execute('resumed', { restoreFrom: 'latest' });
      expect(await committedLines(out)).toEqual(await uninterrupted());
    }, 60_000);
  }

  it('a savepoint into S3 stops the job exactly there and restores at another parallelism', async () => {
    const savepoints = freshS3Location('savepoints');
    const out = join(dir, 'out-savepoint');
    // Slow enough (6 s of input) that the savepoint comes before the input ends on a busy machine.
    const running = environment(freshS3Location('savepoint-chk'), 'heap', 1_000);
    buildJob(running, out);
    const client = running.env.executeAsync('stopped');
    await expect
      .poll(async () => (await committedLines(out)).length, { timeout: 30_000 })
      .toBeGreaterThan(0);
    const path = await client.stopWithSavepoint(savepoints);
    await client.result;
    expect(path).toMatch(new RegExp(`^${savepoints}/savepoint-\\d{10}$`));
    expect(await objectsUnder(path)).toContain(`${keyOf(path)}/_metadata.json`);
    const partial = await committedLines(out);
    expect(partial.length).toBeLessThan(COUNT);

    const env = new StreamEnvironment({ batchSize: 50, parallelism: 3 });
    buildJob({ env, ratePerSecond: undefined }, out);
    await env.execute('restored', { restoreFrom: path });
    expect(await committedLines(out)).toEqual(await uninterrupted());
  }, 60_000);

  it('a changed object is detected by its SHA-256, and the latest falls back past it', async () => {
    const checkpoints = freshS3Location('damaged');
    // Slow enough for several checkpoints: two are retained.
    const job = environment(checkpoints, 'heap', 20_000);
    buildJob(job, join(dir, 'out-damaged'));
    await job.env.execute('damaged');
    const storage = checkpointStorageAt(checkpoints);
    const latest = (await storage.findLatest()).intact!;
    const file = `${keyOf(latest.path)}/sum-0.json`;
    const original = (await testBucket().get(file))!.body.toString('utf8');
    // One digit of a sum changed: still valid JSON of the right shape.
    const changed = original.replace(/\d(?=\D*$)/, (d) => String((Number(d) + 1) % 10));
    expect(changed).not.toBe(original);
    await testBucket().put(file, changed);

    // This machine's local copy of the file (read above) holds the bytes the metadata names.
    expect(await readCheckpoint(latest.path)).toEqual(latest.checkpoint);
    // Without it (another machine), the change is detected.
    await rm(cacheDirectoryFor(checkpoints), { recursive: true, force: true });
    const error = await readCheckpoint(latest.path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('CHECKPOINT_DAMAGED');
    expect((error as WeirError).message).toContain(
      `checkpoint '${latest.path}' is damaged: sum-0.json does not match its checksum`,
    );
    const found = await storage.findLatest();
    expect(found.skipped.map((s) => s.path)).toEqual([latest.path]);
    expect(found.intact?.checkpoint.checkpointId).toBeLessThan(latest.checkpoint.checkpointId);
  }, 60_000);

  it('a checkpoint whose metadata never arrived is incomplete, not damaged', async () => {
    const checkpoints = freshS3Location('incomplete');
    const job = environment(checkpoints, 'heap');
    buildJob(job, join(dir, 'out-incomplete'));
    await job.env.execute('incomplete');
    const storage = checkpointStorageAt(checkpoints);
    const latest = (await storage.findLatest()).intact!;
    // A writer that died after the state files of the next checkpoint.
    const next = `${keyOf(checkpoints)}/chk-${String(latest.checkpoint.checkpointId + 1).padStart(10, '0')}`;
    await testBucket().put(`${next}/sum-0.json`, '{}');
    const found = await storage.findLatest();
    expect(found.intact?.path).toBe(latest.path);
    expect(found.skipped).toEqual([]);
  }, 60_000);
});

describe('the lease on an S3 checkpoint directory', () => {
  it('of jobs contending for one directory, exactly one gets it (conditional writes)', async () => {
    const location = freshS3Location('lease');
    const attempts = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        checkpointStorageAt(location).acquireLease({ jobName: `job-${i}` }),
      ),
    );
    const held = attempts.filter((a) => a.status === 'fulfilled');
    expect(held).toHaveLength(1);
    for (const a of attempts) {
      if (a.status === 'rejected') {
        expect((a.reason as WeirError).code).toBe('CHECKPOINT_DIRECTORY_IN_USE');
        expect((a.reason as WeirError).message).toContain(`'${location}' is in use by job 'job-`);
      }
    }
    await held[0]!.value.release();
    expect(await objectsUnder(location)).toEqual([]);
    const again = await checkpointStorageAt(location).acquireLease({ jobName: 'next' });
    await again.release();
  });

  it('a running job refuses a second one; an expired owner is taken over', async () => {
    const location = freshS3Location('lease-job');
    const running = environment(location, 'heap', 2_000);
    buildJob(running, join(dir, 'out-lease'));
    const client = running.env.executeAsync('first');
    await expect
      .poll(async () => objectsUnder(location), { timeout: 30_000 })
      .toContain(`${keyOf(location)}/_owner.json`);
    const second = environment(location, 'heap');
    buildJob(second, join(dir, 'out-lease-2'));
    const refused = await second.env.execute('second').catch((e: unknown) => e);
    expect((refused as WeirError).code).toBe('CHECKPOINT_DIRECTORY_IN_USE');
    expect((refused as WeirError).message).toContain(`in use by job 'first'`);
    await client.cancel();
    expect(await objectsUnder(location)).not.toContain(`${keyOf(location)}/_owner.json`);

    // An owner on another machine that stopped renewing long ago.
    const stale = {
      ownerId: 'gone',
      jobName: 'lost-machine',
      pid: 1,
      host: 'elsewhere',
      acquiredAt: 0,
      renewedAt: Date.now() - 120_000,
      leaseMs: 30_000,
    };
    await testBucket().put(`${keyOf(location)}/_owner.json`, JSON.stringify(stale));
    const lease = await checkpointStorageAt(location).acquireLease({ jobName: 'successor' });
    const owner = JSON.parse(
      (await testBucket().get(`${keyOf(location)}/_owner.json`))!.body.toString('utf8'),
    ) as { jobName: string };
    expect(owner.jobName).toBe('successor');
    await lease.release();
  }, 60_000);
});
