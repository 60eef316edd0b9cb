/**
 * Encodes a {@link RecordBatch} into columns of ArrayBuffers (see
 * {@link ColumnHeader}). The shape of the values is inferred per batch: the
 * common case, objects that all have the same keys, becomes one column per
 * field; fields of mixed kinds become unions; anything with no columnar form
 * is kept exact by `v8.serialize`.
 *
 * Objects of one shape are read in one pass (a generated reader per shape
 * checks each record's keys and writes number fields straight into
 * Float64Array columns); other columns are scanned once to pick their kind and
 * once to fill one buffer; a string column is joined and written as UTF-8 in
 * one call. Nothing is
 * allocated per record, except in unions (the values of each member are
 * gathered into a list, and an object's shape is named by its joined keys).
 */
import { serialize } from 'node:v8';
import { WeirError } from '../../core/errors.js';
import type { RecordBatch } from '../../core/record-batch.js';
import type { ColumnHeader, EncodedBatch } from './columns.js';
import { findUnsupportedValue, isPlainObject, isSerializableLeaf } from './plain-data.js';
import { extractor, shapeReader } from './shapes.js';

/**
 * Values nested deeper than this (or cyclic) send the whole batch through
 * `v8.serialize`, which keeps deep structures, cycles and shared references exact.
 */
const MAX_COLUMN_DEPTH = 32;
/** More distinct kinds or object shapes than this in one column: `v8.serialize` it. */
const MAX_UNION_MEMBERS = 32;
/** A string column is joined into one string to encode; V8 strings are limited to about 2^29 characters. */
const MAX_JOINED_CHARS = 1 << 28;
/** At most this many distinct strings in a dictionary column. */
const MAX_DICTIONARY = 4096;

/** Signals a value that cannot cross threads; {@link encodeBatch} then locates it for the error. */
class Unsupported extends Error {}

/** Signals nesting too deep for columns (possibly a cycle): serialize the whole batch. */
class TooDeep extends Error {}

/**
 * Encodes `batch` for transfer to another thread with
 * `port.postMessage(encoded, encoded.buffers)`; {@link decodeBatch} restores it.
 *
 * Values must be plain data: primitives (not symbols), plain objects, arrays,
 * Date, Map, Set, RegExp, ArrayBuffer and typed arrays (Buffer included). Like
 * structured clone, only own enumerable string-keyed properties are carried,
 * null-prototype objects come back with the ordinary prototype, and an object
 * reachable twice is copied twice. Anything else (functions, symbols, class
 * instances, boxed primitives) is refused with a `BAD_RECORD` error naming the
 * record index and field.
 */
export function encodeBatch<T>(batch: RecordBatch<T>): EncodedBatch {
  const n = batch.values.length;
  if (batch.timestamps.length !== n || (batch.keys !== undefined && batch.keys.length !== n)) {
    throw new WeirError(
      'INTERNAL',
      `cannot encode a batch whose columns differ in length: ${n} values, ${batch.timestamps.length} timestamps, ${batch.keys?.length ?? 'no'} keys`,
      { domain: 'internal' },
    );
  }
  try {
    try {
      return encodeColumns(batch, false);
    } catch (error) {
      if (error instanceof TooDeep) return encodeColumns(batch, true);
      throw error;
    }
  } catch (error) {
    if (error instanceof Unsupported) throw refusal(batch);
    throw error;
  }
}

function encodeColumns<T>(batch: RecordBatch<T>, serialized: boolean): EncodedBatch {
  const buffers: ArrayBuffer[] = [];
  const timestamps = push(buffers, toFloat64(batch.timestamps).buffer);
  const encode = serialized ? encodeSerialized : encodeTopColumn;
  const values = encode(batch.values, buffers);
  const keys =
    batch.keys === undefined
      ? undefined
      : (keysField(batch.keys, batch.values, values) ?? encode(batch.keys, buffers));
  return { format: 1, length: batch.values.length, timestamps, keys, values, buffers };
}

/**
 * The field every key was taken from, when there is one: the values are
 * objects of one shape and `keys[i]` is identical to `values[i][field]`.
 */
function keysField(
  keys: readonly unknown[],
  values: readonly unknown[],
  encoded: ColumnHeader,
): { kind: 'field'; key: string } | undefined {
  if (encoded.kind !== 'object' || keys.length === 0) return undefined;
  const firstKey = keys[0];
  const first = values[0] as Record<string, unknown>;
  for (const field of encoded.keys) {
    if (!Object.is(first[field], firstKey)) continue;
    let all = true;
    for (let i = 1; i < keys.length; i++) {
      if (!Object.is((values[i] as Record<string, unknown>)[field], keys[i])) {
        all = false;
        break;
      }
    }
    if (all) return { kind: 'field', key: field };
  }
  return undefined;
}

