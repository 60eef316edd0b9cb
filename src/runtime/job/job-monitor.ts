/**
 * What the outside world can see of a running job beyond its raw metrics:
 * its id and status, its graph, its checkpoint history and its latest
 * exceptions. The web UI, the REST API and the CLI read it from
 * `JobClient.monitor`; it also registers the job-level metrics (uptime,
 * restarts).
 */
import { randomBytes } from 'node:crypto';
import type { Counter, MetricRegistry } from '../../metrics/registry.js';
import type { ExecutionPlan } from '../execution/execution-plan.js';
import { OPERATOR_METRICS } from '../instrumentation/operator-probe.js';
import type { Task } from '../task/task.js';
import { type CheckpointEntry, CheckpointHistory } from './checkpoint-history.js';
import { describeJobGraph, type JobGraph } from './job-graph.js';

/** A fresh job id: 16 hex digits, like the ids the REST API and `weir jobs` show. */
export function newJobId(): string {
  return randomBytes(8).toString('hex');
}

/** Where a job is; `restarting`: an attempt failed and the next one waits out the restart delay. */
export type JobStatus = 'created' | 'running' | 'restarting' | 'finished' | 'cancelled' | 'failed';

/** A restart after a failure, as told to {@link JobMonitor.onRestart} listeners. */
export interface RestartEvent {
  /** Restarts of the job so far, this one included. */
  readonly restart: number;
  /** The failure that caused it. */
  readonly cause: unknown;
  /** How long the job waits before the next attempt. */
  readonly delayMs: number;
}

/**
 * A restore from the newest checkpoint passed over newer ones that are damaged, as told to
 * {@link JobMonitor.onPassedOver} listeners (a restart from `latest`).
 */
export interface PassedOverEvent {
  /** The checkpoint restored instead; undefined when none was left (the job starts afresh). */
  readonly restoredFrom: number | undefined;
  /** The damaged checkpoints, newest first, with what is wrong with each. */
  readonly skipped: readonly { checkpointId: number; path: string; reason: string }[];
}

/** An error the job ran into: its failure, or a failed checkpoint. */
export interface ExceptionEntry {
  /** Epoch ms. */
  readonly time: number;
  readonly message: string;
  /** The error's class name (WeirError, TypeError, ...). */
  readonly name: string;
  /** Whether it ended the job. */
  readonly fatal: boolean;
  /** The WeirError code, operator id and record, where known. */
  readonly code?: string;
  readonly operator?: string;
  readonly record?: string;
  readonly stack?: string;
}

/** Exceptions kept, newest last. */
const KEPT_EXCEPTIONS = 20;

export interface JobMonitorOptions {
  readonly jobName: string;
  readonly plan: ExecutionPlan;
  readonly metrics: MetricRegistry;
  /** The job id; random when omitted. */
  readonly jobId?: string;
}

export class JobMonitor {
  readonly jobId: string;
  readonly jobName: string;
  readonly graph: JobGraph;
  /** Epoch ms when the job was submitted. */
  readonly startTime = Date.now();
  private currentStatus: JobStatus = 'created';
  private end: number | undefined;
  private readonly exceptionList: ExceptionEntry[] = [];
  private readonly restartCounter: Counter;
  private readonly restartListeners: ((event: RestartEvent) => void)[] = [];
  private readonly passedOverListeners: ((event: PassedOverEvent) => void)[] = [];
  readonly checkpoints: CheckpointHistory;
  /** Where the job's Prometheus endpoint listens (`EnvironmentOptions.metrics.port`), once it does. */
  metricsUrl: string | undefined;

  constructor(private readonly options: JobMonitorOptions) {
    this.jobId = options.jobId ?? newJobId();
    this.jobName = options.jobName;
    this.graph = describeJobGraph(options.plan);
    const group = options.metrics.group({});
    group.gauge(
      'weir_job_uptime_seconds',
      'Time since the job was submitted (until it ended)',
      () => this.uptimeMs() / 1000,
    );
    this.restartCounter = group.counter(
      'weir_job_restarts_total',
      'Times the job was restarted after a failure',
    );
    this.checkpoints = new CheckpointHistory(options.metrics, group, (entry) =>
      this.recordException(
        new Error(`${entry.kind} ${entry.id} failed`),
        false,
        entry.completedAt ?? Date.now(),
      ),
    );
  }

