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
import type { ProcessGroupSpec, Source } from '../core/source.js';
import type { WatermarkStrategy } from '../core/watermarks.js';
import type { MetricsOptions } from '../metrics/metrics-server.js';
import { explainPlan } from '../plan/explain.js';
import { LogicalGraph } from '../plan/logical/logical-graph.js';
import { buildPhysicalPlan, type PhysicalPlan, type PlanOptions } from '../plan/physical-plan.js';
import { planJob } from '../plan/planner.js';
import {
  type CheckpointConfig,
  checkpointConfig,
} from '../runtime/checkpoint/checkpoint-config.js';
import type { CheckpointStorage } from '../runtime/checkpoint/checkpoint-storage.js';
import { disableAllocationSitePretenuring } from '../runtime/job/heap-tuning.js';
import { JobRunner, type JobSettings } from '../runtime/job/job-runner.js';
import { resolveRestartStrategy } from '../runtime/job/restart-strategy.js';
import { DEFAULT_DEBLOAT_TARGET_MS } from '../runtime/task/buffer-debloat.js';
import { MIN_RING_BYTES } from '../runtime/workers/byte-ring.js';
import { DEFAULT_RING_BYTES } from '../runtime/workers/peer-channels.js';
import type { StateBackendOptions } from '../state/create-backend.js';
import { refuseSinksThatWouldNeverCommit } from './commit-check.js';
import { weirAliasUsed } from './job-module/weir-alias.js';
import type {
  EnvironmentOptions,
  ExecuteOptions,
  JobClient,
  JobResult,
  RestartStrategy,
} from './options.js';
import {
  applyProcessGroup,
  type GroupPlacement,
  keepsKeyedState,
  placementInGroup,
} from './process-group.js';
import type { StreamBuilder } from './stream-builder.js';
import { streamFactory } from './stream-factory.js';
import type { DataStream, StreamEnvironmentApi } from './streams.js';
import type { TaskLayout } from './task-snapshots.js';

/** The implementation of {@link StreamEnvironmentApi}: the logical graph and how to run it. */
export class StreamEnvironmentImpl implements StreamEnvironmentApi, StreamBuilder {
  readonly graph = new LogicalGraph();
  readonly streams = streamFactory;
  /** Changed only by {@link setDefaultParallelism}, before the job starts. */
  private defaultParallelism: number;
  readonly maxParallelism: number;
  private readonly batchSize: number;
  private readonly channelCapacity: number;
  private readonly debloatTargetMs: number | undefined;
  private readonly chaining: boolean;
  private readonly fusion: boolean;
  private readonly allocationSitePretenuring: boolean;
  private readonly localAggregation: boolean;
  private readonly autoWatermarkIntervalMs: number | undefined;
  private readonly clock: Clock;
  private checkpointing: CheckpointConfig | undefined;
  private readonly stateBackend: StateBackendOptions | undefined;
  private readonly metricsOptions: MetricsOptions;
  private workers: number | undefined;
  private processGroup: ProcessGroupSpec | undefined;
  private groupLayout: TaskLayout | undefined;
  private readonly workerRingBytes: number;
  private restartStrategy: RestartStrategy;
  private jobModule: { readonly path: string; readonly args: readonly string[] } | undefined;
  private running = false;

  constructor(options: EnvironmentOptions = {}) {
    this.defaultParallelism = positiveInt('parallelism', options.parallelism ?? 1);
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
    this.debloatTargetMs = debloatTarget(options.bufferDebloating);
    this.chaining = options.chaining ?? true;
    this.fusion = options.fusion ?? true;
    this.allocationSitePretenuring = options.allocationSitePretenuring ?? false;
    this.localAggregation = options.localAggregation ?? true;
    this.autoWatermarkIntervalMs =
      options.autoWatermarkIntervalMs === undefined
        ? undefined
        : positiveInt('autoWatermarkIntervalMs', options.autoWatermarkIntervalMs);
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
    this.workerRingBytes = ringBytes(options.workerRingBytes ?? DEFAULT_RING_BYTES);
    this.restartStrategy = options.restartStrategy ?? { kind: 'none' };
    // Checked here so that a bad setting fails when the environment is made, not when the job runs.
    resolveRestartStrategy(this.restartStrategy);
  }

  get parallelism(): number {
    return this.defaultParallelism;
  }

