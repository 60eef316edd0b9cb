/**
 * The job's metrics. Counters are plain numbers incremented once per batch on
 * the hot path; gauges are read only when someone asks (a snapshot, an export).
 */
export interface Counter {
  inc(amount?: number): void;
  readonly value: number;
}

export interface MetricLabels {
  readonly [label: string]: string;
}

export interface MetricSample {
  readonly name: string;
  readonly kind: 'counter' | 'gauge';
  readonly help: string;
  readonly labels: MetricLabels;
  readonly value: number;
}

class SimpleCounter implements Counter {
  value = 0;
  inc(amount = 1): void {
    this.value += amount;
  }
}

interface Registered {
  readonly name: string;
  readonly kind: 'counter' | 'gauge';
  readonly help: string;
  readonly labels: MetricLabels;
  read(): number;
}

/** Holds every metric of a job, across all operators and subtasks. */
export class MetricRegistry {
  private readonly metrics: Registered[] = [];

  group(labels: MetricLabels): MetricGroup {
    return new MetricGroup(this, labels);
  }

  /** @internal */
  add(metric: Registered): void {
    this.metrics.push(metric);
  }

  snapshot(): MetricSample[] {
    return this.metrics.map((m) => ({
      name: m.name,
      kind: m.kind,
      help: m.help,
      labels: m.labels,
      value: m.read(),
    }));
  }

  /** Sum of a metric over all label sets that include `match`. */
  total(name: string, match: MetricLabels = {}): number {
    let sum = 0;
    for (const m of this.metrics) {
      if (m.name !== name) continue;
      if (Object.entries(match).every(([k, v]) => m.labels[k] === v)) sum += m.read();
    }
    return sum;
  }
}

/** Metrics of one scope (an operator subtask, a source), sharing its labels. */
export class MetricGroup {
  constructor(
    private readonly registry: MetricRegistry,
    readonly labels: MetricLabels,
  ) {}

  counter(name: string, help: string): Counter {
    const c = new SimpleCounter();
    this.registry.add({ name, kind: 'counter', help, labels: this.labels, read: () => c.value });
    return c;
  }

  gauge(name: string, help: string, read: () => number): void {
    this.registry.add({ name, kind: 'gauge', help, labels: this.labels, read });
  }

  child(extra: MetricLabels): MetricGroup {
    return new MetricGroup(this.registry, { ...this.labels, ...extra });
  }
}
