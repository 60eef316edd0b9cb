import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { type ErrorDomain, WeirError, type WeirErrorCode } from '../../core/errors.js';
import { isCollectingSink } from '../../core/sink.js';
import { Histogram } from '../../metrics/histogram.js';
import type { MetricRegistry, MetricSample } from '../../metrics/registry.js';
import type { CheckpointCoordinator } from '../checkpoint/checkpoint-coordinator.js';
import { taskSlots } from '../execution/build-tasks.js';
import type { ExecutionPlan } from '../execution/execution-plan.js';
import type { JobMonitor } from '../job/job-monitor.js';
import { Task, type TaskSnapshot } from '../task/task.js';
import { Wakeup } from './peer-link.js';
import {
  type CollectedRecords,
  type FromWorker,
  type SerializedError,
  type ToWorker,
  type WorkerSetup,
  workerOf,
} from './protocol.js';

/** How often the main thread looks at the checkpoint coordinator while workers run. */
const COORDINATOR_TICK_MS = 5;

/** The main thread's handle on one worker thread. */
class WorkerHandle {
  readonly thread: Worker;
  finished = false;
  /** The worker has built its tasks and reported its sources' state. */
  started = false;
  closed: { collected: CollectedRecords[] } | undefined;
  /** The worker's newest metric samples (sent twice a second, and when it closes). */
  metrics: MetricSample[] = [];
  private nextReq = 0;
  private readonly replies = new Map<
    number,
    { resolve: (m: Extract<FromWorker, { t: 'reply' }>) => void; reject: (e: unknown) => void }
  >();
  /** Why the worker can no longer answer: requests fail with it rather than wait forever. */
  private dead: WeirError | undefined;
  private readonly memo = new Map<string, Promise<Extract<FromWorker, { t: 'reply' }>>>();

  constructor(
    readonly index: number,
    entry: URL,
    setup: WorkerSetup,
    transfer: MessagePort[],
    onMessage: (w: WorkerHandle, m: FromWorker) => void,
    onFailure: (error: WeirError) => void,
  ) {
    this.thread = spawnWorker(entry, setup, transfer);
    this.thread.on('message', (m: FromWorker) => {
      if (m.t === 'reply') {
        const r = this.replies.get(m.req);
        this.replies.delete(m.req);
        r?.resolve(m);
      } else if (m.t === 'failed') fail(workerError(index, m.error));
      else if (m.t === 'closed') {
        this.metrics = m.metrics;
        this.closed = { collected: m.collected };
      } else if (m.t === 'metrics') this.metrics = m.metrics;
      else if (m.t === 'finished') this.finished = true;
      else if (m.t === 'started') this.started = true;
      onMessage(this, m);
    });
    const fail = (error: WeirError) => {
      this.dead ??= error;
      for (const r of this.replies.values()) r.reject(error);
      this.replies.clear();
      onFailure(error);
    };
    this.thread.on('error', (e) => fail(workerError(index, serialize(e))));
    this.thread.on('exit', (code) => {
      if (this.closed === undefined)
        fail(
          new WeirError('INTERNAL', `worker ${index} exited with code ${code} while the job ran`, {
            domain: 'internal',
            retriable: true,
          }),
        );
    });
  }

  post(m: ToWorker): void {
    this.thread.postMessage(m);
  }

  /** Sends a request once per (kind, checkpoint): every proxy of this worker shares the answer. */
  request(kind: 'complete' | 'final-snapshot' | 'precommit', id: number) {
    const key = `${kind}/${id}`;
    let p = this.memo.get(key);
    if (p === undefined) {
      const req = this.nextReq++;
      const dead = this.dead;
      p =
        dead === undefined
          ? new Promise((resolve, reject) => this.replies.set(req, { resolve, reject }))
          : Promise.reject(dead);
      this.memo.set(key, p);
      this.post({ t: kind, req, id });
    }
    return p;
  }
}

function spawnWorker(entry: URL, setup: WorkerSetup, transfer: MessagePort[]): Worker {
  const workerData = { weirWorker: true, setup };
  const fromSource = entry.pathname.endsWith('.ts');
  if (!fromSource) return new Worker(entry, { workerData, transferList: transfer });
  // Running from TypeScript sources (tests, `node --import tsx`): the worker
  // registers the same TypeScript loader before it loads its entry module.
  const bootstrap = `
    Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => {
      esm.register();
      cjs.register();
      return import(${JSON.stringify(entry.href)});
    });`;
  return new Worker(bootstrap, { eval: true, workerData, transferList: transfer });
}

function serialize(e: unknown): SerializedError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  return { name: e.name, message: e.message, stack: e.stack };
}

