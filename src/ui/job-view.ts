/**
 * The JSON documents of the REST API, built from a job's client: its
 * summary, graph, per-operator metrics (with rates), checkpoints and
 * exceptions. Pure reads of the job's monitor and registry, done on the
 * job's thread between steps, so every document is a consistent snapshot.
 */

import { BYTES_METRICS } from '../metrics/connector-metrics.js';
import { estimateQuantile } from '../metrics/histogram.js';
import { JOB_LABELS, type MetricLabels, type MetricRegistry } from '../metrics/registry.js';
import { OPERATOR_METRICS } from '../runtime/instrumentation/operator-probe.js';
import type { CheckpointCounts, CheckpointEntry } from '../runtime/job/checkpoint-history.js';
import type { JobClient } from '../runtime/job/job-client.js';
import type { JobGraph } from '../runtime/job/job-graph.js';
import type { ExceptionEntry, JobStatus } from '../runtime/job/job-monitor.js';

/** `GET /jobs` entries and the head of `GET /jobs/:id`. */
export interface JobSummary {
  readonly id: string;
  readonly name: string;
  readonly status: JobStatus;
  /** Epoch ms. */
  readonly startTime: number;
  readonly endTime: number | null;
  readonly durationMs: number;
}

/** `GET /jobs/:id`. */
export interface JobDetails extends JobSummary {
  readonly restarts: number;
  readonly graph: JobGraph;
}

/** Backpressure level, as Flink's UI grades it: ok up to 10 %, low up to 50 %, high above. */
export type BackpressureLevel = 'ok' | 'low' | 'high';

export interface SubtaskMetrics {
  readonly subtask: number;
  readonly recordsIn: number | null;
  readonly recordsOut: number;
  readonly recordsInPerSecond: number | null;
  readonly recordsOutPerSecond: number;
  readonly busyRatio: number | null;
  readonly idleRatio: number | null;
  readonly backpressuredRatio: number | null;
  /** Epoch ms; null before the first watermark (and at the end of input). */
  readonly inputWatermark: number | null;
  readonly watermarkLagMs: number | null;
}

export interface OperatorMetrics {
  readonly id: string;
  readonly name: string;
  readonly kind: 'source' | 'operator' | 'sink';
  readonly parallelism: number;
  /** Sums over subtasks. `recordsIn` is null for sources. */
  readonly recordsIn: number | null;
  readonly recordsOut: number;
  readonly recordsInPerSecond: number | null;
  readonly recordsOutPerSecond: number;
  /** Bytes read / written, where the connector reports them. */
  readonly bytesRead: number | null;
  readonly bytesWritten: number | null;
  /** Highest over subtasks (the bottleneck shows). */
  readonly busyRatio: number | null;
  readonly backpressuredRatio: number | null;
  /** Lowest over subtasks. */
  readonly idleRatio: number | null;
  readonly backpressure: BackpressureLevel;
  /** Lowest over subtasks, epoch ms. */
  readonly inputWatermark: number | null;
  readonly watermarkLagMs: number | null;
  /** Records too late for their window (window operators). */
  readonly lateRecords: number | null;
  /** Keyed state entries (stateful operators). */
  readonly stateEntries: number | null;
  readonly subtasks: readonly SubtaskMetrics[];
}

export interface LatencySummary {
  readonly samples: number;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
}

/** `GET /jobs/:id/metrics`. */
export interface JobMetrics {
  /** When the numbers were read, epoch ms. */
  readonly time: number;
  readonly status: JobStatus;
  readonly uptimeMs: number;
  readonly restarts: number;
  /** Records read by all sources, and per second. */
  readonly recordsRead: number;
  readonly recordsReadPerSecond: number;
  /** Lowest input watermark of the sinks, epoch ms. */
  readonly watermark: number | null;
  readonly watermarkLagMs: number | null;
  /** Event-time-to-sink delay, sampled once per batch at every sink. */
  readonly latency: LatencySummary;
  readonly lastCheckpoint: CheckpointEntry | null;
  readonly operators: readonly OperatorMetrics[];
}

/** `GET /jobs/:id/checkpoints`. */
export interface JobCheckpoints {
  readonly counts: CheckpointCounts;
  readonly latest: CheckpointEntry | null;
  /** Newest first; at most the last 50. */
  readonly history: readonly CheckpointEntry[];
}

/** `GET /jobs/:id/exceptions`. */
export interface JobExceptions {
  /** Newest first; at most the last 20. */
  readonly exceptions: readonly ExceptionEntry[];
}

