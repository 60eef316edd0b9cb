import type { Clock } from '../../core/clock.js';
import { isRestartable, WeirError } from '../../core/errors.js';
import {
  type HttpEndpoint,
  type MetricsOptions,
  startMetricsServer,
} from '../../metrics/metrics-server.js';
import { jobLabels, MetricRegistry } from '../../metrics/registry.js';
import type { StateBackendOptions } from '../../state/create-backend.js';
import type { CheckpointConfig } from '../checkpoint/checkpoint-config.js';
import {
  CheckpointCoordinator,
  type CheckpointedOperator,
  InputEndedError,
} from '../checkpoint/checkpoint-coordinator.js';
import type { CheckpointData } from '../checkpoint/checkpoint-data.js';
import {
  type CheckpointStorage,
  checkpointStorageAt,
  DirectoryCheckpointStorage,
  type LatestCheckpoint,
  readCheckpoint,
} from '../checkpoint/checkpoint-storage.js';
import { refuseRestoreBehindCommit } from '../checkpoint/commit-guard.js';
import { type CommitRecord, readCommitRecord } from '../checkpoint/commit-record.js';
import type { DirectoryLease } from '../checkpoint/directory-lease.js';
import { checkCompatibility } from '../checkpoint/restore.js';
import { openStore, splitLocation } from '../checkpoint/store/open-store.js';
import type { ExecutionPlan } from '../execution/execution-plan.js';
import { ThreadedAttempt, type WorkerThreadsDeployment } from '../workers/threaded-attempt.js';
import type { JobAttempt } from './job-attempt.js';
import type {
  ExecuteOptions,
  JobClient,
  JobResult,
  RestartStrategy,
  SavepointOptions,
} from './job-client.js';
import { JobMonitor, newJobId } from './job-monitor.js';
import { isEnded, type JobEvent, type JobState, nextState } from './job-state.js';
import { LocalAttempt } from './local-attempt.js';
import {
  decideRestart,
  NO_FAILURES,
  type ResolvedRestartStrategy,
  resolveRestartStrategy,
} from './restart-strategy.js';
import { queryTaskState } from './state-query.js';

/** Where a job's subtasks run: all on this thread, or spread over worker threads. */
export type Deployment = { readonly kind: 'this-thread' } | WorkerThreadsDeployment;

/** Everything about running a job besides its plan. */
export interface JobSettings {
  readonly jobName: string;
  /** Periodic checkpoints; undefined when only savepoints are taken. */
  readonly checkpointing: CheckpointConfig | undefined;
  readonly restartStrategy: RestartStrategy;
  /** The jitter of `exponential-delay`: numbers in [0, 1); Math.random unless given (tests). */
  readonly random?: () => number;
  /** Processing time of the checkpoint coordinator and of tasks on this thread. */
  readonly clock: Clock;
  /** The Prometheus endpoint (when `port` is set) and whether tasks are instrumented. */
  readonly metrics: MetricsOptions;
  readonly stateBackend: StateBackendOptions | undefined;
  /** Records per batch read by bounded sources. */
  readonly batchSize: number;
  /** Batches buffered per channel between tasks. */
  readonly channelCapacity: number;
  /**
   * Buffer debloating: the time (ms) the records queued on a channel may take
   * to drain at its consumer's rate; off when undefined.
   */
  readonly debloatTargetMs?: number | undefined;
  readonly deployment: Deployment;
}

/** A savepoint request made while no checkpoint coordinator runs (starting or restarting). */
interface CoordinatorWaiter {
  resolve(coordinator: CheckpointCoordinator): void;
  reject(error: unknown): void;
}

/**
 * Runs one job from an {@link ExecutionPlan}: it makes attempts (tasks on
 * this thread or on worker threads, a checkpoint coordinator each), restarts
 * after failures as the restart strategy allows, takes savepoints, cancels,
 * and serves the job's metrics while it runs. Its state ({@link JobState})
 * changes only through {@link nextState}; the client's methods act on it.
 */
