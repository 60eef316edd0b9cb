/**
 * What operators, sources and sinks see of the job's metrics: a group of
 * series sharing labels (job, operator, subtask, ...). The registry that
 * holds and exports them lives in `metrics/`.
 */

/** A counter incremented by its owner, once per batch on the hot path. */
export interface Counter {
  inc(amount?: number): void;
  readonly value: number;
}

export interface MetricLabels {
  readonly [label: string]: string;
}

/** A histogram's recording side: one observation at a time. */
export interface HistogramRecorder {
  observe(value: number): void;
}

/** Metrics of one scope (an operator subtask, a source), sharing its labels. */
export interface MetricGroup {
  readonly labels: MetricLabels;
  /** A counter incremented by the caller (once per batch on the hot path). */
  counter(name: string, help: string): Counter;
  /** A counter whose (never decreasing) value is read from `read` when exported. */
  counterFrom(name: string, help: string, read: () => number): void;
  /** A value read on demand; it may go up and down. */
  gauge(name: string, help: string, read: () => number): void;
  /** A histogram with the given bucket upper bounds (ascending; +Inf is implied). */
  histogram(name: string, help: string, buckets: readonly number[]): HistogramRecorder;
  /** Removes this group's series of metric `name`, for series that come and go. */
  remove(name: string): boolean;
  /** A group with more labels. */
  child(extra: MetricLabels): MetricGroup;
}
