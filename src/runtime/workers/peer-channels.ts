import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { END_MESSAGE, IDLE_MESSAGE, type StreamMessage } from '../../core/messages.js';
import type { RecordBatch } from '../../core/record-batch.js';
import type { ChannelEnd } from '../task/channel.js';
import { decodeBatch, type EncodedBatch, encodeBatch } from '../transport/index.js';
import type { Wakeup } from './wakeup.js';

/**
 * How batches cross threads: typed-array columns transferred (moved, not
 * copied) with the message, see `runtime/transport`. Structured cloning an
 * array of objects costs about a microsecond per record; moving a column's
 * buffer costs nothing per record.
 */
export interface BatchCodec {
  encode(batch: RecordBatch<unknown>): { encoded: EncodedBatch; transfer: ArrayBuffer[] };
  decode(encoded: EncodedBatch): RecordBatch<unknown>;
}

/** The codec workers use: columns of typed arrays, their buffers transferred. */
export const columnarCodec: BatchCodec = {
  encode(batch) {
    const encoded = encodeBatch(batch);
    return { encoded, transfer: encoded.buffers };
  },
  decode: (encoded) => decodeBatch(encoded),
};

/**
 * What travels on the port between two workers. Data and control messages of
 * a channel share the port, so they arrive in the order they were sent.
 */
type WireMessage =
  | { readonly t: 'batch'; readonly ch: string; readonly batch: EncodedBatch }
  | { readonly t: 'watermark'; readonly ch: string; readonly time: number }
  | { readonly t: 'idle'; readonly ch: string }
  | {
      readonly t: 'barrier';
      readonly ch: string;
      readonly checkpointId: number;
      readonly savepoint: boolean;
      readonly stop: boolean;
    }
  | { readonly t: 'end'; readonly ch: string }
  /**
   * The receiver consumed `n` batches (`r` records) of the channel: the sender
   * may send `n` more; `limit`, when set, is the receiver's new bound on the
   * records in flight (buffer debloating).
   */
  | {
      readonly t: 'credit';
      readonly ch: string;
      readonly n: number;
      readonly r: number;
      readonly limit?: number;
    };

/** Identifies a channel the same way on both threads: edge index, producer and consumer subtask. */
export function channelId(edge: number, from: number, to: number): string {
  return `${edge}/${from}/${to}`;
}

/** Post at least this often while the executor is busy (ms): bounds the delay a queue adds. */
const POST_INTERVAL_MS = 1;
/** Post as soon as this many batches are queued. */
const POST_BATCHES = 4;

/**
 * The channels between this worker and one other worker, all carried by one
 * message port (this object is this worker's end of it). Outgoing messages are queued and posted together: when the
 * executor is about to wait (nothing else can happen before the peer
 * answers), when a few batches are queued, when a barrier, idle mark or end
 * is queued, or a millisecond after the last post. A post costs tens of
 * microseconds whatever it carries, and a busy source emits a batch and a
 * watermark every round: posting every round cost more than the records.
 * A watermark replaces the channel's previous one if nothing of that channel
 * was queued after it.
 * Flow control is credit based: a sender has `capacity` credits per channel,
 * spends one per batch, and gets it back when the receiver has taken the
 * batch off its queue; so at most `capacity` batches per channel are in
 * flight or queued, whatever the speed difference between the threads.
 * With buffer debloating the receiver also sends, with its credits, a bound
 * on the records in flight (what it drains within the target time), and the
 * sender sends a batch only while fewer are in flight (or none at all).
 */
export class PeerChannels {
  private outbox: WireMessage[] = [];
  private transfer: ArrayBuffer[] = [];
  /** Per channel, the index in the outbox of its last message if that is a watermark. */
  private readonly lastWatermark = new Map<string, number>();
  private queuedBatches = 0;
  private urgent = false;
  private lastPost = 0;
  private readonly senders = new Map<string, RemoteSender>();
  private readonly receivers = new Map<string, RemoteReceiver>();

  constructor(
    private readonly port: MessagePort,
    private readonly wakeup: Wakeup,
    private readonly codec: BatchCodec = columnarCodec,
  ) {
    port.on('message', (messages: WireMessage[]) => this.receive(messages));
  }

  /** `initialRecordLimit`: the sender's bound on records in flight until the receiver sends its own (buffer debloating). */
  sender(
    ch: string,
    capacity: number,
    initialRecordLimit = Number.POSITIVE_INFINITY,
  ): ChannelEnd<unknown> {
    const s = new RemoteSender(this, ch, capacity, initialRecordLimit);
    this.senders.set(ch, s);
    return s;
  }

