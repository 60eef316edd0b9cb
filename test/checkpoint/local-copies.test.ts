/**
 * Local copies of checkpoints in object storage, against the real S3-compatible test server
 * (scripts/s3.sh): a standby copies the task's latest checkpoint (`warmLatest`), a restore
 * then reads its state files from local disk, and a copy that was damaged, or that stands for
 * a checkpoint since rewritten, is never used in place of what the metadata names.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckpointData } from '../../src/runtime/checkpoint/checkpoint-data.js';
import {
  checkpointStorageAt,
  DirectoryCheckpointStorage,
  readCheckpoint,
} from '../../src/runtime/checkpoint/checkpoint-storage.js';
import { ContentCache } from '../../src/runtime/checkpoint/store/content-cache.js';
import { LocallyCachedStore } from '../../src/runtime/checkpoint/store/locally-cached-store.js';
import { S3Store } from '../../src/runtime/checkpoint/store/s3-store.js';
import { freshS3Location, useTestS3 } from '../helpers/s3.js';

useTestS3();

let copies: string;
beforeAll(async () => {
  copies = await mkdtemp(join(tmpdir(), 'weir-local-copies-'));
});
afterAll(async () => {
  await rm(copies, { recursive: true, force: true });
});

/** A checkpoint of one keyed operator at parallelism 3: `keys` counts, each `value` plus its key. */
function checkpoint(id: number, keys: number, value: number): CheckpointData {
  return {
    format: 'weir-checkpoint',
    version: 1,
    kind: 'checkpoint',
    checkpointId: id,
    jobName: 'copies',
    createdAt: new Date(0).toISOString(),
    maxParallelism: 128,
    final: false,
    operators: [
      {
        uid: 'counts',
        name: 'counts',
        parallelism: 3,
        subtasks: [0, 1, 2].map((s) => {
          const keyed: Record<string, [string, number, number][]> = {};
          for (let k = s; k < keys; k += 3) keyed[String(k)] = [['n', k, value + k]];
          return { keyed };
        }),
      },
    ],
  };
}

/** A storage of `location` with its own view of the copies in `directory` (a new process's). */
function cached(location: string, directory: string) {
  const store = new LocallyCachedStore(new S3Store(location), new ContentCache(directory));
  return { store, storage: new DirectoryCheckpointStorage(store) };
}

describe('local copies of an s3:// checkpoint directory', () => {
  it('a standby copies the latest checkpoint; a restore then reads every state file locally', async () => {
    const location = freshS3Location('copies');
    const dir = join(copies, 'warm');
    await checkpointStorageAt(location).write(checkpoint(1, 30, 100));
    await checkpointStorageAt(location).write(checkpoint(2, 30, 200));

    const standby = cached(location, dir);
    expect(standby.storage.localCopies).toBe(dir);
    expect(await standby.storage.warmLatest()).toBe(2);
    expect(standby.store.reads).toEqual({ local: 0, fetched: 3 });
    expect(await readdir(dir)).toHaveLength(3);
    // Copying again finds everything there.
    await standby.storage.warmLatest();
    expect(standby.store.reads).toEqual({ local: 3, fetched: 3 });

    const owner = cached(location, dir);
    const latest = await owner.storage.findLatest();
    expect(latest.skipped).toEqual([]);
    expect(latest.intact?.checkpoint).toEqual(await readCheckpoint(`${location}/chk-0000000002`));
    expect(latest.intact!.checkpoint.operators[0]!.subtasks[1]).toEqual(
      checkpoint(2, 30, 200).operators[0]!.subtasks[1],
    );
    expect(owner.store.reads).toEqual({ local: 3, fetched: 0 });
  });

  it('a damaged copy is read again from the store, and replaced', async () => {
    const location = freshS3Location('copies-damaged');
    const dir = join(copies, 'damaged');
    await checkpointStorageAt(location).write(checkpoint(1, 12, 5));
    await cached(location, dir).storage.warmLatest();
    const [first] = await readdir(dir);
    await writeFile(join(dir, first!), '{"keyed":{"0":[["n",0,999]]}}');

    const owner = cached(location, dir);
    const latest = await owner.storage.findLatest();
    expect(latest.skipped).toEqual([]);
    expect(latest.intact?.checkpoint).toEqual(await readCheckpoint(`${location}/chk-0000000001`));
    expect(owner.store.reads).toEqual({ local: 2, fetched: 1 });
    // The copy is sound again.
    const again = cached(location, dir);
    await again.storage.findLatest();
    expect(again.store.reads).toEqual({ local: 3, fetched: 0 });
  });

  it('a checkpoint rewritten under the same name is read as its new metadata names it', async () => {
    const location = freshS3Location('copies-rewritten');
    const dir = join(copies, 'rewritten');
    await checkpointStorageAt(location).write(checkpoint(1, 9, 1));
    const standby = cached(location, dir);
    await standby.storage.warmLatest();
    // Another run writes checkpoint 1 again with other state (a restore from an older one).
    await checkpointStorageAt(location).write(checkpoint(1, 9, 50));
    const latest = await standby.storage.findLatest();
    expect(latest.intact!.checkpoint.operators[0]!.subtasks).toEqual(
      checkpoint(1, 9, 50).operators[0]!.subtasks,
    );
    expect(standby.store.reads.local).toBe(0);
  });

  it('a local directory keeps no copies', async () => {
    const local = checkpointStorageAt(join(copies, 'plain'));
    await local.write(checkpoint(1, 3, 0));
    expect(local.localCopies).toBeUndefined();
    expect(await local.warmLatest()).toBeUndefined();
  });
});
