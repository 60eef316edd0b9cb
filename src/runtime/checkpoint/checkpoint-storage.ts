import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { WeirError } from '../../errors.js';
import type { CheckpointData, OperatorCheckpoint } from './checkpoint-data.js';
import { CHECKPOINT_FORMAT_VERSION } from './checkpoint-data.js';

/**
 * Where completed checkpoints are kept. Separate from state backends: the
 * working state of a job lives in memory (or an embedded store), its
 * checkpoints live here.
 */
export interface CheckpointStorage {
  /** Stores a checkpoint atomically: afterwards it is either wholly there or not at all. */
  write(checkpoint: CheckpointData): Promise<string>;
  /** The newest complete checkpoint, if any. */
  latest(): Promise<string | undefined>;
  /** Removes all but the newest `retain` checkpoints. */
  prune(retain: number): Promise<void>;
}

const METADATA = '_metadata.json';

async function writeFileDurably(path: string, text: string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Checkpoints as directories `chk-<id>` in a local directory. Each is written
 * under a temporary name and renamed when complete, and its `_metadata.json`
 * is written last, so a half-written checkpoint is never taken for a good one.
 *
 * Layout (documented in docs/checkpoints.md):
 *   chk-0000000042/_metadata.json      format, version, operators and their files
 *   chk-0000000042/<uid>-<subtask>.json state of one operator subtask
 */
export class LocalCheckpointStorage implements CheckpointStorage {
  constructor(readonly directory: string) {}

  static nameOf(checkpointId: number, kind: 'checkpoint' | 'savepoint'): string {
    return `${kind === 'checkpoint' ? 'chk' : 'savepoint'}-${String(checkpointId).padStart(10, '0')}`;
  }

  async write(checkpoint: CheckpointData): Promise<string> {
    await mkdir(this.directory, { recursive: true });
    const name = LocalCheckpointStorage.nameOf(checkpoint.checkpointId, checkpoint.kind);
    const finalDir = join(this.directory, name);
    const tmpDir = join(this.directory, `.${name}.tmp-${process.pid}-${Date.now()}`);
    await mkdir(tmpDir, { recursive: true });
    const operators = [];
    for (const op of checkpoint.operators) {
      const files: string[] = [];
      for (let s = 0; s < op.subtasks.length; s++) {
        const file = `${safeName(op.uid)}-${s}.json`;
        await writeFileDurably(join(tmpDir, file), JSON.stringify(op.subtasks[s]));
        files.push(file);
      }
      operators.push({
        uid: op.uid,
        name: op.name,
        parallelism: op.parallelism,
        files,
        ...(op.sourcePositions === undefined ? {} : { sourcePositions: op.sourcePositions }),
      });
    }
    const { operators: _omit, ...header } = checkpoint;
    await writeFileDurably(
      join(tmpDir, METADATA),
      JSON.stringify({ ...header, operators }, null, 1),
    );
    await rm(finalDir, { recursive: true, force: true });
    await rename(tmpDir, finalDir);
    return finalDir;
  }

  async latest(): Promise<string | undefined> {
    let entries: string[];
    try {
      entries = await readdir(this.directory);
    } catch {
      return undefined;
    }
    const complete = entries.filter((e) => /^chk-\d+$/.test(e)).sort();
    for (let i = complete.length - 1; i >= 0; i--) {
      const dir = join(this.directory, complete[i]!);
      try {
        await readFile(join(dir, METADATA));
        return dir;
      } catch {
        // Not complete: ignore.
      }
    }
    return undefined;
  }

  async prune(retain: number): Promise<void> {
    const entries = await readdir(this.directory);
    const complete = entries.filter((e) => /^chk-\d+$/.test(e)).sort();
    for (const old of complete.slice(0, Math.max(0, complete.length - retain))) {
      await rm(join(this.directory, old), { recursive: true, force: true });
    }
    // Leftovers of checkpoints that were being written when a process died.
    for (const e of entries) {
      if (e.startsWith('.chk-') && !e.includes(`.tmp-${process.pid}-`)) {
        await rm(join(this.directory, e), { recursive: true, force: true });
      }
    }
  }
}

function safeName(uid: string): string {
  return uid.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Reads a checkpoint or savepoint directory written by {@link LocalCheckpointStorage}. */
export async function readCheckpoint(path: string): Promise<CheckpointData> {
  let metadata: unknown;
  try {
    metadata = JSON.parse(await readFile(join(path, METADATA), 'utf8'));
  } catch (cause) {
    throw new WeirError(
      'INVALID_JOB',
      `'${path}' is not a complete Weir checkpoint or savepoint (no readable ${METADATA})`,
      { cause },
    );
  }
  const m = metadata as Omit<CheckpointData, 'operators'> & {
    operators: (Omit<OperatorCheckpoint, 'subtasks'> & { files: string[] })[];
  };
  if (m.format !== 'weir-checkpoint') {
    throw new WeirError(
      'INVALID_JOB',
      `'${path}' is not a Weir checkpoint (format '${String(m.format)}')`,
    );
  }
  if (m.version > CHECKPOINT_FORMAT_VERSION) {
    throw new WeirError(
      'INVALID_JOB',
      `checkpoint '${path}' has format version ${m.version}; this Weir reads up to ${CHECKPOINT_FORMAT_VERSION}`,
    );
  }
  const operators: OperatorCheckpoint[] = [];
  for (const op of m.operators) {
    const subtasks = [];
    for (const file of op.files)
      subtasks.push(JSON.parse(await readFile(join(path, file), 'utf8')));
    const { files: _files, ...rest } = op;
    operators.push({ ...rest, subtasks });
  }
  return { ...m, operators };
}
