/**
 * The run-time half of Weir SQL's time: calendar arithmetic on the values rows hold (DATE as
 * days since 1970-01-01, TIME as ms of the day, TIMESTAMP as the epoch ms of its fields read in
 * UTC, TIMESTAMP_LTZ as an instant in epoch ms), Java date patterns, and the conversions the
 * session time zone drives. Compiled expressions reach it through the run-time library `h`.
 */
import { WeirError } from '../../../core/errors.js';
import { civilFromDays as civilOf, daysFromCivil as daysOf } from '../../../util/civil-calendar.js';
import type { TimeZone } from '../../types/time-zone.js';
import { timeZoneOf } from '../session-time-zone.js';

export { civilOf, daysOf };

export const DAY_MS = 86_400_000;

const FIXED_UNIT_MS: Readonly<Record<string, number>> = {
  MILLISECOND: 1,
  SECOND: 1000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: DAY_MS,
  WEEK: 7 * DAY_MS,
};

const MONTHS_OF_UNIT: Readonly<Record<string, number>> = { MONTH: 1, QUARTER: 3, YEAR: 12 };

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function fail(message: string): never {
  throw new WeirError('USER_FUNCTION_FAILED', message);
}

function pad(n: number, width: number): string {
  return n < 0 ? `-${String(-n).padStart(width, '0')}` : String(n).padStart(width, '0');
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** A date `months` later (earlier when negative); a day past the new month's end becomes its last. */
export function addMonthsToDate(days: number, months: number): number {
  const { year, month, day } = civilOf(days);
  const total = year * 12 + (month - 1) + months;
  const y = Math.floor(total / 12);
  const m = total - y * 12 + 1;
  return daysOf(y, m, Math.min(day, daysInMonth(y, m)));
}

/** A timestamp (epoch ms) `months` later: the date moves as addMonthsToDate, the time stays. */
export function addMonths(ms: number, months: number): number {
  const days = Math.floor(ms / DAY_MS);
  return addMonthsToDate(days, months) * DAY_MS + (ms - days * DAY_MS);
}

/**
 * Whole months from `a` to `b` (negative when b is earlier): the largest m with
 * addMonths(a, m) <= b, so Jan 31 to Feb 28 is one month, as Flink counts.
 */
export function monthsBetween(a: number, b: number): number {
  if (b < a) return 0 - monthsBetween(b, a); // 0 - x: never -0
  const from = civilOf(Math.floor(a / DAY_MS));
  const to = civilOf(Math.floor(b / DAY_MS));
  let months = (to.year - from.year) * 12 + (to.month - from.month);
  while (months > 0 && addMonths(a, months) > b) months--;
  return months;
}

/** ISO-8601 week number (weeks start on Monday; week 1 holds the year's first Thursday). */
function isoWeek(days: number): { week: number; year: number } {
  const isoDow = ((((days + 3) % 7) + 7) % 7) + 1; // 1970-01-01 was a Thursday (4)
  const thursday = days + 4 - isoDow;
  const year = civilOf(thursday).year;
  return { week: Math.floor((thursday - daysOf(year, 1, 1)) / 7) + 1, year };
}

/** Day of the week, 1 = Sunday ... 7 = Saturday. */
function dayOfWeek(days: number): number {
  return ((((days + 4) % 7) + 7) % 7) + 1;
}

/** A field of a timestamp's wall clock (epoch ms of its fields in UTC) for EXTRACT and HOUR(...). */
export function extractField(ms: number, unit: string): number {
  const days = Math.floor(ms / DAY_MS);
  const time = ms - days * DAY_MS;
  switch (unit) {
    case 'YEAR':
      return civilOf(days).year;
    case 'QUARTER':
      return Math.floor((civilOf(days).month - 1) / 3) + 1;
    case 'MONTH':
      return civilOf(days).month;
    case 'WEEK':
      return isoWeek(days).week;
    case 'ISOYEAR':
      return isoWeek(days).year;
    case 'DAY':
      return civilOf(days).day;
    case 'DOW':
      return dayOfWeek(days);
    case 'ISODOW':
      return ((dayOfWeek(days) + 5) % 7) + 1;
    case 'DOY': {
      const year = civilOf(days).year;
      return days - daysOf(year, 1, 1) + 1;
    }
    case 'DECADE':
      return Math.floor(civilOf(days).year / 10);
    case 'CENTURY': {
      const year = civilOf(days).year;
      return year > 0 ? Math.floor((year + 99) / 100) : -Math.floor((99 - year) / 100);
    }
    case 'MILLENNIUM': {
      const year = civilOf(days).year;
      return year > 0 ? Math.floor((year + 999) / 1000) : -Math.floor((999 - year) / 1000);
    }
    case 'HOUR':
      return Math.floor(time / 3_600_000);
    case 'MINUTE':
      return Math.floor(time / 60_000) % 60;
    case 'SECOND':
      return Math.floor(time / 1000) % 60;
    // The fraction of the second only, as Flink (not the seconds too).
    case 'MILLISECOND':
      return time % 1000;
    case 'MICROSECOND':
      return (time % 1000) * 1000;
    case 'NANOSECOND':
      return (time % 1000) * 1_000_000;
    case 'EPOCH':
      return Math.trunc(ms / 1000);
    default:
      return fail(`EXTRACT of ${unit} is not supported`);
  }
}

/**
 * The first year of the decade, century or millennium that holds a year: decades start at a
 * multiple of 10, centuries and millennia at a year ending in 01 / 001 (1901, 2001), as
 * Flink's FLOOR(... TO CENTURY) has them.
 */
const YEARS_OF_UNIT: Readonly<Record<string, (year: number) => number>> = {
  DECADE: (year) => Math.floor(year / 10) * 10,
  CENTURY: (year) => Math.floor((year - 1) / 100) * 100 + 1,
  MILLENNIUM: (year) => Math.floor((year - 1) / 1000) * 1000 + 1,
};

/** The months of the units FLOOR / CEIL round to by the calendar. */
const ROUNDING_MONTHS: Readonly<Record<string, number>> = {
  ...MONTHS_OF_UNIT,
  DECADE: 120,
  CENTURY: 1200,
  MILLENNIUM: 12_000,
};

/** The start of the `unit` that holds the wall-clock time `ms` (weeks start on Sunday, as Flink's). */
export function floorTime(ms: number, unit: string): number {
  if (unit === 'WEEK') {
    const days = Math.floor(ms / DAY_MS);
    return (days - (dayOfWeek(days) - 1)) * DAY_MS;
  }
  const fixed = FIXED_UNIT_MS[unit];
  if (fixed !== undefined) return ms - (((ms % fixed) + fixed) % fixed);
  const { year, month } = civilOf(Math.floor(ms / DAY_MS));
  const firstYear = YEARS_OF_UNIT[unit];
  if (firstYear !== undefined) return daysOf(firstYear(year), 1, 1) * DAY_MS;
  const first = unit === 'YEAR' ? 1 : unit === 'QUARTER' ? month - ((month - 1) % 3) : month;
  return daysOf(year, first, 1) * DAY_MS;
}

/** `ms` itself when it starts a `unit`, otherwise the start of the next one. */
export function ceilTime(ms: number, unit: string): number {
  const floor = floorTime(ms, unit);
  if (floor === ms) return ms;
  const fixed = unit === 'WEEK' ? 7 * DAY_MS : FIXED_UNIT_MS[unit];
  if (fixed !== undefined) return floor + fixed;
  return addMonths(floor, ROUNDING_MONTHS[unit] ?? 1);
}

/** TIMESTAMPADD(unit, n, t) of a timestamp's wall clock. */
export function timestampAdd(unit: string, n: number, ms: number): number {
  const months = MONTHS_OF_UNIT[unit];
  if (months !== undefined) return addMonths(ms, n * months);
  return ms + n * (FIXED_UNIT_MS[unit] as number);
}

/** TIMESTAMPDIFF(unit, a, b): whole units from a to b, toward zero. */
export function timestampDiff(unit: string, a: number, b: number): number {
  const months = MONTHS_OF_UNIT[unit];
  // + 0: no -0 out of a truncated division.
  if (months !== undefined) return Math.trunc(monthsBetween(a, b) / months) + 0;
  return Math.trunc((b - a) / (FIXED_UNIT_MS[unit] as number)) + 0;
}

// ---- Java date patterns ----

/** The letters of java.time / SimpleDateFormat patterns Weir formats and parses. */
const PATTERN_LETTERS = 'GyYuMLdDEeaHkKhmsSnwWFXxZz';

/** A pattern split into literal text and runs of one letter. */
type PatternPart = string | { readonly letter: string; readonly count: number };

const compiledPatterns = new Map<string, readonly PatternPart[]>();

/** `pattern` split into its parts; an error naming the pattern on a letter Weir does not know. */
export function patternParts(pattern: string): readonly PatternPart[] {
  let parts = compiledPatterns.get(pattern);
  if (parts !== undefined) return parts;
  const out: PatternPart[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) {
        out.push("'"); // '' is a quote
        i += 2;
        continue;
      }
      out.push(end < 0 ? pattern.slice(i + 1) : pattern.slice(i + 1, end));
      i = end < 0 ? pattern.length : end + 1;
      continue;
    }
    let n = 1;
    while (pattern.charAt(i + n) === c) n++;
    if (/[A-Za-z]/.test(c)) {
      if (!PATTERN_LETTERS.includes(c))
        fail(`date pattern '${pattern}' has the letter '${c}', which Weir SQL does not know`);
      out.push({ letter: c, count: n });
    } else out.push(c.repeat(n));
    i += n;
  }
  parts = out;
  if (compiledPatterns.size > 256) compiledPatterns.clear();
  compiledPatterns.set(pattern, parts);
  return parts;
}

