import type { Clock } from '../../core/clock.js';
import type { MetricRegistry } from '../../metrics/registry.js';
import type { StateBackendOptions } from '../../state/create-backend.js';
import type { CheckpointCoordinator } from '../checkpoint/checkpoint-coordinator.js';
import type { CheckpointData } from '../checkpoint/checkpoint-data.js';
import { buildTasks } from '../execution/build-tasks.js';
import type { ExecutionPlan } from '../execution/execution-plan.js';
import { LocalExecutor } from '../execution/executor.js';
import type { Task } from '../task/task.js';
import { ProcessingTimeScheduler } from '../task/timers.js';
import type { JobAttempt } from './job-attempt.js';
import type { JobMonitor } from './job-monitor.js';

/** How the tasks of an attempt on this thread are built. */
export interface LocalAttemptSettings {
  readonly jobName: string;
  readonly batchSize: number;
  readonly channelCapacity: number;
  /** Buffer debloating target (ms); off when undefined. */
  readonly debloatTargetMs: number | undefined;
  readonly clock: Clock;
  readonly metrics: MetricRegistry;
  readonly stateBackend: StateBackendOptions | undefined;
  readonly restore: CheckpointData | undefined;
  readonly instrumentation: boolean;
}

/** One attempt at a job whose subtasks all run on this thread, under one {@link LocalExecutor}. */
export class LocalAttempt implements JobAttempt {
  readonly tasks: readonly Task[];
  private readonly timers: ProcessingTimeScheduler;
  private executor: LocalExecutor | undefined;
  private stopRequested = false;

  constructor(plan: ExecutionPlan, settings: LocalAttemptSettings) {
    this.timers = new ProcessingTimeScheduler(settings.clock);
    this.tasks = buildTasks(plan, {
      jobName: settings.jobName,
      batchSize: settings.batchSize,
      channelCapacity: settings.channelCapacity,
      debloatTargetMs: settings.debloatTargetMs,
      clock: settings.clock,
      timers: this.timers,
      metrics: settings.metrics,
      ...(settings.stateBackend === undefined ? {} : { stateBackend: settings.stateBackend }),
      ...(settings.restore === undefined ? {} : { restoreFrom: settings.restore }),
      instrumentation: settings.instrumentation,
    });
  }

  run(coordinator: CheckpointCoordinator, monitor: JobMonitor): Promise<'finished' | 'stopped'> {
    monitor.started(this.tasks);
    const executor = new LocalExecutor(this.tasks, this.timers, coordinator);
    this.executor = executor;
    if (this.stopRequested) executor.stop();
    return executor.run();
  }

  stop(): void {
    this.stopRequested = true;
    this.executor?.stop();
  }
}
