/**
 * Decodes an {@link EncodedBatch} back into a {@link RecordBatch}: one pass per
 * column materializes its values into an array, then objects are assembled
 * row by row with one literal per record (a generated function per shape,
 * so every decoded object of a shape shares one hidden class).
 */
import { deserialize } from 'node:v8';
import { WeirError } from '../../core/errors.js';
import type { RecordBatch } from '../../core/record-batch.js';
import type { ColumnHeader, EncodedBatch } from './columns.js';
import { assembler, type FieldColumn } from './shapes.js';

/** How {@link decodeBatch} materializes values. */
export interface DecodeOptions {
  /**
   * Decode each string column as one string and hand out slices of it
   * (several times faster for long strings). A slice keeps the whole column's
   * text alive, so only use this where decoded records do not outlive the
   * batch for long (stateless pipelines); the default copies every long string.
   */
  readonly shareStringMemory?: boolean;
}

/**
 * Rebuilds the batch {@link encodeBatch} encoded, typically on the thread that
 * received `encoded` through `postMessage`. The buffers are read, not kept: the
 * decoded values do not share memory with them.
 */
export function decodeBatch<T>(encoded: EncodedBatch, options: DecodeOptions = {}): RecordBatch<T> {
  return decodeBatchColumns<T>(
    encoded,
    encoded.buffers.map((b) => new Uint8Array(b)),
    options,
  );
}

/**
 * Like {@link decodeBatch}, with the column data as views (of a shared ring,
 * say) rather than whole ArrayBuffers: `columns[i]` holds what
 * `encoded.buffers[i]` would, starting at an 8-byte aligned offset. The views
 * are read, not kept.
 */
export function decodeBatchColumns<T>(
  header: Omit<EncodedBatch, 'buffers'>,
  columns: readonly Uint8Array[],
  options: DecodeOptions = {},
): RecordBatch<T> {
  if (header.format !== 1) {
    throw new WeirError('INTERNAL', `unknown encoded batch format ${String(header.format)}`, {
      domain: 'internal',
    });
  }
  try {
    return decodeFrame<T>(header, columns, options);
  } catch (cause) {
    // Frames come from our own encoder (posted, or through a worker ring): one that does not decode is a bug
    // or memory damage, reported as such rather than as a TypeError or RangeError from a view.
    if (cause instanceof WeirError) throw cause;
    throw damaged(cause instanceof Error ? cause.message : String(cause), cause);
  }
}

/**
 * Columns without data of their own (nulls, undefineds, objects without
 * fields) are bounded by this many values, so a damaged count cannot make
 * the decoder allocate without end; every other column is bounded by its buffers.
 */
const MAX_VALUES_WITHOUT_DATA = 1 << 25;

function damaged(problem: string, cause?: unknown): WeirError {
  return new WeirError('INTERNAL', `damaged encoded batch: ${problem}`, {
    domain: 'internal',
    ...(cause === undefined ? {} : { cause }),
  });
}

function decodeFrame<T>(
  encoded: Omit<EncodedBatch, 'buffers'>,
  buffers: Columns,
  options: DecodeOptions,
): RecordBatch<T> {
  const { length } = encoded;
  if (!Number.isSafeInteger(length) || length < 0) throw damaged(`batch length ${length}`);
  const timestamps = toArray(view(buffers, encoded.timestamps, Float64Array, length));
  const values = decodeColumn(encoded.values, buffers, length, options) as T[];
  let keys: unknown[] | undefined;
  if (encoded.keys?.kind === 'field') {
    const field = encoded.keys.key;
    keys = new Array<unknown>(length);
    for (let i = 0; i < length; i++) {
      const v = values[i];
      if (typeof v !== 'object' || v === null)
        throw damaged(`key field '${field}' of a non-object`);
      keys[i] = (v as Record<string, unknown>)[field];
    }
  } else if (encoded.keys !== undefined) {
    keys = decodeColumn(encoded.keys, buffers, length, options);
  }
  return { values, timestamps, keys };
}

/** A plain loop: several times faster than `Array.from` on a typed array. */
function toArray<E>(data: { readonly length: number; readonly [i: number]: E }): E[] {
  const out = new Array<E>(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] as E;
  return out;
}

