/**
 * The run-time library compiled expressions call: the operations that are more than one
 * JavaScript operator (exact decimals, LIKE, string functions; time is in functions/time-runtime.ts). Compiled code
 * receives it as `h`; nothing here walks a tree.
 */
import { WeirError } from '../../core/errors.js';
import {
  decimalOfDouble,
  decimalToDouble,
  divideHalfUp,
  fitPrecision,
  formatDecimal,
  multiplyByConstant,
  parseDecimal,
  pow10,
  rescale,
} from '../types/decimal.js';
import {
  type Long,
  longAdd,
  longDivide,
  longMultiply,
  longNegate,
  longOf,
  longOfDecimal,
  longOfDouble,
  longRemainder,
  longSubtract,
  longToInt32,
  parseLong,
} from '../types/long.js';
import { preciseTimeRuntime } from './functions/precise-time.js';
import { checkLikeEscapes, similarTo } from './functions/similar-to.js';
import { timeRuntime } from './functions/time-runtime.js';

function likeToRegExp(pattern: string, escapeChar: string | null): RegExp {
  if (escapeChar !== null) checkLikeEscapes(pattern, escapeChar);
  let source = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (escapeChar !== null && c === escapeChar) {
      const next = pattern.charAt(++i);
      source += next.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    } else if (c === '%') source += '[\\s\\S]*';
    else if (c === '_') source += '[\\s\\S]';
    else source += c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  return new RegExp(`${source}$`, 'u');
}

const likeCache = new Map<string, RegExp>();
/** REGEXP_EXTRACT's patterns that are not literals, compiled once each. */
const regExpCache = new Map<string, RegExp>();
/**
 * The last string SPLIT_INDEX looked into, with its delimiter and where its tokens start, as far
 * as a call has needed them: `starts[k]` is token k's first index for `k < found`, and `complete`
 * says that the last delimiter was found.
 */
const lastSplit: {
  s: string;
  delimiter: string;
  starts: number[];
  found: number;
  complete: boolean;
} = { s: '', delimiter: '', starts: [0], found: 1, complete: true };

function trimChars(s: string, chars: string, leading: boolean, trailing: boolean): string {
  let start = 0;
  let end = s.length;
  if (leading) while (start < end && chars.includes(s.charAt(start))) start++;
  if (trailing) while (end > start && chars.includes(s.charAt(end - 1))) end--;
  return s.slice(start, end);
}

function fail(message: string): never {
  throw new WeirError('USER_FUNCTION_FAILED', message);
}

/** The number of elements of an ARRAY, or of entries of a MAP (a Map or a plain object). */
function cardinality(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  return Object.keys(value as object).length;
}

/** The element at 1-based `index`, NULL out of range (an index beyond 2^53 is a bigint). */
function arrayItem(array: readonly unknown[], index: number | bigint): unknown {
  if (typeof index !== 'number' || index < 1 || index > array.length) return null;
  return array[index - 1] ?? null;
}

/**
 * The value under `key`, NULL without one. A Map built by SQL holds keys in their canonical
 * form (strings, numbers, bigints beyond 2^53), so `get` finds them; a format may hand over a
 * plain object, keyed by text.
 */
function mapItem(map: unknown, key: unknown): unknown {
  if (map instanceof Map) return map.get(key) ?? null;
  const value = (map as Record<string, unknown>)[String(key)];
  return value === undefined || !Object.hasOwn(map as object, String(key)) ? null : value;
}

const floatBits = new Float32Array(1);
const floatWord = new Uint32Array(floatBits.buffer);

/** The positive float `bits` (as a 32-bit pattern) stands for. */
function floatOfBits(bits: number): number {
  floatWord[0] = bits;
  return floatBits[0] as number;
}

/** A finite double exactly as `m * 2^e`, `m` an integer. */
function binaryParts(x: number): [bigint, number] {
  let e = 0;
  let m = x;
  while (!Number.isInteger(m)) {
    m *= 2;
    e--;
  }
  return [BigInt(m), e];
}

/** `d * 10^k` and the finite double `x` scaled to integers alike: comparing them compares the two. */
function scaledPair(d: bigint, k: number, x: number): [bigint, bigint] {
  const [m, e] = binaryParts(x);
  const left = d * 10n ** BigInt(Math.max(k, 0)) * 2n ** BigInt(Math.max(-e, 0));
  const right = m * 2n ** BigInt(Math.max(e, 0)) * 10n ** BigInt(Math.max(-k, 0));
  return [left, right];
}

