/**
 * What may cross threads: plain data. Shared by the encoder's fast checks and
 * by the slow walk that, once a batch is refused, finds the offending record
 * and field for the error message.
 */

/** An object whose prototype is `Object.prototype` or null. */
export function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const TYPED_ARRAY_PROTOTYPES = new Set<unknown>(
  [
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
    DataView,
    Buffer,
  ].map((type) => type.prototype),
);

/**
 * Built-in objects that `v8.serialize` restores exactly (with their own
 * prototype): typed arrays, DataView, ArrayBuffer, RegExp, Map, Set.
 * Map and Set contents are checked separately.
 */
export function isSerializableLeaf(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return (
    TYPED_ARRAY_PROTOTYPES.has(proto) ||
    proto === ArrayBuffer.prototype ||
    proto === RegExp.prototype ||
    proto === Map.prototype ||
    proto === Set.prototype
  );
}

/** Where a value that cannot cross threads sits, and what it is. */
export interface UnsupportedValue {
  /** Dotted path from the record to the value ('' for the record itself); `[i]` for array items. */
  readonly path: string;
  readonly what: string;
}

/**
 * Walks `value` and returns the first part of it that is not plain data, or
 * undefined when all of it is. Each object is visited once, so cycles end.
 */
export function findUnsupportedValue(value: unknown): UnsupportedValue | undefined {
  return walk(value, '', new Set());
}

function walk(value: unknown, path: string, seen: Set<object>): UnsupportedValue | undefined {
  switch (typeof value) {
    case 'function':
      return { path, what: `a function (${value.name || 'anonymous'})` };
    case 'symbol':
      return { path, what: `a symbol (${String(value)})` };
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null || seen.has(value)) return undefined;
  seen.add(value);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    for (const key of Object.keys(value)) {
      const found = walk(
        (value as Record<string, unknown>)[key],
        path === '' ? key : `${path}.${key}`,
        seen,
      );
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (proto === Array.prototype) {
    const array = value as unknown[];
    for (let i = 0; i < array.length; i++) {
      const found = walk(array[i], `${path}[${i}]`, seen);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (proto === Date.prototype) return undefined;
  if (value instanceof Map && proto === Map.prototype) {
    for (const [k, v] of value) {
      const found = walk(k, `${path}<map key>`, seen) ?? walk(v, `${path}<map value>`, seen);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value instanceof Set && proto === Set.prototype) {
    for (const item of value) {
      const found = walk(item, `${path}<set item>`, seen);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (isSerializableLeaf(value)) return undefined;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return {
    path,
    what: `an instance of ${typeof name === 'string' && name !== '' ? name : 'a class'}, which would arrive without its prototype and methods`,
  };
}