function encodeTopColumn(xs: readonly unknown[], buffers: ArrayBuffer[]): ColumnHeader {
  return encodeColumn(xs, buffers, 0);
}

function refusal<T>(batch: RecordBatch<T>): WeirError {
  for (const [column, list] of [
    ['value', batch.values],
    ['key', batch.keys ?? []],
  ] as const) {
    for (let i = 0; i < list.length; i++) {
      const problem = findUnsupportedValue(list[i]);
      if (problem !== undefined) {
        const where = problem.path === '' ? '' : ` at field '${problem.path}'`;
        return new WeirError(
          'BAD_RECORD',
          `record ${i} cannot cross threads: its ${column}${where} is ${problem.what}; records sent between threads must be plain data (primitives, plain objects, arrays, Date, Map, Set, RegExp, typed arrays)`,
          { domain: 'user' },
        );
      }
    }
  }
  return new WeirError('INTERNAL', 'batch encoding refused a value but none is unsupported', {
    domain: 'internal',
  });
}

function push(buffers: ArrayBuffer[], buffer: ArrayBufferLike): number {
  buffers.push(buffer as ArrayBuffer);
  return buffers.length - 1;
}

/** Kinds of a value for union tagging; object shapes get indexes from a per-column map. */
enum Kind {
  Null = 0,
  Undefined = 1,
  Number = 2,
  String = 3,
  Boolean = 4,
  BigInt = 5,
  Date = 6,
  Array = 7,
  Buffer = 8,
  Uint8Array = 9,
  Serialized = 10,
  Object = 11,
}

function kindOf(value: unknown): Kind {
  switch (typeof value) {
    case 'number':
      return Kind.Number;
    case 'string':
      return Kind.String;
    case 'boolean':
      return Kind.Boolean;
    case 'undefined':
      return Kind.Undefined;
    case 'bigint':
      return BigInt.asIntN(64, value) === value ? Kind.BigInt : Kind.Serialized;
    case 'object': {
      if (value === null) return Kind.Null;
      if (isPlainObject(value)) return Kind.Object;
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto === Array.prototype) return Kind.Array;
      if (proto === Date.prototype) return Kind.Date;
      if (proto === Buffer.prototype) return Kind.Buffer;
      if (proto === Uint8Array.prototype) return Kind.Uint8Array;
      if (isSerializableLeaf(value)) return Kind.Serialized;
      throw new Unsupported();
    }
    default:
      throw new Unsupported();
  }
}

function encodeColumn(xs: readonly unknown[], buffers: ArrayBuffer[], depth: number): ColumnHeader {
  const n = xs.length;
  if (n === 0) return { kind: 'undefined' };
  if (depth > MAX_COLUMN_DEPTH) throw new TooDeep();
  // Fast path: every value of the kind of the first one (the common case).
  const first = xs[0];
  const kind = kindOf(first);
  let same = true;
  switch (kind) {
    case Kind.Number:
    case Kind.String:
    case Kind.Boolean:
    case Kind.Undefined: {
      const type = typeof first;
      for (let i = 1; i < n; i++) {
        if (typeof xs[i] !== type) {
          same = false;
          break;
        }
      }
      break;
    }
    case Kind.Object: {
      const keys = Object.keys(first as object);
      const read = encodeShape(xs, keys, buffers, depth);
      if (read !== undefined) return read;
      for (let i = 1; i < n; i++) {
        if (!hasKeys(xs[i], keys)) {
          same = false;
          break;
        }
      }
      if (same) return encodeObjects(xs, keys, buffers, depth);
      break;
    }
    default:
      same = false;
  }
  if (same) return encodeLeaves(kind, xs, buffers, depth);
  return encodeUnion(xs, buffers, depth);
}

/**
 * The common case in one pass: every value is an object of the first one's
 * shape, and number fields stay numbers. Those go straight into Float64Array
 * columns, with no intermediate array and no second scan for their kind.
 * Undefined (having written no buffers) when some value does not fit.
 */
function encodeShape(
  xs: readonly unknown[],
  keys: readonly string[],
  buffers: ArrayBuffer[],
  depth: number,
): ColumnHeader | undefined {
  const first = xs[0] as Record<string, unknown>;
  let signature = '';
  for (const key of keys) signature += typeof first[key] === 'number' ? 'n' : 'v';
  const read = shapeReader(keys, signature);
  if (read === undefined) return undefined;
  const n = xs.length;
  const columns = keys.map((_, k) =>
    signature[k] === 'n' ? new Float64Array(n) : new Array<unknown>(n),
  );
  if (read(xs, columns, keys) !== n) return undefined;
  const fields = columns.map((column) =>
    column instanceof Float64Array
      ? encodeFloat64(column, buffers)
      : encodeColumn(column, buffers, depth + 1),
  );
  return { kind: 'object', keys, fields };
}