function numberView(
  column: ColumnHeader,
  buffers: Columns,
  n: number,
): Int32Array | Float64Array | undefined {
  if (column.kind === 'i32') return view(buffers, column.data, Int32Array, n);
  if (column.kind === 'f64') return view(buffers, column.data, Float64Array, n);
  return undefined;
}

/** Column data by index: views, each starting at an 8-byte aligned offset of its buffer. */
type Columns = readonly Uint8Array[];

function buffer(buffers: Columns, index: number): Uint8Array {
  const found = Number.isInteger(index) ? buffers[index] : undefined;
  if (!(found instanceof Uint8Array)) {
    throw new WeirError('INTERNAL', `encoded batch lacks buffer ${index}`, { domain: 'internal' });
  }
  return found;
}

interface TypedArrayOf<A> {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): A;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * `n` elements of column `index` as a typed array over the column's memory.
 * The bound is checked here: the view's buffer may be larger than the column
 * (a shared ring), so the constructor's own check would not catch a damaged count.
 */
function view<A>(buffers: Columns, index: number, type: TypedArrayOf<A>, n: number): A {
  const data = buffer(buffers, index);
  if (!Number.isSafeInteger(n) || n < 0 || n * type.BYTES_PER_ELEMENT > data.byteLength) {
    throw damaged(
      `${n} values of ${type.BYTES_PER_ELEMENT} bytes in a column of ${data.byteLength}`,
    );
  }
  return new type(data.buffer, data.byteOffset, n);
}

function decodeColumn(
  column: ColumnHeader,
  buffers: Columns,
  n: number,
  options: DecodeOptions,
): unknown[] {
  if (!Number.isSafeInteger(n) || n < 0) throw damaged(`column length ${n}`);
  switch (column.kind) {
    case 'null':
      return new Array<unknown>(withoutData(n)).fill(null);
    case 'undefined':
      return new Array<unknown>(withoutData(n)).fill(undefined);
    case 'i32':
      return toArray(view(buffers, column.data, Int32Array, n));
    case 'f64':
      return toArray(view(buffers, column.data, Float64Array, n));
    case 'bool': {
      const data = view(buffers, column.data, Uint8Array, n);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const b = data[i];
        if (b !== 0 && b !== 1) throw damaged(`boolean byte ${b}`);
        out[i] = b === 1;
      }
      return out;
    }
    case 'bigint':
      return toArray(view(buffers, column.data, BigInt64Array, n));
    case 'date': {
      const data = view(buffers, column.data, Float64Array, n);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = new Date(data[i] as number);
      return out;
    }
    case 'string':
      return decodeStrings(column, buffers, n, options);
    case 'dictionary': {
      const dictionary = decodeColumn(column.dictionary, buffers, column.distinct, options);
      const data = column.wide
        ? view(buffers, column.indexes, Uint16Array, n)
        : view(buffers, column.indexes, Uint8Array, n);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const index = data[i] as number;
        if (index >= column.distinct)
          throw damaged(`dictionary index ${index} of ${column.distinct}`);
        out[i] = dictionary[index];
      }
      return out;
    }
    case 'bytes': {
      const bytes = buffer(buffers, column.bytes);
      const offsets = view(buffers, column.offsets, Uint32Array, n + 1);
      checkOffsets(offsets, n, bytes.byteLength);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        // A copy: the column may be a view of shared memory that is about to be reused.
        const copy = bytes.slice(offsets[i] as number, offsets[i + 1] as number);
        out[i] = column.buffer ? Buffer.from(copy.buffer, 0, copy.byteLength) : copy;
      }
      return out;
    }
    case 'object': {
      // Number columns are read by the assembler straight from their typed arrays.
      let signature = '';
      if (column.keys.length === 0) withoutData(n);
      if (column.keys.length !== column.fields.length)
        throw damaged('object keys and fields differ');
      const fields = column.fields.map((field): FieldColumn => {
        signature += field.kind === 'i32' ? 'i' : field.kind === 'f64' ? 'f' : 'a';
        return numberView(field, buffers, n) ?? decodeColumn(field, buffers, n, options);
      });
      return assembler(column.keys, signature)(fields, n);
    }
    case 'array': {
      const offsets = view(buffers, column.offsets, Uint32Array, n + 1);
      checkOffsets(offsets, n, Number.MAX_SAFE_INTEGER);
      const items = decodeColumn(column.items, buffers, offsets[n] as number, options);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = items.slice(offsets[i], offsets[i + 1]);
      return out;
    }
    case 'union': {
      const tags = view(buffers, column.tags, Uint8Array, n);
      const tagged = new Array<number>(column.members.length).fill(0);
      for (let i = 0; i < n; i++) {
        const m = tags[i] as number;
        if (m >= tagged.length) throw damaged(`union tag ${m} of ${tagged.length} members`);
        tagged[m] = (tagged[m] as number) + 1;
      }
      if (tagged.some((count, m) => count !== column.counts[m])) {
        throw damaged('union member counts differ from its tags');
      }
      const members = column.members.map((member, m) =>
        decodeColumn(member, buffers, column.counts[m] as number, options),
      );
      const cursors = new Array<number>(members.length).fill(0);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const m = tags[i] as number;
        out[i] = (members[m] as unknown[])[(cursors[m] as number)++];
      }
      return out;
    }
    case 'serialized': {
      const values: unknown = deserialize(asBuffer(buffer(buffers, column.data)));
      if (!Array.isArray(values) || values.length !== n) throw damaged('serialized column length');
      return values;
    }
    default:
      throw damaged(`unknown column kind '${String((column as { kind: unknown }).kind)}'`);
  }
}