export class JobRunner {
  private state: JobState = 'created';
  private readonly metrics: MetricRegistry;
  private readonly monitor: JobMonitor;
  /** The current attempt's coordinator; undefined while an attempt is being built. */
  private coordinator: CheckpointCoordinator | undefined;
  private attempt: JobAttempt | undefined;
  private readonly waiters: CoordinatorWaiter[] = [];
  /** Ends the wait before a restart early (the job was cancelled meanwhile). */
  private interruptRestartDelay: (() => void) | undefined;
  private endpoint: HttpEndpoint | undefined;
  private checkpointStorage: CheckpointStorage | undefined;
  private startedAt = 0;
  private client: JobClient | undefined;
  private readonly restartStrategy: ResolvedRestartStrategy;
  /** Set while an attempt loads the checkpoint to restore: a failure there is not restarted. */
  private restoring = false;
  /** Set when another job took the checkpoint directory over: the job must stop writing it. */
  private leaseLost: WeirError | undefined;

  constructor(
    private readonly plan: ExecutionPlan,
    private readonly settings: JobSettings,
  ) {
    this.restartStrategy = resolveRestartStrategy(settings.restartStrategy);
    const jobId = newJobId();
    this.metrics = new MetricRegistry(jobLabels(settings.jobName, jobId));
    this.monitor = new JobMonitor({
      jobName: settings.jobName,
      jobId,
      plan,
      metrics: this.metrics,
    });
  }

  /** Where the job is in its life. */
  get jobState(): JobState {
    return this.state;
  }

  /** Starts the job (once) and returns its client. */
  start(options: ExecuteOptions = {}): JobClient {
    if (this.client !== undefined)
      throw new WeirError('INVALID_JOB', `job '${this.settings.jobName}' was started already`);
    const { jobName } = this.settings;
    this.startedAt = performance.now();
    const result = this.run(options)
      .then(
        (r) => {
          this.transition({
            kind: 'ended',
            outcome: r.status === 'finished' ? 'finished' : 'stopped',
          });
          this.monitor.ended(r.status);
          return r;
        },
        (error: unknown) => {
          this.transition({ kind: 'failed', restart: false });
          this.monitor.ended('failed', error);
          throw error;
        },
      )
      .finally(() => {
        // A savepoint asked for while the job was starting or finishing can no longer be taken.
        const ended = this.noLongerRunning();
        for (const waiter of this.waiters.splice(0)) waiter.reject(ended);
        this.coordinator?.rejectPendingSavepoints(ended);
      })
      .finally(() => this.endpoint?.close());
    const client: JobClient = {
      jobName,
      result,
      metrics: this.metrics,
      jobId: this.monitor.jobId,
      monitor: this.monitor,
      cancel: async () => {
        this.stop();
        return result;
      },
      triggerSavepoint: (directory, options) => this.triggerSavepoint(directory, options),
      stopWithSavepoint: (directory) => this.stopWithSavepoint(directory, result),
      queryState: (uid, key) =>
        queryTaskState(
          this.plan,
          this.state === 'running' ? this.attempt?.tasks : undefined,
          uid,
          key,
        ),
    };
    this.client = client;
    return client;
  }

  private transition(event: JobEvent): void {
    this.state = nextState(this.state, event);
  }

  /** Cancels the job, or stops it after its stop's savepoint: it ends as cancelled. */
  private stop(): void {
    this.transition({ kind: 'stop' });
    this.attempt?.stop();
    this.interruptRestartDelay?.();
  }

  private noLongerRunning(): WeirError {
    return new WeirError('INVALID_JOB', `job '${this.settings.jobName}' is no longer running`);
  }

