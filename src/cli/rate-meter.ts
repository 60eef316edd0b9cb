/**
 * Turns a monotonically growing total (such as `weir_source_records_total`)
 * into a per-second rate over a short trailing window, so a live display
 * neither jumps with every batch nor lags far behind a change in throughput.
 */
export class RateMeter {
  private readonly samples: { time: number; total: number }[] = [];

  constructor(private readonly windowMs = 1000) {}

  /** Records `total` as of `now` (ms) and returns the rate per second over the window. */
  sample(total: number, now: number): number {
    this.samples.push({ time: now, total });
    // Keep one sample at or before the window start so the span covers the whole window.
    while (this.samples.length > 2 && this.samples[1]!.time <= now - this.windowMs) {
      this.samples.shift();
    }
    const first = this.samples[0]!;
    const span = now - first.time;
    return span <= 0 ? 0 : ((total - first.total) * 1000) / span;
  }
}