/** A Buffer over the same memory (no copy). */
function asBuffer(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** A count of values for a column that has no buffer to bound it. */
function withoutData(n: number): number {
  if (n > MAX_VALUES_WITHOUT_DATA) throw damaged(`${n} values in a column without data`);
  return n;
}

/** Offsets must rise (or stay) from 0 and end within `limit`. */
function checkOffsets(offsets: Uint32Array, n: number, limit: number): void {
  if (offsets[0] !== 0) throw damaged(`offsets start at ${offsets[0]}`);
  for (let i = 0; i < n; i++) {
    if ((offsets[i + 1] as number) < (offsets[i] as number))
      throw damaged(`offsets fall at ${i + 1}`);
  }
  if ((offsets[n] as number) > limit)
    throw damaged(`offsets end at ${offsets[n]}, beyond ${limit}`);
}

/**
 * V8 copies substrings shorter than this; longer ones are slices that keep
 * their whole parent string alive.
 */
const SHORT_STRING = 13;

function decodeStrings(
  column: Extract<ColumnHeader, { kind: 'string' }>,
  buffers: Columns,
  n: number,
  options: DecodeOptions,
): unknown[] {
  const bytes = asBuffer(buffer(buffers, column.bytes));
  const offsets = view(buffers, column.offsets, Uint32Array, n + 1);
  checkOffsets(offsets, n, bytes.length);
  const ascii = column.chars === undefined;
  const chars = ascii ? offsets : view(buffers, column.chars, Uint32Array, n + 1);
  if (!ascii) checkOffsets(chars, n, bytes.length);
  const encoding = ascii ? 'latin1' : 'utf8';
  const share = options.shareStringMemory === true;
  // Decoding all text at once and slicing is fastest; a long slice, though, keeps the whole
  // column's text alive for as long as the record lives (in state, a window), so unless the
  // caller opts in, long strings are decoded one by one.
  let joined: string | undefined;
  const out = new Array<unknown>(n);
  for (let i = 0; i < n; i++) {
    const start = chars[i] as number;
    const end = chars[i + 1] as number;
    if (share || end - start < SHORT_STRING) {
      if (joined === undefined) {
        joined = bytes.toString(encoding);
        if ((chars[n] as number) > joined.length) throw damaged('string offsets beyond the text');
      }
      out[i] = joined.slice(start, end);
    } else {
      out[i] = bytes.toString(encoding, offsets[i], offsets[i + 1]);
    }
  }
  return out;
}