  receiver(ch: string): ChannelEnd<unknown> {
    const r = new RemoteReceiver(this, ch);
    this.receivers.set(ch, r);
    return r;
  }

  /** @internal */
  send(message: WireMessage): void {
    if (message.t === 'watermark') {
      const at = this.lastWatermark.get(message.ch);
      if (at !== undefined) {
        this.outbox[at] = message;
        return;
      }
      this.lastWatermark.set(message.ch, this.outbox.length);
    } else {
      this.lastWatermark.delete(message.ch);
      if (message.t !== 'credit') this.urgent = true;
    }
    this.outbox.push(message);
  }

  /** @internal */
  sendBatch(ch: string, batch: Parameters<BatchCodec['encode']>[0]): void {
    const { encoded, transfer } = this.codec.encode(batch);
    this.lastWatermark.delete(ch);
    this.outbox.push({ t: 'batch', ch, batch: encoded });
    this.queuedBatches++;
    for (const b of transfer) this.transfer.push(b);
  }

  /**
   * Takes what the peer sent off the port now, without waiting for the event
   * loop: a busy executor yields to it only every few milliseconds, and data
   * and credits must not wait that long. Returns whether anything arrived.
   */
  poll(): boolean {
    let any = false;
    for (;;) {
      const received = receiveMessageOnPort(this.port);
      if (received === undefined) return any;
      this.receive(received.message as WireMessage[]);
      any = true;
    }
  }

  /**
   * Posts what was queued since the last post, if it is time to (see the
   * class comment) or `now` is set; returns whether anything was posted.
   */
  flush(now = false): boolean {
    if (!now && !this.urgent && this.queuedBatches < POST_BATCHES) {
      if (performance.now() - this.lastPost < POST_INTERVAL_MS && !this.creditsPressing())
        return false;
    }
    for (const s of this.senders.values()) s.seal();
    for (const r of this.receivers.values()) r.returnCredits();
    this.lastPost = performance.now();
    this.urgent = false;
    this.queuedBatches = 0;
    this.lastWatermark.clear();
    if (this.outbox.length === 0) return false;
    this.port.postMessage(this.outbox, this.transfer);
    this.outbox = [];
    this.transfer = [];
    return true;
  }

  /** Some channel has consumed enough batches that its sender may be waiting for the credits. */
  private creditsPressing(): boolean {
    for (const r of this.receivers.values()) if (r.batchesSinceCredit >= POST_BATCHES) return true;
    return false;
  }

  /** The most batches any one channel to the peer ever had sent and not yet consumed. */
  peakInFlight(): number {
    let n = 0;
    for (const s of this.senders.values()) n = Math.max(n, s.peakInFlight);
    return n;
  }

  close(): void {
    this.port.close();
  }

  private receive(messages: WireMessage[]): void {
    for (const m of messages) {
      if (m.t === 'credit') {
        this.senders.get(m.ch)?.credit(m.n, m.r, m.limit);
        continue;
      }
      const r = this.receivers.get(m.ch);
      if (r === undefined) throw new Error(`message for unknown channel ${m.ch}`);
      switch (m.t) {
        case 'batch':
          r.deliver({ kind: 'batch', batch: this.codec.decode(m.batch) });
          break;
        case 'watermark':
          r.deliver({ kind: 'watermark', time: m.time });
          break;
        case 'idle':
          r.deliver(IDLE_MESSAGE);
          break;
        case 'barrier':
          r.deliver({
            kind: 'barrier',
            checkpointId: m.checkpointId,
            savepoint: m.savepoint,
            stop: m.stop,
          });
          break;
        case 'end':
          r.deliver(END_MESSAGE);
          break;
      }
    }
    this.wakeup.notify();
  }
}

/**
 * Batches smaller than this are gathered per channel until the end of the
 * executor round: keyed exchanges and window firings emit many small batches,
 * and each sent batch has a fixed cost (encoding its header, a transfer).
 */
const GATHER_BELOW = 512;

/** The producing end of a channel to a subtask on another thread. */
class RemoteSender implements ChannelEnd<unknown> {
  inFlight = 0;
  peakInFlight = 0;
  private inFlightRecords = 0;
  private values: unknown[] = [];
  private timestamps: number[] = [];
  private keys: unknown[] | undefined;

  constructor(
    private readonly link: PeerChannels,
    private readonly ch: string,
    private readonly capacity: number,
    private recordLimit: number,
  ) {}

