import type { PartitionInfo } from '../client.js';
import type { PartitionTime } from './partition-time.js';

/** Records fetched for one partition and not yet polled. */
export interface Chunk<T> {
  readonly values: T[];
  readonly timestamps: number[];
  readonly offsets: number[];
  /** Position after the whole chunk (skips control batches, aborted and skipped records). */
  readonly end: number;
  /** Under the 'fail' policy: the error to fail with once the records before it are polled. */
  readonly failure: unknown;
  next: number;
}

/** One partition read by a reader: its positions and the records fetched ahead. */
export class Partition<T> {
  /** Offset of the next record `poll` returns: the checkpointed position. */
  position: number;
  /** Next offset to fetch. */
  fetchOffset: number;
  /** Log end (high watermark, or last stable offset for read_committed); -1 until known. */
  endOffset = -1;
  /** Bounded mode: where to stop. */
  stopOffset = Number.POSITIVE_INFINITY;
  readonly chunks: Chunk<T>[] = [];
  buffered = 0;
  readonly time: PartitionTime<T>;

  constructor(
    public info: PartitionInfo,
    offset: number,
    time: PartitionTime<T>,
  ) {
    this.position = offset;
    this.fetchOffset = offset;
    this.time = time;
  }

  get key(): string {
    return `${this.info.topic}:${this.info.partition}`;
  }

  get done(): boolean {
    return this.position >= this.stopOffset;
  }

  caughtUp(): boolean {
    return this.buffered === 0 && this.endOffset >= 0 && this.fetchOffset >= this.endOffset;
  }

  /**
   * The chunk holding the next record to poll, or the failure that comes
   * next; drops used-up chunks first, moving the position past them (past
   * control records and skipped records too). Undefined when nothing is
   * buffered.
   */
  head(): Chunk<T> | undefined {
    for (;;) {
      const chunk = this.chunks[0];
      if (chunk === undefined || chunk.next < chunk.values.length) return chunk;
      if (chunk.failure !== undefined) return chunk;
      this.chunks.shift();
      if (chunk.end > this.position) this.position = chunk.end;
    }
  }

  /** Every record before the stop offset was fetched and polled (bounded mode). */
  exhausted(): boolean {
    return this.head() === undefined && this.fetchOffset >= this.stopOffset;
  }
}
