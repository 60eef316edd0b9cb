import type { WeirError } from '../../core/errors.js';
import { isCollectingSink } from '../../core/sink.js';
import type { MetricRegistry } from '../../metrics/registry.js';
import type { CheckpointCoordinator } from '../checkpoint/checkpoint-coordinator.js';
import type { CheckpointData } from '../checkpoint/checkpoint-data.js';
import { taskSlots } from '../execution/build-tasks.js';
import type { ExecutionPlan } from '../execution/execution-plan.js';
import type { JobAttempt } from '../job/job-attempt.js';
import type { JobMonitor } from '../job/job-monitor.js';
import { connectPeers, type PeerLink } from './peer-channels.js';
import {
  type CollectedRecords,
  type FromWorker,
  type WorkerEnvironmentOptions,
  workerOf,
} from './protocol.js';
import { RemoteSourceTask, RemoteTask } from './remote-task.js';
import { Wakeup } from './wakeup.js';
import { WorkerMetrics } from './worker-metrics.js';
import { WorkerThread } from './worker-thread.js';

/** How often the main thread looks at the checkpoint coordinator while workers run. */
const COORDINATOR_TICK_MS = 5;

/** The environment options every worker rebuilds the job's plan with. */
export type WorkerPlanOptions = Pick<
  WorkerEnvironmentOptions,
  | 'parallelism'
  | 'maxParallelism'
  | 'chaining'
  | 'fusion'
  | 'localAggregation'
  | 'autoWatermarkIntervalMs'
>;

/**
 * Running a job's subtasks on worker threads: every worker loads the job
 * module and builds the same plan, then runs the subtasks it owns.
 */
export interface WorkerThreadsDeployment {
  readonly kind: 'worker-threads';
  readonly workers: number;
  /** Bytes of each ring between two workers (see `connectPeers`). */
  readonly ringBytes: number;
  /**
   * The module each worker thread starts with: it builds the job's plan
   * (from `modulePath`) and runs its share of the subtasks.
   */
  readonly entry: URL;
  /** Whether workers must map bare `weir` imports to this copy of the library. */
  readonly aliasWeir: boolean;
  readonly modulePath: string;
  readonly args: readonly string[];
  readonly planOptions: WorkerPlanOptions;
}

/** What one attempt on worker threads is started with. */
export interface ThreadedAttemptSettings {
  readonly plan: ExecutionPlan;
  readonly jobName: string;
  readonly deployment: WorkerThreadsDeployment;
  readonly options: WorkerEnvironmentOptions;
  readonly restore: CheckpointData | undefined;
}

/**
 * One attempt at a job whose subtasks run on worker threads. The main thread
 * plays the JobManager: it starts the workers (each loads the job module and
 * builds its share of the subtasks), connects every pair of them with a
 * message port for their channels, runs the checkpoint coordinator against
 * proxies of the remote tasks, and ends or fails the job.
 */
export class ThreadedAttempt implements JobAttempt {
  readonly tasks: RemoteTask[];
  private readonly workers: WorkerThread[] = [];
  private readonly metrics: WorkerMetrics;
  private failure: WeirError | undefined;
  private stopRequested = false;
  private readonly wakeup = new Wakeup();
  private coordinator: CheckpointCoordinator | undefined;

  constructor(
    private readonly settings: ThreadedAttemptSettings,
    /** The job's registry: the workers' metrics appear in it as they report them. */
    registry: MetricRegistry,
  ) {
    const { plan, deployment } = settings;
    const count = deployment.workers;
    const links: (PeerLink | undefined)[][] = [];
    for (let i = 0; i < count; i++) links.push(new Array(count).fill(undefined));
    for (let i = 0; i < count; i++) {
      for (let j = i + 1; j < count; j++) {
        [links[i]![j], links[j]![i]] = connectPeers(deployment.ringBytes);
      }
    }
    for (let i = 0; i < count; i++) {
      const peers = links[i]!;
      this.workers.push(
        new WorkerThread(
          i,
          deployment.entry,
          {
            options: settings.options,
            restore: settings.restore,
            modulePath: deployment.modulePath,
            aliasWeir: deployment.aliasWeir,
            args: deployment.args,
            jobName: settings.jobName,
            index: i,
            count,
            peers,
          },
          peers.flatMap((p) => (p === undefined ? [] : [p.port])),
          (_w, m) => this.onMessage(m),
          (error) => {
            this.failure ??= error;
            this.wakeup.notify();
          },
        ),
      );
    }
    this.metrics = new WorkerMetrics(registry, this.workers);
    this.tasks = taskSlots(plan).map(({ head, subtask, isSource }, slot) => {
      const v = plan.vertices[head]!;
      const name = `${v.name} (${subtask + 1}/${v.parallelism})`;
      const worker = this.workers[workerOf(subtask, count)]!;
      return isSource
        ? new RemoteSourceTask(name, subtask, plan.maxParallelism, slot, worker)
        : new RemoteTask(name, subtask, plan.maxParallelism, slot, worker);
    });
  }