const SOURCE_RECORDS = 'weir_source_records_total';
const LATE_RECORDS = 'weir_window_late_records_total';
const STATE_ENTRIES = 'weir_state_entries';

/**
 * Turns growing totals into rates per second: sampled about once a second,
 * each rate is the change between the last two samples.
 */
export class RateTracker {
  private previous = new Map<string, number>();
  private current = new Map<string, number>();
  private previousTime = 0;
  private currentTime = 0;
  private readonly rates = new Map<string, number>();

  /** Takes a sample of every total; `totals` yields (key, total) pairs. */
  sample(totals: Iterable<readonly [string, number]>, now: number): void {
    this.previous = this.current;
    this.previousTime = this.currentTime;
    this.current = new Map(totals);
    this.currentTime = now;
    this.rates.clear();
    const dt = (this.currentTime - this.previousTime) / 1000;
    if (this.previousTime === 0 || dt <= 0) return;
    for (const [key, total] of this.current) {
      const before = this.previous.get(key);
      if (before !== undefined) this.rates.set(key, Math.max(0, (total - before) / dt));
    }
  }

  /** The latest rate of `key` per second (0 before two samples). */
  rate(key: string): number {
    return this.rates.get(key) ?? 0;
  }
}

/** The totals a job's rates are computed from, keyed `metric|operator|subtask`. */
export function rateTotals(client: JobClient): [string, number][] {
  const out: [string, number][] = [];
  const job = jobMatch(client);
  for (const name of [OPERATOR_METRICS.recordsIn, OPERATOR_METRICS.recordsOut, SOURCE_RECORDS]) {
    for (const s of client.metrics.samples(name, job)) {
      out.push([rateKey(name, s.labels.operator ?? '', s.labels.subtask ?? ''), s.value]);
    }
  }
  return out;
}

function rateKey(metric: string, operator: string, subtask: string): string {
  return `${metric}|${operator}|${subtask}`;
}

export function jobSummary(client: JobClient): JobSummary {
  const m = client.monitor;
  return {
    id: client.jobId,
    name: client.jobName,
    status: m.status,
    startTime: m.startTime,
    endTime: m.endTime ?? null,
    durationMs: m.uptimeMs(),
  };
}

export function jobDetails(client: JobClient): JobDetails {
  return {
    ...jobSummary(client),
    restarts: client.monitor.restarts(),
    graph: client.monitor.graph,
  };
}

export function jobCheckpoints(client: JobClient): JobCheckpoints {
  const history = client.monitor.checkpoints;
  return {
    counts: history.counts(),
    latest: history.latestCompleted() ?? null,
    history: history.entries(),
  };
}

export function jobExceptions(client: JobClient): JobExceptions {
  return { exceptions: client.monitor.exceptions() };
}

/** The labels that pick the job's series (its id: two runs of a job may share the name). */
function jobMatch(client: JobClient): MetricLabels {
  return { [JOB_LABELS.id]: client.jobId };
}