function compareDecimal(d: bigint, k: number, x: number): number {
  const [a, b] = scaledPair(d, k, x);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The shortest decimal `d * 10^k` that reads back (Java's Float.parseFloat, rounding to nearest,
 * ties to even) as the positive finite float `v`, the one nearest `v` among those (ties to an
 * even last digit); when one digit would do, the nearest of one or two digits (so
 * Float.MIN_VALUE is 1.4E-45, not 1.0E-45): Java's Float.toString (JDK 19+). Doubles decide
 * wherever they can; where a decimal's double meets a bound, or two distances are near equal,
 * BigInt decides exactly.
 */
function shortestFloat(v: number): [number, number] {
  floatBits[0] = v;
  const bits = floatWord[0] as number;
  const below = bits === 0 ? 0 : floatOfBits(bits - 1);
  const above = floatOfBits(bits + 1);
  // The decimals between these (exact doubles) read back as v; on them, only when v is even.
  const lo = (v + below) / 2;
  const hi = Number.isFinite(above) ? (v + above) / 2 : v + (v - below) / 2;
  const even = (bits & 1) === 0;
  const symmetric = v - below === above - v;
  const readsBack = (d: number, k: number): boolean => {
    if (d <= 0) return false;
    // Rounding to a double keeps order: strictly inside or outside the bounds is decided.
    const n = Number(`${d}e${k}`);
    if (n < lo || n > hi) return false;
    if (n > lo && n < hi) return true;
    const l = compareDecimal(BigInt(d), k, lo);
    const h = compareDecimal(BigInt(d), k, hi);
    return (l > 0 || (l === 0 && even)) && (h < 0 || (h === 0 && even));
  };
  const found: [number, number][] = [];
  const collect = (p: number): void => {
    const text = v.toExponential(p - 1);
    const e = text.indexOf('e');
    const d = Number(text.slice(0, e).replace('.', ''));
    const k = Number(text.slice(e + 1)) - (p - 1);
    if (symmetric) {
      // The nearest p digits read back if any do; the ones below may tie with them (the
      // rounding takes the larger of two).
      if (readsBack(d, k)) {
        found.push([d, k]);
        if (readsBack(d - 1, k)) found.push([d - 1, k]);
      }
      return;
    }
    // v a power of two: the interval below is half the one above, the nearest may miss it.
    if (readsBack(d - 1, k)) found.push([d - 1, k]);
    if (readsBack(d, k)) found.push([d, k]);
    if (readsBack(d + 1, k)) found.push([d + 1, k]);
    // Rounded up into the next decade (9.96 to 1.0E1): the p digits below are 9.9..9.
    if (d === 10 ** (p - 1) && readsBack(10 ** p - 1, k - 1)) found.push([10 ** p - 1, k - 1]);
  };
  /** Whether `a` is nearer v than `b` (at equal distance, whether its last digit is even). */
  const nearer = (a: [number, number], b: [number, number]): boolean => {
    const da = Math.abs(Number(`${a[0]}e${a[1]}`) - v);
    const db = Math.abs(Number(`${b[0]}e${b[1]}`) - v);
    if (Math.abs(da - db) > v * 1e-12) return da < db;
    const order = compareFractions(distance(a, v), distance(b, v));
    return order < 0 || (order === 0 && a[0] % 2 === 0);
  };
  for (let p = 1; p <= 9; p++) {
    collect(p);
    if (p === 1 && found.length > 0) collect(2);
    if (found.length === 0) continue;
    let best = found[0] as [number, number];
    for (let i = 1; i < found.length; i++) {
      const c = found[i] as [number, number];
      if (nearer(c, best)) best = c;
    }
    return best;
  }
  // Nine digits always read back as the float.
  throw new Error(`no decimal reads back as ${v}`);
}

/** |d * 10^k - v| as a fraction [numerator, denominator]. */
function distance([d, k]: [number, number], v: number): [bigint, bigint] {
  const [a, b] = scaledPair(BigInt(d), k, v);
  // scaledPair multiplied both sides by 10^max(-k, 0) * 2^max(-e, 0).
  const e = binaryParts(v)[1];
  const scale = 10n ** BigInt(Math.max(-k, 0)) * 2n ** BigInt(Math.max(-e, 0));
  return [a > b ? a - b : b - a, scale];
}

function compareFractions([a, b]: [bigint, bigint], [c, d]: [bigint, bigint]): number {
  const x = a * d;
  const y = c * b;
  return x < y ? -1 : x > y ? 1 : 0;
}

export const runtime = {
  ...timeRuntime,
  ...preciseTimeRuntime,
  arrayItem,
  mapItem,
  cardinality,
  longAdd,
  longSubtract,
  longMultiply,
  longNegate,
  longToInt32,
  longOfDouble,
  longOfDecimal,
  longDivide(a: Long, b: Long): Long {
    if (b === 0) fail('division by zero');
    return longDivide(a, b);
  },
  longRemainder(a: Long, b: Long): Long {
    if (b === 0) fail('division by zero');
    return longRemainder(a, b);
  },
  /** CAST of text to BIGINT: as castInteger, exact over the whole 64-bit range. */
  castLong(s: string): Long | null {
    const t = s.trim();
    if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(t)) return null;
    const whole = t.replace(/\..*$/, '');
    return parseLong(whole === '' || whole === '+' || whole === '-' ? '0' : whole);
  },
  /** ROUND(v, -digits) of a BIGINT: half away from zero to a multiple of 10^digits. */
  longRound(v: Long, digits: number): Long {
    const unit = 10n ** BigInt(digits);
    const b = BigInt(v);
    const abs = b < 0n ? -b : b;
    const rounded = ((abs + unit / 2n) / unit) * unit;
    return longOf(b < 0n ? -rounded : rounded);
  },
  longAbs(v: Long): Long {
    return typeof v === 'number' ? Math.abs(v) : longOf(v < 0n ? -v : v);
  },
  pow10,
  fitPrecision,
  multiplyByConstant,
  rescale,
  divideHalfUp,
  formatDecimal,
  parseDecimal,
  decimalOfDouble,
  decimalToDouble,
  /** a / b for DECIMALs: exact quotient at `scale`, HALF_UP, NULL on overflow. */
  decimalDivide(
    a: bigint,
    aScale: number,
    b: bigint,
    bScale: number,
    scale: number,
    precision: number,
  ): bigint | null {
    if (b === 0n) fail('division by zero');
    // a / 10^as / (b / 10^bs) * 10^s = a * 10^(s - as + bs) / b
    const shift = scale - aScale + bScale;
    const q = shift >= 0 ? divideHalfUp(a * pow10(shift), b) : divideHalfUp(a, b * pow10(-shift));
    return fitPrecision(q, precision);
  },
  intDivide(a: number, b: number): number {
    if (b === 0) fail('division by zero');
    return Math.trunc(a / b) + 0; // + 0 turns -0 into 0
  },
  intMod(a: number, b: number): number {
    if (b === 0) fail('division by zero');
    return (a % b) + 0;
  },
  decimalMod(a: bigint, b: bigint): bigint {
    if (b === 0n) fail('division by zero');
    return a % b;
  },
  /** Wraps to a two's-complement width, as Java's integer arithmetic does. */
  wrap8: (x: number) => (x << 24) >> 24,
  wrap16: (x: number) => (x << 16) >> 16,
  like(value: string, pattern: string, escapeChar: string | null): boolean {
    const key = escapeChar === null ? pattern : `${escapeChar}\u0000${pattern}`;
    let re = likeCache.get(key);
    if (re === undefined) {
      re = likeToRegExp(pattern, escapeChar);
      if (likeCache.size > 1000) likeCache.clear();
      likeCache.set(key, re);
    }
    return re.test(value);
  },
  likeToRegExp,
  /** `value SIMILAR TO pattern [ESCAPE escape]` with a pattern known only per row. */
  similar: similarTo,
  trim(s: string, chars: string, mode: string): string {
    return trimChars(s, chars, mode !== 'TRAILING', mode !== 'LEADING');
  },
  /**
   * SUBSTRING(s FROM start [FOR length]), 1-based, with Flink's positions (its
   * `BinaryStringDataUtil.substringSQL`, not the SQL standard's): a start of 0 is the first
   * character, so `SUBSTRING('Hi', 0, 2)` is `Hi` (Flink's CalcITCase.testComplexInLargeValues);
   * a negative start counts from the end, and one before the first character gives ''.
   */
  substring(s: string, start: number, length: number | undefined): string {
    if (length !== undefined && length < 0)
      fail(`SUBSTRING length must not be negative, got ${length}`);
    const chars = Array.from(s);
    const from = start > 0 ? start - 1 : start < 0 ? chars.length + start : 0;
    if (from < 0 || from >= chars.length) return '';
    const to = length === undefined ? chars.length : Math.min(from + length, chars.length);
    return chars.slice(from, to).join('');
  },
  charLength(s: string): number {
    let n = 0;
    for (const _ of s) n++;
    return n;
  },
  splitIndex(s: string, delimiter: string, index: number): string | null {
    // Flink splits keeping empty tokens, but the empty string has no token at all.
    if (index < 0 || s === '') return null;
    if (delimiter === '') return s.split('')[index] ?? null;
    // A row often takes several tokens of one string (Nexmark q22: SPLIT_INDEX(url, '/', 3),
    // 4 and 5): the delimiters found are kept, so the string is scanned once for all of them,
    // only as far as the tokens asked for, and only those are cut (`split` cuts them all).
    const last = lastSplit;
    if (s !== last.s || delimiter !== last.delimiter) {
      last.s = s;
      last.delimiter = delimiter;
      last.found = 1;
      last.complete = false;
    }
    const { starts } = last;
    // Token `index` ends where token `index + 1` starts (less the delimiter), or at the end.
    while (last.found <= index + 1 && !last.complete) {
      const at = s.indexOf(delimiter, starts[last.found - 1] as number);
      if (at < 0) last.complete = true;
      else starts[last.found++] = at + delimiter.length;
    }
    if (index >= last.found) return null;
    const end =
      index + 1 < last.found ? (starts[index + 1] as number) - delimiter.length : s.length;
    return s.slice(starts[index] as number, end);
  },
  regexpExtract(s: string, pattern: string, group: number): string | null {
    let re = regExpCache.get(pattern);
    if (re === undefined) {
      re = new RegExp(pattern, 'u');
      if (regExpCache.size > 1000) regExpCache.clear();
      regExpCache.set(pattern, re);
    }
    return runtime.regexpExtractWith(s, re, group);
  },
  /** REGEXP_EXTRACT with its pattern compiled (without the global flag: exec keeps no state). */
  regexpExtractWith(s: string, re: RegExp, group: number): string | null {
    const m = re.exec(s);
    if (m === null) return null;
    return m[group] ?? null;
  },
  /** ROUND(x, d) of a double, HALF_UP as Java's BigDecimal. */
  roundDouble(x: number, digits: number): number {
    const d = decimalOfDouble(x, Math.max(digits, 0) + 1);
    if (d === null) return x;
    const scale = Math.max(digits, 0) + 1;
    const rounded = rescale(d, scale, digits);
    return digits >= 0 ? decimalToDouble(rounded, digits) : Number(rounded) * 10 ** -digits;
  },
  parseBoolean(s: string): boolean | null {
    const t = s.trim().toLowerCase();
    if (t === 'true' || t === 't' || t === 'yes' || t === 'y' || t === '1') return true;
    if (t === 'false' || t === 'f' || t === 'no' || t === 'n' || t === '0') return false;
    return null;
  },
  parseInteger(s: string, min: number, max: number): number | null {
    const t = s.trim();
    if (!/^[+-]?\d+$/.test(t)) return null;
    const n = Number(t);
    return n < min || n > max ? null : n;
  },
  /** CAST of text to an integer type as Flink does it: a fraction is cut off (`3.9` is 3, `.5` 0). */
  castInteger(s: string, min: number, max: number): number | null {
    const t = s.trim();
    if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(t)) return null;
    const n = Math.trunc(Number(t)) || 0; // no -0
    return n < min || n > max ? null : n;
  },
  parseDouble(s: string): number | null {
    const t = s.trim();
    if (t === 'NaN') return Number.NaN;
    if (/^[+-]?Infinity$/.test(t)) return Number(t);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
    return Number(t);
  },
  /** A double as Java's Double.toString prints it (`1.0`, `1.0E10`, `1.5E-5`). */
  formatDouble(x: number): string {
    if (Number.isNaN(x)) return 'NaN';
    if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
    if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
    const abs = Math.abs(x);
    if (abs >= 1e-3 && abs < 1e7) {
      const s = String(x);
      return s.includes('.') ? s : `${s}.0`;
    }
    const [mantissa = '', exponent = ''] = x.toExponential().split('e');
    const m = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
    return `${m}E${exponent.startsWith('+') ? exponent.slice(1) : exponent}`;
  },
  /**
   * A FLOAT as Java's Float.toString prints it: the shortest decimal that reads back as the same
   * 32-bit float (`3.14159`, not the double's `3.141590118408203`), in Double.toString's form
   * (`1.0E10`, `1.0E-5`).
   */
  formatFloat(x: number): string {
    const v = Math.fround(x);
    if (!Number.isFinite(v) || v === 0) return runtime.formatDouble(v);
    const [d, k] = shortestFloat(Math.abs(v));
    // At most nine digits: the double nearest the decimal prints as that decimal.
    return runtime.formatDouble(Number(`${v < 0 ? '-' : ''}${d}e${k}`));
  },
  castFailed(value: unknown, target: string): never {
    return fail(`cannot cast ${JSON.stringify(value)} to ${target}`);
  },
  integerInRange(x: number, min: number, max: number, target: string): number {
    if (!Number.isFinite(x) || x < min || x > max) fail(`value ${x} is out of range of ${target}`);
    return x;
  },
} as const;

export type Runtime = typeof runtime;
