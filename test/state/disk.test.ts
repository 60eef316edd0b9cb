import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeirError } from '../../src/core/errors.js';
import { keyGroupOf } from '../../src/core/key-groups.js';
import type { Json, OperatorSnapshot } from '../../src/core/snapshot.js';
import type { DiskBackendOptions } from '../../src/core/state-backend.js';
import type { CheckpointData } from '../../src/runtime/checkpoint/checkpoint-data.js';
import {
  LocalCheckpointStorage,
  readCheckpoint,
} from '../../src/runtime/checkpoint/checkpoint-storage.js';
import { restoredStateFor } from '../../src/runtime/checkpoint/restore.js';
import { DiskKeyedStateBackend } from '../../src/state/disk/disk-keyed-state.js';
import {
  checkpointOf,
  keyedStateBackendConformance,
  MAX_PARALLELISM,
  ManualClock,
  OPERATOR,
  snapshotContext,
  throughJson,
} from './conformance.js';

keyedStateBackendConformance(
  'disk',
  (o) =>
    new DiskKeyedStateBackend(o.operatorId, o.subtaskIndex, o.maxParallelism, {
      clock: o.clock,
      ...(o.ttlCleanupPerAccess === undefined
        ? {}
        : { ttlCleanupPerAccess: o.ttlCleanupPerAccess }),
    }),
);

// A tiny write buffer: every path through flushes gets exercised.
keyedStateBackendConformance(
  'disk (write buffer of 2)',
  (o) =>
    new DiskKeyedStateBackend(o.operatorId, o.subtaskIndex, o.maxParallelism, {
      clock: o.clock,
      writeBufferEntries: 2,
      ...(o.ttlCleanupPerAccess === undefined
        ? {}
        : { ttlCleanupPerAccess: o.ttlCleanupPerAccess }),
    }),
);

