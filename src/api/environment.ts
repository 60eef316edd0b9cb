import { availableParallelism } from 'node:os';
import { CollectSink } from '../connectors/collection/sink/collect-sink.js';
import { ArraySource } from '../connectors/collection/source/array-source.js';
import type { FileFormat } from '../connectors/files/formats/format.js';
import {
  DirectorySource,
  type DirectorySourceOptions,
} from '../connectors/files/source/directory-source.js';
import { FileSource, type FileSourceOptions } from '../connectors/files/source/file-source.js';
import {
  GeneratorSource,
  type GeneratorSourceOptions,
} from '../connectors/generator/source/generator-source.js';
import { type Clock, systemClock } from '../core/clock.js';
import { invalidArgument, WeirError } from '../core/errors.js';
import { DEFAULT_MAX_PARALLELISM } from '../core/key-groups.js';
import type { Source } from '../core/source.js';
import type { WatermarkStrategy } from '../core/watermarks.js';
import {
  type HttpEndpoint,
  type MetricsOptions,
  startMetricsServer,
} from '../metrics/metrics-server.js';
import { MetricRegistry, type MetricSample } from '../metrics/registry.js';
import { explainPlan } from '../plan/explain.js';
import { LogicalGraph } from '../plan/logical/logical-graph.js';
import { buildPhysicalPlan, type PhysicalPlan, type PlanOptions } from '../plan/physical-plan.js';
import { planJob } from '../plan/planner.js';
import {
  type CheckpointConfig,
  type CheckpointOptions,
  checkpointConfig,
} from '../runtime/checkpoint/checkpoint-config.js';
import {
  CheckpointCoordinator,
  type CheckpointedOperator,
  InputEndedError,
} from '../runtime/checkpoint/checkpoint-coordinator.js';
import type { CheckpointData } from '../runtime/checkpoint/checkpoint-data.js';
import {
  LocalCheckpointStorage,
  readCheckpoint,
} from '../runtime/checkpoint/checkpoint-storage.js';
import { checkCompatibility } from '../runtime/checkpoint/restore.js';
import { buildTasks } from '../runtime/execution/build-tasks.js';
import { LocalExecutor } from '../runtime/execution/executor.js';
import { JobMonitor } from '../runtime/job/job-monitor.js';
import type { Task } from '../runtime/task/task.js';
import { ProcessingTimeScheduler } from '../runtime/task/timers.js';
import { WorkerJob } from '../runtime/workers/worker-job.js';
import type { StateBackendOptions } from '../state/create-backend.js';
import { changelogApi } from './changelog-stream.js';
import { DataStream, type StreamBuilder } from './data-stream.js';
import { weirAliasUsed } from './job-module/load-job-module.js';

export interface EnvironmentOptions {
  /** Default number of subtasks per operator. Default 1. */
  readonly parallelism?: number;
  /** Number of key groups: the upper bound for rescaling keyed state. Default 128. */
  readonly maxParallelism?: number;
  /** Records per batch read by bounded sources. Default 1024. */
  readonly batchSize?: number;
  /** Batches buffered per channel between tasks before the producer waits. Default 8. */
  readonly channelCapacity?: number;
  /** Run single-input forward operators in their producer's task. Default true. */
  readonly chaining?: boolean;
  /**
   * Two-phase window aggregation: at parallelism above 1, tumbling and
   * sliding event-time windows whose function can merge accumulators (`reduce`,
   * or `aggregate` with `merge`) fold records per key and slice before the
   * keyed exchange, so the exchange moves partials instead of records.
   * Results are the same either way. Default true.
   */
  readonly localAggregation?: boolean;
  /** Processing-time source; tests may inject their own. */
  readonly clock?: Clock;
  /**
   * Keyed state backend of stateful operators: `{ kind: 'heap' }` (default) or
   * `{ kind: 'disk', ... }` for state larger than memory.
   */
  readonly stateBackend?: StateBackendOptions;
  /** Take periodic checkpoints (off when omitted). */
  readonly checkpointing?: CheckpointOptions;
  /** Instrumentation and the Prometheus endpoint (off unless `port` is set); see docs/observability.md. */
  readonly metrics?: MetricsOptions;
  /**
   * Run the subtasks on this many worker threads (`'auto'`: one per core);
   * subtask `s` of every operator runs on worker `s mod workers`. Only for a
   * job that comes from a module (`runJobModule`, `weir run --workers`), which
   * every worker loads to build the same graph; a job built inline runs on
   * the calling thread whatever this says. Default: the calling thread.
   */
  readonly workers?: number | 'auto';
  /** Restart a failed job from its latest checkpoint; see {@link RestartStrategy}. Default: no restarts. */
  readonly restartStrategy?: RestartStrategy;
}

