/**
 * Event time across a repartition topic. Every producing task writes its
 * watermark into every partition of the topic (as Flink's Kafka shuffle
 * does), so each partition carries the progress of all producers. A
 * consuming task's watermark is the minimum over the producers it knows,
 * skipping those that declared themselves idle; a producer that has not
 * spoken yet holds the watermark back, since its records may still come.
 */

/** What one producer last said in one partition. */
export type ProducerMark =
  | { readonly kind: 'watermark'; readonly watermark: number }
  | { readonly kind: 'idle' };

/** The watermark of one partition of a repartition topic, as its consumer sees it. */
export class RepartitionWatermark {
  private readonly marks = new Map<string, ProducerMark>();
  private emitted = Number.NEGATIVE_INFINITY;

  /** `producers`: the tasks of the producing stage (one per partition of its input). */
  constructor(private readonly producers: readonly string[]) {}

  /** Records what `producer` wrote; a producer outside the known set is an error in the topic's use. */
  observe(producer: string, mark: ProducerMark): void {
    if (!this.producers.includes(producer))
      throw new Error(
        `watermark from unknown producer task '${producer}' (known: ${this.producers.join(', ')})`,
      );
    const before = this.marks.get(producer);
    // A producer's watermark never goes back, even if a restarted task replays an older one.
    if (
      mark.kind === 'watermark' &&
      before?.kind === 'watermark' &&
      mark.watermark < before.watermark
    )
      return;
    this.marks.set(producer, mark);
  }

  /**
   * The partition's watermark: the minimum over active producers, never
   * lower than one returned before; -Infinity until every producer has spoken.
   */
  current(): number {
    let min = Number.POSITIVE_INFINITY;
    let active = 0;
    for (const p of this.producers) {
      const m = this.marks.get(p);
      if (m === undefined) return this.emitted;
      if (m.kind === 'idle') continue;
      active++;
      if (m.watermark < min) min = m.watermark;
    }
    if (active > 0 && min > this.emitted) this.emitted = min;
    return this.emitted;
  }

  /** Every producer has spoken and all of them are idle: this partition holds nothing back. */
  idle(): boolean {
    return this.producers.every((p) => this.marks.get(p)?.kind === 'idle');
  }
}
