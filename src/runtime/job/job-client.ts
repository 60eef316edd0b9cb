/**
 * What the caller of a job holds: how it is started, how it ended, and the
 * handle to watch, savepoint or cancel it while it runs.
 */
import type { Key } from '../../core/key-groups.js';
import type { MetricRegistry, MetricSample } from '../../metrics/registry.js';
import type { JobMonitor } from './job-monitor.js';
import type { StateQueryResult } from './state-query.js';

export type { RestartStrategy } from './restart-strategy.js';
export type { StateQueryResult } from './state-query.js';

/** How a savepoint is taken ({@link JobClient.triggerSavepoint}). */
export interface SavepointOptions {
  /**
   * The caller will stop the job after this savepoint: the job halts at its
   * barrier (sources emit nothing more, tasks stop once it passed them) and
   * no checkpoint follows, so nothing is emitted or committed past it and
   * resuming from it is exact. The job stays halted until it is cancelled
   * (or resumes running if the savepoint fails).
   */
  readonly final?: boolean;
}

/** How to start a job. */
export interface ExecuteOptions {
  /**
   * Restore from this checkpoint or savepoint directory, or from the newest
   * checkpoint in the configured checkpoint directory (`'latest'`; a fresh
   * start if there is none).
   */
  readonly restoreFrom?: string;
  /** Start even if the checkpoint holds state of operators the job no longer has (that state is dropped). */
  readonly allowNonRestoredState?: boolean;
  /**
   * Restore even a checkpoint older than the newest one whose output sinks
   * have committed (as recorded in the checkpoint directory), accepting that
   * the output in between is written again. Refused by default.
   */
  readonly allowDuplicateOutput?: boolean;
}

/** The outcome of a job run. */
export interface JobResult {
  readonly jobName: string;
  readonly status: 'finished' | 'cancelled';
  readonly durationMs: number;
  readonly metrics: readonly MetricSample[];
  /** Sum of a metric over all operators and subtasks. */
  metric(name: string, labels?: Readonly<Record<string, string>>): number;
}

/** A running job. */
export interface JobClient {
  readonly jobName: string;
  /** Resolves when the job finishes or is cancelled; rejects if it fails. */
  readonly result: Promise<JobResult>;
  /** Live metrics of the running job. */
  readonly metrics: MetricRegistry;
  /** Unique id of this run of the job (used by the REST API). */
  readonly jobId: string;
  /** Status, job graph, checkpoint history and exceptions of the job. */
  readonly monitor: JobMonitor;
  /** Stops the job (pending windows are not fired) and waits until it has stopped. */
  cancel(): Promise<JobResult>;
  /**
   * Takes a savepoint of the running job into `directory` (a portable,
   * self-contained checkpoint for restarts, upgrades and rescaling) and
   * resolves with its path. Two-phase-commit sinks commit up to it.
   */
  triggerSavepoint(directory: string, options?: SavepointOptions): Promise<string>;
  /**
   * Stops the job at a savepoint and resolves with its path. Sources emit
   * nothing after the savepoint's barrier and every task halts once the
   * barrier has passed it, so the job's output (in every sink, two-phase or
   * not) ends exactly at the savepoint; sinks commit, then the job ends as
   * cancelled. Resuming from the savepoint neither repeats nor loses records.
   * Fails (and the job goes on) if the savepoint fails; fails once the job
   * has finished if its input ran out before the savepoint could start.
   */
  stopWithSavepoint(directory: string): Promise<string>;
  /**
   * Reads the current state of a queryable operator (`uid`) for `key`
   * (interactive queries), from the subtask that owns the key, between two
   * of its batches. `not-running` while the job starts, restarts or after
   * it ended.
   */
  queryState(uid: string, key: Key): Promise<StateQueryResult>;
}
