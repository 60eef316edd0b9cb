/**
 * Fuzzing checkpoint files: a full checkpoint and an incremental one on top
 * of it are written by LocalCheckpointStorage, then one of their files is
 * damaged. Reading must give either exactly what was written or a
 * CHECKPOINT_DAMAGED / INVALID_JOB error naming the checkpoint (and, when
 * damaged, the file), never a TypeError, a hang or silently different state.
 * Files that are valid JSON of the wrong shape, with their checksums made to
 * match (as a faulty writer would), must be refused or restore cleanly.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WeirError } from '../../src/core/errors.js';
import type { CheckpointData } from '../../src/runtime/checkpoint/checkpoint-data.js';
import {
  checksumOf,
  metadataChecksumOf,
} from '../../src/runtime/checkpoint/checkpoint-integrity.js';
import {
  LocalCheckpointStorage,
  readCheckpoint,
} from '../../src/runtime/checkpoint/checkpoint-storage.js';
import { readCommitRecord } from '../../src/runtime/checkpoint/commit-record.js';
import { restoredStateFor, sourcePositionFor } from '../../src/runtime/checkpoint/restore.js';
import { LocalStore } from '../../src/runtime/checkpoint/store/local-store.js';
import { expectOurError, fuzzParameters, mutated, timedAsync } from './fuzz.js';

const META = '_metadata.json';
const value = { kind: 'value' as const, serializer: { id: 'json', version: 1 } };

function checkpoint(
  id: number,
  counts: CheckpointData['operators'][number]['subtasks'],
): CheckpointData {
  return {
    format: 'weir-checkpoint',
    version: 1,
    kind: 'checkpoint',
    checkpointId: id,
    jobName: 'fuzz',
    createdAt: '2026-01-01T00:00:00.000Z',
    maxParallelism: 128,
    final: false,
    operators: [
      {
        uid: 'src',
        name: 'Source',
        parallelism: 2,
        subtasks: [{}, {}],
        sourcePositions: [{ offset: 5 }, { offset: 7 }],
      },
      { uid: 'counts', name: 'Counts', parallelism: 2, subtasks: counts },
    ],
  };
}

const FULL = checkpoint(1, [
  { keyed: { '3': [['k1', 5]], '40': [['k2', 9]] }, states: { count: value }, deltaBaseFloor: 1 },
  {
    keyed: { '70': [['k3', 1]], '100': [['k4', 2]] },
    states: { count: value },
    list: [1, 2],
    union: ['u'],
  },
]);
const DELTA = checkpoint(2, [
  {
    keyedDelta: { base: 1, identityLength: 1, groups: { '3': { put: [['k1', 6]], remove: [] } } },
    states: { count: value },
    deltaBaseFloor: 1,
  },
  {
    keyedDelta: { base: 1, identityLength: 1, groups: { '100': { put: [], remove: [['k4']] } } },
    states: { count: value },
  },
]);

let root: string;
let original: string;
let expected: Map<string, CheckpointData>;
const FILES = [META, 'src-0.json', 'src-1.json', 'counts-0.json', 'counts-1.json'];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'weir-fuzz-chk-'));
  original = join(root, 'original');
  const storage = new LocalCheckpointStorage(original);
  await storage.write(FULL);
  await storage.write(DELTA);
  expected = new Map();
  for (const id of [1, 2]) {
    const dir = join(original, LocalCheckpointStorage.nameOf(id, 'checkpoint'));
    expected.set(dir, await readCheckpoint(dir));
  }
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let runs = 0;

/** A fresh copy of both checkpoints; returns the directory of checkpoint `id` in it. */
async function copy(id: number): Promise<{ dir: string; base: string }> {
  const base = join(root, `run-${runs++}`);
  await cp(original, base, { recursive: true });
  return { dir: join(base, LocalCheckpointStorage.nameOf(id, 'checkpoint')), base };
}