/**
 * What happens when a job fails. `fixed-delay`: wait `delayMs`, then start
 * again from the latest completed checkpoint (or from where the job was first
 * started, if none completed yet), at most `attempts` times in all.
 */
export type RestartStrategy =
  | { readonly kind: 'none' }
  | { readonly kind: 'fixed-delay'; readonly attempts: number; readonly delayMs: number };

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
}

/**
 * Where a job is described and from where it runs. Create sources on it,
 * transform the streams, add sinks, then call `execute`.
 *
 * ```ts
 * const env = new StreamEnvironment({ parallelism: 2 });
 * env.fromArray(clicks)
 *   .assignTimestampsAndWatermarks(WatermarkStrategy.forBoundedOutOfOrderness<Click>(5_000)
 *     .withTimestampAssigner((c) => c.time))
 *   .keyBy((c) => c.user)
 *   .window(Windows.tumbling(Time.minutes(1)))
 *   .aggregate(count())
 *   .sinkTo(new PrintSink());
 * await env.execute('clicks per minute');
 * ```
 */
export class StreamEnvironment implements StreamBuilder {
  /** @internal */
  readonly graph = new LogicalGraph();
  /** @internal */
  readonly changelogs = changelogApi;
  readonly parallelism: number;
  readonly maxParallelism: number;
  private readonly batchSize: number;
  private readonly channelCapacity: number;
  private readonly chaining: boolean;
  /** @internal */
  readonly localAggregation: boolean;
  private readonly clock: Clock;
  private readonly checkpointing: CheckpointConfig | undefined;
  private readonly stateBackend: StateBackendOptions | undefined;
  private readonly metricsOptions: MetricsOptions;
  private readonly workers: number | undefined;
  private readonly restartStrategy: RestartStrategy;
  private jobModule: { readonly path: string; readonly args: readonly string[] } | undefined;
  private running = false;

  constructor(options: EnvironmentOptions = {}) {
    this.parallelism = positiveInt('parallelism', options.parallelism ?? 1);
    this.maxParallelism = positiveInt(
      'maxParallelism',
      options.maxParallelism ?? DEFAULT_MAX_PARALLELISM,
    );
    if (this.maxParallelism > 32768) throw invalidArgument('maxParallelism must be at most 32768');
    if (this.parallelism > this.maxParallelism) {
      throw invalidArgument(
        `parallelism (${this.parallelism}) must not exceed maxParallelism (${this.maxParallelism})`,
      );
    }
    this.batchSize = positiveInt('batchSize', options.batchSize ?? 1024);
    this.channelCapacity = positiveInt('channelCapacity', options.channelCapacity ?? 8);
    this.chaining = options.chaining ?? true;
    this.localAggregation = options.localAggregation ?? true;
    this.clock = options.clock ?? systemClock;
    this.stateBackend = options.stateBackend;
    this.checkpointing =
      options.checkpointing === undefined ? undefined : checkpointConfig(options.checkpointing);
    this.metricsOptions = options.metrics ?? {};
    this.workers =
      options.workers === undefined
        ? undefined
        : options.workers === 'auto'
          ? availableParallelism()
          : positiveInt('workers', options.workers);
    this.restartStrategy = options.restartStrategy ?? { kind: 'none' };
    if (this.restartStrategy.kind === 'fixed-delay') {
      const { attempts, delayMs } = this.restartStrategy;
      if (!Number.isInteger(attempts) || attempts < 0)
        throw invalidArgument(
          `restartStrategy.attempts must be a whole number >= 0, got ${attempts}`,
        );
      if (!(delayMs >= 0))
        throw invalidArgument(`restartStrategy.delayMs must be >= 0, got ${delayMs}`);
    }
  }

