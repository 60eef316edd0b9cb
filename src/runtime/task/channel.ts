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
}

/**
 * A bounded FIFO of messages from one producer subtask to one consumer subtask.
 * Capacity counts batches; control messages never block. A producer only runs
 * while every channel it writes to has room, which is how a slow consumer
 * slows its producers down (backpressure) and memory stays bounded.
 */
export class Channel<T> implements ChannelEnd<T> {
  private items: (StreamMessage<T> | undefined)[] = [];
  private head = 0;
  private batches = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length - this.head;
  }

  hasRoom(): boolean {
    return this.batches < this.capacity;
  }

  push(message: StreamMessage<T>): void {
    if (message.kind === 'batch') this.batches++;
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
    if (message?.kind === 'batch') this.batches--;
    return message;
  }
}
