import type { CheckpointCoordinator } from '../checkpoint/checkpoint-coordinator.js';
import type { Task } from '../task/task.js';
import type { JobMonitor } from './job-monitor.js';

/**
 * One attempt at running a job: its tasks are built (on this thread, or on
 * worker threads with proxies here) when the attempt is created, and run
 * once. A restart is a new attempt.
 */
export interface JobAttempt {
  /** The tasks the checkpoint coordinator of this attempt drives. */
  readonly tasks: readonly Task[];
  /**
   * Runs the tasks until their input ends (`finished`, after the final
   * checkpoint) or {@link stop} is called (`stopped`); rejects if the attempt
   * fails. Tells `monitor` the tasks are running first.
   */
  run(coordinator: CheckpointCoordinator, monitor: JobMonitor): Promise<'finished' | 'stopped'>;
  /** Asks the attempt to stop at the next step boundary; also before `run`. */
  stop(): void;
}
