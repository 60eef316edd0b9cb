import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { END_MESSAGE, IDLE_MESSAGE, type StreamMessage } from '../../core/messages.js';
import type { RecordBatch } from '../../core/record-batch.js';
import type { ChannelEnd } from '../task/channel.js';
import { decodeBatchColumns, type EncodedBatch, encodeBatch } from '../transport/index.js';
import { createRing, type RingMessage, RingReader, RingWriter } from './byte-ring.js';
import type { Wakeup } from './wakeup.js';
import {
  batchFrame,
  controlFrame,
  type ReceivedMessage,
  readFrame,
  type WireMessage,
} from './wire-frames.js';

/**
 * One worker's end of its link to another: a ring it writes, a ring it reads
 * (shared memory, see `byte-ring.ts`) and a message port that only rings a
 * doorbell: when the peer sleeps and data arrives, or when the peer's ring was
 * full and room was made.
 */
export interface PeerLink {
  readonly port: MessagePort;
  readonly outgoing: SharedArrayBuffer;
  readonly incoming: SharedArrayBuffer;
}

/**
 * Bytes of each ring (one per direction and pair of workers). A batch of 512
 * Nexmark bids encodes to about 100 KB, so a ring holds a few channels'
 * worth of in-flight batches; larger batches cross in parts.
 */
export const DEFAULT_RING_BYTES = 1 << 21;

/** The two ends of a new link between two workers. */
export function connectPeers(ringBytes = DEFAULT_RING_BYTES): [PeerLink, PeerLink] {
  const { port1, port2 } = new MessageChannel();
  const aToB = createRing(ringBytes);
  const bToA = createRing(ringBytes);
  return [
    { port: port1, outgoing: aToB, incoming: bToA },
    { port: port2, outgoing: bToA, incoming: aToB },
  ];
}

/** Identifies a channel the same way on both threads: edge index, producer and consumer subtask. */
export function channelId(edge: number, from: number, to: number): string {
  return `${edge}/${from}/${to}`;
}

/** Write at least this often while the executor is busy (ms): bounds the delay a queue adds. */
const POST_INTERVAL_MS = 1;
/** Write as soon as this many batches are queued. */
const POST_BATCHES = 4;

/** An outgoing message before it is written: batches are encoded (bad records fail at once), not yet framed. */
type Outgoing =
  | WireMessage
  | { readonly t: 'batch'; readonly ch: string; readonly encoded: EncodedBatch };

/**
 * The channels between this worker and one other worker, all carried by one
 * pair of shared-memory rings. Outgoing messages are queued and written
 * together: when the executor is about to wait (nothing else can happen
 * before the peer answers), when a few batches are queued, when a barrier,
 * idle mark or end is queued, or a millisecond after the last write, so a
 * channel's watermark can replace its previous one if nothing of that channel
 * was queued after it. A batch is encoded into columns (`runtime/transport`)
 * and its columns are copied once, into the ring; the receiver decodes them
 * where they lie. A write costs no message: the peer reads its ring every
 * executor round, and only a peer that sleeps is woken through the port.
 * When the ring is full, frames wait here in order (barriers too, behind the
 * data before them) and are written as the peer makes room.
 * Flow control is credit based: a sender has `capacity` credits per channel,
 * spends one per batch, and gets it back when the receiver has taken the
 * batch off its queue; so at most `capacity` batches per channel are in
 * flight or queued, whatever the speed difference between the threads.
 * With buffer debloating the receiver also sends, with its credits, a bound
 * on the records in flight (what it drains within the target time), and the
 * sender sends a batch only while fewer are in flight (or none at all).
 */
export class PeerChannels {
  private outbox: Outgoing[] = [];
  /** Per channel, the index in the outbox of its last message if that is a watermark. */
  private readonly lastWatermark = new Map<string, number>();
  /** Frames that did not fit in the ring yet, oldest first (the writer may hold a part of one more). */
  private readonly pending: RingMessage[] = [];
  private pendingHead = 0;
  private queuedBatches = 0;
  private urgent = false;
  private lastPost = 0;
  private readonly senders = new Map<string, RemoteSender>();
  private readonly receivers = new Map<string, RemoteReceiver>();
  private readonly port: MessagePort;
  private readonly writer: RingWriter;
  private readonly reader: RingReader;

