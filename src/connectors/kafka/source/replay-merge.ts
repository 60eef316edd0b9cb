/**
 * The deterministic poll of a replayed Kafka source: what it emits depends on
 * the records in the range alone, never on when fetches complete.
 */
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Partition } from './partition-buffer.js';

type Next<T> =
  | {
      readonly kind: 'take';
      readonly partition: Partition<T>;
      /** The smallest head time among the other partitions (+infinity if none). */
      readonly limit: number;
      /** Whether `partition` wins a tie at `limit` (it comes first in order). */
      readonly winsTie: boolean;
    }
  | { readonly kind: 'wait' }
  | { readonly kind: 'end' }
  | { readonly kind: 'fail'; readonly failure: unknown };

/**
 * Merges the partitions of a replay into batches.
 *
 * Rule: the next record is the head of the partition whose head has the
 * smallest event time, ties going to the partition first in (topic, partition)
 * order. When a partition that is not exhausted has nothing buffered, the
 * merge waits for it rather than taking from another partition, so the order
 * never depends on fetch timing. Batches hold exactly `batchSize` records
 * (the last one fewer), built across polls.
 *
 * Event time: each partition keeps its own generator, as in streaming. After
 * each batch, every generator's periodic emission runs (once per batch
 * instead of by the clock), and the watermark becomes the minimum over the
 * partitions not yet exhausted. A batch is only emitted once every partition
 * has its next record buffered or is known to be exhausted, so which
 * partitions count is itself decided by the data.
 */
export class ReplayMerge<T> {
  private values: T[] = [];
  private timestamps: number[] = [];
  /** The watermark after the last emitted batch. */
  watermark = Number.NEGATIVE_INFINITY;
  /** Positions after the last emitted batch, for checkpoints. */
  private emitted: Map<string, number>;

  /**
   * @param partitions In (topic, partition) order.
   * @param taken Called for every record moved out of a partition's buffer.
   */
  constructor(
    private readonly partitions: readonly Partition<T>[],
    private readonly batchSize: number,
    private readonly now: () => number,
    private readonly taken: (p: Partition<T>) => void,
  ) {
    this.emitted = this.positions();
  }

  /** The next batch, `'wait'` until the partitions it needs have data, or `'end'`. */
  poll(): RecordBatch<T> | 'wait' | 'end' {
    const now = this.now();
    for (;;) {
      const next = this.pick();
      if (next.kind === 'wait') return 'wait';
      if (next.kind === 'take' && this.values.length < this.batchSize) {
        this.takeRun(next, now);
        continue;
      }
      // A full batch, the end of the input, or a bad record failing the job
      // after the records before it.
      if (this.values.length > 0) return this.emit();
      if (next.kind === 'fail') throw next.failure;
      return 'end';
    }
  }

  /** Whether `poll` can make progress now. */
  ready(): boolean {
    return this.pick().kind !== 'wait';
  }

  /** Positions of the records emitted so far (a restored replay resumes at a batch boundary). */
  position(): ReadonlyMap<string, number> {
    return this.emitted;
  }

  /**
   * What comes next: `wait` while a partition that is not exhausted has
   * nothing buffered, else the failure a partition holds next, else the
   * partition to take from, else `end`.
   */
  private pick(): Next<T> {
    let best: Partition<T> | undefined;
    let bestTime = Number.POSITIVE_INFINITY;
    let bestIndex = -1;
    let secondTime = Number.POSITIVE_INFINITY;
    let secondIndex = -1;
    let failure: { readonly kind: 'fail'; readonly failure: unknown } | undefined;
    for (let i = 0; i < this.partitions.length; i++) {
      const p = this.partitions[i]!;
      const head = p.head();
      if (head === undefined) {
        if (p.fetchOffset >= p.stopOffset) continue;
        return { kind: 'wait' };
      }
      if (head.next >= head.values.length) {
        failure ??= { kind: 'fail', failure: head.failure };
        continue;
      }
      const t = head.timestamps[head.next]!;
      if (best === undefined || t < bestTime) {
        secondTime = bestTime;
        secondIndex = bestIndex;
        best = p;
        bestTime = t;
        bestIndex = i;
      } else if (t < secondTime) {
        secondTime = t;
        secondIndex = i;
      }
    }
    if (failure !== undefined) return failure;
    if (best === undefined) return { kind: 'end' };
    return {
      kind: 'take',
      partition: best,
      limit: secondTime,
      winsTie: secondIndex < 0 || bestIndex < secondIndex,
    };
  }

  /**
   * Takes records from the chosen partition for as long as the rule would
   * keep choosing it: its next record stays ahead of every other head (the
   * other heads do not change meanwhile). Stops when the batch is full or the
   * partition's buffer runs dry or holds a failure; `pick` decides then.
   */
  private takeRun(next: Extract<Next<T>, { kind: 'take' }>, now: number): void {
    const { partition: p, limit, winsTie } = next;
    let taken = 0;
    for (;;) {
      const chunk = p.head();
      if (chunk === undefined || chunk.next >= chunk.values.length) break;
      const i = chunk.next;
      const ts = chunk.timestamps[i]!;
      // The first record was chosen by `pick`; later ones must still win.
      if (taken > 0 && !(ts < limit || (ts === limit && winsTie))) break;
      chunk.next++;
      const value = chunk.values[i]!;
      this.values.push(value);
      this.timestamps.push(ts);
      p.time.onRecord(value, ts, now);
      p.position = chunk.offsets[i]! + 1;
      p.buffered--;
      this.taken(p);
      taken++;
      if (this.values.length >= this.batchSize) break;
    }
  }

  private emit(): RecordBatch<T> {
    let min = Number.POSITIVE_INFINITY;
    for (const p of this.partitions) {
      p.time.periodic();
      // Exhausted partitions no longer hold event time back; neither does one
      // whose generator marked it idle (generators decide that from records).
      if (p.exhausted() || p.time.idle(false, 0, undefined, this.watermark)) continue;
      if (p.time.watermark < min) min = p.time.watermark;
    }
    if (min !== Number.POSITIVE_INFINITY && min > this.watermark) this.watermark = min;
    const batch: RecordBatch<T> = {
      values: this.values,
      timestamps: this.timestamps,
      keys: undefined,
    };
    this.values = [];
    this.timestamps = [];
    this.emitted = this.positions();
    return batch;
  }

  private positions(): Map<string, number> {
    return new Map(this.partitions.map((p) => [p.key, p.position]));
  }
}
