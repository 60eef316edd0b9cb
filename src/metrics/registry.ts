/**
 * The job's metrics. Counters are plain numbers incremented once per batch on
 * the hot path; gauges are read only when someone asks (a snapshot, an
 * export); histograms count observations into fixed buckets.
 *
 * The registry is generic: the runtime, the checkpoint coordinator and
 * connectors all register into the same one, each with its own labels
 * (operator, subtask, and whatever a connector adds, such as a partition).
 * A job's registry puts `job_name` and `job_id` in front of every series
 * ({@link JOB_LABELS}): not `job`, which Prometheus sets itself on every
 * scraped series and would rename ours to `exported_job`.
 * Names follow Prometheus conventions: `weir_` prefix, base units in the name
 * (`_seconds`, `_bytes`), `_total` for counters.
 */
import type { Counter, MetricGroup, MetricLabels } from '../core/metrics.js';
import { Histogram, type HistogramSnapshot } from './histogram.js';

export type { Counter, MetricGroup, MetricLabels };

/** What a metric is, in Prometheus' terms. */
export type MetricKind = 'counter' | 'gauge' | 'histogram';

export interface MetricSample {
  readonly name: string;
  readonly kind: MetricKind;
  readonly help: string;
  readonly labels: MetricLabels;
  /** The value; for a histogram, its number of observations. */
  readonly value: number;
  /** Buckets, sum and count of a histogram. */
  readonly histogram?: HistogramSnapshot;
}

class SimpleCounter implements Counter {
  value = 0;
  inc(amount = 1): void {
    this.value += amount;
  }
}

/** One time series: a metric name with one set of label values. */
interface Series {
  readonly name: string;
  readonly kind: MetricKind;
  readonly help: string;
  readonly labels: MetricLabels;
  read(): number;
  readonly counter?: SimpleCounter;
  readonly histogram?: Histogram;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Labels Prometheus attaches to every scraped series: a series of ours must not have them. */
const SCRAPE_LABELS = new Set(['job', 'instance']);

/** The labels a job's registry adds to every series it holds. */
export const JOB_LABELS = { name: 'job_name', id: 'job_id' } as const;

/** The labels of every series of a job: its name and the id that tells runs apart. */
export function jobLabels(jobName: string, jobId: string): MetricLabels {
  return { [JOB_LABELS.name]: jobName, [JOB_LABELS.id]: jobId };
}

/** Holds every metric of a job, across all operators and subtasks. */
export class MetricRegistry {
  private readonly series = new Map<string, Series>();
  private readonly kinds = new Map<string, MetricKind>();

  /** @param constantLabels put in front of the labels of every group (a job's `jobLabels`). */
  constructor(private readonly constantLabels: MetricLabels = {}) {}

  group(labels: MetricLabels): RegistryGroup {
    return new RegistryGroup(this, { ...this.constantLabels, ...labels });
  }

  /**
   * Registers a time series, or returns the one already registered under the
   * same name and labels (so a reader created twice shares its counter).
   * @internal
   */
  register(
    name: string,
    kind: MetricKind,
    help: string,
    labels: MetricLabels,
    create: () => Omit<Series, 'name' | 'kind' | 'help' | 'labels'>,
  ): Series {
    checkName(name, labels);
    const known = this.kinds.get(name);
    if (known !== undefined && known !== kind) {
      throw new Error(`metric '${name}' is already registered as a ${known}, not a ${kind}`);
    }
    const key = seriesKey(name, labels);
    const existing = this.series.get(key);
    if (existing !== undefined) return existing;
    const created: Series = { name, kind, help, labels, ...create() };
    this.kinds.set(name, kind);
    this.series.set(key, created);
    return created;
  }

  /**
   * Adds a gauge. A gauge registered again under the same name and labels
   * replaces the earlier one: the newest owner of a series (a Kafka partition
   * assigned again, say) reports its value. @internal
   */
  registerGauge(name: string, help: string, labels: MetricLabels, read: () => number): void {
    const key = seriesKey(name, labels);
    const existing = this.series.get(key);
    if (existing === undefined || existing.kind !== 'gauge') {
      this.register(name, 'gauge', help, labels, () => ({ read }));
      return;
    }
    this.series.set(key, { ...existing, read });
  }

  /** Removes a series (a partition that was revoked, say). @internal */
  unregister(name: string, labels: MetricLabels): boolean {
    return this.series.delete(seriesKey(name, labels));
  }

