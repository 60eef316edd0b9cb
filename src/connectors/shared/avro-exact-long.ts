/**
 * An Avro `long` that keeps all 64 bits. avsc's own `long` is a JavaScript number and refuses
 * (or rounds) values past 2^53; this one reads a number while the value is a safe integer and a
 * bigint beyond, and writes either, so every Java long survives a round trip.
 */
import avro from 'avsc';

/** A 64-bit integer as Weir holds it: a number within 2^53, a bigint beyond. */
export type ExactLong = number | bigint;

function exactLong(n: bigint): ExactLong {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(n)
    : n;
}

export const EXACT_LONG: avro.types.LongType = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => exactLong(buf.readBigInt64LE()),
  toBuffer: (n: ExactLong) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (json: unknown) => exactLong(BigInt(json as string | number)),
  toJSON: (n: ExactLong) => (typeof n === 'bigint' ? n.toString() : n),
  isValid: (n: unknown) =>
    typeof n === 'bigint'
      ? BigInt.asIntN(64, n) === n
      : typeof n === 'number' && Number.isSafeInteger(n),
  compare: (a: ExactLong, b: ExactLong) => (a < b ? -1 : a > b ? 1 : 0),
});

/** avsc's `forSchema` options that make every `long` of a schema exact. */
export const exactLongRegistry = (): Record<string, avro.Type> => ({ long: EXACT_LONG });
