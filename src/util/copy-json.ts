/**
 * A deep copy of data headed for JSON (a state snapshot): what `JSON.stringify` will see,
 * sharing no object with the original, so that the original may be mutated in place afterwards.
 * About ten times as fast as `structuredClone` on small objects (no serialization step), and
 * faithful to what the snapshot will be written as: an object's `toJSON()` is used as
 * `JSON.stringify` uses it (a `Date` becomes its text).
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return copyJson(toJson.call(value) as T);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = copyJson((value as Record<string, unknown>)[key]);
    // A key named `__proto__` (JSON.parse makes one an own property) stays a property.
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = v;
  }
  return out as T;
}