/** Reads a checkpoint and restores every subtask of every operator; returns the checkpoint or the error. */
async function readAndRestore(
  dir: string,
): Promise<{ value: CheckpointData } | { error: unknown } | { restoreError: unknown }> {
  let data: CheckpointData;
  try {
    data = await timedAsync(() => readCheckpoint(dir));
  } catch (error) {
    return { error };
  }
  try {
    for (const op of data.operators) {
      for (let s = 0; s < op.parallelism; s++) {
        restoredStateFor(data, op.uid, s, op.parallelism);
        restoredStateFor(data, op.uid, 0, 1);
        sourcePositionFor(data, op.uid, s);
      }
    }
    return { value: data };
  } catch (error) {
    // Restoring a checkpoint that was read refuses what does not fit, naming the operator.
    expectOurError(error, ['INVALID_JOB', 'INTERNAL'], /operator '/);
    return { restoreError: error };
  }
}

/** Refused with our error, naming a checkpoint under `base`. */
function expectRefused(error: unknown, base: string): void {
  expectOurError(error, ['CHECKPOINT_DAMAGED', 'INVALID_JOB']);
  expect((error as WeirError).message).toContain(base);
}

describe('fuzz: damaged checkpoint files', () => {
  it('damaged bytes: the checkpoint as written, or refused naming it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 2),
        fc.constantFrom(...FILES),
        fc.uint8Array({ maxLength: 64 }),
        fc.nat(),
        fc.nat({ max: 3 }),
        async (id, file, junk, at, how) => {
          const { dir, base } = await copy(id);
          const path = join(dir, file);
          const bytes = await readFile(path);
          const i = at % (bytes.length + 1);
          const damaged =
            how === 0
              ? bytes.subarray(0, i) // cut short
              : how === 1
                ? Buffer.concat([bytes.subarray(0, i), junk, bytes.subarray(i)]) // spliced
                : how === 2
                  ? Buffer.from(junk) // overwritten
                  : flip(bytes, i); // one bit flipped
          await writeFile(path, damaged);
          const result = await readAndRestore(dir);
          if ('error' in result) expectRefused(result.error, base);
          else if ('value' in result) {
            expect(result.value).toEqual(expected.get(join(original, dir.slice(base.length))));
          } else throw result.restoreError;
          await rm(base, { recursive: true, force: true });
        },
      ),
      fuzzParameters(100),
    );
  });

  it('valid JSON of the wrong shape, checksums made to match: refused naming the file, or restored cleanly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 2),
        fc.constantFrom(...FILES),
        fc.nat(),
        fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.constantFrom(undefined, -1, 1e300, 2 ** 53, '../../etc/passwd', 'constructor', [], {}),
        ),
        async (id, file, pick, replacement) => {
          const { dir, base } = await copy(id);
          const path = join(dir, file);
          const json: unknown = JSON.parse(await readFile(path, 'utf8'));
          const paths = pathsOf(json);
          const target = paths[pick % paths.length] as (string | number)[];
          const changed = replaceAt(json, target, replacement);
          await writeFile(path, JSON.stringify(changed) ?? 'null');
          await rechecksum(dir, file);
          const result = await readAndRestore(dir);
          if ('error' in result) expectRefused(result.error, base);
          await rm(base, { recursive: true, force: true });
        },
      ),
      fuzzParameters(100),
    );
  });

  it('a damaged commit record is refused naming it, or read as written', async () => {
    const record = Buffer.from(
      JSON.stringify({ checkpointId: 2, path: '/x/chk-2', committedAt: 'now' }),
    );
    await fc.assert(
      fc.asyncProperty(mutated(fc.constant(record)), async (bytes) => {
        const dir = join(root, `commit-${runs++}`);
        await cp(original, dir, { recursive: true });
        await writeFile(join(dir, '_committed.json'), bytes);
        try {
          const read = await timedAsync(() => readCommitRecord(new LocalStore(dir)));
          expect(typeof read?.checkpointId).toBe('number');
          expect(typeof read?.path).toBe('string');
        } catch (error) {
          expectOurError(error, ['CHECKPOINT_DAMAGED'], /_committed\.json/);
        }
        await rm(dir, { recursive: true, force: true });
      }),
      fuzzParameters(100),
    );
  });

  it('the newest intact checkpoint is found past damaged ones, each named with its reason', async () => {
    const { dir, base } = await copy(2);
    await writeFile(join(dir, 'counts-0.json'), '{"keyed":{"3":[["k1",6]]}}');
    const latest = await new LocalCheckpointStorage(base).findLatest();
    expect(latest.intact?.path).toBe(join(base, LocalCheckpointStorage.nameOf(1, 'checkpoint')));
    expect(latest.skipped.map((s) => s.checkpointId)).toEqual([2]);
    expect(latest.skipped[0]?.reason).toMatch(/counts-0\.json does not match its checksum/);
  });
});