/** Whether `value` is a plain object with exactly `keys` as own enumerable keys, in that order. */
function hasKeys(value: unknown, keys: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null || !isPlainObject(value)) return false;
  let i = 0;
  for (const key in value) {
    if (key !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

function encodeLeaves(
  kind: Kind,
  xs: readonly unknown[],
  buffers: ArrayBuffer[],
  depth: number,
): ColumnHeader {
  switch (kind) {
    case Kind.Null:
      return { kind: 'null' };
    case Kind.Undefined:
      return { kind: 'undefined' };
    case Kind.Number:
      return encodeNumbers(xs as readonly number[], buffers);
    case Kind.String:
      return encodeStringsOrDictionary(xs as readonly string[], buffers);
    case Kind.Boolean: {
      const data = new Uint8Array(xs.length);
      for (let i = 0; i < xs.length; i++) data[i] = xs[i] === true ? 1 : 0;
      return { kind: 'bool', data: push(buffers, data.buffer) };
    }
    case Kind.BigInt:
      return { kind: 'bigint', data: push(buffers, BigInt64Array.from(xs as bigint[]).buffer) };
    case Kind.Date: {
      const data = new Float64Array(xs.length);
      for (let i = 0; i < xs.length; i++) data[i] = (xs[i] as Date).getTime();
      return { kind: 'date', data: push(buffers, data.buffer) };
    }
    case Kind.Buffer:
    case Kind.Uint8Array:
      return encodeBytes(xs as readonly Uint8Array[], kind === Kind.Buffer, buffers);
    case Kind.Array:
      return encodeArrays(xs as readonly unknown[][], buffers, depth);
    case Kind.Serialized:
      return encodeSerialized(xs, buffers);
    case Kind.Object:
      return encodeObjects(xs, Object.keys(xs[0] as object), buffers, depth);
  }
}

function encodeNumbers(xs: readonly number[], buffers: ArrayBuffer[]): ColumnHeader {
  return encodeFloat64(toFloat64(xs), buffers);
}

/** Int32 when every number is one (so the decoder restores small integers), else float64. */
function encodeFloat64(data: Float64Array, buffers: ArrayBuffer[]): ColumnHeader {
  let int32 = true;
  for (let i = 0; i < data.length; i++) {
    const x = data[i] as number;
    if ((x | 0) !== x || (x === 0 && 1 / x < 0)) {
      int32 = false;
      break;
    }
  }
  if (int32) return { kind: 'i32', data: push(buffers, new Int32Array(data).buffer) };
  return { kind: 'f64', data: push(buffers, data.buffer) };
}

/** A plain loop: `new Float64Array(array)` takes a slow generic path for holey arrays. */
function toFloat64(xs: readonly number[]): Float64Array {
  const data = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) data[i] = xs[i] as number;
  return data;
}

function encodeStringsOrDictionary(xs: readonly string[], buffers: ArrayBuffer[]): ColumnHeader {
  const dictionary = tryDictionary(xs, buffers);
  return dictionary ?? encodeStrings(xs, buffers);
}

/**
 * Low-cardinality strings (channels, cities, categories) as a dictionary: the
 * decoder then creates each distinct string once instead of once per record.
 */
function tryDictionary(xs: readonly string[], buffers: ArrayBuffer[]): ColumnHeader | undefined {
  const n = xs.length;
  if (n < 16) return undefined;
  const limit = Math.min(MAX_DICTIONARY, n >>> 2);
  const ids = new Map<string, number>();
  const distinct: string[] = [];
  const indexes = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    const s = xs[i] as string;
    let id = ids.get(s);
    if (id === undefined) {
      id = distinct.length;
      // Give up early on mostly-unique strings, as soon as the bound is crossed.
      if (id >= limit || (i >= 64 && id > i >>> 1)) return undefined;
      ids.set(s, id);
      distinct.push(s);
    }
    indexes[i] = id;
  }
  const wide = distinct.length > 256;
  const data = wide ? indexes : Uint8Array.from(indexes);
  return {
    kind: 'dictionary',
    distinct: distinct.length,
    dictionary: encodeStrings(distinct, buffers),
    indexes: push(buffers, data.buffer),
    wide,
  };
}