  /**
   * @internal The job on this environment was built by the module at `path`:
   * with `workers` set, each worker thread loads it to build the same graph.
   */
  setJobModule(path: string, args: readonly string[]): void {
    this.jobModule = { path, args };
  }

  /** Worker threads the job will run on, or undefined when it runs on the calling thread. */
  get workerCount(): number | undefined {
    return this.jobModule === undefined ? undefined : this.workers;
  }

  /** A stream from any source; with a strategy, timestamps and watermarks are assigned right after it. */
  fromSource<T>(
    source: Source<T>,
    strategy?: WatermarkStrategy<T>,
    name = source.name,
  ): DataStream<T> {
    const node = this.graph.add({ kind: 'source', source: source as Source<unknown> }, name, []);
    const stream = new DataStream<T>(this, [{ node: node.id, tag: undefined }]);
    return strategy === undefined ? stream : stream.assignTimestampsAndWatermarks(strategy);
  }

  /** A bounded stream of the given values, in order (parallelism 1). */
  fromArray<T>(values: Iterable<T>, name = 'array'): DataStream<T> {
    return this.fromSource(new ArraySource(values, name));
  }

  /** A deterministic generated stream; see {@link GeneratorSourceOptions}. */
  fromGenerator<T>(options: GeneratorSourceOptions<T>): DataStream<T> {
    return this.fromSource(new GeneratorSource(options));
  }

  /** A bounded stream of the records in one or more files, read in order (parallelism 1). */
  fromFile<T>(
    path: string | readonly string[],
    format: FileFormat<T>,
    options?: FileSourceOptions,
  ): DataStream<T> {
    return this.fromSource(new FileSource(path, format, options));
  }

  /** An unbounded stream of the records of every file that appears in a directory, each read once. */
  watchDirectory<T>(
    path: string,
    format: FileFormat<T>,
    options?: DirectorySourceOptions,
  ): DataStream<T> {
    return this.fromSource(new DirectorySource(path, format, options));
  }

  /** @internal */
  collectInto<T>(stream: DataStream<T>): T[] {
    const sink = new CollectSink<T>();
    stream.sinkTo(sink);
    return sink.values;
  }

  /** @internal */
  async executeForCollect(name: string): Promise<void> {
    const result = await this.execute(name);
    if (result.status !== 'finished')
      throw new WeirError('JOB_CANCELLED', `job '${name}' did not finish`);
  }

  /** The plan the job would run with: parallelism per operator and chaining. */
  plan(): PhysicalPlan {
    return buildPhysicalPlan(this.graph, this.planOptions());
  }

  /**
   * The job's logical graph (as built) and the physical plan it would run
   * with (operators chosen, parallelism, tasks, exchanges), as text.
   */
  explain(): string {
    return explainPlan(this.graph, planJob(this.graph, this.planOptions()));
  }

  private planOptions(): PlanOptions {
    return {
      parallelism: this.parallelism,
      maxParallelism: this.maxParallelism,
      chaining: this.chaining,
      localAggregation: this.localAggregation,
    };
  }

  /** Runs the job until its bounded input is exhausted (or forever for unbounded input). */
  async execute(jobName = 'weir job', options: ExecuteOptions = {}): Promise<JobResult> {
    return this.executeAsync(jobName, options).result;
  }