/** The error a worker reported, naming the worker (and, as the original did, the operator). */
function workerError(index: number, e: SerializedError): WeirError {
  const error = new WeirError(
    (e.code as WeirErrorCode | undefined) ?? 'INTERNAL',
    `${e.message} (in worker ${index}${e.operatorId === undefined ? '' : `, operator '${e.operatorId}'`})`,
    {
      domain: (e.domain as ErrorDomain | undefined) ?? 'internal',
      ...(e.operatorId === undefined ? {} : { operatorId: e.operatorId }),
      ...(e.record === undefined ? {} : { record: e.record }),
      retriable: e.retriable ?? false,
      ...(e.cause === undefined ? {} : { cause: revived(e.cause) }),
    },
  );
  if (e.stack !== undefined)
    error.stack = `${error.name}: ${error.message}\n(worker ${index}) ${e.stack}`;
  return error;
}

/** A plain Error standing for one a worker threw (its cause chain included). */
function revived(e: SerializedError): Error {
  const error = new Error(
    e.message,
    e.cause === undefined ? undefined : { cause: revived(e.cause) },
  );
  error.name = e.name;
  if (e.stack !== undefined) error.stack = e.stack;
  return error;
}

/** A task running on a worker, as the checkpoint coordinator on the main thread sees it. */
class RemoteTask extends Task {
  constructor(
    name: string,
    subtask: number,
    maxParallelism: number,
    readonly slot: number,
    protected readonly worker: WorkerHandle,
  ) {
    super({ name, subtask, maxParallelism, members: [], writers: [], blockers: [] });
  }

  step(): boolean {
    return false;
  }

  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    this.checkpoints?.completed?.(this, checkpointId);
    await this.worker.request('complete', checkpointId);
  }

  override async collectFinalSnapshot(checkpointId: number): Promise<TaskSnapshot> {
    const reply = await this.worker.request('final-snapshot', checkpointId);
    const found = reply.snapshots?.find(([slot]) => slot === this.slot);
    if (found === undefined)
      throw new Error(`worker ${this.worker.index} sent no snapshot of ${this.name}`);
    return found[1];
  }

  override async preCommitSinks(checkpointId: number): Promise<void> {
    await this.worker.request('precommit', checkpointId);
  }

  override resume(): void {
    // The worker resumes all its tasks; the same message from its other tasks changes nothing.
    this.worker.post({ t: 'resume' });
  }
}

class RemoteSourceTask extends RemoteTask {
  checkpointable = false;

  get readyForBarrier(): boolean {
    // The worker holds the barrier back itself until no sink of the chain is flushing.
    return true;
  }

  triggerCheckpoint(checkpointId: number, savepoint: boolean, stop = false): boolean {
    if (this.finished || !this.checkpointable) return false;
    this.worker.post({ t: 'trigger', slot: this.slot, id: checkpointId, savepoint, stop });
    return true;
  }
}

export interface WorkerJobSettings {
  /**
   * The module each worker thread starts with: it builds the job's plan
   * (from `modulePath`) and runs its share of the subtasks.
   */
  readonly entry: URL;
  /** Whether workers must map bare `weir` imports to this copy of the library. */
  readonly aliasWeir: boolean;
  readonly modulePath: string;
  readonly args: readonly string[];
  readonly jobName: string;
  readonly workers: number;
  readonly plan: ExecutionPlan;
  readonly setup: Omit<
    WorkerSetup,
    'index' | 'count' | 'peers' | 'modulePath' | 'args' | 'jobName' | 'aliasWeir'
  >;
}

/**
 * A job whose subtasks run on worker threads. The main thread plays the
 * JobManager: it starts the workers (each loads the job module and builds
 * its share of the subtasks), connects every pair of them with a message
 * port for their channels, runs the checkpoint coordinator against proxies
 * of the remote tasks, and ends or fails the job.
 */
export class WorkerJob {
  readonly tasks: RemoteTask[];
  private readonly handles: WorkerHandle[] = [];
  private failure: WeirError | undefined;
  private stopRequested = false;
  private readonly wakeup = new Wakeup();