describe('fuzz: kept checkpoint files', () => {
  // Contents fuzzing found bugs with, kept as regression cases: each was
  // read without a checksum to catch it (checkpoints written before
  // checksums, or checksums matching a faulty writer's output).
  it.each([
    // operators not an array: a TypeError ("is not iterable") while reading.
    {
      name: 'operators is a number',
      file: META,
      change: (m: Record<string, unknown>) => ({ ...m, operators: 5 }),
    },
    // a state file name with a path: read a file outside the checkpoint.
    {
      name: 'a state file outside the checkpoint',
      file: META,
      change: (m: Record<string, unknown>) => ({
        ...m,
        operators: [
          { uid: 'x', name: 'x', parallelism: 1, files: ['../chk-0000000001/src-0.json'] },
        ],
      }),
    },
    // A state file holding null: a TypeError in restoredStateFor.
    { name: 'a state file holding null', file: 'counts-0.json', change: () => null },
    // A key group that is not a number: restored under key group NaN.
    {
      name: 'key group that is not a number',
      file: 'counts-1.json',
      change: () => ({ keyed: { abc: [['k', 1]] } }),
    },
    // An incremental state based on itself: resolving looped forever.
    {
      name: 'incremental state based on its own checkpoint',
      file: 'counts-0.json',
      change: () => ({
        keyedDelta: { base: 2, identityLength: 1, groups: { '3': { put: [], remove: [] } } },
      }),
    },
  ])('$name', async ({ file, change }) => {
    const { dir, base } = await copy(2);
    const path = join(dir, file);
    const json = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify(change(json)));
    await rechecksum(dir, file);
    const result = await readAndRestore(dir);
    expect('error' in result).toBe(true);
    if ('error' in result) expectRefused(result.error, base);
    await rm(base, { recursive: true, force: true });
  });

  it('one bit flipped in the name "metadataChecksum" (found with seed 13): was read without checking, with an extra field', async () => {
    const { dir, base } = await copy(2);
    const path = join(dir, META);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"metadataChecksum"', '"metadataChecksul"'));
    const result = await readAndRestore(dir);
    expect('error' in result).toBe(true);
    if ('error' in result) {
      expectRefused(result.error, base);
      expect((result.error as WeirError).message).toMatch(
        /_metadata\.json has a wrong 'metadataChecksul'/,
      );
    }
    await rm(base, { recursive: true, force: true });
  });

  it('a state file named like an Object.prototype member has no checksum (its "checksum" was a function, then a TypeError)', async () => {
    const { dir, base } = await copy(2);
    const meta = JSON.parse(await readFile(join(dir, META), 'utf8')) as Record<string, unknown>;
    meta.operators = [{ uid: 'x', name: 'x', parallelism: 1, files: ['constructor'] }];
    await writeFile(join(dir, META), JSON.stringify(meta));
    await writeFile(join(dir, 'constructor'), '{"list":[1]}');
    await rechecksum(dir, META);
    const result = await readAndRestore(dir);
    expect('value' in result && result.value.operators[0]?.subtasks).toEqual([{ list: [1] }]);
    await rm(base, { recursive: true, force: true });
  });
});

function flip(bytes: Buffer, i: number): Buffer {
  if (bytes.length === 0) return bytes;
  const out = Buffer.from(bytes);
  const at = i % bytes.length;
  out[at] = (out[at] as number) ^ (1 << (i % 8));
  return out;
}

/** Every path to a value inside `json` (the root is `[]`). */
function pathsOf(
  json: unknown,
  at: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(at);
  if (Array.isArray(json)) {
    json.forEach((v, i) => {
      pathsOf(v, [...at, i], out);
    });
  } else if (typeof json === 'object' && json !== null) {
    for (const [k, v] of Object.entries(json)) pathsOf(v, [...at, k], out);
  }
  return out;
}

function replaceAt(
  json: unknown,
  path: readonly (string | number)[],
  replacement: unknown,
): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(json)) {
    const copy = [...json];
    copy[head as number] = replaceAt(copy[head as number], rest, replacement);
    return copy;
  }
  const obj = { ...(json as Record<string, unknown>) };
  obj[head] = replaceAt(obj[head], rest, replacement);
  return obj;
}

/** Makes the metadata's checksums match the files as they are now (a faulty writer's checkpoint). */
async function rechecksum(dir: string, changed: string): Promise<void> {
  let meta: unknown;
  try {
    meta = JSON.parse(await readFile(join(dir, META), 'utf8'));
  } catch {
    return;
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return;
  const m = meta as Record<string, unknown>;
  delete m.metadataChecksum;
  if (changed !== META && typeof m.checksums === 'object' && m.checksums !== null) {
    (m.checksums as Record<string, unknown>)[changed] = checksumOf(
      await readFile(join(dir, changed)),
    );
  }
  m.metadataChecksum = metadataChecksumOf(m);
  await writeFile(join(dir, META), JSON.stringify(m));
}