  /**
   * Sets the default parallelism after the environment was made: SQL's `SET
   * 'parallelism.default'`, which (as Flink's table config reconfigures its environment)
   * wins over the parallelism the environment was created with. It is read when the job is
   * planned, so it applies to every step without a parallelism of its own.
   */
  setDefaultParallelism(parallelism: number): void {
    if (this.running)
      throw new WeirError('INVALID_JOB', 'the parallelism cannot change while the job runs');
    const value = positiveInt('parallelism', parallelism);
    if (value > this.maxParallelism)
      throw invalidArgument(
        `parallelism (${value}) must not exceed maxParallelism (${this.maxParallelism})`,
      );
    this.defaultParallelism = value;
  }

  /**
   * Starts no more than `max` worker threads: `weir run --workers auto` caps its workers at
   * the parallelism, which a SQL script's SET may have lowered since the environment was made.
   */
  limitWorkers(max: number): void {
    if (this.workers !== undefined && this.workers > max)
      this.workers = positiveInt('workers', max);
  }

  setRestartStrategy(strategy: RestartStrategy): void {
    resolveRestartStrategy(strategy);
    this.restartStrategy = strategy;
  }

  /**
   * The job on this environment was built by the module at `path`: with
   * `workers` set, each worker thread loads it to build the same graph.
   */
  setJobModule(path: string, args: readonly string[]): void {
    this.jobModule = { path, args };
  }

  /**
   * Runs the job as one member of a process group (`weir run --group`): its
   * sources read the partitions the group assigns to this process. Applied
   * when the job starts; the job then runs on this thread.
   */
  runInProcessGroup(group: ProcessGroupSpec): void {
    this.processGroup = group;
  }

  /**
   * How the job built on this environment runs in its process group, or
   * undefined outside one (see {@link placementInGroup}).
   */
  processGroupPlacement(): GroupPlacement | undefined {
    return this.processGroup === undefined
      ? undefined
      : placementInGroup(this.graph, this.processGroup);
  }

  /**
   * On a member of a process group that stands by for the job's task: each
   * sink starts ahead what its writers will need (see `Sink.prepareWriters`).
   * Returns the names of the sinks that did.
   */
  prepareStandby(): string[] {
    const prepared: string[] = [];
    for (const node of this.graph.nodes) {
      if (node.kind !== 'sink' || node.sink.prepareWriters === undefined) continue;
      node.sink.prepareWriters(node.parallelism ?? this.parallelism);
      prepared.push(node.name);
    }
    return prepared;
  }

  /**
   * Once a partitioned job of a process group has started: which task
   * (repartition partition) owns which keyed state, to split the member's
   * checkpoints into per-task snapshots.
   */
  processGroupLayout(): TaskLayout | undefined {
    return this.groupLayout;
  }

  /**
   * The Kafka topics whose partitions are the tasks of this partitioned job
   * in its process group (its sources' topics and its repartition topics).
   * Cuts the job into its stages first, so the group spec must be complete
   * (see {@link runInProcessGroup}).
   */
  processGroupTopics(): string[] {
    this.applyGroup();
    const topics = this.graph.nodes.flatMap((n) =>
      n.kind === 'source' ? [...(n.source.groupTopics ?? [])] : [],
    );
    return [...new Set(topics)];
  }

  /** Whether the partitioned job keeps keyed state, which moves with its tasks. */
  processGroupKeepsKeyedState(): boolean {
    return keepsKeyedState(this.graph);
  }

  private applyGroup(): void {
    if (this.processGroup === undefined) return;
    // Worker threads rebuild the graph from the module, without the group.
    if (this.workerCount !== undefined)
      throw invalidArgument('a process group member runs on one thread: set workers to 0');
    this.groupLayout = applyProcessGroup(this.graph, this.processGroup, this.maxParallelism);
    this.processGroup = undefined;
  }

  /**
   * Checkpoints go to `directory` instead: a single-owner task of a process
   * group keeps them under a path of its own, which every member shares. The
   * group has made this process the task's owner, so it takes the
   * directory's lease even from a holder it cannot see is dead (a lost
   * machine), instead of waiting for the lease to expire.
   */
  moveCheckpoints(directory: string): void {
    const current = this.checkpointing;
    if (current === undefined || current.storage !== undefined)
      throw invalidArgument('moveCheckpoints needs checkpointing into a directory');
    const { storage: _, ...settings } = current;
    this.checkpointing = checkpointConfig({ ...settings, directory, takeOverLease: true });
  }

  /**
   * Checkpoints of the next run go through `storage` (in the directory set
   * before): a process group member wraps its own checkpoints so that the
   * tasks' snapshots are written before any sink commits.
   */
  useCheckpointStorage(storage: CheckpointStorage): void {
    const current = this.checkpointing;
    if (current === undefined) throw invalidArgument('useCheckpointStorage needs checkpointing');
    this.checkpointing = { ...current, storage };
  }

  get workerCount(): number | undefined {
    return this.jobModule === undefined ? undefined : this.workers;
  }

