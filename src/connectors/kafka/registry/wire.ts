/**
 * The Confluent wire format: a magic byte 0, the schema id as a 4-byte
 * big-endian integer, then the encoded datum. Protobuf data also has, right
 * after the id, the message indexes: which message of the schema file (a
 * path through nested messages) the datum is, as a zigzag varint count
 * followed by zigzag varint indexes; the common `[0]` (the first message) is
 * written as the single byte 0.
 */

export const MAGIC_BYTE = 0;
export const HEADER_LENGTH = 5;

/** The schema id of framed bytes; throws when the bytes are not in the wire format. */
export function schemaIdOf(bytes: Buffer, format: string): number {
  if (bytes.length < HEADER_LENGTH) {
    throw new Error(
      `${format}: ${bytes.length} bytes are too short for the schema registry wire format (magic byte and 4-byte schema id)`,
    );
  }
  if (bytes[0] !== MAGIC_BYTE) {
    throw new Error(
      `${format}: not in the schema registry wire format: magic byte ${bytes[0]}, expected ${MAGIC_BYTE}`,
    );
  }
  return bytes.readUInt32BE(1);
}

/** The schema id of framed bytes, or undefined when they are not framed (left to `schemaIdOf` to report). */
export function peekSchemaId(bytes: Buffer | undefined): number | undefined {
  return bytes !== undefined && bytes.length >= HEADER_LENGTH && bytes[0] === MAGIC_BYTE
    ? bytes.readUInt32BE(1)
    : undefined;
}

/** Magic byte and schema id, followed by `prefix` (Protobuf's message indexes) when given. */
export function headerOf(id: number, prefix?: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_LENGTH);
  header[0] = MAGIC_BYTE;
  header.writeUInt32BE(id, 1);
  return prefix === undefined ? header : Buffer.concat([header, prefix]);
}

/** Writes the message indexes of a Protobuf message. */
export function encodeMessageIndexes(indexes: readonly number[]): Buffer {
  if (indexes.length === 1 && indexes[0] === 0) return Buffer.from([0]);
  const out: number[] = [];
  writeZigzag(out, indexes.length);
  for (const i of indexes) writeZigzag(out, i);
  return Buffer.from(out);
}

/** Reads the message indexes at `at`; returns them and the offset after them. */
export function decodeMessageIndexes(
  bytes: Buffer,
  at: number,
): { readonly indexes: number[]; readonly next: number } {
  const count = readZigzag(bytes, at);
  if (count.value === 0) return { indexes: [0], next: count.next };
  if (count.value < 0 || count.value > 100)
    throw new Error(`protobuf: ${count.value} message indexes is not a valid count`);
  const indexes: number[] = [];
  let next = count.next;
  for (let i = 0; i < count.value; i++) {
    const index = readZigzag(bytes, next);
    if (index.value < 0) throw new Error(`protobuf: negative message index ${index.value}`);
    indexes.push(index.value);
    next = index.next;
  }
  return { indexes, next };
}

function writeZigzag(out: number[], n: number): void {
  let z = ((n << 1) ^ (n >> 31)) >>> 0;
  while (z > 0x7f) {
    out.push((z & 0x7f) | 0x80);
    z >>>= 7;
  }
  out.push(z);
}

function readZigzag(bytes: Buffer, at: number): { value: number; next: number } {
  let z = 0;
  let shift = 0;
  for (;;) {
    if (at >= bytes.length) throw new Error('protobuf: the message indexes are cut short');
    const b = bytes[at++]!;
    z |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
    if (shift > 28) throw new Error('protobuf: a message index varint is too long');
  }
  z >>>= 0;
  return { value: (z >>> 1) ^ -(z & 1), next: at };
}
