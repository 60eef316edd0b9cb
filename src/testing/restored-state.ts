import { WeirError } from '../core/errors.js';
import type { OperatorSnapshot, RestoredState } from '../core/snapshot.js';
import {
  CHECKPOINT_FORMAT_VERSION,
  type CheckpointData,
} from '../runtime/checkpoint/checkpoint-data.js';
import { restoredStateFor } from '../runtime/checkpoint/restore.js';

/** Where the restored operator runs now. */
export interface RestoreTarget {
  readonly operatorId: string;
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly maxParallelism: number;
}

/**
 * The state a job restore would give subtask `target.subtaskIndex` from the
 * snapshots of an earlier run's subtasks (in subtask order), or undefined when
 * they hold nothing of the operator. The snapshots go through JSON, as
 * checkpoint storage writes them, so the restored operator shares no object
 * with them and state that is not JSON shows.
 */
export function restoredStateFrom(
  snapshots: readonly OperatorSnapshot[],
  target: RestoreTarget,
): RestoredState | undefined {
  if (snapshots.some((s) => s.keyedDelta !== undefined)) {
    throw new WeirError(
      'INVALID_JOB',
      `a snapshot of operator '${target.operatorId}' holds incremental state (changes since checkpoint ${snapshots.find((s) => s.keyedDelta !== undefined)?.keyedDelta?.base}); restore from a savepoint or from a snapshot taken before any checkpoint was confirmed complete`,
      { operatorId: target.operatorId },
    );
  }
  const stored = JSON.parse(JSON.stringify(snapshots)) as OperatorSnapshot[];
  const checkpoint: CheckpointData = {
    format: 'weir-checkpoint',
    version: CHECKPOINT_FORMAT_VERSION,
    kind: 'checkpoint',
    checkpointId: 0,
    jobName: 'test',
    createdAt: new Date(0).toISOString(),
    maxParallelism: target.maxParallelism,
    final: false,
    operators:
      stored.length === 0
        ? []
        : [
            {
              uid: target.operatorId,
              name: target.operatorId,
              parallelism: stored.length,
              subtasks: stored,
            },
          ],
  };
  return restoredStateFor(checkpoint, target.operatorId, target.subtaskIndex, target.parallelism);
}