function text(full: string, count: number): string {
  return count >= 4 ? full : full.slice(0, 3);
}

function offsetText(offsetMs: number, letter: string, count: number): string {
  if (offsetMs === 0 && letter === 'X') return 'Z';
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.floor(Math.abs(offsetMs) / 60_000);
  const hh = pad(Math.floor(minutes / 60), 2);
  const mm = pad(minutes % 60, 2);
  if (letter === 'Z') return count === 4 ? `GMT${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
  if (count === 1) return mm === '00' ? `${sign}${hh}` : `${sign}${hh}${mm}`;
  return count === 2 ? `${sign}${hh}${mm}` : `${sign}${hh}:${mm}`;
}

/**
 * The wall-clock time `ms` in a Java date pattern (`yyyy-MM-dd HH:mm:ss.SSS`, `EEE, d MMM yyyy`,
 * ...). `offsetMs` is the zone's offset, shown by X, x, Z (a TIMESTAMP shows UTC's).
 */
export function formatPattern(ms: number, pattern: string, offsetMs = 0, zoneId = 'UTC'): string {
  const days = Math.floor(ms / DAY_MS);
  const time = ms - days * DAY_MS;
  const { year, month, day } = civilOf(days);
  let out = '';
  for (const part of patternParts(pattern)) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const n = part.count;
    const hour = Math.floor(time / 3_600_000);
    switch (part.letter) {
      case 'G':
        out += year > 0 ? 'AD' : 'BC';
        break;
      case 'y':
      case 'u':
      case 'Y':
        out += n === 2 ? pad(((year % 100) + 100) % 100, 2) : pad(year, n);
        break;
      case 'M':
      case 'L':
        out += n >= 3 ? text(MONTH_NAMES[month - 1] as string, n) : pad(month, n);
        break;
      case 'd':
        out += pad(day, n);
        break;
      case 'D':
        out += pad(days - daysOf(year, 1, 1) + 1, n);
        break;
      case 'E':
        out += text(DAY_NAMES[dayOfWeek(days) - 1] as string, n);
        break;
      case 'e':
        out += pad(dayOfWeek(days), n);
        break;
      case 'F':
        out += pad(Math.floor((day - 1) / 7) + 1, n);
        break;
      case 'w':
        out += pad(isoWeek(days).week, n);
        break;
      case 'W':
        out += pad(
          Math.floor((day - 1 + ((dayOfWeek(daysOf(year, month, 1)) + 5) % 7)) / 7) + 1,
          n,
        );
        break;
      case 'a':
        out += hour < 12 ? 'AM' : 'PM';
        break;
      case 'H':
        out += pad(hour, n);
        break;
      case 'k':
        out += pad(hour === 0 ? 24 : hour, n);
        break;
      case 'K':
        out += pad(hour % 12, n);
        break;
      case 'h':
        out += pad(hour % 12 === 0 ? 12 : hour % 12, n);
        break;
      case 'm':
        out += pad(Math.floor(time / 60_000) % 60, n);
        break;
      case 's':
        out += pad(Math.floor(time / 1000) % 60, n);
        break;
      case 'S':
        out += pad(time % 1000, 3)
          .slice(0, n)
          .padEnd(n, '0');
        break;
      case 'n':
        out += String((time % 1000) * 1_000_000);
        break;
      case 'z':
        out += zoneId;
        break;
      default:
        out += offsetText(offsetMs, part.letter, n);
    }
  }
  return out;
}

/**
 * Reads `value` with a Java date pattern as a wall-clock time (epoch ms of its fields in UTC);
 * undefined when it does not match or names a date that does not exist. Numeric fields take as
 * many digits as the pattern has letters, more for the last field before a non-digit.
 * `prefixOnly`: text after the pattern is ignored (as `SimpleDateFormat.parse(String)` reads).
 */
export function parsePattern(
  value: string,
  pattern: string,
  prefixOnly = false,
): number | undefined {
  const parts = patternParts(pattern);
  let year = 1970;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let fraction = 0;
  let pm: boolean | undefined;
  let hour12 = false;
  let offset: number | undefined;
  let pos = 0;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p] as PatternPart;
    if (typeof part === 'string') {
      if (!value.startsWith(part, pos)) return undefined;
      pos += part.length;
      continue;
    }
    const next = parts[p + 1];
    const adjacentNumber = next !== undefined && typeof next !== 'string';
    if (part.letter === 'a') {
      const t = value.slice(pos, pos + 2).toUpperCase();
      if (t !== 'AM' && t !== 'PM') return undefined;
      pm = t === 'PM';
      pos += 2;
      continue;
    }
    if ((part.letter === 'M' || part.letter === 'L') && part.count >= 3) {
      const names = part.count >= 4 ? MONTH_NAMES : MONTH_NAMES.map((m) => m.slice(0, 3));
      const k = names.findIndex((m) => value.startsWith(m, pos));
      if (k < 0) return undefined;
      month = k + 1;
      pos += (names[k] as string).length;
      continue;
    }
    if (part.letter === 'E') {
      const names = part.count >= 4 ? DAY_NAMES : DAY_NAMES.map((d) => d.slice(0, 3));
      const k = names.findIndex((d) => value.startsWith(d, pos));
      if (k < 0) return undefined;
      pos += (names[k] as string).length;
      continue;
    }
    if (part.letter === 'X' || part.letter === 'x' || part.letter === 'Z') {
      const m = /^(?:Z|([+-])(\d{2}):?(\d{2})?)/.exec(value.slice(pos));
      if (m === null) return undefined;
      offset =
        m[1] === undefined
          ? 0
          : (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3_600_000 + Number(m[3] ?? 0) * 60_000);
      pos += m[0].length;
      continue;
    }
    // A number: exactly `count` digits when another number follows at once, else up to 9.
    const max = adjacentNumber ? part.count : 9;
    let end = pos;
    if (part.letter === 'y' && (value.charAt(end) === '-' || value.charAt(end) === '+')) end++;
    while (
      end < value.length &&
      end - pos < max &&
      value.charCodeAt(end) >= 48 &&
      value.charCodeAt(end) <= 57
    )
      end++;
    const digits = value.slice(pos, end);
    if (!/\d/.test(digits) || (adjacentNumber && digits.length !== part.count)) return undefined;
    const n = Number(digits);
    pos = end;
    switch (part.letter) {
      case 'y':
      case 'u':
      case 'Y':
        year = part.count === 2 && digits.length === 2 ? 2000 + n : n;
        break;
      case 'M':
      case 'L':
        month = n;
        break;
      case 'd':
        day = n;
        break;
      case 'H':
      case 'k':
        hour = part.letter === 'k' && n === 24 ? 0 : n;
        break;
      case 'h':
      case 'K':
        hour = n % 12;
        hour12 = true;
        break;
      case 'm':
        minute = n;
        break;
      case 's':
        second = n;
        break;
      case 'S':
        fraction = Number(digits.padEnd(3, '0').slice(0, 3));
        break;
      default:
        return undefined; // D, w, ...: not read
    }
  }
  if (pos !== value.length && !prefixOnly) return undefined;
  if (hour12 && pm === true) hour += 12;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const ms =
    daysOf(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + fraction;
  return offset === undefined ? ms : ms - offset;
}

/** Whether a pattern names the zone offset (X, x, Z): the parsed time is then an instant. */
export function patternHasOffset(pattern: string): boolean {
  return patternParts(pattern).some(
    (p) => typeof p !== 'string' && (p.letter === 'X' || p.letter === 'x' || p.letter === 'Z'),
  );
}

/** The zone named by a run-time argument, or an error naming the value. */
function zoneArgument(id: string): TimeZone {
  try {
    return timeZoneOf(id);
  } catch (e) {
    return fail((e as Error).message);
  }
}

/** TIMESTAMP_LTZ -> its wall clock in `zone`. */
function toLocal(zone: TimeZone, utcMs: number): number {
  return zone.toLocal(utcMs);
}

/** Wall clock in `zone` -> TIMESTAMP_LTZ. */
function toUtc(zone: TimeZone, localMs: number): number {
  return zone.toUtc(localMs);
}

/** The format Flink's string functions read and write by default. */
const SECONDS_FORMAT = 'yyyy-MM-dd HH:mm:ss';

/** Reads text as Flink's default timestamp format `yyyy-MM-dd HH:mm:ss[.SSS]` (a date alone too). */
const DEFAULT_TIMESTAMP =
  /^(\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?$/;

export function parseTimestamp(value: string): number | undefined {
  const m = DEFAULT_TIMESTAMP.exec(value.trim());
  if (m === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', f = ''] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  return (
    daysOf(year, month, day) * DAY_MS +
    ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 +
    Number(f.padEnd(3, '0').slice(0, 3))
  );
}

/** Text with a format (or the default one) as a wall-clock time; undefined when it does not match. */
function parseWith(value: string, format: string | undefined): number | undefined {
  return format === undefined ? parseTimestamp(value) : parsePattern(value, format);
}

/** Of each pattern, the text of the last time unit it formatted (units align with day 0). */
const lastFormatted = new Map<string, { unit: number; bucket: number; text: string }>();

/** The finest unit a pattern shows, in ms: its output is the same for all times of one unit. */
function finestUnitMs(pattern: string): number {
  let unit = DAY_MS;
  for (const part of patternParts(pattern)) {
    if (typeof part === 'string') continue;
    const c = part.letter;
    if ('GyYuMLdDEeFwW'.includes(c)) continue;
    if (c === 's') unit = Math.min(unit, 1000);
    else if (c === 'm') unit = Math.min(unit, 60_000);
    else if ('HhkKa'.includes(c)) unit = Math.min(unit, 3_600_000);
    else return 1;
  }
  return unit;
}

/**
 * DATE_FORMAT of a wall-clock time. Rows come in time order, so a pattern of whole days (or
 * hours, ...) mostly formats the unit it formatted last: that text is reused.
 */
function formatTimestamp(ms: number, pattern: string): string {
  let last = lastFormatted.get(pattern);
  if (last === undefined) {
    last = { unit: finestUnitMs(pattern), bucket: Number.NaN, text: '' };
    if (lastFormatted.size < 64) lastFormatted.set(pattern, last);
  }
  const bucket = Math.floor(ms / last.unit);
  if (bucket !== last.bucket) {
    last.text = formatPattern(ms, pattern);
    last.bucket = bucket;
  }
  return last.text;
}

function formatTimestampDefault(ms: number, precision: number): string {
  const base = formatTimestamp(ms, 'yyyy-MM-dd HH:mm:ss');
  if (precision <= 0) return base;
  const fraction = pad(((ms % 1000) + 1000) % 1000, 3).padEnd(precision, '0');
  return `${base}.${fraction.slice(0, precision)}`;
}

/**
 * The helpers compiled time expressions call (`h.name(...)`); see {@link ../runtime.ts}, which
 * merges them into the run-time library.
 */
export const timeRuntime = {
  addMonths,
  addMonthsToDate,
  monthsBetween,
  floorTime,
  ceilTime,
  timestampAdd,
  timestampDiff,
  extract: extractField,
  toLocal,
  toUtc,
  formatTimestamp,
  formatTimestampText: (ms: number, pattern: string) => formatPattern(ms, pattern),
  formatTimestampDefault,
  parseTimestamp,
  /** DATE_FORMAT of a TIMESTAMP_LTZ: its wall clock in `zone`, offsets shown as the zone's. */
  formatInstant(utcMs: number, pattern: string, zone: TimeZone): string {
    const offset = zone.offsetAt(utcMs);
    return formatPattern(utcMs + offset, pattern, offset, zone.id);
  },
  formatDate(days: number): string {
    const { year, month, day } = civilOf(days);
    return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
  },
  formatTime(ms: number, precision: number): string {
    return formatTimestampDefault(ms, precision).slice(11);
  },
  parseDate(value: string): number | undefined {
    const ms = /^\d{1,4}-\d{1,2}-\d{1,2}$/.test(value.trim()) ? parseTimestamp(value) : undefined;
    return ms === undefined ? undefined : Math.floor(ms / DAY_MS);
  },
  /**
   * CAST of text to DATE as Flink does it, looser than a literal or a format's field: `y`,
   * `y-m` or `y-m-d` (each part an integer, missing ones 1), anything after a space ignored
   * (`2017-12-12 09:30:00`); year 1 to 9999.
   */
  castDate(value: string): number | undefined {
    const space = value.indexOf(' ');
    const parts = (space > 0 ? value.slice(0, space) : value).split('-');
    // Each part is digits only: '-7' and '+2024-1-5' are not dates.
    if (parts.length > 3 || parts.some((p) => !/^\s*\d{1,9}\s*$/.test(p))) return undefined;
    const [y = 0, m = 1, d = 1] = parts.map(Number);
    if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return undefined;
    return daysOf(y, m, d);
  },
  parseTime(value: string): number | undefined {
    const m = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?$/.exec(value.trim());
    if (m === null) return undefined;
    const [, h, mi, s = '0', f = ''] = m;
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
    return (
      ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 + Number(f.padEnd(3, '0').slice(0, 3))
    );
  },
  /** TIME +/- an interval of ms: wraps around midnight. */
  addToTime(timeMs: number, deltaMs: number): number {
    return (((timeMs + deltaMs) % DAY_MS) + DAY_MS) % DAY_MS;
  },
  /** TO_TIMESTAMP(text[, format]): a TIMESTAMP, NULL when the text does not match. */
  toTimestamp(value: string, format: string | undefined): number | null {
    return parseWith(value, format) ?? null;
  },
  /** TO_DATE(text[, format]): a DATE (without a format read as CAST reads one), NULL when the text does not match. */
  toDate(value: string, format: string | undefined): number | null {
    if (format === undefined) return timeRuntime.castDate(value) ?? null;
    const ms = parsePattern(value, format);
    return ms === undefined ? null : Math.floor(ms / DAY_MS);
  },
  /**
   * DATE_FORMAT of text: read as `yyyy-MM-dd HH:mm:ss` (NULL when it does not start so), then
   * formatted. Flink reads it with `SimpleDateFormat.parse`, which stops after the pattern, so
   * text after the seconds is ignored: `DATE_FORMAT('2015-05-20 10:00:00.887', ...)` is the
   * time of `2015-05-20 10:00:00` (Flink's CalcITCase.testDateFormat).
   */
  formatText(value: string, pattern: string): string | null {
    const ms = parsePattern(value, SECONDS_FORMAT, true);
    return ms === undefined ? null : formatTimestamp(ms, pattern);
  },
  /** UNIX_TIMESTAMP(text[, format]): seconds of the wall clock read in `zone`; Long.MIN_VALUE when unreadable. */
  unixTimestamp(value: string, format: string | undefined, zone: TimeZone): number | bigint {
    const ms = parseWith(value, format ?? 'yyyy-MM-dd HH:mm:ss');
    if (ms === undefined) return -(2n ** 63n);
    const instant = format !== undefined && patternHasOffset(format) ? ms : zone.toUtc(ms, 'later');
    return Math.trunc(instant / 1000);
  },
  /** FROM_UNIXTIME(seconds[, format]): the instant's wall clock in `zone`, as text. */
  fromUnixtime(seconds: number | bigint, format: string, zone: TimeZone): string {
    const utcMs = Number(seconds) * 1000;
    const offset = zone.offsetAt(utcMs);
    return formatPattern(utcMs + offset, format, offset, zone.id);
  },
  /** TO_TIMESTAMP_LTZ(text, format, zone): the wall clock read in the named zone. */
  toTimestampLtz(value: string, format: string, zoneId: string): number | null {
    const ms = parsePattern(value, format);
    if (ms === undefined) return null;
    return patternHasOffset(format) ? ms : zoneArgument(zoneId).toUtc(ms);
  },
  /** CONVERT_TZ(text, from, to): `yyyy-MM-dd HH:mm:ss` read in one zone, shown in the other. */
  convertTz(value: string, from: string, to: string): string | null {
    const ms = parsePattern(value, SECONDS_FORMAT);
    if (ms === undefined) return null;
    const instant = zoneArgument(from).toUtc(ms, 'later');
    return formatPattern(zoneArgument(to).toLocal(instant), 'yyyy-MM-dd HH:mm:ss');
  },
  /** A wall clock in `zone` as the DATE it falls on. */
  dateOfInstant(utcMs: number, zone: TimeZone): number {
    return Math.floor(zone.toLocal(utcMs) / DAY_MS);
  },
  /** An interval divided by a number, cut toward zero. */
  intervalDivide(interval: number, divisor: number): number {
    if (divisor === 0) fail('division of an interval by zero');
    return Math.trunc(interval / divisor);
  },
  /** TO_TIMESTAMP_LTZ of a number of seconds (scale 1000) or milliseconds (scale 1). */
  numberToInstant(x: number, scale: number): number | null {
    const ms = Math.trunc(x * scale);
    return Number.isFinite(ms) ? ms : null;
  },
  /** `(a, b) OVERLAPS (c, d)` of times (each pair in either order), as SQL defines it. */
  overlaps(a: number, b: number, c: number, d: number): boolean {
    const [s1, e1] = a <= b ? [a, b] : [b, a];
    const [s2, e2] = c <= d ? [c, d] : [d, c];
    return s1 <= e2 && s2 <= e1;
  },
} as const;
