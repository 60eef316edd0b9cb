/**
 * The messages two workers exchange through their rings, and their bytes: an
 * 8-byte prefix with the length of a JSON description, the description, then
 * (for a batch) the encoded batch's columns, each 8-byte aligned so the
 * receiver decodes them in place. A batch's description is its column
 * header (a few dozen bytes whatever the number of records).
 */
import { WeirError } from '../../core/errors.js';
import type { EncodedBatch } from '../transport/index.js';
import type { RingMessage } from './byte-ring.js';

/** A batch's column header: an {@link EncodedBatch} without its buffers. */
export type BatchHeader = Omit<EncodedBatch, 'buffers'>;

/**
 * What travels between two workers. Data and control messages of a channel
 * share one ring, so they arrive in the order they were sent.
 */
export type WireMessage =
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

/** A batch as it is described in its frame: the header and the byte length of each column. */
interface BatchDescription {
  readonly t: 'batch';
  readonly ch: string;
  readonly header: BatchHeader;
  readonly sizes: readonly number[];
}

/** A message read from a ring: control messages as sent, batches as a header and column views. */
export type ReceivedMessage =
  | WireMessage
  | {
      readonly t: 'batch';
      readonly ch: string;
      readonly header: BatchHeader;
      /** Views of the ring, valid only until the frame is released. */
      readonly columns: readonly Uint8Array[];
    };

const align8 = (n: number) => (n + 7) & ~7;

function prefixed(description: object): Uint8Array[] {
  const text = Buffer.from(JSON.stringify(description), 'utf8');
  const prefix = new Uint8Array(8);
  const n = text.byteLength;
  prefix[0] = n & 0xff;
  prefix[1] = (n >>> 8) & 0xff;
  prefix[2] = (n >>> 16) & 0xff;
  prefix[3] = n >>> 24;
  return [prefix, text];
}

/** JSON has no infinities; watermarks have (end of input) and so may record limits: sent as strings. */
const finite = (x: number): number | string => (Number.isFinite(x) ? x : String(x));
const fromJson = (x: number | string): number => (typeof x === 'string' ? Number(x) : x);

/** The frame of a control message. */
export function controlFrame(message: WireMessage): RingMessage {
  if (message.t === 'watermark') return prefixed({ ...message, time: finite(message.time) });
  if (message.t === 'credit' && message.limit !== undefined)
    return prefixed({ ...message, limit: finite(message.limit) });
  return prefixed(message);
}

/** The frame of an encoded batch of channel `ch`: its columns follow the header, not copied here. */
export function batchFrame(ch: string, encoded: EncodedBatch): RingMessage {
  const { buffers, ...header } = encoded;
  const description: BatchDescription = {
    t: 'batch',
    ch,
    header,
    sizes: buffers.map((b) => b.byteLength),
  };
  const frame = prefixed(description);
  for (const b of buffers) frame.push(new Uint8Array(b));
  return frame;
}

function damagedFrame(problem: string): WeirError {
  return new WeirError('INTERNAL', `damaged frame between workers: ${problem}`, {
    domain: 'internal',
  });
}

/** Reads a frame written by {@link controlFrame} or {@link batchFrame} (an 8-byte aligned view). */
export function readFrame(bytes: Uint8Array): ReceivedMessage {
  if (bytes.byteLength < 8) throw damagedFrame(`${bytes.byteLength} bytes`);
  const n = (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0;
  if (8 + n > bytes.byteLength)
    throw damagedFrame(`a description of ${n} bytes in ${bytes.byteLength}`);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + 8, n).toString('utf8');
  const message = JSON.parse(text) as WireMessage | BatchDescription;
  if (message.t === 'watermark') return { ...message, time: fromJson(message.time) };
  if (message.t === 'credit' && message.limit !== undefined)
    return { ...message, limit: fromJson(message.limit) };
  if (message.t !== 'batch') return message;
  const columns: Uint8Array[] = [];
  let at = 8 + align8(n);
  for (const size of message.sizes) {
    if (at + size > bytes.byteLength)
      throw damagedFrame(`a column of ${size} bytes at ${at} of ${bytes.byteLength}`);
    columns.push(bytes.subarray(at, at + size));
    at += align8(size);
  }
  return { t: 'batch', ch: message.ch, header: message.header, columns };
}