  snapshot(): MetricSample[] {
    const out: MetricSample[] = [];
    for (const s of this.series.values()) {
      const sample: MetricSample = {
        name: s.name,
        kind: s.kind,
        help: s.help,
        labels: s.labels,
        value: s.read(),
      };
      out.push(
        s.histogram === undefined ? sample : { ...sample, histogram: s.histogram.snapshot() },
      );
    }
    return out;
  }

  /** Sum of a metric over all label sets that include `match`. */
  total(name: string, match: MetricLabels = {}): number {
    let sum = 0;
    const wanted = Object.entries(match);
    for (const m of this.series.values()) {
      if (m.name !== name) continue;
      if (wanted.every(([k, v]) => m.labels[k] === v)) sum += m.read();
    }
    return sum;
  }

  /** The current samples of a metric, one per label set that includes `match`. */
  samples(name: string, match: MetricLabels = {}): MetricSample[] {
    const wanted = Object.entries(match);
    const out: MetricSample[] = [];
    for (const m of this.series.values()) {
      if (m.name !== name || !wanted.every(([k, v]) => m.labels[k] === v)) continue;
      const sample = {
        name: m.name,
        kind: m.kind,
        help: m.help,
        labels: m.labels,
        value: m.read(),
      };
      out.push(
        m.histogram === undefined ? sample : { ...sample, histogram: m.histogram.snapshot() },
      );
    }
    return out;
  }

  /** The histograms of a metric over all label sets that include `match`, merged into one. */
  histogram(name: string, match: MetricLabels = {}): HistogramSnapshot | undefined {
    let merged: HistogramSnapshot | undefined;
    const wanted = Object.entries(match);
    for (const m of this.series.values()) {
      if (m.name !== name || m.histogram === undefined) continue;
      if (!wanted.every(([k, v]) => m.labels[k] === v)) continue;
      const h = m.histogram.snapshot();
      merged = merged === undefined ? h : Histogram.merge(merged, h);
    }
    return merged;
  }
}

/** The registry's {@link MetricGroup}: series registered under shared labels. */
export class RegistryGroup implements MetricGroup {
  constructor(
    private readonly registry: MetricRegistry,
    readonly labels: MetricLabels,
  ) {}

  /** A counter incremented by the caller (once per batch on the hot path). */
  counter(name: string, help: string): Counter {
    const series = this.registry.register(name, 'counter', help, this.labels, () => {
      const counter = new SimpleCounter();
      return { counter, read: () => counter.value };
    });
    if (series.counter === undefined) {
      throw new Error(`metric '${name}' with these labels is not a plain counter`);
    }
    return series.counter;
  }

  /** A counter whose (never decreasing) value is read from `read` when exported. */
  counterFrom(name: string, help: string, read: () => number): void {
    this.registry.register(name, 'counter', help, this.labels, () => ({ read }));
  }

  /** A value read on demand; it may go up and down. */
  gauge(name: string, help: string, read: () => number): void {
    this.registry.registerGauge(name, help, this.labels, read);
  }

  /** A histogram with the given bucket upper bounds (ascending; +Inf is implied). */
  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    const series = this.registry.register(name, 'histogram', help, this.labels, () => {
      const histogram = new Histogram(buckets);
      return { histogram, read: () => histogram.count };
    });
    return series.histogram!;
  }

  /** Removes this group's series of metric `name`, for series that come and go. */
  remove(name: string): boolean {
    return this.registry.unregister(name, this.labels);
  }

  child(extra: MetricLabels): RegistryGroup {
    return new RegistryGroup(this.registry, { ...this.labels, ...extra });
  }
}

function checkName(name: string, labels: MetricLabels): void {
  if (!NAME.test(name)) throw new Error(`invalid metric name '${name}'`);
  for (const label of Object.keys(labels)) {
    if (!LABEL.test(label) || label.startsWith('__') || label === 'le') {
      throw new Error(`invalid label name '${label}' on metric '${name}'`);
    }
    if (SCRAPE_LABELS.has(label)) {
      throw new Error(
        `label '${label}' on metric '${name}' is one Prometheus sets when it scrapes (ours would become 'exported_${label}'); use job_name or another name`,
      );
    }
  }
}

function seriesKey(name: string, labels: MetricLabels): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`);
  return `${name}\u0000${parts.join('\u0000')}`;
}