/** `String.prototype.isWellFormed` (Node 20), not yet in the ES2023 lib typings. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

function encodeStrings(xs: readonly string[], buffers: ArrayBuffer[]): ColumnHeader {
  const n = xs.length;
  const chars = new Uint32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += (xs[i] as string).length;
    chars[i + 1] = total;
  }
  if (total > MAX_JOINED_CHARS) return encodeSerialized(xs, buffers);
  // One joined string and one UTF-8 write: a native call per column instead of per record.
  const joined = xs.join('');
  // UTF-8 would replace a lone surrogate with U+FFFD; v8.serialize keeps it.
  if (!(joined as unknown as WellFormedCheck).isWellFormed()) return encodeSerialized(xs, buffers);
  const size = Buffer.byteLength(joined, 'utf8');
  // Not zero-filled (every byte is written next) and not from the shared pool (it is transferred).
  const bytes = Buffer.allocUnsafeSlow(size);
  bytes.write(joined, 0, 'utf8');
  if (size === total) {
    return {
      kind: 'string',
      bytes: push(buffers, bytes.buffer),
      offsets: push(buffers, chars.buffer),
      chars: undefined,
    };
  }
  const offsets = new Uint32Array(n + 1);
  let at = 0;
  for (let i = 0; i < n; i++) {
    at += Buffer.byteLength(xs[i] as string, 'utf8');
    offsets[i + 1] = at;
  }
  return {
    kind: 'string',
    bytes: push(buffers, bytes.buffer),
    offsets: push(buffers, offsets.buffer),
    chars: push(buffers, chars.buffer),
  };
}

function encodeBytes(
  xs: readonly Uint8Array[],
  isBuffer: boolean,
  buffers: ArrayBuffer[],
): ColumnHeader {
  const n = xs.length;
  const offsets = new Uint32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += (xs[i] as Uint8Array).length;
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < n; i++) bytes.set(xs[i] as Uint8Array, offsets[i] as number);
  return {
    kind: 'bytes',
    bytes: push(buffers, bytes.buffer),
    offsets: push(buffers, offsets.buffer),
    buffer: isBuffer,
  };
}

function encodeObjects(
  xs: readonly unknown[],
  keys: readonly string[],
  buffers: ArrayBuffer[],
  depth: number,
): ColumnHeader {
  const n = xs.length;
  const columns = keys.map(() => new Array<unknown>(n));
  extractor(keys)(xs, columns);
  const fields = columns.map((column) => encodeColumn(column, buffers, depth + 1));
  return { kind: 'object', keys, fields };
}

function encodeArrays(
  xs: readonly unknown[][],
  buffers: ArrayBuffer[],
  depth: number,
): ColumnHeader {
  const n = xs.length;
  const offsets = new Uint32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += (xs[i] as unknown[]).length;
    offsets[i + 1] = total;
  }
  const items = new Array<unknown>(total);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const array = xs[i] as unknown[];
    for (let j = 0; j < array.length; j++) {
      const item = array[j];
      // A hole would come back as `undefined`; v8.serialize keeps holes.
      if (item === undefined && !(j in array)) return encodeSerialized(xs, buffers);
      items[at++] = item;
    }
  }
  return {
    kind: 'array',
    offsets: push(buffers, offsets.buffer),
    items: encodeColumn(items, buffers, depth + 1),
  };
}

function encodeUnion(xs: readonly unknown[], buffers: ArrayBuffer[], depth: number): ColumnHeader {
  const n = xs.length;
  const tags = new Uint8Array(n);
  // Member index per kind, and per object shape (keys joined; NUL cannot clash with a real key list
  // because the separator also precedes every key).
  const byKind = new Map<Kind, number>();
  const byShape = new Map<string, number>();
  const members: unknown[][] = [];
  const memberKinds: Kind[] = [];
  for (let i = 0; i < n; i++) {
    const value = xs[i];
    const kind = kindOf(value);
    let member: number | undefined;
    if (kind === Kind.Object) {
      let shape = '';
      for (const key in value as object) shape += `\0${key}`;
      member = byShape.get(shape);
      if (member === undefined) {
        member = members.length;
        byShape.set(shape, member);
      }
    } else {
      member = byKind.get(kind);
      if (member === undefined) {
        member = members.length;
        byKind.set(kind, member);
      }
    }
    if (member === members.length) {
      if (member >= MAX_UNION_MEMBERS) return encodeSerialized(xs, buffers);
      members.push([]);
      memberKinds.push(kind);
    }
    (members[member] as unknown[]).push(value);
    tags[i] = member;
  }
  const headers = members.map((values, m) =>
    encodeLeaves(memberKinds[m] as Kind, values, buffers, depth),
  );
  if (headers.length === 1) return headers[0] as ColumnHeader;
  return {
    kind: 'union',
    tags: push(buffers, tags.buffer),
    counts: members.map((values) => values.length),
    members: headers,
  };
}

function encodeSerialized(xs: readonly unknown[], buffers: ArrayBuffer[]): ColumnHeader {
  for (const x of xs) if (findUnsupportedValue(x) !== undefined) throw new Unsupported();
  const bytes = serialize(xs);
  // The result may be a view into a larger or shared allocation; transfer only what it owns.
  const owned =
    bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength
      ? bytes.buffer
      : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return { kind: 'serialized', data: push(buffers, owned) };
}