  private onMessage(m: FromWorker): void {
    switch (m.t) {
      case 'metrics':
        this.metrics.publish();
        break;
      case 'ack': {
        const task = this.tasks[m.slot]!;
        task.lastAlignmentMs = m.alignmentMs;
        task.checkpoints?.acknowledge(task, m.id, m.snapshot);
        break;
      }
      case 'decline':
        this.coordinator?.decline(m.id, m.reason);
        break;
      case 'source-state': {
        const task = this.tasks[m.slot];
        if (task instanceof RemoteSourceTask) {
          task.finished = m.finished;
          task.checkpointable = m.checkpointable;
        }
        break;
      }
      case 'task-finished':
        this.tasks[m.slot]!.finished = true;
        break;
      default:
        break;
    }
    this.wakeup.notify();
  }

  stop(): void {
    this.stopRequested = true;
    this.wakeup.notify();
  }

  /** Throws the first worker failure, if any. */
  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Waits for `p` unless a worker fails first. */
  private async guarded<T>(p: Promise<T>): Promise<T> {
    for (;;) {
      this.check();
      const settled = await Promise.race([
        p.then((v) => ({ v })),
        this.wakeup.wait().then(() => undefined),
      ]);
      if (settled !== undefined) {
        this.check();
        return settled.v;
      }
    }
  }

  /** Runs the job to its end; fills the job's collecting sinks with what the workers collected. */
  async run(
    coordinator: CheckpointCoordinator,
    monitor: JobMonitor,
  ): Promise<'finished' | 'stopped'> {
    this.coordinator = coordinator;
    monitor.started(this.tasks);
    const workers = this.workers;
    try {
      let outcome: 'finished' | 'stopped';
      for (;;) {
        this.check();
        if (coordinator.failure !== undefined) throw coordinator.failure;
        if (this.stopRequested) {
          outcome = 'stopped';
          break;
        }
        if (workers.every((w) => w.finished)) {
          outcome = 'finished';
          break;
        }
        // Checkpoints start once every worker runs and has said what its sources can do.
        if (workers.every((w) => w.started)) coordinator.tick();
        await Promise.race([
          this.wakeup.wait(),
          new Promise((resolve) => setTimeout(resolve, COORDINATOR_TICK_MS)),
        ]);
      }
      if (outcome === 'finished') await this.guarded(coordinator.finalCheckpoint());
      else {
        for (const w of workers) w.post({ t: 'stop' });
        await this.guarded(coordinator.drain());
      }
      for (const w of workers) w.post({ t: 'close' });
      await this.guarded(
        new Promise<void>((resolve) => {
          const poll = () => {
            if (workers.every((w) => w.closed !== undefined)) resolve();
            else setTimeout(poll, 1);
          };
          poll();
        }),
      );
      for (const w of workers)
        for (const c of w.closed!.collected) collectInto(this.settings.plan, c);
      this.metrics.publish();
      return outcome;
    } catch (error) {
      await coordinator.drain().catch(() => {});
      await this.flushMetrics();
      throw error;
    } finally {
      await Promise.all(workers.map((w) => w.thread.terminate()));
    }
  }

  /**
   * Asks every worker still there for its metrics and waits (briefly) for
   * them: a job that fails before the periodic reports would otherwise say
   * it read nothing.
   */
  private async flushMetrics(): Promise<void> {
    const asked = this.workers.filter((w) => w.alive);
    const before = asked.map((w) => w.metricReports);
    for (const w of asked) w.post({ t: 'report-metrics' });
    const deadline = performance.now() + METRICS_FLUSH_MS;
    await new Promise<void>((resolve) => {
      const poll = () => {
        const answered = asked.every((w, i) => w.metricReports > before[i]! || !w.alive);
        if (answered || performance.now() > deadline) resolve();
        else setTimeout(poll, 5);
      };
      poll();
    });
    this.metrics.publish();
  }
}

/** How long a failed job waits for the workers' last metrics before it reports. */
const METRICS_FLUSH_MS = 2000;

/** Adds what a worker's collecting sink received to the main thread's copy of that sink. */
function collectInto(plan: ExecutionPlan, records: CollectedRecords): void {
  for (const vertex of plan.vertices) {
    if (vertex.kind !== 'operator' || vertex.operatorId !== records.operatorId) continue;
    if (isCollectingSink(vertex.sink)) {
      for (const v of records.values) vertex.sink.values.push(v);
      for (const t of records.timestamps) vertex.sink.timestamps.push(t);
    }
  }
}
