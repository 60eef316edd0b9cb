/**
 * Decodes an {@link EncodedBatch} back into a {@link RecordBatch}: one pass per
 * column materializes its values into an array, then objects are assembled
 * row by row with one literal per record (a generated function per shape,
 * so every decoded object of a shape shares one hidden class).
 */
import { deserialize } from 'node:v8';
import { WeirError } from '../../errors.js';
import type { RecordBatch } from '../record-batch.js';
import type { ColumnHeader, EncodedBatch } from './columns.js';

/**
 * Rebuilds the batch {@link encodeBatch} encoded, typically on the thread that
 * received `encoded` through `postMessage`. The buffers are read, not kept: the
 * decoded values do not share memory with them.
 */
export function decodeBatch<T>(encoded: EncodedBatch): RecordBatch<T> {
  if (encoded.format !== 1) {
    throw new WeirError('INTERNAL', `unknown encoded batch format ${String(encoded.format)}`, {
      domain: 'internal',
    });
  }
  const { length, buffers } = encoded;
  const timestamps = Array.from(new Float64Array(buffer(buffers, encoded.timestamps)));
  const keys = encoded.keys === undefined ? undefined : decodeColumn(encoded.keys, buffers, length);
  const values = decodeColumn(encoded.values, buffers, length) as T[];
  return { values, timestamps, keys };
}

function buffer(buffers: readonly ArrayBuffer[], index: number): ArrayBuffer {
  const found = buffers[index];
  if (found === undefined) {
    throw new WeirError('INTERNAL', `encoded batch lacks buffer ${index}`, { domain: 'internal' });
  }
  return found;
}

function decodeColumn(column: ColumnHeader, buffers: readonly ArrayBuffer[], n: number): unknown[] {
  switch (column.kind) {
    case 'null':
      return new Array<unknown>(n).fill(null);
    case 'undefined':
      return new Array<unknown>(n).fill(undefined);
    case 'i32':
      return Array.from(new Int32Array(buffer(buffers, column.data), 0, n));
    case 'f64':
      return Array.from(new Float64Array(buffer(buffers, column.data), 0, n));
    case 'bool': {
      const data = new Uint8Array(buffer(buffers, column.data), 0, n);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = data[i] === 1;
      return out;
    }
    case 'bigint':
      return Array.from(new BigInt64Array(buffer(buffers, column.data), 0, n));
    case 'date': {
      const data = new Float64Array(buffer(buffers, column.data), 0, n);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = new Date(data[i] as number);
      return out;
    }
    case 'string':
      return decodeStrings(column, buffers, n);
    case 'dictionary': {
      const dictionary = decodeColumn(column.dictionary, buffers, column.distinct);
      const data = column.wide
        ? new Uint16Array(buffer(buffers, column.indexes), 0, n)
        : new Uint8Array(buffer(buffers, column.indexes), 0, n);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = dictionary[data[i] as number];
      return out;
    }
    case 'bytes': {
      const bytes = buffer(buffers, column.bytes);
      const offsets = new Uint32Array(buffer(buffers, column.offsets), 0, n + 1);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const copy = bytes.slice(offsets[i] as number, offsets[i + 1] as number);
        out[i] = column.buffer ? Buffer.from(copy) : new Uint8Array(copy);
      }
      return out;
    }
    case 'object': {
      const fields = column.fields.map((field) => decodeColumn(field, buffers, n));
      return assembler(column.keys)(fields, n);
    }
    case 'array': {
      const offsets = new Uint32Array(buffer(buffers, column.offsets), 0, n + 1);
      const items = decodeColumn(column.items, buffers, offsets[n] as number);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = items.slice(offsets[i], offsets[i + 1]);
      return out;
    }
    case 'union': {
      const tags = new Uint8Array(buffer(buffers, column.tags), 0, n);
      const members = column.members.map((member, m) =>
        decodeColumn(member, buffers, column.counts[m] as number),
      );
      const cursors = new Array<number>(members.length).fill(0);
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const m = tags[i] as number;
        out[i] = (members[m] as unknown[])[(cursors[m] as number)++];
      }
      return out;
    }
    case 'serialized':
      return deserialize(Buffer.from(buffer(buffers, column.data))) as unknown[];
  }
}

function decodeStrings(
  column: Extract<ColumnHeader, { kind: 'string' }>,
  buffers: readonly ArrayBuffer[],
  n: number,
): unknown[] {
  const bytes = Buffer.from(buffer(buffers, column.bytes));
  const offsets = new Uint32Array(buffer(buffers, column.offsets), 0, n + 1);
  const encoding = column.ascii ? 'latin1' : 'utf8';
  const out = new Array<unknown>(n);
  for (let i = 0; i < n; i++) {
    out[i] = bytes.toString(encoding, offsets[i], offsets[i + 1]);
  }
  return out;
}

type Assembler = (fields: readonly unknown[][], n: number) => unknown[];

/** Generated assemblers by key list; bounded so a stream of ever-new shapes cannot grow it forever. */
const assemblers = new Map<string, Assembler>();
const MAX_ASSEMBLERS = 1024;

function assembler(keys: readonly string[]): Assembler {
  const id = JSON.stringify(keys);
  let found = assemblers.get(id);
  if (found === undefined) {
    found = makeAssembler(keys);
    if (assemblers.size >= MAX_ASSEMBLERS) assemblers.clear();
    assemblers.set(id, found);
  }
  return found;
}

function makeAssembler(keys: readonly string[]): Assembler {
  // A quoted `"__proto__": v` in a literal would set the prototype; build such shapes key by key.
  if (keys.includes('__proto__')) {
    return (fields, n) => {
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const record: Record<string, unknown> = {};
        for (let k = 0; k < keys.length; k++) {
          Object.defineProperty(record, keys[k] as string, {
            value: (fields[k] as unknown[])[i],
            writable: true,
            enumerable: true,
            configurable: true,
          });
        }
        out[i] = record;
      }
      return out;
    };
  }
  // Keys are embedded as JSON string literals, so any key text is safe in the source.
  const columns = keys.map((_, k) => `const c${k} = fields[${k}];`).join('\n');
  const literal = keys.map((key, k) => `${JSON.stringify(key)}: c${k}[i]`).join(', ');
  const body = `${columns}
const out = new Array(n);
for (let i = 0; i < n; i++) out[i] = { ${literal} };
return out;`;
  return new Function('fields', 'n', body) as Assembler;
}