  hasRoom(): boolean {
    return (
      this.inFlight < this.capacity &&
      (this.inFlight === 0 || this.inFlightRecords < this.recordLimit)
    );
  }

  /** The receiver took `batches` batches holding `records` records; `limit` is its new bound, if any. */
  credit(batches: number, records: number, limit: number | undefined): void {
    this.inFlight -= batches;
    this.inFlightRecords -= records;
    if (limit !== undefined) this.recordLimit = limit;
  }

  push(message: StreamMessage<unknown>): void {
    const ch = this.ch;
    if (message.kind === 'batch') {
      this.gather(message.batch);
      return;
    }
    // Control messages follow the records before them.
    this.seal();
    switch (message.kind) {
      case 'watermark':
        this.link.send({ t: 'watermark', ch, time: message.time });
        break;
      case 'idle':
        this.link.send({ t: 'idle', ch });
        break;
      case 'barrier':
        this.link.send({
          t: 'barrier',
          ch,
          checkpointId: message.checkpointId,
          savepoint: message.savepoint,
          stop: message.stop,
        });
        break;
      case 'end':
        this.link.send({ t: 'end', ch });
        break;
    }
  }

  private gather(batch: RecordBatch<unknown>): void {
    const pending = this.values.length;
    if (pending > 0 && (batch.keys === undefined) !== (this.keys === undefined)) this.seal();
    if (this.values.length === 0 && batch.values.length >= GATHER_BELOW) {
      this.send(batch);
      return;
    }
    const { values, timestamps, keys } = batch;
    if (this.values.length === 0 && keys !== undefined) this.keys = [];
    for (let i = 0; i < values.length; i++) {
      this.values.push(values[i]);
      this.timestamps.push(timestamps[i]!);
    }
    if (keys !== undefined) for (const k of keys) this.keys!.push(k);
    if (this.values.length >= GATHER_BELOW) this.seal();
  }

  /** Sends the gathered records as one batch. */
  seal(): void {
    if (this.values.length === 0) return;
    const batch = { values: this.values, timestamps: this.timestamps, keys: this.keys };
    this.values = [];
    this.timestamps = [];
    this.keys = undefined;
    this.send(batch);
  }

  private send(batch: RecordBatch<unknown>): void {
    if (++this.inFlight > this.peakInFlight) this.peakInFlight = this.inFlight;
    this.inFlightRecords += batch.values.length;
    this.link.sendBatch(this.ch, batch);
  }

  shift(): undefined {
    throw new Error('the sending end of a channel cannot be read');
  }
}

/** The consuming end of a channel from a subtask on another thread. */
class RemoteReceiver implements ChannelEnd<unknown> {
  private queue: StreamMessage<unknown>[] = [];
  private head = 0;
  private consumed = 0;
  private consumedSinceCredit = 0;
  consumedRecords = 0;
  /** A record limit not yet sent to the sender. */
  private limitToSend: number | undefined;
  private limitSent = Number.POSITIVE_INFINITY;

  get batchesSinceCredit(): number {
    return this.consumed;
  }

  constructor(
    private readonly link: PeerChannels,
    private readonly ch: string,
  ) {}

  deliver(message: StreamMessage<unknown>): void {
    this.queue.push(message);
  }

  hasRoom(): boolean {
    return true;
  }

  push(): void {
    throw new Error('the receiving end of a channel cannot be written');
  }

  shift(): StreamMessage<unknown> | undefined {
    if (this.head >= this.queue.length) return undefined;
    const message = this.queue[this.head]!;
    this.queue[this.head++] = undefined as never;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    if (message.kind === 'batch') {
      this.consumed++;
      const n = message.batch.values.length;
      this.consumedSinceCredit += n;
      this.consumedRecords += n;
    }
    return message;
  }

  /** Sent with the next credits: the sender needs it only once it has something in flight, so credits follow. */
  setRecordLimit(limit: number): void {
    this.limitToSend = limit === this.limitSent ? undefined : limit;
  }

  returnCredits(): void {
    if (this.consumed === 0) return;
    const limit = this.limitToSend;
    this.link.send({
      t: 'credit',
      ch: this.ch,
      n: this.consumed,
      r: this.consumedSinceCredit,
      ...(limit === undefined ? {} : { limit }),
    });
    if (limit !== undefined) this.limitSent = limit;
    this.limitToSend = undefined;
    this.consumed = 0;
    this.consumedSinceCredit = 0;
  }
}
