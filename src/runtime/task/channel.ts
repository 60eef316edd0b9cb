import type { StreamMessage } from '../../core/messages.js';

/**
 * Either end of a channel: the producer pushes and asks for room, the consumer
 * shifts. Within a thread both ends are one {@link Channel}; between worker
 * threads each end is its own object (see `runtime/workers/peer-channels.ts`).
 */
export interface ChannelEnd<T> {
  hasRoom(): boolean;
  push(message: StreamMessage<T>): void;
  shift(): StreamMessage<T> | undefined;
  /** Consuming end: records of the batches shifted so far (for buffer debloating, `buffer-debloat.ts`). */
  readonly consumedRecords?: number;
  /**
   * Consuming end: from now on the producer may add a batch only while fewer
   * than `limit` records are queued (or in flight); one batch is always
   * admitted into an empty channel, and the batch capacity still applies.
   */
  setRecordLimit?(limit: number): void;
}

/**
 * A bounded FIFO of messages from one producer subtask to one consumer subtask.
 * Capacity counts batches; control messages never block. A producer only runs
 * while every channel it writes to has room, which is how a slow consumer
 * slows its producers down (backpressure) and memory stays bounded. With
 * buffer debloating the consumer also bounds the queued records by how fast
 * it drains them, so a barrier never waits long behind queued data.
 */
export class Channel<T> implements ChannelEnd<T> {
  private items: (StreamMessage<T> | undefined)[] = [];
  private head = 0;
  private batches = 0;
  private records = 0;
  private recordLimit = Number.POSITIVE_INFINITY;
  consumedRecords = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length - this.head;
  }

  /** Records in the queued batches. */
  get queuedRecords(): number {
    return this.records;
  }

  hasRoom(): boolean {
    return this.batches < this.capacity && (this.batches === 0 || this.records < this.recordLimit);
  }

  setRecordLimit(limit: number): void {
    this.recordLimit = limit;
  }

  push(message: StreamMessage<T>): void {
    if (message.kind === 'batch') {
      this.batches++;
      this.records += message.batch.values.length;
    }
    this.items.push(message);
  }

  shift(): StreamMessage<T> | undefined {
    if (this.head >= this.items.length) return undefined;
    const message = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (message?.kind === 'batch') {
      this.batches--;
      const n = message.batch.values.length;
      this.records -= n;
      this.consumedRecords += n;
    }
    return message;
  }
}
