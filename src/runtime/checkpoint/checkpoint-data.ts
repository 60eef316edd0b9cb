import type { Json, OperatorSnapshot } from '../../core/snapshot.js';

/**
 * Newest checkpoint/savepoint format this code reads and writes.
 * 1: every operator subtask's keyed state is whole (`keyed`).
 * 2: keyed state may be a `keyedDelta` on an earlier checkpoint of the same
 *    directory (incremental checkpoints); `_metadata.json` lists the
 *    checkpoints it references. Storage writes version 1 whenever a
 *    checkpoint has no delta, so such checkpoints stay readable by older code.
 */
export const CHECKPOINT_FORMAT_VERSION = 2;

/** The format version of checkpoints without incremental state. */
export const FULL_CHECKPOINT_FORMAT_VERSION = 1;

/** The state of one operator (all its subtasks) in a checkpoint. */
export interface OperatorCheckpoint {
  readonly uid: string;
  readonly name: string;
  readonly parallelism: number;
  /** Indexed by subtask. */
  readonly subtasks: readonly OperatorSnapshot[];
  /** For sources: the position of each subtask's reader. */
  readonly sourcePositions?: readonly Json[];
}

/** A complete checkpoint or savepoint, as held in memory. */
export interface CheckpointData {
  readonly format: 'weir-checkpoint';
  readonly version: number;
  readonly kind: 'checkpoint' | 'savepoint';
  readonly checkpointId: number;
  readonly jobName: string;
  readonly createdAt: string;
  readonly maxParallelism: number;
  /** True when taken after all input ended: restoring finishes the job at once. */
  readonly final: boolean;
  readonly operators: readonly OperatorCheckpoint[];
  /**
   * For a task snapshot of a process group: the member run that wrote it
   * and the checkpoint of that run it was split from. The snapshot counts
   * only once that run has sealed the checkpoint (see `RunSeals`).
   */
  readonly origin?: TaskSnapshotOrigin;
}

/** Where a task snapshot comes from: a member run and its checkpoint. */
export interface TaskSnapshotOrigin {
  readonly run: string;
  readonly checkpointId: number;
}