  constructor(
    link: PeerLink,
    private readonly wakeup: Wakeup,
  ) {
    this.port = link.port;
    this.writer = new RingWriter(link.outgoing);
    this.reader = new RingReader(link.incoming);
    // The doorbell: data for a sleeping executor, or room for frames waiting here. Handled
    // on the event loop, so frames move on even while the executor is not running (closing).
    this.port.on('message', () => {
      this.pump();
      if (this.poll()) this.wakeup.notify();
    });
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
  sendBatch(ch: string, batch: RecordBatch<unknown>): void {
    const encoded = encodeBatch(batch);
    this.lastWatermark.delete(ch);
    this.outbox.push({ t: 'batch', ch, encoded });
    this.queuedBatches++;
  }

  /**
   * Reads what the peer wrote to the ring, without waiting for the event
   * loop. Returns whether anything arrived.
   */
  poll(): boolean {
    // Awake again: a flag left from the last sleep would make every write ring a doorbell.
    this.reader.awake();
    const before = this.reader.position();
    const n = this.reader.drain((bytes) => this.receive(readFrame(bytes)));
    // The peer's frames waited for room: tell it there is some now (parts of a long
    // message make room too, before the message is complete).
    if (this.reader.position() !== before && this.reader.takeWriterWaiting())
      this.port.postMessage(0);
    return n > 0;
  }

  /**
   * Writes what was queued since the last write, if it is time to (see the
   * class comment) or `now` is set; returns whether anything was written.
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
    if (this.outbox.length === 0) return this.pump();
    for (const m of this.outbox) {
      this.pending.push(m.t === 'batch' ? batchFrame(m.ch, m.encoded) : controlFrame(m));
    }
    this.outbox = [];
    return this.pump();
  }

  /**
   * The executor is about to sleep. Returns false if it should not (data has
   * arrived since the last poll); otherwise the peer will ring the doorbell
   * when it writes, or when it makes room for frames still waiting here.
   */
  prepareToSleep(): boolean {
    if (this.writer.blocked || this.pendingHead < this.pending.length) {
      this.writer.waitForRoom();
      this.pump();
    }
    return this.reader.sleep();
  }

  /** Writes waiting frames into the ring, in order, as far as they fit; true if any progress was made. */
  private pump(): boolean {
    const before = this.writer.framesWritten;
    for (;;) {
      if (this.writer.resume()) {
        const next = this.pending[this.pendingHead];
        if (next === undefined) break;
        this.pending[this.pendingHead++] = undefined as never;
        if (this.writer.write(next)) continue;
      }
      // Full. The peer may have made room just before the request: try once more.
      this.writer.waitForRoom();
      if (!this.writer.resume()) break;
    }
    if (this.pendingHead === this.pending.length) {
      this.pending.length = 0;
      this.pendingHead = 0;
    }
    const progressed = this.writer.framesWritten !== before;
    if (progressed && this.writer.takeReaderWaiting()) this.port.postMessage(0);
    return progressed;
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

  /** How many times a write to the peer found the ring full. */
  ringFullCount(): number {
    return this.writer.fullCount;
  }

  close(): void {
    this.port.close();
  }

  private receive(m: ReceivedMessage): void {
    if (m.t === 'credit') {
      this.senders.get(m.ch)?.credit(m.n, m.r, m.limit);
      return;
    }
    const r = this.receivers.get(m.ch);
    if (r === undefined) throw new Error(`message for unknown channel ${m.ch}`);
    switch (m.t) {
      case 'batch':
        // Decoded before the frame's space is released: the columns are views of the ring.
        r.deliver({ kind: 'batch', batch: decodeBatchColumns(m.header, m.columns) });
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
}

/**
 * Batches smaller than this are gathered per channel until the end of the
 * executor round: keyed exchanges and window firings emit many small batches,
 * and each sent batch has a fixed cost (encoding its header, a frame).
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
