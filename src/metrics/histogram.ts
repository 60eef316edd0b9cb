/**
 * A histogram with fixed buckets, as Prometheus defines them: each bucket
 * counts observations less than or equal to its upper bound, and an implicit
 * last bucket (+Inf) takes the rest. Observing is a short linear scan and two
 * additions: no allocation.
 */

/** A histogram's state at one moment. `counts` are per bucket (not cumulative); the last is +Inf. */
export interface HistogramSnapshot {
  /** Upper bounds of the buckets, ascending, without +Inf. */
  readonly buckets: readonly number[];
  /** Observations per bucket; one more entry than `buckets` (the +Inf bucket). */
  readonly counts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** Buckets for latencies in seconds: 1 ms to 30 min. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800,
];

/** Buckets for checkpoint phases in seconds: 1 ms to 10 min. */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 600,
];

export class Histogram {
  private readonly bounds: Float64Array;
  private readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(buckets: readonly number[]) {
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i]!;
      if (!Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]!)) {
        throw new Error(`histogram buckets must be finite and ascending, got [${buckets}]`);
      }
    }
    this.bounds = Float64Array.from(buckets);
    this.counts = new Float64Array(buckets.length + 1);
  }

  observe(value: number): void {
    if (Number.isNaN(value)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  snapshot(): HistogramSnapshot {
    return {
      buckets: Array.from(this.bounds),
      counts: Array.from(this.counts),
      sum: this.sum,
      count: this.count,
    };
  }

  /**
   * Takes over the state of `snapshot` (same buckets): a histogram that
   * mirrors one kept elsewhere, such as the sum of the workers' histograms.
   */
  assign(snapshot: HistogramSnapshot): void {
    if (snapshot.counts.length !== this.counts.length) {
      throw new Error('cannot assign a histogram with different buckets');
    }
    this.counts.set(snapshot.counts);
    this.sum = snapshot.sum;
    this.count = snapshot.count;
  }

  /** Adds two snapshots with the same buckets (series of one metric with different labels). */
  static merge(a: HistogramSnapshot, b: HistogramSnapshot): HistogramSnapshot {
    if (a.buckets.length !== b.buckets.length || a.buckets.some((x, i) => x !== b.buckets[i])) {
      throw new Error('cannot merge histograms with different buckets');
    }
    return {
      buckets: a.buckets,
      counts: a.counts.map((c, i) => c + b.counts[i]!),
      sum: a.sum + b.sum,
      count: a.count + b.count,
    };
  }
}

/**
 * Estimates the q-quantile (0..1) of a histogram the way Prometheus'
 * `histogram_quantile` does: linear interpolation inside the bucket holding
 * the rank. Undefined without observations; the highest finite bound when the
 * rank falls in the +Inf bucket.
 */
export function estimateQuantile(h: HistogramSnapshot, q: number): number | undefined {
  if (h.count === 0) return undefined;
  const rank = q * h.count;
  let seen = 0;
  for (let i = 0; i < h.counts.length; i++) {
    const inBucket = h.counts[i]!;
    if (seen + inBucket >= rank && inBucket > 0) {
      if (i === h.buckets.length) return h.buckets[h.buckets.length - 1];
      const upper = h.buckets[i]!;
      const lower = i === 0 ? Math.min(0, upper) : h.buckets[i - 1]!;
      return lower + ((upper - lower) * (rank - seen)) / inBucket;
    }
    seen += inBucket;
  }
  return h.buckets[h.buckets.length - 1];
}