  /** Starts the job and returns a handle to watch or cancel it. */
  executeAsync(jobName = 'weir job', options: ExecuteOptions = {}): JobClient {
    if (this.running)
      throw new WeirError('INVALID_JOB', 'this environment is already running a job');
    const plan = this.plan();
    const metrics = new MetricRegistry();
    const monitor = new JobMonitor({ jobName, plan, metrics });
    const metricsPort = this.metricsOptions.port;
    let endpoint: HttpEndpoint | undefined;
    let executor: LocalExecutor | undefined;
    let coordinator: CheckpointCoordinator | undefined;
    const savepointWaiters: {
      resolve: (c: CheckpointCoordinator) => void;
      reject: (e: unknown) => void;
    }[] = [];
    /** How the job ended, once it has: savepoints can no longer be taken. */
    let ended: 'finished' | 'cancelled' | 'failed' | undefined;
    const coordinatorReady = () =>
      ended !== undefined
        ? Promise.reject(new WeirError('INVALID_JOB', `job '${jobName}' is no longer running`))
        : coordinator !== undefined
          ? Promise.resolve(coordinator)
          : new Promise<CheckpointCoordinator>((resolve, reject) =>
              savepointWaiters.push({ resolve, reject }),
            );
    let cancelled = false;
    this.running = true;
    const started = performance.now();
    let workerJob: WorkerJob | undefined;
    /** One attempt at running the job, from `restorePath` (or from scratch). */
    const attempt = async (restorePath: string | undefined): Promise<JobResult> => {
      const restore = await this.loadRestore(plan, { ...options, restoreFrom: restorePath });
      const storage =
        this.checkpointing === undefined
          ? undefined
          : (this.checkpointing.storage ??
            new LocalCheckpointStorage(this.checkpointing.directory));
      /** The checkpoint coordinator of this attempt; savepoint requests waiting for it get it. */
      const coordinate = (tasks: readonly Task[]): CheckpointCoordinator => {
        const c = new CheckpointCoordinator(
          this.checkpointing,
          storage,
          tasks,
          checkpointedOperators(plan),
          jobName,
          this.maxParallelism,
          this.clock,
          metrics.group({ job: jobName }),
          restore?.checkpointId,
        );
        for (const waiter of savepointWaiters.splice(0)) waiter.resolve(c);
        return c;
      };
      const workers = this.workerCount;
      if (workers !== undefined) {
        const job = new WorkerJob(
          {
            entry: new URL(
              `./job-module/worker-entry.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
              import.meta.url,
            ),
            // The main thread has loaded the module already: workers need the alias only if it did.
            aliasWeir: weirAliasUsed(),
            modulePath: this.jobModule!.path,
            args: this.jobModule!.args,
            jobName,
            workers,
            plan,
            setup: {
              options: {
                parallelism: this.parallelism,
                maxParallelism: this.maxParallelism,
                batchSize: this.batchSize,
                channelCapacity: this.channelCapacity,
                chaining: this.chaining,
                localAggregation: this.localAggregation,
                ...(this.stateBackend === undefined ? {} : { stateBackend: this.stateBackend }),
                instrumentation: this.metricsOptions.instrumentation ?? true,
              },
              restore,
            },
          },
          metrics,
        );
        workerJob = job;
        coordinator = coordinate(job.tasks);
        if (cancelled) job.stop();
        const outcome = await job.run(coordinator, monitor);
        return jobResult(
          jobName,
          outcome === 'finished' ? 'finished' : 'cancelled',
          started,
          metrics,
        );
      }
      const timers = new ProcessingTimeScheduler(this.clock);
      const tasks = buildTasks(plan, {
        jobName,
        batchSize: this.batchSize,
        channelCapacity: this.channelCapacity,
        clock: this.clock,
        timers,
        metrics,
        ...(this.stateBackend === undefined ? {} : { stateBackend: this.stateBackend }),
        ...(restore === undefined ? {} : { restoreFrom: restore }),
        instrumentation: this.metricsOptions.instrumentation ?? true,
      });
      coordinator = coordinate(tasks);
      monitor.started(tasks);
      executor = new LocalExecutor(tasks, timers, coordinator);
      if (cancelled) executor.stop();
      const outcome = await executor.run();
      return jobResult(
        jobName,
        outcome === 'finished' ? 'finished' : 'cancelled',
        started,
        metrics,
      );
    };
    const run = async (): Promise<JobResult> => {
      if (metricsPort !== undefined) {
        const { host } = this.metricsOptions;
        endpoint = await startMetricsServer(
          { port: metricsPort, ...(host === undefined ? {} : { host }) },
          () => [metrics],
        );
        monitor.metricsUrl = `${endpoint.url}/metrics`;
      }
      let restorePath = options.restoreFrom;
      for (let failures = 0; ; failures++) {
        try {
          return await attempt(restorePath);
        } catch (error) {
          const strategy = this.restartStrategy;
          if (cancelled || strategy.kind === 'none' || failures >= strategy.attempts) throw error;
          monitor.recordException(error, false);
          monitor.restarted();
          coordinator = undefined;
          await new Promise((resolve) => setTimeout(resolve, strategy.delayMs));
          if (cancelled) throw error;
          // From the newest checkpoint the failed attempt (or an earlier one) completed.
          const latest =
            this.checkpointing === undefined
              ? undefined
              : await (
                  this.checkpointing.storage ??
                  new LocalCheckpointStorage(this.checkpointing.directory)
                ).latest();
          if (latest !== undefined) restorePath = latest;
        }
      }
    };
    const result = run()
      .then(
        (r) => {
          ended = r.status;
          monitor.ended(r.status);
          return r;
        },
        (error: unknown) => {
          ended = 'failed';
          monitor.ended('failed', error);
          throw error;
        },
      )
      .finally(() => {
        // A savepoint asked for while the job was starting or finishing can no longer be taken.
        const ended = new WeirError('INVALID_JOB', `job '${jobName}' is no longer running`);
        for (const waiter of savepointWaiters.splice(0)) waiter.reject(ended);
        coordinator?.rejectPendingSavepoints(ended);
      })
      .finally(async () => {
        this.running = false;
        await endpoint?.close();
      });
    return {
      jobName,
      result,
      metrics,
      jobId: monitor.jobId,
      monitor,
      cancel: async () => {
        cancelled = true;
        executor?.stop();
        workerJob?.stop();
        return result;
      },
      triggerSavepoint: async (directory: string, options?: { final?: boolean }) => {
        const c = await coordinatorReady();
        monitor.checkpoints.savepointRequested();
        return c.requestSavepoint(new LocalCheckpointStorage(directory), options?.final ?? false);
      },
      stopWithSavepoint: async (directory: string) => {
        let path: string;
        try {
          const c = await coordinatorReady();
          monitor.checkpoints.savepointRequested();
          // The job halts at this savepoint's barrier: its output ends exactly there.
          path = await c.requestSavepoint(new LocalCheckpointStorage(directory), true);
        } catch (error) {
          if (!(error instanceof InputEndedError) && ended !== 'finished') throw error;
          // The input ran out before the savepoint's barrier could be sent:
          // the job finishes by itself, with all its output committed.
          await result;
          throw new WeirError(
            'INVALID_JOB',
            `job '${jobName}' finished its input before it could stop; no savepoint was taken`,
            { cause: error },
          );
        }
        cancelled = true;
        executor?.stop();
        workerJob?.stop();
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
      },
    };
  }

  private async loadRestore(
    plan: PhysicalPlan,
    options: ExecuteOptions,
  ): Promise<CheckpointData | undefined> {
    let path = options.restoreFrom;
    if (path === undefined) return undefined;
    if (path === 'latest') {
      if (this.checkpointing === undefined) {
        throw new WeirError('INVALID_JOB', "restoreFrom 'latest' needs checkpointing configured");
      }
      path = await (
        this.checkpointing.storage ?? new LocalCheckpointStorage(this.checkpointing.directory)
      ).latest();
      if (path === undefined) return undefined;
    }
    const checkpoint = await readCheckpoint(path);
    checkCompatibility(
      checkpoint,
      checkpointedOperators(plan),
      this.maxParallelism,
      options.allowNonRestoredState ?? false,
    );
    return checkpoint;
  }
}

function checkpointedOperators(plan: PhysicalPlan): CheckpointedOperator[] {
  return plan.vertices.map((v) => ({
    uid: v.operatorId,
    name: v.name,
    parallelism: v.parallelism,
    isSource: v.kind === 'source',
  }));
}

function jobResult(
  jobName: string,
  status: 'finished' | 'cancelled',
  started: number,
  registry: MetricRegistry,
): JobResult {
  return {
    jobName,
    status,
    durationMs: performance.now() - started,
    metrics: registry.snapshot(),
    metric: (name, labels) => registry.total(name, labels),
  };
}

function positiveInt(name: string, n: number): number {
  if (!Number.isInteger(n) || n < 1)
    throw invalidArgument(`${name} must be a positive whole number, got ${n}`);
  return n;
}
