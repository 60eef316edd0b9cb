import { WeirError } from '../../core/errors.js';
import type { CheckpointStore } from './store/checkpoint-store.js';

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
  store: CheckpointStore,
  checkpointId: number,
  path: string,
): Promise<void> {
  const record: CommitRecord = { checkpointId, path, committedAt: new Date().toISOString() };
  // A savepoint may commit before the first checkpoint created the directory: replace creates it.
  await store.replace(COMMIT_RECORD, JSON.stringify(record));
}

/**
 * The commit record of a checkpoint directory; undefined when there is none
 * (no checkpoint committed yet, or written by a Weir without commit records).
 * One that cannot be read is treated as absent only if it is missing:
 * a damaged record fails, since it guards against duplicate output.
 */
export async function readCommitRecord(store: CheckpointStore): Promise<CommitRecord | undefined> {
  const bytes = await store.read(COMMIT_RECORD);
  if (bytes === undefined) return undefined;
  const text = bytes.toString('utf8');
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
      `the commit record '${store.locate(COMMIT_RECORD)}' is damaged (no checkpointId and path in it); it tells which checkpoints sinks have committed, so restores from '${store.location}' are refused until it is repaired or removed`,
      { domain: 'external' },
    );
  }
  return parsed as CommitRecord;
}
