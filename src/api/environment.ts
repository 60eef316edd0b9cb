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
import type { MetricsOptions } from '../metrics/metrics-server.js';
import { explainPlan } from '../plan/explain.js';
import { LogicalGraph } from '../plan/logical/logical-graph.js';
import { buildPhysicalPlan, type PhysicalPlan, type PlanOptions } from '../plan/physical-plan.js';
import { planJob } from '../plan/planner.js';
import {
  type CheckpointConfig,
  type CheckpointOptions,
  checkpointConfig,
} from '../runtime/checkpoint/checkpoint-config.js';
import type {
  ExecuteOptions,
  JobClient,
  JobResult,
  RestartStrategy,
} from '../runtime/job/job-client.js';
import { JobRunner, type JobSettings } from '../runtime/job/job-runner.js';
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

export type {
  ExecuteOptions,
  JobClient,
  JobResult,
  RestartStrategy,
  SavepointOptions,
} from '../runtime/job/job-client.js';

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
    const runner = new JobRunner(this.plan(), this.jobSettings(jobName));
    this.running = true;
    const client = runner.start(options);
    const done = () => {
      this.running = false;
    };
    client.result.then(done, done);
    return client;
  }

  /** How the job runs besides its plan: on this thread, or on workers that rebuild the plan. */
  private jobSettings(jobName: string): JobSettings {
    const workers = this.workerCount;
    return {
      jobName,
      checkpointing: this.checkpointing,
      restartStrategy: this.restartStrategy,
      clock: this.clock,
      metrics: this.metricsOptions,
      stateBackend: this.stateBackend,
      batchSize: this.batchSize,
      channelCapacity: this.channelCapacity,
      deployment:
        workers === undefined
          ? { kind: 'this-thread' }
          : {
              kind: 'worker-threads',
              workers,
              entry: new URL(
                `./job-module/worker-entry.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
                import.meta.url,
              ),
              // The main thread has loaded the module already: workers need the alias only if it did.
              aliasWeir: weirAliasUsed(),
              modulePath: this.jobModule!.path,
              args: this.jobModule!.args,
              planOptions: {
                parallelism: this.parallelism,
                maxParallelism: this.maxParallelism,
                chaining: this.chaining,
                localAggregation: this.localAggregation,
              },
            },
    };
  }
}

function positiveInt(name: string, n: number): number {
  if (!Number.isInteger(n) || n < 1)
    throw invalidArgument(`${name} must be a positive whole number, got ${n}`);
  return n;
}
