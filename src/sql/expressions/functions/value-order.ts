/**
 * Equality and order of SQL values as rows hold them (types/values.ts), for the functions that
 * compare values of any type: GREATEST, IS DISTINCT FROM, ARRAY_CONTAINS, ARRAY_SORT... A
 * BIGINT may be a number or a bigint, BYTES a Uint8Array, ARRAY an array, MAP a Map.
 */

export function bytesCompare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Whether two non-null values are equal (NULL elements of arrays equal each other). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (typeof a === 'number' || typeof a === 'bigint')
    return (
      (typeof b === 'number' || typeof b === 'bigint') &&
      // Mixed only for a BIGINT, a number below 2^53 and a bigint beyond.
      (typeof a === typeof b ? a === b : BigInt(a) === BigInt(b))
    );
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesCompare(a, b) === 0;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      const match = [...b].find(([k2]) => sameValue(k, k2));
      if (match === undefined || !sameValue(v, match[1])) return false;
    }
    return true;
  }
  return false;
}

/** The order of two non-null values of one comparable type (numbers, strings, booleans, BYTES). */
export function compareValues(a: unknown, b: unknown): number {
  if (a instanceof Uint8Array) return bytesCompare(a, b as Uint8Array);
  if (typeof a === 'string') return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
  const x = a as number | bigint | boolean;
  const y = b as number | bigint | boolean;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The order of two values of one comparable type for ORDER BY, with NULL lowest: first
 * ascending, last descending, Flink's default.
 */
export function compareNullsLow(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return compareValues(a, b);
}

/** IS DISTINCT FROM: NULL is not distinct from NULL, and distinct from every value. */
export function isDistinct(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a !== b;
  return !sameValue(a, b);
}
