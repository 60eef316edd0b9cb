/**
 * A single-producer, single-consumer ring of messages in a SharedArrayBuffer:
 * one thread writes, one other thread reads, and neither blocks the other.
 * A message is copied once, into the ring, and read where it lies.
 *
 * Layout: a control block of Int32 words (write and read positions, and two
 * "wants a doorbell" flags), then `capacity` bytes of frames. Positions count
 * bytes since the start, modulo 2^32; the capacity is a power of two, so
 * `position & (capacity - 1)` is an offset. A frame is an 8-byte header
 * (payload length, length of the whole message) and the payload padded to 8
 * bytes, always contiguous: when it does not fit before the end, a wrap mark
 * sends the reader back to the start. A message longer than half the ring is
 * cut into several frames (the reader joins them), so any message gets
 * through once the reader has made room.
 */

/** Byte offset of the frames after the control block (keeps frames 8-byte aligned). */
const DATA_START = 64;
const WRITE = 0;
const READ = 1;
/** Set by the reader before it sleeps: the writer rings the doorbell after its next write. */
const READER_WAITING = 2;
/** Set by the writer when the ring was full: the reader rings the doorbell once it has made room. */
const WRITER_WAITING = 3;
const FRAME_HEADER = 8;
/** A frame header's length word that means "continue at the start of the ring". */
const WRAP = 0xffffffff;

const align8 = (n: number) => (n + 7) & ~7;

/** The smallest ring: a few frame headers must always fit. */
export const MIN_RING_BYTES = 256;

/** The shared memory of one ring of `capacity` bytes (a power of two, at least {@link MIN_RING_BYTES}). */
export function createRing(capacity: number): SharedArrayBuffer {
  if (!Number.isInteger(Math.log2(capacity)) || capacity < MIN_RING_BYTES || capacity > 2 ** 30) {
    throw new RangeError(
      `ring capacity must be a power of two between ${MIN_RING_BYTES} and 2^30 bytes, got ${capacity}`,
    );
  }
  return new SharedArrayBuffer(DATA_START + capacity);
}

/**
 * A message to write: chunks laid end to end, each starting at an 8-byte
 * aligned offset of the message (so the reader can view typed-array columns
 * in place).
 */
export type RingMessage = readonly Uint8Array[];

/** Bytes a message takes: each chunk padded to 8. */
export function messageLength(message: RingMessage): number {
  let n = 0;
  for (const chunk of message) n += align8(chunk.byteLength);
  return n;
}

class RingBase {
  protected readonly control: Int32Array;
  protected readonly bytes: Uint8Array;
  protected readonly words: Uint32Array;
  protected readonly capacity: number;
  protected readonly mask: number;

  constructor(protected readonly memory: SharedArrayBuffer) {
    this.capacity = memory.byteLength - DATA_START;
    this.mask = this.capacity - 1;
    this.control = new Int32Array(memory, 0, DATA_START / 4);
    this.bytes = new Uint8Array(memory, DATA_START, this.capacity);
    this.words = new Uint32Array(memory, DATA_START, this.capacity / 4);
  }

  /** Bytes written and not yet read. */
  used(): number {
    return (Atomics.load(this.control, WRITE) - Atomics.load(this.control, READ)) >>> 0;
  }
}

/** The writing end of a ring (one thread). */
export class RingWriter extends RingBase {
  /** The largest frame payload: half the ring less a header, so a frame fits however the ring wraps. */
  private readonly maxPayload: number;
  /** The message being written, when only part of it fit. */
  private current: RingMessage | undefined;
  private currentLength = 0;
  private currentWritten = 0;
  /** How many times a write found the ring too full. */
  fullCount = 0;
  /** Frames written so far (a doorbell is due only after progress). */
  framesWritten = 0;

  constructor(memory: SharedArrayBuffer) {
    super(memory);
    this.maxPayload = this.capacity / 2 - FRAME_HEADER;
  }

  /**
   * Writes `message`, or as much of it as fits. Returns true when all of it is
   * in the ring; false when the ring is full (then call {@link resume} until
   * it returns true before writing anything else).
   */
  write(message: RingMessage): boolean {
    if (this.current !== undefined) throw new Error('a message is still being written');
    this.current = message;
    this.currentLength = messageLength(message);
    this.currentWritten = 0;
    return this.resume();
  }