  fromSource<T>(
    source: Source<T>,
    strategy?: WatermarkStrategy<T>,
    name = source.name,
  ): DataStream<T> {
    const node = this.graph.add({ kind: 'source', source: source as Source<unknown> }, name, []);
    const stream = this.streams.dataStream<T>(this, [{ node: node.id, tag: undefined }]);
    return strategy === undefined ? stream : stream.assignTimestampsAndWatermarks(strategy);
  }

  fromArray<T>(values: Iterable<T>, name = 'array'): DataStream<T> {
    return this.fromSource(new ArraySource(values, name));
  }

  fromGenerator<T>(options: GeneratorSourceOptions<T>): DataStream<T> {
    return this.fromSource(new GeneratorSource(options));
  }

  fromFile<T>(
    path: string | readonly string[],
    format: FileFormat<T>,
    options?: FileSourceOptions,
  ): DataStream<T> {
    return this.fromSource(new FileSource(path, format, options));
  }

  watchDirectory<T>(
    path: string,
    format: FileFormat<T>,
    options?: DirectorySourceOptions,
  ): DataStream<T> {
    return this.fromSource(new DirectorySource(path, format, options));
  }

  /** Registers a sink that collects `stream` into memory and returns the array it fills. */
  collectInto<T>(stream: DataStream<T>): T[] {
    const sink = new CollectSink<T>();
    stream.sinkTo(sink);
    return sink.values;
  }

  /** Runs the job for `executeAndCollect`; rejects unless it finishes. */
  async executeForCollect(name: string): Promise<void> {
    const result = await this.execute(name);
    if (result.status !== 'finished')
      throw new WeirError('JOB_CANCELLED', `job '${name}' did not finish`);
  }

  /** The plan the job would run with (for the worker threads and tests; users call `explain`). */
  plan(): PhysicalPlan {
    return buildPhysicalPlan(this.graph, this.planOptions());
  }

  explain(): string {
    return explainPlan(this.graph, planJob(this.graph, this.planOptions()));
  }

  private planOptions(): PlanOptions {
    return {
      parallelism: this.parallelism,
      maxParallelism: this.maxParallelism,
      chaining: this.chaining,
      fusion: this.fusion,
      localAggregation: this.localAggregation,
      ...(this.autoWatermarkIntervalMs === undefined
        ? {}
        : { autoWatermarkIntervalMs: this.autoWatermarkIntervalMs }),
    };
  }

  async execute(jobName = 'weir job', options: ExecuteOptions = {}): Promise<JobResult> {
    return this.executeAsync(jobName, options).result;
  }

  executeAsync(jobName = 'weir job', options: ExecuteOptions = {}): JobClient {
    if (this.running)
      throw new WeirError('INVALID_JOB', 'this environment is already running a job');
    if (this.checkpointing === undefined) refuseSinksThatWouldNeverCommit(this.graph);
    this.applyGroup();
    if (!this.allocationSitePretenuring) disableAllocationSitePretenuring();
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
      debloatTargetMs: this.debloatTargetMs,
      deployment:
        workers === undefined
          ? { kind: 'this-thread' }
          : {
              kind: 'worker-threads',
              workers,
              ringBytes: this.workerRingBytes,
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
                fusion: this.fusion,
                localAggregation: this.localAggregation,
                ...(this.autoWatermarkIntervalMs === undefined
                  ? {}
                  : { autoWatermarkIntervalMs: this.autoWatermarkIntervalMs }),
              },
            },
    };
  }
}

/** The debloating target of `EnvironmentOptions.bufferDebloating` (ms), or undefined when off. */
function debloatTarget(option: EnvironmentOptions['bufferDebloating']): number | undefined {
  if (option === false) return undefined;
  if (option === undefined || option === true) return DEFAULT_DEBLOAT_TARGET_MS;
  if (typeof option !== 'object' || option === null)
    throw invalidArgument(
      `bufferDebloating must be a boolean or { targetMs }, got ${JSON.stringify(option)}`,
    );
  return positiveInt('bufferDebloating.targetMs', option.targetMs ?? DEFAULT_DEBLOAT_TARGET_MS);
}

function ringBytes(n: number): number {
  if (!Number.isInteger(n) || n < MIN_RING_BYTES || n > 2 ** 30 || (n & (n - 1)) !== 0)
    throw invalidArgument(
      `workerRingBytes must be a power of two from ${MIN_RING_BYTES} to 2^30, got ${n}`,
    );
  return n;
}

function positiveInt(name: string, n: number): number {
  if (!Number.isInteger(n) || n < 1)
    throw invalidArgument(`${name} must be a positive whole number, got ${n}`);
  return n;
}
