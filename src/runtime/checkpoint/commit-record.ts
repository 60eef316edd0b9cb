import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WeirError } from '../../core/errors.js';
import { replaceFileAtomically } from './durable-files.js';

/**
 * The newest checkpoint (or savepoint) whose completion was announced to the
 * sinks of a job: output up to it may be committed. Kept in the checkpoint
 * directory as `_committed.json`, written before the sinks are told, so it
 * never lags behind committed output.
 */
export interface CommitRecord {
  readonly checkpointId: number;
  /** Where that checkpoint or savepoint was written. */
  readonly path: string;
  readonly committedAt: string;
}

/** File name of the commit record inside a checkpoint directory. */
export const COMMIT_RECORD = '_committed.json';

/** Records, atomically, that sinks may commit up to checkpoint `checkpointId`. */
export async function writeCommitRecord(
  directory: string,
  checkpointId: number,
  path: string,
): Promise<void> {
  const record: CommitRecord = { checkpointId, path, committedAt: new Date().toISOString() };
  await replaceFileAtomically(join(directory, COMMIT_RECORD), JSON.stringify(record));
}

/**
 * The commit record of a checkpoint directory; undefined when there is none
 * (no checkpoint committed yet, or written by a Weir without commit records).
 * One that cannot be read is treated as absent only if it is missing:
 * a damaged record fails, since it guards against duplicate output.
 */
export async function readCommitRecord(directory: string): Promise<CommitRecord | undefined> {
  let text: string;
  try {
    text = await readFile(join(directory, COMMIT_RECORD), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const id =
    typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'checkpointId') : undefined;
  const path =
    typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'path') : undefined;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0 || typeof path !== 'string') {
    throw new WeirError(
      'CHECKPOINT_DAMAGED',
      `the commit record '${join(directory, COMMIT_RECORD)}' is damaged (no checkpointId and path in it); it tells which checkpoints sinks have committed, so restores from '${directory}' are refused until it is repaired or removed`,
      { domain: 'external' },
    );
  }
  return parsed as CommitRecord;
}
