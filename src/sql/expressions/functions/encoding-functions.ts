/**
 * Hashes, Base64, hexadecimal and character sets: MD5, SHA1, SHA2, SHA224..SHA512, TO_BASE64,
 * FROM_BASE64, ENCODE, DECODE, HEX, BIN, UNHEX. A string is hashed or encoded as its UTF-8
 * bytes; a BYTES value as itself. Hashes are lower-case hex text, HEX upper-case, as in Flink.
 */
import { createHash } from 'node:crypto';
import { sqlError } from '../../sql-error.js';
import { formatType, isCharacterString, isInteger, T } from '../../types/logical-type.js';
import type { Compiled } from '../code-gen.js';
import {
  type FunctionCompiler,
  functionFailed,
  isBinaryString,
  requireInteger,
  requireString,
  strictFunction,
} from './arguments.js';

const STRING = T.string(false);
const BYTES = { kind: 'VARBINARY', nullable: false, length: 2147483647 } as const;

function bytesOf(v: string | Uint8Array): Uint8Array {
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

function stringOrBytes(name: string) {
  return (c: Compiled, i: number, at: Parameters<typeof requireString>[2]) => {
    if (i > 0) return requireInteger(name, c, at);
    if (!isCharacterString(c.type) && !isBinaryString(c.type) && c.type.kind !== 'NULL')
      sqlError(`${name} needs a string or BYTES argument, got ${formatType(c.type)}`, at);
  };
}

function hash(algorithm: string): (v: string | Uint8Array) => string {
  return (v) => createHash(algorithm).update(bytesOf(v)).digest('hex');
}

/** SHA2(v, bits): the job fails for a length other than 224, 256, 384 or 512, as in Flink. */
export function sha2(v: string | Uint8Array, bits: number): string {
  if (![224, 256, 384, 512].includes(bits))
    functionFailed('SHA2', `unsupported hash length ${bits} (224, 256, 384 or 512)`);
  return createHash(`sha${bits}`).update(bytesOf(v)).digest('hex');
}

export function toBase64(v: string | Uint8Array): string {
  return Buffer.from(bytesOf(v)).toString('base64');
}

/** FROM_BASE64: the decoded bytes read as UTF-8; NULL for text that is not Base64. */
export function fromBase64(s: string): string | null {
  if (!/^[A-Za-z0-9+/\r\n]*={0,2}$/.test(s)) return null;
  return Buffer.from(s, 'base64').toString('utf8');
}

/** Java's names of the character sets Flink's ENCODE and DECODE take. */
const CHARSETS: Readonly<Record<string, BufferEncoding | 'utf16be' | 'utf16'>> = {
  'UTF-8': 'utf8',
  UTF8: 'utf8',
  'US-ASCII': 'ascii',
  ASCII: 'ascii',
  'ISO-8859-1': 'latin1',
  'UTF-16LE': 'utf16le',
  'UTF-16BE': 'utf16be',
  'UTF-16': 'utf16',
};

function charset(name: string, fn: string): BufferEncoding | 'utf16be' | 'utf16' {
  const c = CHARSETS[name.toUpperCase()];
  if (c === undefined)
    return functionFailed(
      fn,
      `unsupported character set '${name}' (one of ${Object.keys(CHARSETS).join(', ')})`,
    );
  return c;
}

function swapBytes(b: Uint8Array): Buffer {
  const out = Buffer.from(b);
  for (let i = 0; i + 1 < out.length; i += 2) {
    const x = out[i] as number;
    out[i] = out[i + 1] as number;
    out[i + 1] = x;
  }
  return out;
}

/** ENCODE(s, charset): a character that the set lacks becomes '?', as in Java. */
export function encode(s: string, name: string): Uint8Array {
  const c = charset(name, 'ENCODE');
  if (c === 'utf16be' || c === 'utf16') {
    const be = swapBytes(Buffer.from(s, 'utf16le'));
    // Java's UTF-16 writes a byte-order mark, big-endian.
    return c === 'utf16' ? Buffer.concat([Buffer.from([0xfe, 0xff]), be]) : be;
  }
  if (c === 'latin1' || c === 'ascii') {
    const limit = c === 'latin1' ? 0xff : 0x7f;
    return Buffer.from(
      Array.from(s, (ch) =>
        (ch.codePointAt(0) as number) <= limit ? (ch.codePointAt(0) as number) : 0x3f,
      ),
    );
  }
  return Buffer.from(s, c);
}

/** DECODE(bytes, charset): a byte sequence the set does not map becomes U+FFFD, as in Java. */
export function decode(b: Uint8Array, name: string): string {
  const c = charset(name, 'DECODE');
  if (c === 'utf16' || c === 'utf16be') {
    let bytes = Buffer.from(b);
    if (c === 'utf16' && bytes[0] === 0xff && bytes[1] === 0xfe)
      return bytes.subarray(2).toString('utf16le');
    if (c === 'utf16' && bytes[0] === 0xfe && bytes[1] === 0xff) bytes = bytes.subarray(2);
    return swapBytes(bytes).toString('utf16le');
  }
  if (c === 'ascii')
    return Array.from(b, (x) => (x < 0x80 ? String.fromCharCode(x) : '\ufffd')).join('');
  return Buffer.from(b).toString(c);
}

/** HEX of an integer: its 64-bit two's complement; of a string: each byte of its UTF-8 form. */
export function hex(v: number | bigint | string): string {
  if (typeof v === 'number' || typeof v === 'bigint')
    return BigInt.asUintN(64, BigInt(v)).toString(16).toUpperCase();
  return Buffer.from(v, 'utf8').toString('hex').toUpperCase();
}

export function bin(v: number | bigint): string {
  return BigInt.asUintN(64, BigInt(v)).toString(2);
}

/**
 * UNHEX: NULL for text that is not hexadecimal. Of an odd number of digits, Flink decodes the
 * pairs from the right and leaves the first byte 0 (the lone first digit is dropped).
 */
export function unhex(s: string): Uint8Array | null {
  if (!/^[0-9a-fA-F]*$/.test(s)) return null;
  return Buffer.from(s.length % 2 === 0 ? s : `00${s.slice(1)}`, 'hex');
}

const hashFunction = (name: string, algorithm: string): FunctionCompiler =>
  strictFunction(name, 1, 1, stringOrBytes(name), STRING, hash(algorithm));

export const ENCODING_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  MD5: hashFunction('MD5', 'md5'),
  SHA1: hashFunction('SHA1', 'sha1'),
  SHA224: hashFunction('SHA224', 'sha224'),
  SHA256: hashFunction('SHA256', 'sha256'),
  SHA384: hashFunction('SHA384', 'sha384'),
  SHA512: hashFunction('SHA512', 'sha512'),
  SHA2: strictFunction('SHA2', 2, 2, stringOrBytes('SHA2'), STRING, sha2),
  TO_BASE64: strictFunction('TO_BASE64', 1, 1, stringOrBytes('TO_BASE64'), STRING, toBase64),
  FROM_BASE64: strictFunction(
    'FROM_BASE64',
    1,
    1,
    (c, _i, at) => requireString('FROM_BASE64', c, at),
    T.string(true),
    fromBase64,
  ),
  ENCODE: strictFunction(
    'ENCODE',
    2,
    2,
    (c, _i, at) => requireString('ENCODE', c, at),
    BYTES,
    encode,
  ),
  DECODE: strictFunction(
    'DECODE',
    2,
    2,
    (c, i, at) => {
      if (i === 1) return requireString('DECODE', c, at);
      if (!isBinaryString(c.type) && c.type.kind !== 'NULL')
        sqlError(`DECODE needs a BYTES value, got ${formatType(c.type)}`, at);
    },
    STRING,
    decode,
  ),
  HEX: strictFunction(
    'HEX',
    1,
    1,
    (c, _i, at) => {
      // Flink's HEX takes no BYTES.
      if (!isInteger(c.type) && !isCharacterString(c.type) && c.type.kind !== 'NULL')
        sqlError(`HEX needs an integer or a string, got ${formatType(c.type)}`, at);
    },
    STRING,
    hex,
  ),
  BIN: strictFunction('BIN', 1, 1, (c, _i, at) => requireInteger('BIN', c, at), STRING, bin),
  UNHEX: strictFunction(
    'UNHEX',
    1,
    1,
    (c, _i, at) => requireString('UNHEX', c, at),
    { ...BYTES, nullable: true },
    unhex,
  ),
};
