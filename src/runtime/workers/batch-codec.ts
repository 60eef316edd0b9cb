import type { RecordBatch } from '../record-batch.js';

/**
 * A record batch turned into something a worker thread can receive cheaply:
 * typed-array columns whose buffers are transferred (moved, not copied), plus
 * whatever could not be put in columns. Structured cloning an array of
 * objects costs about a microsecond per record; moving a Float64Array of a
 * column costs nothing per record.
 */
export interface EncodedBatch {
  readonly length: number;
  readonly timestamps: Float64Array;
  readonly values: EncodedColumn;
  readonly keys: EncodedColumn | undefined;
}

/** The values of one column, or of a whole record when it has no flat shape. */
export type EncodedColumn =
  | { readonly kind: 'number'; readonly data: Float64Array }
  | { readonly kind: 'boolean'; readonly data: Uint8Array }
  | { readonly kind: 'string'; readonly data: readonly string[] }
  /** Plain objects of one shape: one column per field, nested objects flattened. */
  | {
      readonly kind: 'record';
      readonly shape: Shape;
      readonly columns: readonly EncodedColumn[];
    }
  /** Anything else (mixed shapes, bigints, Maps, arrays): sent by structured clone. */
  | { readonly kind: 'cloned'; readonly data: readonly unknown[] };

type Leaf = 'number' | 'string' | 'boolean';
/** A record's shape: field names in order, each a leaf type or a nested shape. */
export type Shape = readonly (readonly [string, Leaf | Shape])[];

/** How batches cross threads; one implementation per wire format. */
export interface BatchCodec {
  encode(batch: RecordBatch<unknown>): { encoded: EncodedBatch; transfer: ArrayBuffer[] };
  decode(encoded: EncodedBatch): RecordBatch<unknown>;
}

/** Shapes deeper than this go by structured clone (and so do cyclic ones). */
const MAX_DEPTH = 4;

function leafOf(v: unknown): Leaf | undefined {
  const t = typeof v;
  return t === 'number' || t === 'string' || t === 'boolean' ? (t as Leaf) : undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function shapeOf(v: Record<string, unknown>, depth: number): Shape | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const fields: [string, Leaf | Shape][] = [];
  for (const name of Object.keys(v)) {
    const field = v[name];
    const leaf = leafOf(field);
    if (leaf !== undefined) fields.push([name, leaf]);
    else if (isPlainObject(field)) {
      const nested = shapeOf(field, depth + 1);
      if (nested === undefined) return undefined;
      fields.push([name, nested]);
    } else return undefined;
  }
  return fields;
}

/** Leaf columns of a shape, depth first, as paths of field names. */
function leafPaths(shape: Shape, prefix: readonly string[] = []): [string[], Leaf][] {
  const out: [string[], Leaf][] = [];
  for (const [name, type] of shape) {
    if (typeof type === 'string') out.push([[...prefix, name], type]);
    else out.push(...leafPaths(type, [...prefix, name]));
  }
  return out;
}

/** Whether `v` has exactly `shape` (same fields in the same order, same leaf types). */
function matches(v: unknown, shape: Shape): boolean {
  if (!isPlainObject(v)) return false;
  let i = 0;
  for (const name in v) {
    const entry = shape[i++];
    if (entry === undefined || entry[0] !== name) return false;
    const type = entry[1];
    const field = v[name];
    if (typeof type === 'string') {
      if (typeof field !== type) return false;
    } else if (!matches(field, type)) return false;
  }
  return i === shape.length;
}

function encodeLeaves(values: readonly unknown[], type: Leaf): EncodedColumn {
  const n = values.length;
  if (type === 'number') {
    const data = new Float64Array(n);
    for (let i = 0; i < n; i++) data[i] = values[i] as number;
    return { kind: 'number', data };
  }
  if (type === 'boolean') {
    const data = new Uint8Array(n);
    for (let i = 0; i < n; i++) data[i] = values[i] === true ? 1 : 0;
    return { kind: 'boolean', data };
  }
  return { kind: 'string', data: values as readonly string[] };
}