  get status(): JobStatus {
    return this.currentStatus;
  }

  /** Epoch ms when the job ended, if it has. */
  get endTime(): number | undefined {
    return this.end;
  }

  get metrics(): MetricRegistry {
    return this.options.metrics;
  }

  uptimeMs(): number {
    return (this.end ?? Date.now()) - this.startTime;
  }

  restarts(): number {
    return this.restartCounter.value;
  }

  /** @internal The tasks are built and about to run. */
  started(tasks: readonly Task[]): void {
    this.checkpoints.observe(tasks);
    this.currentStatus = 'running';
  }

  /** @internal The job ended; a failure is recorded as its last exception. */
  ended(status: 'finished' | 'cancelled' | 'failed', error?: unknown): void {
    if (this.end !== undefined) return;
    this.end = Date.now();
    this.currentStatus = status;
    if (error !== undefined) this.recordException(error, true, this.end);
  }

  /** @internal A restart after `cause`, in `delayMs` (for restart strategies). */
  restarted(cause: unknown, delayMs: number): void {
    this.restartCounter.inc();
    this.currentStatus = 'restarting';
    this.recordException(cause, false);
    const event: RestartEvent = { restart: this.restartCounter.value, cause, delayMs };
    for (const listener of this.restartListeners) listener(event);
  }

  /** Calls `listener` on each restart of the job, before its restart delay (for logs). */
  onRestart(listener: (event: RestartEvent) => void): void {
    this.restartListeners.push(listener);
  }

  /** @internal A restore passed over damaged checkpoints: recorded for the UI, told to listeners. */
  passedOver(event: PassedOverEvent): void {
    for (const c of event.skipped) {
      this.recordException(
        new Error(
          `checkpoint ${c.checkpointId} is damaged and was passed over (${c.path}): ${c.reason}`,
        ),
        false,
      );
    }
    for (const listener of this.passedOverListeners) listener(event);
  }

  /** Calls `listener` when a restart's restore passes over damaged checkpoints (for logs). */
  onPassedOver(listener: (event: PassedOverEvent) => void): void {
    this.passedOverListeners.push(listener);
  }

  /** Records an error for the UI; connectors may report errors they recovered from. */
  recordException(error: unknown, fatal: boolean, time = Date.now()): void {
    this.exceptionList.push(describeException(error, fatal, time));
    if (this.exceptionList.length > KEPT_EXCEPTIONS) this.exceptionList.shift();
  }

  /** The latest exceptions, newest first. */
  exceptions(): readonly ExceptionEntry[] {
    return [...this.exceptionList].reverse();
  }

  /**
   * Event time of the job's output: the lowest input watermark over its sinks
   * (over all operators if it has none). -Infinity before the first watermark.
   */
  watermark(): number {
    const sinks = new Set(this.graph.operators.filter((o) => o.kind === 'sink').map((o) => o.id));
    let min = Number.POSITIVE_INFINITY;
    let any = false;
    for (const s of this.options.metrics.samples(OPERATOR_METRICS.inputWatermark)) {
      if (sinks.size > 0 && !sinks.has(s.labels.operator ?? '')) continue;
      any = true;
      const ms = s.value * 1000;
      if (ms < min) min = ms;
    }
    return any ? min : Number.NEGATIVE_INFINITY;
  }

  /** The most recent completed checkpoint or savepoint. */
  lastCheckpoint(): CheckpointEntry | undefined {
    return this.checkpoints.latestCompleted();
  }
}

function describeException(error: unknown, fatal: boolean, time: number): ExceptionEntry {
  if (!(error instanceof Error)) return { time, message: String(error), name: 'Error', fatal };
  const read = (field: string): string | undefined => {
    const value: unknown = Reflect.get(error, field);
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  const code = read('code');
  const operator = read('operatorId');
  const record = read('record');
  return {
    time,
    message: error.message,
    name: error.name,
    fatal,
    ...(code === undefined ? {} : { code }),
    ...(operator === undefined ? {} : { operator }),
    ...(record === undefined ? {} : { record }),
    ...(error.stack === undefined ? {} : { stack: error.stack }),
  };
}
