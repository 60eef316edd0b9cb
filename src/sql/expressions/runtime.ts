/**
 * The run-time library compiled expressions call: the operations that are more than one
 * JavaScript operator (exact decimals, LIKE, date formatting, string functions). Compiled code
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

const DAY_MS = 86_400_000;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Of each pattern, the text of the last time unit it formatted (in UTC, units align with 0). */
const lastFormatted = new Map<string, { unit: number; bucket: number; text: string }>();

/**
 * Flink's DATE_FORMAT patterns, in UTC. Rows come in time order, so a pattern of whole days
 * (or hours, ...) mostly formats the unit it formatted last: that text is reused.
 */
function formatTimestamp(ms: number, pattern: string): string {
  let last = lastFormatted.get(pattern);
  if (last === undefined) {
    last = { unit: finestUnitMs(pattern), bucket: Number.NaN, text: '' };
    if (lastFormatted.size < 64) lastFormatted.set(pattern, last);
  }
  const bucket = Math.floor(ms / last.unit);
  if (bucket !== last.bucket) {
    last.text = formatTimestampText(ms, pattern);
    last.bucket = bucket;
  }
  return last.text;
}

/** The finest unit a pattern shows, in ms: its output is the same for all times of one unit. */
function finestUnitMs(pattern: string): number {
  let unit = DAY_MS;
  for (const c of pattern.replace(/'[^']*'?/g, '')) {
    if (c === 'S' || !/[yMdHhmsaS]/.test(c)) {
      if (/[A-Za-z]/.test(c)) return 1;
    } else if (c === 's') unit = Math.min(unit, 1000);
    else if (c === 'm') unit = Math.min(unit, 60_000);
    else if (c === 'H' || c === 'h' || c === 'a') unit = Math.min(unit, 3_600_000);
  }
  return unit;
}

/** Flink's DATE_FORMAT patterns (Java's SimpleDateFormat letters most queries use), in UTC. */
function formatTimestampText(ms: number, pattern: string): string {
  const d = new Date(ms);
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      out += end < 0 ? pattern.slice(i + 1) : pattern.slice(i + 1, end);
      i = end < 0 ? pattern.length : end + 1;
      continue;
    }
    let n = 1;
    while (pattern.charAt(i + n) === c) n++;
    switch (c) {
      case 'y':
        out += n === 2 ? pad(d.getUTCFullYear() % 100, 2) : pad(d.getUTCFullYear(), n);
        break;
      case 'M':
        out += pad(d.getUTCMonth() + 1, n);
        break;
      case 'd':
        out += pad(d.getUTCDate(), n);
        break;
      case 'H':
        out += pad(d.getUTCHours(), n);
        break;
      case 'h':
        out += pad(d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12, n);
        break;
      case 'm':
        out += pad(d.getUTCMinutes(), n);
        break;
      case 's':
        out += pad(d.getUTCSeconds(), n);
        break;
      case 'S':
        out += pad(d.getUTCMilliseconds(), 3).slice(0, n).padEnd(n, '0');
        break;
      case 'a':
        out += d.getUTCHours() < 12 ? 'AM' : 'PM';
        break;
      default:
        out += c.repeat(n);
    }
    i += n;
  }
  return out;
}

function formatTimestampDefault(ms: number, precision: number): string {
  const base = formatTimestamp(ms, 'yyyy-MM-dd HH:mm:ss');
  if (precision <= 0) return base;
  const fraction = pad(((ms % 1000) + 1000) % 1000, 3).padEnd(precision, '0');
  return `${base}.${fraction.slice(0, precision)}`;
}