/** Reads every series of a metric for the job, by operator and subtask. */
function bySubtask(registry: MetricRegistry, name: string, job: MetricLabels): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of registry.samples(name, job)) {
    const key = `${s.labels.operator ?? ''}|${s.labels.subtask ?? ''}`;
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

export function jobMetrics(client: JobClient, rates: RateTracker): JobMetrics {
  const { monitor, metrics: registry } = client;
  const job = jobMatch(client);
  const now = Date.now();
  const read = (name: string) => bySubtask(registry, name, job);
  const recordsIn = read(OPERATOR_METRICS.recordsIn);
  const recordsOut = read(OPERATOR_METRICS.recordsOut);
  const busy = read(OPERATOR_METRICS.busyRatio);
  const idle = read(OPERATOR_METRICS.idleRatio);
  const backpressured = read(OPERATOR_METRICS.backpressuredRatio);
  const watermarks = read(OPERATOR_METRICS.inputWatermark);
  const late = read(LATE_RECORDS);
  const state = read(STATE_ENTRIES);
  const bytesRead = read(BYTES_METRICS.read);
  const bytesWritten = read(BYTES_METRICS.written);
  const running = monitor.status === 'running';
  const rate = (metric: string, operator: string, subtask: number) =>
    running ? rates.rate(rateKey(metric, operator, String(subtask))) : 0;

  const operators = monitor.graph.operators.map((op): OperatorMetrics => {
    const subtasks: SubtaskMetrics[] = [];
    for (let s = 0; s < op.parallelism; s++) {
      const key = `${op.id}|${s}`;
      const watermarkSeconds = watermarks.get(key);
      const watermark =
        watermarkSeconds !== undefined && Number.isFinite(watermarkSeconds)
          ? watermarkSeconds * 1000
          : null;
      subtasks.push({
        subtask: s,
        recordsIn: op.kind === 'source' ? null : (recordsIn.get(key) ?? 0),
        recordsOut: recordsOut.get(key) ?? 0,
        recordsInPerSecond:
          op.kind === 'source' ? null : rate(OPERATOR_METRICS.recordsIn, op.id, s),
        recordsOutPerSecond: rate(OPERATOR_METRICS.recordsOut, op.id, s),
        busyRatio: busy.get(key) ?? null,
        idleRatio: idle.get(key) ?? null,
        backpressuredRatio: backpressured.get(key) ?? null,
        inputWatermark: watermark,
        watermarkLagMs: watermark === null ? null : now - watermark,
      });
    }
    // One subtask without a watermark holds the whole operator back.
    const inputWatermark = subtasks.some((s) => s.inputWatermark === null)
      ? null
      : minOrNull(subtasks.map((s) => s.inputWatermark));
    const backpressuredRatio = maxOrNull(subtasks.map((s) => s.backpressuredRatio));
    return {
      id: op.id,
      name: op.name,
      kind: op.kind,
      parallelism: op.parallelism,
      recordsIn: op.kind === 'source' ? null : sum(subtasks.map((s) => s.recordsIn ?? 0)),
      recordsOut: sum(subtasks.map((s) => s.recordsOut)),
      recordsInPerSecond:
        op.kind === 'source' ? null : sum(subtasks.map((s) => s.recordsInPerSecond ?? 0)),
      recordsOutPerSecond: sum(subtasks.map((s) => s.recordsOutPerSecond)),
      bytesRead: sumOrNull(bytesRead, op.id),
      bytesWritten: sumOrNull(bytesWritten, op.id),
      busyRatio: maxOrNull(subtasks.map((s) => s.busyRatio)),
      backpressuredRatio,
      idleRatio: minOrNull(subtasks.map((s) => s.idleRatio)),
      backpressure: level(backpressuredRatio ?? 0),
      inputWatermark,
      watermarkLagMs: inputWatermark === null ? null : now - inputWatermark,
      lateRecords: sumOrNull(late, op.id),
      stateEntries: sumOrNull(state, op.id),
      subtasks,
    };
  });

  const watermark = monitor.watermark();
  const finiteWatermark = Number.isFinite(watermark) ? watermark : null;
  const latency = registry.histogram(OPERATOR_METRICS.latency, job);
  const quantileMs = (q: number): number | null => {
    const v = latency === undefined ? undefined : estimateQuantile(latency, q);
    return v === undefined ? null : v * 1000;
  };
  let readPerSecond = 0;
  for (const op of monitor.graph.operators) {
    if (op.kind !== 'source') continue;
    for (let s = 0; s < op.parallelism; s++) readPerSecond += rate(SOURCE_RECORDS, op.id, s);
  }
  return {
    time: now,
    status: monitor.status,
    uptimeMs: monitor.uptimeMs(),
    restarts: monitor.restarts(),
    recordsRead: registry.total(SOURCE_RECORDS, job),
    recordsReadPerSecond: readPerSecond,
    watermark: finiteWatermark,
    watermarkLagMs: finiteWatermark === null ? null : now - finiteWatermark,
    latency: {
      samples: latency?.count ?? 0,
      p50Ms: quantileMs(0.5),
      p95Ms: quantileMs(0.95),
      p99Ms: quantileMs(0.99),
    },
    lastCheckpoint: monitor.lastCheckpoint() ?? null,
    operators,
  };
}

function level(ratio: number): BackpressureLevel {
  return ratio > 0.5 ? 'high' : ratio > 0.1 ? 'low' : 'ok';
}

function sum(xs: readonly number[]): number {
  let total = 0;
  for (const x of xs) total += x;
  return total;
}

function sumOrNull(values: ReadonlyMap<string, number>, operator: string): number | null {
  let total: number | null = null;
  for (const [key, v] of values) if (key.startsWith(`${operator}|`)) total = (total ?? 0) + v;
  return total;
}

function minOrNull(xs: readonly (number | null)[]): number | null {
  let min: number | null = null;
  for (const x of xs) if (x !== null && (min === null || x < min)) min = x;
  return min;
}

function maxOrNull(xs: readonly (number | null)[]): number | null {
  let max: number | null = null;
  for (const x of xs) if (x !== null && (max === null || x > max)) max = x;
  return max;
}