function encodeColumn(values: readonly unknown[]): EncodedColumn {
  const n = values.length;
  const first = values[0];
  const leaf = leafOf(first);
  if (leaf !== undefined) {
    for (let i = 1; i < n; i++)
      if (typeof values[i] !== leaf) return { kind: 'cloned', data: values };
    return encodeLeaves(values, leaf);
  }
  if (!isPlainObject(first)) return { kind: 'cloned', data: values };
  const shape = shapeOf(first, 0);
  if (shape === undefined || shape.length === 0) return { kind: 'cloned', data: values };
  for (let i = 1; i < n; i++)
    if (!matches(values[i], shape)) return { kind: 'cloned', data: values };
  const columns = leafPaths(shape).map(([path, type]) => {
    const column = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      let v: unknown = values[i];
      for (const name of path) v = (v as Record<string, unknown>)[name];
      column[i] = v;
    }
    return encodeLeaves(column, type);
  });
  return { kind: 'record', shape, columns };
}

/**
 * Builds records of one shape from their columns. A generated function
 * creates every record with the same object literal, so all get one hidden
 * class, as records built by user code do.
 */
const builders = new Map<string, (columns: readonly ArrayLike<unknown>[], i: number) => unknown>();

function builderFor(shape: Shape): (columns: readonly ArrayLike<unknown>[], i: number) => unknown {
  const id = JSON.stringify(shape);
  let build = builders.get(id);
  if (build !== undefined) return build;
  let column = 0;
  const literal = (s: Shape): string =>
    `{${s
      .map(([name, type]) => {
        const value =
          typeof type !== 'string'
            ? literal(type)
            : type === 'boolean'
              ? `c[${column++}][i] === 1`
              : `c[${column++}][i]`;
        return `${JSON.stringify(name)}: ${value}`;
      })
      .join(', ')}}`;
  build = new Function('c', 'i', `return ${literal(shape)};`) as (
    columns: readonly ArrayLike<unknown>[],
    i: number,
  ) => unknown;
  builders.set(id, build);
  return build;
}

function decodeColumn(column: EncodedColumn, n: number): unknown[] {
  switch (column.kind) {
    case 'number':
      return Array.from(column.data);
    case 'boolean': {
      const out = new Array<boolean>(n);
      for (let i = 0; i < n; i++) out[i] = column.data[i] === 1;
      return out;
    }
    case 'string':
    case 'cloned':
      return column.data as unknown[];
    case 'record': {
      const build = builderFor(column.shape);
      // Columns of a record are leaves: nested objects were flattened into them.
      const data = column.columns.map((c) => (c.kind === 'record' ? [] : c.data));
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) out[i] = build(data, i);
      return out;
    }
  }
}

function buffersOf(column: EncodedColumn, into: ArrayBuffer[]): void {
  if (column.kind === 'number' || column.kind === 'boolean')
    into.push(column.data.buffer as ArrayBuffer);
  else if (column.kind === 'record') for (const c of column.columns) buffersOf(c, into);
}

/**
 * The columnar codec: numbers, booleans and plain objects of a fixed shape
 * (nested up to a few levels) travel as typed-array columns whose buffers are
 * transferred; strings as arrays of strings; anything else by structured
 * clone. What arrives equals what was sent, except that class instances
 * arrive as plain objects (as with any structured clone).
 */
export const columnarCodec: BatchCodec = {
  encode(batch) {
    const n = batch.values.length;
    const timestamps = Float64Array.from(batch.timestamps);
    const values = n === 0 ? ({ kind: 'cloned', data: [] } as const) : encodeColumn(batch.values);
    const keys =
      batch.keys === undefined
        ? undefined
        : n === 0
          ? ({ kind: 'cloned', data: [] } as const)
          : encodeColumn(batch.keys);
    const transfer: ArrayBuffer[] = [timestamps.buffer as ArrayBuffer];
    buffersOf(values, transfer);
    if (keys !== undefined) buffersOf(keys, transfer);
    return { encoded: { length: n, timestamps, values, keys }, transfer };
  },
  decode(encoded) {
    const n = encoded.length;
    return {
      values: decodeColumn(encoded.values, n),
      timestamps: Array.from(encoded.timestamps),
      keys: encoded.keys === undefined ? undefined : decodeColumn(encoded.keys, n),
    };
  },
};
