/**
 * What an async operator holds between a record's arrival and its results'
 * departure, and in which order things may leave.
 */

/** Event-time and end-of-input markers, held back behind the records before them. */
export type AsyncMarker =
  | { readonly kind: 'watermark'; readonly time: number }
  | { readonly kind: 'idle' }
  | { readonly kind: 'end' };

/** One input record and the state of its request. */
export interface AsyncEntry<IN, OUT> {
  readonly kind: 'record';
  readonly value: IN;
  readonly timestamp: number;
  /** Set when the results are in: the record may leave. */
  results: readonly OUT[] | undefined;
  /** The unordered queue's segment holding the entry. */
  segment?: Segment<IN, OUT>;
}

export type QueueItem<IN, OUT> = AsyncEntry<IN, OUT> | AsyncMarker;

export interface ResultQueue<IN, OUT> {
  /** Records held (in flight, waiting or completed but not yet emitted). */
  readonly records: number;
  /** Whether nothing at all is held. */
  readonly empty: boolean;
  addRecord(entry: AsyncEntry<IN, OUT>): void;
  addMarker(marker: AsyncMarker): void;
  /** `entry.results` has just been set. */
  completed(entry: AsyncEntry<IN, OUT>): void;
  /** Hands every item that may leave now to `emit`, in departure order, and forgets it. */
  drain(emit: (item: QueueItem<IN, OUT>) => void): void;
  /** Everything held, in input order (for snapshots). */
  items(): QueueItem<IN, OUT>[];
}

/** Results leave in input order: only the head may leave, once complete. */
export class OrderedQueue<IN, OUT> implements ResultQueue<IN, OUT> {
  private queue: (QueueItem<IN, OUT> | undefined)[] = [];
  private head = 0;
  records = 0;

  get empty(): boolean {
    return this.head === this.queue.length;
  }

  addRecord(entry: AsyncEntry<IN, OUT>): void {
    this.queue.push(entry);
    this.records++;
  }

  addMarker(marker: AsyncMarker): void {
    this.queue.push(marker);
  }

  completed(): void {}

  drain(emit: (item: QueueItem<IN, OUT>) => void): void {
    const q = this.queue;
    while (this.head < q.length) {
      const item = q[this.head]!;
      if (item.kind === 'record') {
        if (item.results === undefined) break;
        this.records--;
      }
      q[this.head++] = undefined;
      emit(item);
    }
    if (this.head === q.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > q.length) {
      this.queue = q.slice(this.head);
      this.head = 0;
    }
  }

  items(): QueueItem<IN, OUT>[] {
    return this.queue.slice(this.head) as QueueItem<IN, OUT>[];
  }
}

/** Records between two markers: they may leave in any order, the marker only after all of them. */
interface Segment<IN, OUT> {
  /** Records not yet emitted, in input order. */
  readonly held: Set<AsyncEntry<IN, OUT>>;
  /** Completed records, in completion order. */
  done: AsyncEntry<IN, OUT>[];
  marker: AsyncMarker | undefined;
}

/**
 * Results leave as they complete, within the segment between two markers: a
 * watermark leaves after every record before it, and records after it wait
 * until it has left.
 */
export class UnorderedQueue<IN, OUT> implements ResultQueue<IN, OUT> {
  private readonly segments: Segment<IN, OUT>[] = [];
  records = 0;

  get empty(): boolean {
    return this.segments.length === 0;
  }

  private last(): Segment<IN, OUT> {
    let last = this.segments[this.segments.length - 1];
    if (last === undefined || last.marker !== undefined) {
      last = { held: new Set(), done: [], marker: undefined };
      this.segments.push(last);
    }
    return last;
  }

  addRecord(entry: AsyncEntry<IN, OUT>): void {
    const segment = this.last();
    segment.held.add(entry);
    entry.segment = segment;
    this.records++;
  }

  addMarker(marker: AsyncMarker): void {
    this.last().marker = marker;
  }

  completed(entry: AsyncEntry<IN, OUT>): void {
    entry.segment?.done.push(entry);
  }

  drain(emit: (item: QueueItem<IN, OUT>) => void): void {
    for (;;) {
      const first = this.segments[0];
      if (first === undefined) return;
      if (first.done.length > 0) {
        const done = first.done;
        first.done = [];
        for (const entry of done) {
          first.held.delete(entry);
          entry.segment = undefined;
          this.records--;
          emit(entry);
        }
      }
      if (first.held.size > 0) return;
      this.segments.shift();
      if (first.marker === undefined) return; // the open segment, now empty
      emit(first.marker);
    }
  }

  items(): QueueItem<IN, OUT>[] {
    const out: QueueItem<IN, OUT>[] = [];
    for (const s of this.segments) {
      out.push(...s.held);
      if (s.marker !== undefined) out.push(s.marker);
    }
    return out;
  }
}