  /** Goes on with a message that did not fit; true when it is all written (or there was none). */
  resume(): boolean {
    const message = this.current;
    if (message === undefined) return true;
    let w = Atomics.load(this.control, WRITE) >>> 0;
    const r = Atomics.load(this.control, READ) >>> 0;
    let free = this.capacity - ((w - r) >>> 0);
    for (;;) {
      const payload = Math.min(this.currentLength - this.currentWritten, this.maxPayload);
      const need = FRAME_HEADER + align8(payload);
      const at = w & this.mask;
      const toEnd = this.capacity - at;
      if (toEnd < need) {
        if (free < toEnd + need) break;
        this.words[at >>> 2] = WRAP;
        w = (w + toEnd) >>> 0;
        free -= toEnd;
        continue;
      }
      if (free < need) break;
      this.words[at >>> 2] = payload;
      this.words[(at >>> 2) + 1] = this.currentLength;
      copyRange(message, this.currentWritten, payload, this.bytes, at + FRAME_HEADER);
      this.currentWritten += payload;
      this.framesWritten++;
      w = (w + need) >>> 0;
      free -= need;
      // Publish frame by frame: the reader can start on a long message's first parts.
      Atomics.store(this.control, WRITE, w | 0);
      if (this.currentWritten === this.currentLength) {
        this.current = undefined;
        return true;
      }
    }
    Atomics.store(this.control, WRITE, w | 0);
    this.fullCount++;
    return false;
  }

  /** Whether a message is only partly written (the ring was full). */
  get blocked(): boolean {
    return this.current !== undefined;
  }

  /** The reader is asleep and asked to be told of new data: clears the request and returns true. */
  takeReaderWaiting(): boolean {
    return Atomics.exchange(this.control, READER_WAITING, 0) === 1;
  }

  /**
   * Asks the reader to ring the doorbell once it has read. The reader may have
   * made room just before the request: call {@link resume} once more after it.
   */
  waitForRoom(): void {
    Atomics.store(this.control, WRITER_WAITING, 1);
  }
}

/** The reading end of a ring (one thread). */
export class RingReader extends RingBase {
  /** A message arriving in several frames, being joined. */
  private assembly: Uint8Array | undefined;
  private assembled = 0;

  /**
   * Hands each complete message in the ring to `consume`, in order, then
   * frees its space. The view is valid only during the call: `consume` must
   * copy what it keeps. Returns how many messages were consumed.
   */
  drain(consume: (message: Uint8Array) => void): number {
    let count = 0;
    let r = Atomics.load(this.control, READ) >>> 0;
    for (;;) {
      const w = Atomics.load(this.control, WRITE) >>> 0;
      if (r === w) return count;
      const at = r & this.mask;
      const payload = this.words[at >>> 2]!;
      if (payload === WRAP) {
        r = (r + this.capacity - at) >>> 0;
        Atomics.store(this.control, READ, r | 0);
        continue;
      }
      const total = this.words[(at >>> 2) + 1]!;
      const view = this.bytes.subarray(at + FRAME_HEADER, at + FRAME_HEADER + payload);
      const next = (r + FRAME_HEADER + align8(payload)) >>> 0;
      if (payload === total && this.assembly === undefined) {
        try {
          consume(view);
        } finally {
          r = next;
          Atomics.store(this.control, READ, r | 0);
        }
        count++;
        continue;
      }
      this.assembly ??= new Uint8Array(total);
      this.assembly.set(view, this.assembled);
      this.assembled += payload;
      r = next;
      Atomics.store(this.control, READ, r | 0);
      if (this.assembled === this.assembly.byteLength) {
        const whole = this.assembly;
        this.assembly = undefined;
        this.assembled = 0;
        consume(whole);
        count++;
      }
    }
  }

  /** Bytes read since the start, modulo 2^32: it moves whenever the reader makes room. */
  position(): number {
    return Atomics.load(this.control, READ);
  }

  /** Whether nothing is waiting to be read. */
  empty(): boolean {
    return Atomics.load(this.control, WRITE) === Atomics.load(this.control, READ);
  }

  /**
   * Asks the writer to ring the doorbell after its next write. Returns false
   * if data is already there (the reader should read rather than sleep).
   */
  sleep(): boolean {
    Atomics.store(this.control, READER_WAITING, 1);
    // The writer may have written just before the flag was set: look again.
    return this.empty();
  }

  /** The reader is awake (it reads every round): writes need no doorbell. */
  awake(): void {
    Atomics.store(this.control, READER_WAITING, 0);
  }

  /** The writer found the ring full and asked to be told of room: clears the request and returns true. */
  takeWriterWaiting(): boolean {
    return Atomics.exchange(this.control, WRITER_WAITING, 0) === 1;
  }
}

/** Copies bytes [from, from + length) of the message (chunks padded to 8) to `to` at `at`. */
function copyRange(
  message: RingMessage,
  from: number,
  length: number,
  to: Uint8Array,
  at: number,
): void {
  let start = 0;
  for (const chunk of message) {
    if (length === 0) return;
    const padded = align8(chunk.byteLength);
    const end = start + padded;
    if (from < end) {
      const offset = from - start;
      const n = Math.min(length, padded - offset);
      const real = Math.max(0, Math.min(n, chunk.byteLength - offset));
      if (real > 0) to.set(chunk.subarray(offset, offset + real), at);
      // Padding bytes are left as they are: nothing reads them.
      at += n;
      from += n;
      length -= n;
    }
    start = end;
  }
}