const TIMESTAMP_TEXT =
  /^(\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?$/;

/** Parses `yyyy-MM-dd[ HH:mm[:ss[.fff]]]` as UTC epoch ms; undefined when malformed. */
function parseTimestamp(text: string): number | undefined {
  const m = TIMESTAMP_TEXT.exec(text.trim());
  if (m === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', f = ''] = m;
  const month = Number(mo);
  const day = Number(d);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return undefined;
  }
  const ms = Date.UTC(
    Number(y),
    month - 1,
    day,
    Number(h),
    Number(mi),
    Number(s),
    Number(f.padEnd(3, '0').slice(0, 3)),
  );
  // Date.UTC rolls 2020-02-30 over to March: refuse that.
  if (new Date(ms).getUTCDate() !== day) return undefined;
  return ms;
}

function likeToRegExp(pattern: string, escapeChar: string | null): RegExp {
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

function trimChars(s: string, chars: string, leading: boolean, trailing: boolean): string {
  let start = 0;
  let end = s.length;
  if (leading) while (start < end && chars.includes(s.charAt(start))) start++;
  if (trailing) while (end > start && chars.includes(s.charAt(end - 1))) end--;
  return s.slice(start, end);
}

const FIXED_UNIT_MS: Readonly<Record<string, number>> = {
  SECOND: 1000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
};

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
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

export const runtime = {
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
  formatTimestamp,
  formatTimestampText,
  formatTimestampDefault,
  parseTimestamp,
  formatDate(days: number): string {
    return formatTimestamp(days * DAY_MS, 'yyyy-MM-dd');
  },
  formatTime(ms: number, precision: number): string {
    return formatTimestampDefault(ms, precision).slice(11);
  },
  parseDate(text: string): number | undefined {
    const ms = /^\d{1,4}-\d{1,2}-\d{1,2}$/.test(text.trim()) ? parseTimestamp(text) : undefined;
    return ms === undefined ? undefined : Math.floor(ms / DAY_MS);
  },
  /**
   * CAST of text to DATE as Flink does it, looser than a literal or a format's field: `y`,
   * `y-m` or `y-m-d` (each part an integer, missing ones 1), anything after a space ignored
   * (`2017-12-12 09:30:00`); year 1 to 9999.
   */
  castDate(text: string): number | undefined {
    const space = text.indexOf(' ');
    const parts = (space > 0 ? text.slice(0, space) : text).split('-');
    // Each part is digits only: '-7' and '+2024-1-5' are not dates.
    if (parts.length > 3 || parts.some((p) => !/^\s*\d{1,9}\s*$/.test(p))) return undefined;
    const [y = 0, m = 1, d = 1] = parts.map(Number);
    if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return undefined;
    const date = new Date(0);
    date.setUTCFullYear(y, m - 1, d);
    return Math.round(date.getTime() / DAY_MS);
  },
  parseTime(text: string): number | undefined {
    const m = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?$/.exec(text.trim());
    if (m === null) return undefined;
    const [, h, mi, s = '0', f = ''] = m;
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
    return (
      ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 + Number(f.padEnd(3, '0').slice(0, 3))
    );
  },
  /** Field of a UTC timestamp (ms) for EXTRACT, HOUR(), ... */
  extract(ms: number, unit: string): number {
    const d = new Date(ms);
    switch (unit) {
      case 'YEAR':
        return d.getUTCFullYear();
      case 'QUARTER':
        return Math.floor(d.getUTCMonth() / 3) + 1;
      case 'MONTH':
        return d.getUTCMonth() + 1;
      case 'WEEK': {
        // ISO week number.
        const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
        const day = t.getUTCDay() || 7;
        t.setUTCDate(t.getUTCDate() + 4 - day);
        const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
        return Math.ceil(((t.getTime() - yearStart) / DAY_MS + 1) / 7);
      }
      case 'DAY':
        return d.getUTCDate();
      case 'DOW':
        return d.getUTCDay() + 1;
      case 'DOY':
        return Math.floor((ms - Date.UTC(d.getUTCFullYear(), 0, 1)) / DAY_MS) + 1;
      case 'HOUR':
        return d.getUTCHours();
      case 'MINUTE':
        return d.getUTCMinutes();
      case 'SECOND':
        return d.getUTCSeconds();
      case 'MILLISECOND':
        return d.getUTCSeconds() * 1000 + d.getUTCMilliseconds();
      default:
        return fail(`EXTRACT of ${unit} is not supported`);
    }
  },
  trim(s: string, chars: string, mode: string): string {
    return trimChars(s, chars, mode !== 'TRAILING', mode !== 'LEADING');
  },
  /** SUBSTRING(s FROM start [FOR length]), 1-based; a start below 1 counts from position 1. */
  substring(s: string, start: number, length: number | undefined): string {
    if (length !== undefined && length < 0)
      fail(`SUBSTRING length must not be negative, got ${length}`);
    const chars = Array.from(s);
    let from = start > 0 ? start - 1 : start < 0 ? Math.max(chars.length + start, 0) : 0;
    let to = length === undefined ? chars.length : start === 0 ? length - 1 : from + length;
    if (start <= 0 && length !== undefined && start === 0) to = Math.max(0, length - 1);
    from = Math.min(from, chars.length);
    to = Math.min(Math.max(to, from), chars.length);
    return chars.slice(from, to).join('');
  },
  charLength(s: string): number {
    let n = 0;
    for (const _ of s) n++;
    return n;
  },
  /** The start of `unit` (SECOND ... YEAR, UTC) that holds the epoch ms `ms`. */
  floorTime(ms: number, unit: string): number {
    const fixed = FIXED_UNIT_MS[unit];
    if (fixed !== undefined) return ms - (((ms % fixed) + fixed) % fixed);
    const d = new Date(ms);
    const month = d.getUTCMonth();
    const first = unit === 'YEAR' ? 0 : unit === 'QUARTER' ? month - (month % 3) : month;
    const start = new Date(0);
    start.setUTCFullYear(d.getUTCFullYear(), first, 1);
    return start.getTime();
  },
  /** `ms` itself when it starts a `unit`, otherwise the start of the next one. */
  ceilTime(ms: number, unit: string): number {
    const floor = runtime.floorTime(ms, unit);
    if (floor === ms) return ms;
    const fixed = FIXED_UNIT_MS[unit];
    if (fixed !== undefined) return floor + fixed;
    const next = new Date(floor);
    next.setUTCMonth(next.getUTCMonth() + (unit === 'YEAR' ? 12 : unit === 'QUARTER' ? 3 : 1));
    return next.getTime();
  },
  splitIndex(s: string, delimiter: string, index: number): string | null {
    // Flink splits keeping empty tokens, but the empty string has no token at all.
    if (index < 0 || s === '') return null;
    const parts = s.split(delimiter);
    return parts[index] ?? null;
  },
  regexpExtract(s: string, pattern: string, group: number): string | null {
    const m = new RegExp(pattern, 'u').exec(s);
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
  castFailed(value: unknown, target: string): never {
    return fail(`cannot cast ${JSON.stringify(value)} to ${target}`);
  },
  integerInRange(x: number, min: number, max: number, target: string): number {
    if (!Number.isFinite(x) || x < min || x > max) fail(`value ${x} is out of range of ${target}`);
    return x;
  },
} as const;

export type Runtime = typeof runtime;
