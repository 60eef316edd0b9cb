import { Histogram } from '../../metrics/histogram.js';
import type { MetricRegistry, MetricSample } from '../../metrics/registry.js';
import { workerOf } from './protocol.js';
import type { WorkerThread } from './worker-thread.js';

/**
 * The workers' metrics as the job's registry shows them. Every worker reports
 * the series of all subtasks (zero where it ran none): counters add up,
 * histograms merge, and gauges of a subtask come from the worker running it.
 */
export class WorkerMetrics {
  /** The merged samples: what the series registered in the job's registry read. */
  private merged = new Map<string, MetricSample>();

  constructor(
    /** The job's registry: the workers' metrics appear in it as they report them. */
    private readonly registry: MetricRegistry,
    private readonly workers: readonly WorkerThread[],
  ) {}

  /**
   * Merges the workers' newest samples and registers every series in the
   * job's registry (once; it reads the merged value from then on).
   */
  publish(): void {
    const merged = new Map<string, MetricSample>();
    for (const w of this.workers) {
      for (const sample of w.metrics) {
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
          workerOf(Number(subtask), this.workers.length) === w.index
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
}
