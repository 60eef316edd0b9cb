import type { Json } from '../core/snapshot.js';

/**
 * A value as JSON with object keys sorted, so equal values give equal text
 * whatever order their fields were set in. Values JSON cannot hold are
 * written in a fixed way: bigint as its decimal string, Date as ISO text,
 * Map as an object (or an array of entries when a key is not a string), Set
 * and typed arrays as arrays, NaN and the infinities as strings, undefined
 * fields left out (as JSON.stringify does).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(toJson(value));
}

/** {@link canonicalJson} as a JSON value rather than text. */
export function toJson(value: unknown): Json {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return null;
    case 'object':
      return objectToJson(value);
  }
}

function objectToJson(value: object | null): Json {
  if (value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toJson);
  if (ArrayBuffer.isView(value)) {
    return value instanceof DataView
      ? []
      : Array.from(value as unknown as ArrayLike<number>, toJson);
  }
  if (value instanceof Set) return [...value].map(toJson);
  if (value instanceof Map) {
    const entries = [...value.entries()];
    if (entries.every(([k]) => typeof k === 'string')) {
      return sortedObject(entries as [string, unknown][]);
    }
    return entries.map(([k, v]) => [toJson(k), toJson(v)]);
  }
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return toJson(withJson.toJSON());
  return sortedObject(Object.entries(value));
}

function sortedObject(entries: [string, unknown][]): Json {
  const out: { [key: string]: Json } = {};
  for (const [k, v] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out[k] = toJson(v);
  }
  return out;
}