  constructor(
    private readonly settings: WorkerJobSettings,
    /** The job's registry: the workers' metrics appear in it as they report them. */
    private readonly registry: MetricRegistry,
  ) {
    const { plan, workers } = settings;
    const ports: (MessagePort | undefined)[][] = [];
    for (let i = 0; i < workers; i++) ports.push(new Array(workers).fill(undefined));
    for (let i = 0; i < workers; i++) {
      for (let j = i + 1; j < workers; j++) {
        const { port1, port2 } = new MessageChannel();
        ports[i]![j] = port1;
        ports[j]![i] = port2;
      }
    }
    for (let i = 0; i < workers; i++) {
      const peers = ports[i]!;
      this.handles.push(
        new WorkerHandle(
          i,
          settings.entry,
          {
            ...settings.setup,
            modulePath: settings.modulePath,
            aliasWeir: settings.aliasWeir,
            args: settings.args,
            jobName: settings.jobName,
            index: i,
            count: workers,
            peers,
          },
          peers.filter((p): p is MessagePort => p !== undefined),
          (w, m) => this.onMessage(w, m),
          (error) => {
            this.failure ??= error;
            this.wakeup.notify();
          },
        ),
      );
    }
    this.tasks = taskSlots(plan).map(({ head, subtask, isSource }, slot) => {
      const v = plan.vertices[head]!;
      const name = `${v.name} (${subtask + 1}/${v.parallelism})`;
      const worker = this.handles[workerOf(subtask, workers)]!;
      return isSource
        ? new RemoteSourceTask(name, subtask, plan.maxParallelism, slot, worker)
        : new RemoteTask(name, subtask, plan.maxParallelism, slot, worker);
    });
  }

  /** The workers' metrics, merged: what the job's registry reads. */
  private merged = new Map<string, MetricSample>();

  /**
   * Merges the workers' newest samples and registers every series in the
   * job's registry (once; it reads the merged value). Every worker reports
   * the series of all subtasks (zero where it ran none): counters add up,
   * gauges of a subtask come from the worker running it.
   */
  private publishMetrics(): void {
    const merged = new Map<string, MetricSample>();
    for (const h of this.handles) {
      for (const sample of h.metrics) {
        const key = `${sample.name}${JSON.stringify(sample.labels)}`;
        const seen = merged.get(key);
        const subtask = sample.labels.subtask;
        if (seen === undefined) merged.set(key, sample);
        else if (sample.kind === 'counter')
          merged.set(key, { ...seen, value: seen.value + sample.value });
        else if (sample.kind === 'histogram' && seen.histogram && sample.histogram)
          merged.set(key, {
            ...seen,
            value: seen.value + sample.value,
            histogram: Histogram.merge(seen.histogram, sample.histogram),
          });
        else if (
          subtask !== undefined &&
          workerOf(Number(subtask), this.handles.length) === h.index
        )
          merged.set(key, sample);
      }
    }
    for (const [key, sample] of merged) {
      if (sample.histogram !== undefined) {
        // Histograms are mirrored (cumulative in every worker, summed here).
        this.registry
          .group(sample.labels)
          .histogram(sample.name, sample.help, sample.histogram.buckets)
          .assign(sample.histogram);
        continue;
      }
      if (this.merged.has(key)) continue;
      const group = this.registry.group(sample.labels);
      const read = () => this.merged.get(key)?.value ?? 0;
      if (sample.kind === 'counter') group.counterFrom(sample.name, sample.help, read);
      else group.gauge(sample.name, sample.help, read);
    }
    this.merged = merged;
  }

  private onMessage(_w: WorkerHandle, m: FromWorker): void {
    switch (m.t) {
      case 'metrics':
        this.publishMetrics();
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

  private coordinator: CheckpointCoordinator | undefined;

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
    try {
      let outcome: 'finished' | 'stopped';
      for (;;) {
        this.check();
        if (coordinator.failure !== undefined) throw coordinator.failure;
        if (this.stopRequested) {
          outcome = 'stopped';
          break;
        }
        if (this.handles.every((h) => h.finished)) {
          outcome = 'finished';
          break;
        }
        // Checkpoints start once every worker runs and has said what its sources can do.
        if (this.handles.every((h) => h.started)) coordinator.tick();
        await Promise.race([
          this.wakeup.wait(),
          new Promise((resolve) => setTimeout(resolve, COORDINATOR_TICK_MS)),
        ]);
      }
      if (outcome === 'finished') await this.guarded(coordinator.finalCheckpoint());
      else {
        for (const h of this.handles) h.post({ t: 'stop' });
        await this.guarded(coordinator.drain());
      }
      for (const h of this.handles) h.post({ t: 'close' });
      await this.guarded(
        new Promise<void>((resolve) => {
          const poll = () => {
            if (this.handles.every((h) => h.closed !== undefined)) resolve();
            else setTimeout(poll, 1);
          };
          poll();
        }),
      );
      for (const h of this.handles)
        for (const c of h.closed!.collected) collectInto(this.settings.plan, c);
      this.publishMetrics();
      return outcome;
    } catch (error) {
      await coordinator.drain().catch(() => {});
      throw error;
    } finally {
      await Promise.all(this.handles.map((h) => h.thread.terminate()));
    }
  }
}

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