describe('disk backend', () => {
  let dir: string;
  const backends: DiskKeyedStateBackend[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weir-disk-test-'));
  });
  afterEach(async () => {
    for (const b of backends.splice(0)) b.dispose();
    await rm(dir, { recursive: true, force: true });
  });
  const make = (options: DiskBackendOptions = {}, subtask = 0): DiskKeyedStateBackend => {
    const b = new DiskKeyedStateBackend(OPERATOR, subtask, MAX_PARALLELISM, {
      workingDirectory: join(dir, 'work'),
      ...options,
    });
    backends.push(b);
    return b;
  };
  const rowsOf = (snap: OperatorSnapshot): Json[][] =>
    Object.values(snap.keyed ?? {}).flat() as Json[][];
  const putsOf = (snap: OperatorSnapshot): Json[][] =>
    Object.values(snap.keyedDelta?.groups ?? {}).flatMap((g) => g.put) as Json[][];
  const removesOf = (snap: OperatorSnapshot): Json[][] =>
    Object.values(snap.keyedDelta?.groups ?? {}).flatMap((g) => g.remove) as Json[][];
  const fill = (b: DiskKeyedStateBackend, n: number, value = 0): void => {
    const v = b.getValueState<number>('v');
    for (let i = 0; i < n; i++) {
      b.currentKey = i;
      v.update(value + i);
    }
  };

  it('keeps its data in its own directory under the working directory, removed on dispose', async () => {
    const b = make({}, 3);
    fill(b, 10);
    b.entryCount();
    expect(
      b.dataDirectory.startsWith(join(dir, 'work', `weir-state-${OPERATOR}-3-p${process.pid}-`)),
    ).toBe(true);
    expect(existsSync(b.dataDirectory)).toBe(true);
    b.dispose();
    b.dispose();
    expect(b.entryCount()).toBe(0);
    expect(existsSync(b.dataDirectory)).toBe(false);
    expect(await readdir(join(dir, 'work'))).toEqual([]);
  });

  it('removes directories that crashed processes left behind, and only those', async () => {
    const work = join(dir, 'work');
    const { mkdir } = await import('node:fs/promises');
    const dead = join(work, `weir-state-${OPERATOR}-0-p99999999-abc`);
    const living = join(work, `weir-state-${OPERATOR}-0-p${process.ppid}-abc`);
    const otherSubtask = join(work, `weir-state-${OPERATOR}-1-p99999999-abc`);
    for (const d of [dead, living, otherSubtask]) await mkdir(d, { recursive: true });
    make({}, 0);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(living)).toBe(true);
    expect(existsSync(otherSubtask)).toBe(true);
  });

  it('a snapshot after a confirmed one holds only the changes', () => {
    const b = make();
    fill(b, 100);
    const full = b.snapshot(snapshotContext(1));
    expect(full.keyedDelta).toBeUndefined();
    expect(rowsOf(full)).toHaveLength(100);
    b.notifyCheckpointComplete(1);
    const v = b.getValueState<number>('v');
    b.currentKey = 5;
    v.update(500);
    b.currentKey = 6;
    v.clear();
    b.currentKey = 1000;
    v.update(1000);
    const delta = b.snapshot(snapshotContext(2));
    expect(delta.keyed).toBeUndefined();
    expect(delta.keyedDelta?.base).toBe(1);
    expect(delta.deltaBaseFloor).toBe(1);
    expect(
      putsOf(delta)
        .map((r) => [r[1], r[4]])
        .sort(),
    ).toEqual([
      [1000, 1000],
      [5, 500],
    ]);
    expect(removesOf(delta)).toEqual([['v', 6, '', null]]);
    for (const [g, changes] of Object.entries(delta.keyedDelta!.groups)) {
      for (const r of [...changes.put, ...changes.remove] as Json[][]) {
        expect(keyGroupOf(r[1] as number, MAX_PARALLELISM)).toBe(Number(g));
      }
    }
  });

  it('never bases a delta on an unconfirmed checkpoint', () => {
    const b = make();
    fill(b, 10);
    b.snapshot(snapshotContext(1));
    b.notifyCheckpointComplete(1);
    const v = b.getValueState<number>('v');
    b.currentKey = 1;
    v.update(-1);
    // Checkpoint 2 is taken but never completes (its storage failed, say).
    expect(b.snapshot(snapshotContext(2)).keyedDelta?.base).toBe(1);
    b.currentKey = 2;
    v.update(-2);
    const third = b.snapshot(snapshotContext(3));
    expect(third.keyedDelta?.base).toBe(1);
    expect(
      putsOf(third)
        .map((r) => r[1])
        .sort(),
    ).toEqual([1, 2]);
    b.notifyCheckpointComplete(3);
    b.currentKey = 3;
    v.update(-3);
    const fourth = b.snapshot(snapshotContext(4));
    expect(fourth.keyedDelta?.base).toBe(3);
    expect(putsOf(fourth).map((r) => r[1])).toEqual([3]);
  });

  it('takes a full snapshot every fullSnapshotEvery checkpoints', () => {
    const b = make({ fullSnapshotEvery: 3 });
    fill(b, 5);
    const kinds: string[] = [];
    for (let id = 1; id <= 7; id++) {
      const s = b.snapshot(snapshotContext(id));
      kinds.push(s.keyedDelta === undefined ? 'full' : `delta(${s.keyedDelta.base})`);
      b.notifyCheckpointComplete(id);
    }
    expect(kinds).toEqual(['full', 'delta(1)', 'delta(2)', 'full', 'delta(4)', 'delta(5)', 'full']);
  });

  it('savepoints are full and are never used as a base', () => {
    const b = make();
    fill(b, 5);
    b.snapshot(snapshotContext(1));
    b.notifyCheckpointComplete(1);
    const sp = b.snapshot(snapshotContext(2, 'savepoint'));
    expect(sp.keyedDelta).toBeUndefined();
    expect(rowsOf(sp)).toHaveLength(5);
    b.notifyCheckpointComplete(2);
    expect(b.snapshot(snapshotContext(3)).keyedDelta?.base).toBe(1);
  });

  it('too many changes between checkpoints make the next snapshot full', () => {
    const b = make({ maxTrackedChanges: 10 });
    fill(b, 5);
    b.snapshot(snapshotContext(1));
    b.notifyCheckpointComplete(1);
    fill(b, 20, 100);
    expect(b.snapshot(snapshotContext(2)).keyedDelta).toBeUndefined();
  });

  it('expired rows touched since the base, and a bounded sweep of others, are removed in a delta', () => {
    const clock = new ManualClock();
    const b = make({ clock, ttlCleanupPerAccess: 0, ttlCleanupPerSnapshot: 4 });
    const v = b.getValueState<number>({ name: 't', ttl: { ttlMs: 10 } });
    for (let i = 0; i < 10; i++) {
      b.currentKey = i;
      v.update(i);
    }
    b.snapshot(snapshotContext(1));
    b.notifyCheckpointComplete(1);
    clock.advance(10);
    const delta = b.snapshot(snapshotContext(2));
    expect(removesOf(delta)).toHaveLength(4);
    expect(b.entryCount()).toBe(6);
  });

  it('rejects keys too long for the store with a clear error', () => {
    const b = make();
    const v = b.getValueState<number>('v');
    b.currentKey = 'x'.repeat(3000);
    expect(() => v.update(1)).toThrow(WeirError);
    expect(() => v.update(1)).toThrow(/'v'.*'op-under-test'.*limit of 1978/);
  });

  describe('incremental checkpoints in checkpoint storage', () => {
    const write = async (
      storage: LocalCheckpointStorage,
      id: number,
      subtasks: OperatorSnapshot[],
    ): Promise<string> => storage.write(throughJson(checkpointOf(subtasks, id)));

    const valuesIn = (cp: CheckpointData): Map<string, Json> => {
      const out = new Map<string, Json>();
      for (const s of cp.operators[0]!.subtasks) {
        expect(s.keyedDelta).toBeUndefined();
        for (const r of Object.values(s.keyed ?? {}).flat() as Json[][]) {
          out.set(JSON.stringify(r.slice(0, 4)), r[4]!);
        }
      }
      return out;
    };

    it('reading a checkpoint resolves its chain to the same state as a full snapshot', async () => {
      const storage = new LocalCheckpointStorage(join(dir, 'chk'));
      const b = make({ fullSnapshotEvery: 100 });
      const v = b.getValueState<number>('v');
      const m = b.getMapState<string, number>('m');
      fill(b, 50);
      let path = '';
      for (let id = 1; id <= 5; id++) {
        for (let i = 0; i < 50; i += 7) {
          b.currentKey = (i + id) % 60;
          if (id % 2 === 0) v.clear();
          else v.update(id * 1000 + i);
          m.put(`e${id}`, id);
        }
        path = await write(storage, id, [b.snapshot(snapshotContext(id))]);
        b.notifyCheckpointComplete(id);
      }
      const resolved = await readCheckpoint(path);
      const full = make();
      full.restore(restoredStateFor(resolved, OPERATOR, 0, 1)!);
      const expected = valuesIn(
        checkpointOf([throughJson(b.snapshot(snapshotContext(99, 'savepoint')))]),
      );
      expect(valuesIn(resolved)).toEqual(expected);
      expect(full.entryCount()).toBe(b.entryCount());
      const meta = JSON.parse(
        await import('node:fs/promises').then((fs) =>
          fs.readFile(join(path, '_metadata.json'), 'utf8'),
        ),
      ) as { version: number; references: number[]; keepFrom: number };
      expect(meta.version).toBe(2);
      expect(meta.references).toEqual([1, 2, 3, 4]);
      expect(meta.keepFrom).toBe(4);
    });

    it('a checkpoint without deltas is written in format version 1', async () => {
      const storage = new LocalCheckpointStorage(join(dir, 'chk'));
      const b = make();
      fill(b, 3);
      const path = await write(storage, 1, [b.snapshot(snapshotContext(1))]);
      const fs = await import('node:fs/promises');
      const meta = JSON.parse(await fs.readFile(join(path, '_metadata.json'), 'utf8')) as {
        version: number;
        references?: number[];
      };
      expect(meta.version).toBe(1);
      expect(meta.references).toBeUndefined();
    });

    it('restores with rescaling: 2 subtasks with deltas, read back at parallelism 1 and 3', async () => {
      const storage = new LocalCheckpointStorage(join(dir, 'chk'));
      const keys = Array.from({ length: 300 }, (_, i) => `user-${i}`);
      const subtasks = [0, 1].map((s) => make({}, s));
      const owner = (k: string) => (keyGroupOf(k, MAX_PARALLELISM) < MAX_PARALLELISM / 2 ? 0 : 1);
      const expected = new Map<string, number>();
      const round = (id: number, every: number) => {
        for (const [i, k] of keys.entries()) {
          if (i % every !== 0) continue;
          const b = subtasks[owner(k)]!;
          b.currentKey = k;
          b.getValueState<number>('v').update(id * 10_000 + i);
          expected.set(k, id * 10_000 + i);
        }
      };
      let path = '';
      for (let id = 1; id <= 4; id++) {
        round(id, id === 1 ? 1 : 10);
        path = await write(
          storage,
          id,
          subtasks.map((b) => b.snapshot(snapshotContext(id))),
        );
        for (const b of subtasks) b.notifyCheckpointComplete(id);
      }
      const cp = await readCheckpoint(path);
      for (const parallelism of [1, 3]) {
        const got = new Map<string, number>();
        for (let s = 0; s < parallelism; s++) {
          const b = make({}, s);
          b.restore(restoredStateFor(cp, OPERATOR, s, parallelism)!);
          const v = b.getValueState<number>('v');
          b.forEachKeyAndNamespace('v', (k) => {
            b.currentKey = k;
            got.set(k as string, v.value()!);
          });
        }
        expect(got).toEqual(expected);
      }
    });

    it('prune keeps checkpoints that kept ones reference, and the newest one’s base floor', async () => {
      const storage = new LocalCheckpointStorage(join(dir, 'chk'));
      const b = make({ fullSnapshotEvery: 3 });
      fill(b, 10);
      const ids = async () =>
        (await readdir(join(dir, 'chk')))
          .filter((e) => e.startsWith('chk-'))
          .map((e) => Number(e.slice(4)));
      // 1 full, 2 delta(1), 3 delta(2), 4 full, 5 delta(4)
      for (let id = 1; id <= 5; id++) {
        b.currentKey = id;
        b.getValueState<number>('v').update(-id);
        await write(storage, id, [b.snapshot(snapshotContext(id))]);
        await storage.prune(1);
        b.notifyCheckpointComplete(id);
        const kept = await ids();
        if (id === 3) expect(kept).toEqual([1, 2, 3]);
        // 4 is full, but 3 is its base floor (a delta on 3 may still come), and 3 needs 1 and 2.
        if (id === 4) expect(kept).toEqual([1, 2, 3, 4]);
        if (id === 5) expect(kept).toEqual([4, 5]);
      }
      expect(
        valuesIn(
          await readCheckpoint(join(dir, 'chk', LocalCheckpointStorage.nameOf(5, 'checkpoint'))),
        ).size,
      ).toBe(10);
    });

    it('keeps bases of snapshots taken ahead of storage (checkpoints are pipelined)', async () => {
      const storage = new LocalCheckpointStorage(join(dir, 'chk'));
      const b = make();
      fill(b, 10);
      const v = b.getValueState<number>('v');
      const queued = new Map<number, OperatorSnapshot>();
      const take = (id: number) => {
        b.currentKey = id;
        v.update(-id);
        queued.set(id, b.snapshot(snapshotContext(id)));
      };
      // Snapshots 1-5 are taken before checkpoint 1 is even written.
      for (let id = 1; id <= 5; id++) take(id);
      const store = async (id: number) => {
        await write(storage, id, [queued.get(id)!]);
        await storage.prune(1);
        b.notifyCheckpointComplete(id);
      };
      await store(1);
      take(6); // a delta on 1, written after 2-5
      expect(queued.get(6)!.keyedDelta?.base).toBe(1);
      for (let id = 2; id <= 6; id++) await store(id);
      const resolved = await readCheckpoint(
        join(dir, 'chk', LocalCheckpointStorage.nameOf(6, 'checkpoint')),
      );
      const values = valuesIn(resolved);
      expect(values.get(JSON.stringify(['v', 6, '', null]))).toBe(-6);
      expect(values.size).toBe(10);
    });

    it('a delta whose base is gone fails to be written, and fails to be read, with clear errors', async () => {
      const storage = new LocalCheckpointStorage(join(dir, 'chk'));
      const b = make();
      fill(b, 3);
      await write(storage, 1, [b.snapshot(snapshotContext(1))]);
      b.notifyCheckpointComplete(1);
      const p2 = await write(storage, 2, [b.snapshot(snapshotContext(2))]);
      await rm(join(dir, 'chk', LocalCheckpointStorage.nameOf(1, 'checkpoint')), {
        recursive: true,
      });
      await expect(readCheckpoint(p2)).rejects.toThrow(/needs checkpoint 1/);
      await expect(
        write(new LocalCheckpointStorage(join(dir, 'chk')), 3, [b.snapshot(snapshotContext(3))]),
      ).rejects.toThrow(/incremental on checkpoint 1, which is not in/);
    });

    it('savepoints with incremental state are refused', async () => {
      const storage = new LocalCheckpointStorage(join(dir, 'sp'));
      const b = make();
      fill(b, 3);
      b.snapshot(snapshotContext(1));
      b.notifyCheckpointComplete(1);
      const cp: CheckpointData = {
        ...checkpointOf([b.snapshot(snapshotContext(2))], 2),
        kind: 'savepoint',
      };
      await expect(storage.write(cp)).rejects.toThrow(
        /savepoint 2 contains incremental keyed state/,
      );
    });
  });
});