  /** The coordinator to take a savepoint with: now, once the (next) attempt has one, or never. */
  private coordinatorForSavepoint(): Promise<CheckpointCoordinator> {
    if (isEnded(this.state)) return Promise.reject(this.noLongerRunning());
    const coordinator = this.coordinator;
    if (coordinator !== undefined) return Promise.resolve(coordinator);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private async triggerSavepoint(directory: string, options?: SavepointOptions): Promise<string> {
    const coordinator = await this.coordinatorForSavepoint();
    this.monitor.checkpoints.savepointRequested();
    return coordinator.requestSavepoint(checkpointStorageAt(directory), options?.final ?? false);
  }

  private async stopWithSavepoint(directory: string, result: Promise<JobResult>): Promise<string> {
    const { jobName } = this.settings;
    let path: string;
    try {
      const coordinator = await this.coordinatorForSavepoint();
      this.monitor.checkpoints.savepointRequested();
      // The job halts at this savepoint's barrier: its output ends exactly there.
      path = await coordinator.requestSavepoint(checkpointStorageAt(directory), true);
    } catch (error) {
      if (!(error instanceof InputEndedError) && this.state !== 'finished') throw error;
      // The input ran out before the savepoint's barrier could be sent:
      // the job finishes by itself, with all its output committed.
      await result;
      throw new WeirError(
        'INVALID_JOB',
        `job '${jobName}' finished its input before it could stop; no savepoint was taken`,
        { cause: error },
      );
    }
    this.stop();
    const outcome = await result;
    if (outcome.status === 'finished') {
      // Cannot happen while tasks halt at the barrier; a savepoint older
      // than committed output must never be resumed from, so say so.
      throw new WeirError(
        'INVALID_JOB',
        `job '${jobName}' finished its input before it could stop; savepoint ${path} is older than its final state and must not be resumed from`,
      );
    }
    return path;
  }

  /** Serves metrics, then makes attempts until one ends or the restart strategy gives up. */
  private async run(options: ExecuteOptions): Promise<JobResult> {
    const { port, host } = this.settings.metrics;
    if (port !== undefined) {
      this.endpoint = await startMetricsServer(
        { port, ...(host === undefined ? {} : { host }) },
        () => [this.metrics],
      );
      this.monitor.metricsUrl = `${this.endpoint.url}/metrics`;
    }
    const lease = await this.acquireLease();
    try {
      return await this.runAttempts(options);
    } finally {
      await lease?.release();
    }
  }

  /**
   * The lease that makes this job the only one writing its checkpoint
   * directory, held across restarts until the job ends.
   */
  private async acquireLease(): Promise<DirectoryLease | undefined> {
    const { checkpointing, jobName } = this.settings;
    if (checkpointing === undefined) return undefined;
    return this.storage().acquireLease?.({
      jobName,
      leaseMs: checkpointing.leaseMs,
      takeOver: checkpointing.takeOverLease,
      onLost: (error) => {
        this.leaseLost = error;
        this.attempt?.stop();
        this.interruptRestartDelay?.();
      },
    });
  }

  /** Makes attempts until one ends or the restart strategy gives up. */
  private async runAttempts(options: ExecuteOptions): Promise<JobResult> {
    let restorePath = options.restoreFrom;
    let history = NO_FAILURES;
    const random = this.settings.random ?? Math.random;
    for (;;) {
      const attemptStart = performance.now();
      try {
        const result = await this.runAttempt({ ...options, restoreFrom: restorePath });
        if (this.leaseLost !== undefined) throw this.leaseLost;
        return result;
      } catch (caught) {
        // Another job writes the checkpoint directory now: no restart may write it too.
        const error = this.leaseLost ?? caught;
        // A checkpoint that cannot be restored stays so: restarting would fail the same way;
        // so does output a restored checkpoint depends on that is gone (not restartable).
        const decision =
          this.restoring || this.leaseLost !== undefined || !isRestartable(error)
            ? { delayMs: undefined, history }
            : decideRestart(
                this.restartStrategy,
                history,
                { at: performance.now(), attemptDurationMs: performance.now() - attemptStart },
                random,
              );
        history = decision.history;
        const { delayMs } = decision;
        this.transition({ kind: 'failed', restart: delayMs !== undefined });
        if (this.state !== 'restarting' || delayMs === undefined) throw error;
        this.monitor.restarted(error, delayMs);
        // Savepoints of the failed attempt fail with it; one asked for from here on waits for the next attempt.
        this.coordinator?.rejectPendingSavepoints(
          new WeirError(
            'INTERNAL',
            `job '${this.settings.jobName}' failed and restarts: the savepoint under way was not taken`,
            { cause: error, retriable: true },
          ),
        );
        this.coordinator = undefined;
        this.attempt = undefined;
        await this.restartDelay(delayMs);
        if (this.leaseLost !== undefined) throw this.leaseLost;
        // Cancelled while waiting: no attempt is running, so the job ends here.
        if (this.jobState === 'stopping') return this.result('cancelled');
        // From the newest checkpoint the failed attempt (or an earlier one) completed.
        const latest =
          this.settings.checkpointing === undefined ? undefined : await this.storage().latest();
        // 'latest' again, not this path: it is checked against damaged newer ones and the commit record.
        if (latest !== undefined) restorePath = 'latest';
      }
    }
  }

  /** Waits `ms` before a restart, or less if the job is cancelled meanwhile. */
  private restartDelay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.interruptRestartDelay = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.interruptRestartDelay = done;
    });
  }

  /** One attempt at running the job, from `options.restoreFrom` (or from scratch). */
  private async runAttempt(options: ExecuteOptions): Promise<JobResult> {
    this.restoring = true;
    const restore = await this.loadRestore(options);
    this.restoring = false;
    const { checkpointing, deployment, jobName } = this.settings;
    const storage = checkpointing === undefined ? undefined : this.storage();
    const attempt = this.createAttempt(deployment, restore);
    this.attempt = attempt;
    const coordinator = new CheckpointCoordinator(
      checkpointing,
      storage,
      attempt.tasks,
      checkpointedOperators(this.plan),
      jobName,
      this.plan.maxParallelism,
      this.settings.clock,
      this.metrics.group({}),
      restore?.checkpointId,
    );
    this.coordinator = coordinator;
    this.transition({ kind: 'started' });
    for (const waiter of this.waiters.splice(0)) waiter.resolve(coordinator);
    if (this.state === 'stopping') attempt.stop();
    const outcome = await attempt.run(coordinator, this.monitor);
    return this.result(outcome === 'finished' ? 'finished' : 'cancelled');
  }

  private createAttempt(deployment: Deployment, restore: CheckpointData | undefined): JobAttempt {
    const { settings } = this;
    const instrumentation = settings.metrics.instrumentation ?? true;
    const stateBackend =
      settings.stateBackend === undefined ? {} : { stateBackend: settings.stateBackend };
    if (deployment.kind === 'this-thread') {
      return new LocalAttempt(this.plan, {
        jobName: settings.jobName,
        batchSize: settings.batchSize,
        channelCapacity: settings.channelCapacity,
        debloatTargetMs: settings.debloatTargetMs,
        clock: settings.clock,
        metrics: this.metrics,
        stateBackend: settings.stateBackend,
        restore,
        instrumentation,
      });
    }
    return new ThreadedAttempt(
      {
        plan: this.plan,
        jobName: settings.jobName,
        deployment,
        options: {
          ...deployment.planOptions,
          batchSize: settings.batchSize,
          channelCapacity: settings.channelCapacity,
          ...(settings.debloatTargetMs === undefined
            ? {}
            : { debloatTargetMs: settings.debloatTargetMs }),
          ...stateBackend,
          instrumentation,
        },
        restore,
      },
      this.metrics,
    );
  }

  /** The configured checkpoint storage (call only with checkpointing configured). */
  private storage(): CheckpointStorage {
    const checkpointing = this.settings.checkpointing!;
    // One instance for the job: it caches metadata (and an object store's client).
    this.checkpointStorage ??=
      checkpointing.storage ?? checkpointStorageAt(checkpointing.directory);
    return this.checkpointStorage;
  }

  private async loadRestore(options: ExecuteOptions): Promise<CheckpointData | undefined> {
    const path = options.restoreFrom;
    if (path === undefined) return undefined;
    const allowDuplicates = options.allowDuplicateOutput ?? false;
    let checkpoint: CheckpointData | undefined;
    let restoredPath = path;
    if (path === 'latest') {
      if (this.settings.checkpointing === undefined) {
        throw new WeirError('INVALID_JOB', "restoreFrom 'latest' needs checkpointing configured");
      }
      const storage = this.storage();
      const found =
        storage instanceof DirectoryCheckpointStorage
          ? await storage.findLatest()
          : await latestOf(storage);
      const { intact, skipped } = found;
      refuseRestoreBehindCommit(
        intact === undefined
          ? undefined
          : { checkpointId: intact.checkpoint.checkpointId, path: intact.path },
        await storage.lastCommit?.(),
        skipped,
        allowDuplicates,
      );
      if (skipped.length > 0)
        this.monitor.passedOver({ restoredFrom: intact?.checkpoint.checkpointId, skipped });
      checkpoint = intact?.checkpoint;
      if (checkpoint === undefined) return undefined;
      restoredPath = intact!.path;
    } else {
      checkpoint = await readCheckpoint(path);
      refuseRestoreBehindCommit(
        { checkpointId: checkpoint.checkpointId, path },
        await this.commitGuarding(path),
        [],
        allowDuplicates,
      );
    }
    checkCompatibility(
      checkpoint,
      checkpointedOperators(this.plan),
      this.plan.maxParallelism,
      options.allowNonRestoredState ?? false,
    );
    await this.recordRestoredCommit(checkpoint.checkpointId, restoredPath);
    return checkpoint;
  }

  /**
   * The sinks' recovery commits what the restored checkpoint pre-committed, so the commit
   * record must name it before they do, as a completed checkpoint's does before its commit:
   * otherwise a restore killed before its first checkpoint leaves output committed behind a
   * record that still names an older checkpoint, and a later restore of that one would commit
   * the same output again.
   */
  private async recordRestoredCommit(checkpointId: number, path: string): Promise<void> {
    if (this.settings.checkpointing === undefined) return;
    const storage = this.storage();
    if (storage.recordRestoredCommit === undefined) return;
    const last = await storage.lastCommit?.();
    if (last !== undefined && last.checkpointId >= checkpointId) return;
    await storage.recordRestoredCommit(checkpointId, path);
  }

  /**
   * The newest commit recorded where the checkpoint at `path` could have
   * produced output: the job's checkpoint directory and the directory the
   * checkpoint is in.
   */
  private async commitGuarding(path: string): Promise<CommitRecord | undefined> {
    const records = [
      this.settings.checkpointing === undefined ? undefined : await this.storage().lastCommit?.(),
      await readCommitRecord(openStore(splitLocation(path).parent)),
    ];
    let newest: CommitRecord | undefined;
    for (const r of records) {
      if (r !== undefined && (newest === undefined || r.checkpointId > newest.checkpointId))
        newest = r;
    }
    return newest;
  }

  private result(status: 'finished' | 'cancelled'): JobResult {
    const registry = this.metrics;
    return {
      jobName: this.settings.jobName,
      status,
      durationMs: performance.now() - this.startedAt,
      metrics: registry.snapshot(),
      metric: (name, labels) => registry.total(name, labels),
    };
  }
}

/** What the checkpoint coordinator and restore checks need to know of each vertex. */
function checkpointedOperators(plan: ExecutionPlan): CheckpointedOperator[] {
  return plan.vertices.map((v) => ({
    uid: v.operatorId,
    name: v.name,
    parallelism: v.parallelism,
    isSource: v.kind === 'source',
    rescalable: v.kind === 'source' && v.source.rescalable === true,
  }));
}

/** The newest checkpoint of a storage that cannot report damaged ones. */
async function latestOf(storage: CheckpointStorage): Promise<LatestCheckpoint> {
  const path = await storage.latest();
  return {
    intact: path === undefined ? undefined : { path, checkpoint: await readCheckpoint(path) },
    skipped: [],
  };
}
