import type { OperatorSnapshot } from '../core/snapshot.js';
import type { StateBackendOptions } from '../core/state-backend.js';

/** Where a harnessed operator runs and what it starts from. Every field has a default. */
export interface HarnessOptions {
  /** The operator id (state is stored under it). Default `'operator'`. */
  readonly operatorId?: string;
  /** Default 0. */
  readonly subtaskIndex?: number;
  /** Default 1. */
  readonly parallelism?: number;
  /** Number of key groups. Default 128, as in jobs. */
  readonly maxParallelism?: number;
  /** Keyed state backend: the heap (default) or the disk backend. */
  readonly stateBackend?: StateBackendOptions;
  /** Processing time when the harness starts. Default 0. */
  readonly processingTime?: number;
  /**
   * Start as a restored job: from the snapshot of one subtask, or the
   * snapshots of all subtasks of an earlier run in subtask order (their
   * number is the old parallelism; key groups and list state are
   * redistributed as a job restore does). An empty array is a restored job
   * that held no state of this operator.
   */
  readonly restoreFrom?: OperatorSnapshot | readonly OperatorSnapshot[];
}
