/**
 * Whether two rows are equal as data (JSON-equal), so that an update that
 * does not change a row is not emitted. Rows in state are JSON data anyway,
 * except for SQL DECIMAL values (bigints) and MAP values (Maps, compared by
 * their entries in order).
 */
export function sameRow(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  // Rows of SQL and most aggregates are flat arrays: compare them field by field, without
  // building their JSON text (which was the largest cost of an updating aggregation).
  if (Array.isArray(a) && Array.isArray(b)) return sameArray(a, b);
  const same = samePlainObject(a, b);
  return same === undefined ? jsonText(a) === jsonText(b) : same;
}

/**
 * Two plain objects (a DataStream aggregate's result, such as `{ category, final }`) compared
 * key by key as their JSON would be; undefined when only their JSON can tell (other
 * prototypes, keys that differ or a `toJSON`, values JSON may write alike).
 */
function samePlainObject(a: object, b: object): boolean | undefined {
  const proto = Object.getPrototypeOf(a);
  if ((proto !== Object.prototype && proto !== null) || Object.getPrototypeOf(b) !== proto)
    return undefined;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length || 'toJSON' in a) return undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (other[i] !== k) return undefined;
    const x = (a as Record<string, unknown>)[k];
    const y = (b as Record<string, unknown>)[k];
    if (x === y) continue;
    if (typeof x === 'object' && typeof y === 'object' && x !== null && y !== null) {
      if (!sameRow(x, y)) return false;
      continue;
    }
    // Unequal finite numbers, strings or booleans are written differently; anything else
    // (NaN, infinities, undefined, null, bigints) is left to JSON.
    const tx = typeof x;
    if (tx !== typeof y) return undefined;
    if (tx === 'string' || tx === 'boolean') return false;
    if (tx === 'number' && Number.isFinite(x) && Number.isFinite(y)) return false;
    return undefined;
  }
  return true;
}

function sameArray(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'object' && typeof y === 'object' && x !== null && y !== null) {
      if (!sameRow(x, y)) return false;
    } else if (!(jsonNull(x) && jsonNull(y))) return false;
  }
  return true;
}

/** Values an array's JSON text writes as `null` (so JSON equality treats them as equal). */
function jsonNull(v: unknown): boolean {
  return (
    v === null ||
    v === undefined ||
    (typeof v === 'number' && !Number.isFinite(v)) ||
    typeof v === 'function' ||
    typeof v === 'symbol'
  );
}

/** The text a row is stored under in map state (rows compare by their JSON). */
export function rowText(row: unknown): string {
  return typeof row === 'string' ? `s${row}` : `j${jsonText(row)}`;
}

const tagged = (_key: string, v: unknown): unknown =>
  typeof v === 'bigint' ? { bigint: v.toString() } : v instanceof Map ? { map: [...v] } : v;

/** Whether `value` holds a Map, which JSON.stringify would write as `{}` whatever its entries. */
function holdsMap(value: unknown): boolean {
  if (value instanceof Map) return true;
  if (!Array.isArray(value)) return false;
  for (const v of value) if (typeof v === 'object' && v !== null && holdsMap(v)) return true;
  return false;
}

/**
 * JSON.stringify, with bigints as `{"bigint": "<digits>"}` (JSON has none; it throws on them)
 * and Maps (SQL MAP values, also inside arrays) as `{"map": [[key, value], ...]}`.
 */
function jsonText(value: unknown): string {
  if (holdsMap(value)) return JSON.stringify(value, tagged);
  try {
    return JSON.stringify(value);
  } catch (e) {
    // Only rows with a bigint pay for the replacer.
    if (e instanceof TypeError) return JSON.stringify(value, tagged);
    throw e;
  }
}
