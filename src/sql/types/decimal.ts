/**
 * Exact DECIMAL(p, s) values: a value is its unscaled bigint (123.45 in DECIMAL(5, 2) is
 * 12345n); the scale lives in the type, so rows carry only the bigint. Rounding is HALF_UP
 * and a value that does not fit its precision becomes NULL, as in Flink.
 */

const POW10: bigint[] = [];
for (let i = 0n, p = 1n; i <= 80n; i++, p *= 10n) POW10.push(p);

export function pow10(n: number): bigint {
  const p = POW10[n];
  if (p === undefined) throw new RangeError(`10^${n} is out of range`);
  return p;
}

/** Divides with HALF_UP rounding (away from zero on a tie). */
export function divideHalfUp(a: bigint, b: bigint): bigint {
  const negative = a < 0n !== b < 0n;
  const x = a < 0n ? -a : a;
  const y = b < 0n ? -b : b;
  let q = x / y;
  if ((x % y) * 2n >= y) q += 1n;
  return negative ? -q : q;
}

/** Changes the scale of an unscaled value, rounding HALF_UP when digits are dropped. */
export function rescale(unscaled: bigint, from: number, to: number): bigint {
  if (to === from) return unscaled;
  if (to > from) return unscaled * pow10(to - from);
  return divideHalfUp(unscaled, pow10(from - to));
}

/** The value, or null when it has more than `precision` digits. */
export function fitPrecision(unscaled: bigint, precision: number): bigint | null {
  const limit = pow10(precision);
  return unscaled < limit && unscaled > -limit ? unscaled : null;
}

/** The plain string of a decimal, with exactly `scale` fraction digits (Java's toPlainString). */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale > 0) {
    if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return negative ? `-${digits}` : digits;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Parses a decimal literal or string at `scale` (HALF_UP); undefined when it is not a number. */
export function parseDecimal(text: string, scale: number): bigint | undefined {
  const m = DECIMAL_TEXT.exec(text.trim());
  if (m === null) return undefined;
  const whole = m[2] ?? '';
  const fraction = m[3] ?? '';
  if (whole === '' && fraction === '') return undefined;
  const exponent = m[4] === undefined ? 0 : Number(m[4]);
  let unscaled = BigInt(`${whole}${fraction}` || '0');
  const sourceScale = fraction.length - exponent;
  if (sourceScale < 0) {
    unscaled *= pow10(-sourceScale);
    unscaled = rescale(unscaled, 0, scale);
  } else unscaled = rescale(unscaled, sourceScale, scale);
  return m[1] === '-' ? -unscaled : unscaled;
}

/** A double as a decimal at `scale` (via its shortest decimal rendering, as BigDecimal.valueOf). */
export function decimalOfDouble(value: number, scale: number): bigint | null {
  if (!Number.isFinite(value)) return null;
  return parseDecimal(String(value), scale) ?? null;
}

export function decimalToDouble(unscaled: bigint, scale: number): number {
  return Number(formatDecimal(unscaled, scale));
}

/** Truncates toward zero to an integer (CAST of a DECIMAL to an integer type). */
export function truncateDecimal(unscaled: bigint, scale: number): bigint {
  return unscaled / pow10(scale);
}

/**
 * `n * k` for an integer value `n` (a number or a bigint) and an unscaled constant `k`
 * (`kBig` as a bigint, `k` the same as a number), or null beyond `precision` digits. Through
 * doubles while the product is a safe integer: the product of two integers is then exact (one
 * beyond 2^53 - 1 rounds to at least 2^53 and takes the bigint path).
 */
export function multiplyByConstant(
  n: number | bigint,
  k: number,
  kBig: bigint,
  precision: number,
): bigint | null {
  if (typeof n === 'number') {
    const product = n * k;
    if (Number.isSafeInteger(product)) {
      // 10^15 and below are exact doubles; a safe integer has at most 16 digits.
      if (precision > 15 || (product < 10 ** precision && product > -(10 ** precision)))
        return BigInt(product);
      return null;
    }
  }
  return fitPrecision(BigInt(n) * kBig, precision);
}
