/**
 * BIGINT values, exact over Java's 64-bit range: a row holds a BIGINT as a number while it is
 * a safe integer (|v| < 2^53, nearly always) and as a bigint beyond, so the common case keeps
 * the speed of plain numbers. The form is canonical (a value that fits a safe integer is never
 * a bigint), so `===`, `<` and grouping keys stay exact. Arithmetic wraps around as Java's
 * `long` does, which Flink's BIGINT is.
 */

/** A BIGINT value as a row holds it. */
export type Long = number | bigint;

/** The canonical form of a 64-bit value given as a bigint (wrapped to 64 bits first). */
export function longOf(b: bigint): Long {
  const w = BigInt.asIntN(64, b);
  return w >= -9007199254740991n && w <= 9007199254740991n ? Number(w) : w;
}

const big = (v: Long): bigint => (typeof v === 'bigint' ? v : BigInt(v));

/**
 * `a + b`, `a - b`, `a * b` with Java's wrap-around. Done in doubles first: when both are numbers
 * and the double result is a safe integer, it is exact (the exact result is representable and
 * IEEE arithmetic rounds correctly); otherwise again in bigints.
 */
export function longAdd(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return longOf(big(a) + big(b));
}

export function longSubtract(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return longOf(big(a) - big(b));
}

export function longMultiply(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r + 0; // no -0
  }
  return longOf(big(a) * big(b));
}

export function longNegate(a: Long): Long {
  return typeof a === 'number' ? -a + 0 : longOf(-a);
}

/** Integer division truncating toward zero (Long.MIN_VALUE / -1 wraps, as in Java). */
export function longDivide(a: Long, b: Long): Long {
  // A double quotient truncates correctly only while both operands are small.
  if (typeof a === 'number' && typeof b === 'number' && Math.abs(a) < 2 ** 31 && b !== 0)
    return Math.trunc(a / b) + 0;
  return longOf(big(a) / big(b));
}

export function longRemainder(a: Long, b: Long): Long {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) return (a % b) + 0;
  return longOf(big(a) % big(b));
}

/** The 32-bit (or narrower) wrap of a BIGINT, as Java's `(int)` cast. */
export function longToInt32(v: Long): number {
  return typeof v === 'number' ? v | 0 : Number(BigInt.asIntN(32, v));
}

/** A BIGINT as a double (rounded to the nearest, as Java's `(double)`). */
export function longToDouble(v: Long): number {
  return Number(v);
}

/** A double to BIGINT as Java's `(long)`: truncated, NaN 0, saturated at the range's ends. */
export function longOfDouble(d: number): Long {
  if (Number.isNaN(d)) return 0;
  const t = Math.trunc(d) + 0;
  if (Number.isSafeInteger(t)) return t;
  if (t >= 2 ** 63) return 9223372036854775807n;
  if (t <= -(2 ** 63)) return -9223372036854775808n;
  return longOf(BigInt(t));
}

/** A DECIMAL's unscaled value to BIGINT: the fraction cut off, the low 64 bits kept (Java's BigDecimal.longValue). */
export function longOfDecimal(unscaled: bigint, scale: number): Long {
  return longOf(unscaled / 10n ** BigInt(scale));
}

/** Integer text (an optional sign and digits) to BIGINT, or null outside the 64-bit range. */
export function parseLong(text: string): Long | null {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) return null;
  const b = BigInt(t);
  return b < -(2n ** 63n) || b >= 2n ** 63n ? null : longOf(b);
}

/** A BIGINT in JSON-safe form for accumulators and keys: a bigint as its digits. */
export function longToJson(v: Long): number | string {
  return typeof v === 'bigint' ? v.toString() : v;
}

export function longFromJson(v: number | string): Long {
  return typeof v === 'string' ? longOf(BigInt(v)) : v;
}
