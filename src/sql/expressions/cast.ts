/**
 * Flink's CAST rules for the types Weir SQL covers, as code: which casts exist, which may be
 * implicit, and the conversion of a value. A CAST that cannot convert a value fails the job;
 * TRY_CAST gives NULL instead (Flink's behaviour since 1.15).
 */
import { type SourcePosition, sqlError } from '../sql-error.js';
import {
  formatType,
  integerRank,
  isApproximate,
  isCharacterString,
  isInteger,
  isNumeric,
  isPreciseTimestamp,
  isTimestamp,
  type LogicalType,
  MAX_LENGTH,
  withNullability,
} from '../types/logical-type.js';
import { type CodeGen, type Compiled, nullSafe } from './code-gen.js';
import { convertZoned, truncated } from './functions/time-casts.js';
import { convertStructured, isBinaryString } from './structured-cast.js';

const DAY_MS = 86_400_000;

const INTEGER_RANGE = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INTEGER: [-2147483648, 2147483647],
  BIGINT: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
} as const;

/** Whether Flink converts `from` to `to` without a CAST (widening among numbers, strings, time). */
export function canImplicitlyCast(from: LogicalType, to: LogicalType): boolean {
  if (from.kind === 'NULL') return true;
  if (from.kind === to.kind) return true;
  if (isInteger(from) && isInteger(to)) return integerRank(from.kind) <= integerRank(to.kind);
  if (isNumeric(from) && isNumeric(to)) {
    if (isApproximate(to)) return true;
    return to.kind === 'DECIMAL' && isInteger(from);
  }
  if (isCharacterString(from) && isCharacterString(to)) return true;
  if (from.kind === 'DATE' && isTimestamp(to)) return true;
  if (isBinaryString(from) && isBinaryString(to)) return true;
  return isTimestamp(from) && isTimestamp(to);
}

function wrapInteger(code: string, to: LogicalType): string {
  switch (to.kind) {
    case 'TINYINT':
      return `h.wrap8(${code})`;
    case 'SMALLINT':
      return `h.wrap16(${code})`;
    case 'INTEGER':
      return `((${code}) | 0)`;
    default:
      return code;
  }
}

/** The conversion of a non-null value `v` of `from` to `to`, or undefined when there is no such cast. */
function convert(
  g: CodeGen,
  v: string,
  from: LogicalType,
  to: LogicalType,
  tryCast: boolean,
): string | undefined {
  const target = JSON.stringify(formatType(withNullability(to, true)));
  const failed = tryCast ? 'null' : `h.castFailed(${v}, ${target})`;
  if (from.kind === 'NULL') return 'null';
  if (isPreciseTimestamp(from) || isPreciseTimestamp(to))
    return convertPrecise(g, v, from, to, tryCast, failed);
  const zoned = convertZoned(g, v, from, to, failed);
  if (zoned !== undefined) return zoned;
  // Numbers to numbers.
  if (isInteger(from)) {
    if (isInteger(to))
      return integerRank(from.kind) <= integerRank(to.kind)
        ? v
        : wrapInteger(from.kind === 'BIGINT' ? `h.longToInt32(${v})` : v, to);
    // A BIGINT beyond 2^53 is a bigint (types/long.ts).
    const n = from.kind === 'BIGINT' ? `Number(${v})` : v;
    if (to.kind === 'DOUBLE') return n;
    if (to.kind === 'FLOAT') return `Math.fround(${n})`;
    if (to.kind === 'DECIMAL')
      return `h.fitPrecision(BigInt(${v}) * ${10n ** BigInt(to.scale)}n, ${to.precision})`;
  }
  if (from.kind === 'DECIMAL') {
    if (to.kind === 'DECIMAL')
      return `h.fitPrecision(h.rescale(${v}, ${from.scale}, ${to.scale}), ${to.precision})`;
    if (to.kind === 'BIGINT') return `h.longOfDecimal(${v}, ${from.scale})`;
    if (isInteger(to)) return wrapInteger(`Number(${v} / ${10n ** BigInt(from.scale)}n)`, to);
    if (to.kind === 'DOUBLE') return `h.decimalToDouble(${v}, ${from.scale})`;
    if (to.kind === 'FLOAT') return `Math.fround(h.decimalToDouble(${v}, ${from.scale}))`;
  }
  if (isApproximate(from)) {
    if (to.kind === 'DOUBLE') return v;
    if (to.kind === 'FLOAT') return `Math.fround(${v})`;
    if (to.kind === 'BIGINT') return `h.longOfDouble(${v})`;
    // Java narrows a float to an int first, saturating (`(int) 1e10` is 2147483647), then wraps.
    if (isInteger(to))
      return wrapInteger(
        `(Number.isNaN(${v}) ? 0 : Math.min(Math.max(Math.trunc(${v}), -2147483648), 2147483647))`,
        to,
      );
    if (to.kind === 'DECIMAL') {
      const d = g.temp();
      // Beyond 10^38 no DECIMAL holds it (and the digits of 1e308 are too many to compute).
      return `(Math.abs(${v}) >= 1e38 || (${d} = h.decimalOfDouble(${v}, ${to.scale})) === null ? null : h.fitPrecision(${d}, ${to.precision}))`;
    }
  }
  // Booleans.
  if (from.kind === 'BOOLEAN') {
    if (to.kind === 'BOOLEAN') return v;
    if (isInteger(to) || isApproximate(to)) return `(${v} ? 1 : 0)`;
    if (to.kind === 'DECIMAL') return `(${v} ? ${10n ** BigInt(to.scale)}n : 0n)`;
    if (isCharacterString(to)) return fitString(`(${v} ? 'TRUE' : 'FALSE')`, to);
  }
  if (isNumeric(from) && to.kind === 'BOOLEAN')
    return from.kind === 'DECIMAL' ? `(${v} !== 0n)` : `(${v} !== 0)`;
  // Anything to a string.
  if (isCharacterString(to)) {
    let text: string | undefined;
    if (isCharacterString(from)) text = v;
    else if (isInteger(from)) text = `String(${v})`;
    else if (from.kind === 'DECIMAL') text = `h.formatDecimal(${v}, ${from.scale})`;
    // A FLOAT prints as Java's Float.toString (`3.14159`), a DOUBLE as Double.toString.
    else if (from.kind === 'FLOAT') text = `h.formatFloat(${v})`;
    else if (from.kind === 'DOUBLE') text = `h.formatDouble(${v})`;
    else if (from.kind === 'DATE') text = `h.formatDate(${v})`;
    else if (from.kind === 'TIME') text = `h.formatTime(${v}, ${from.precision})`;
    else if (isTimestamp(from)) text = `h.formatTimestampDefault(${v}, ${from.precision})`;
    else if (from.kind === 'INTERVAL_YEAR_MONTH') text = `${g.constant(yearMonthText)}(${v})`;
    else if (from.kind === 'INTERVAL_DAY_TIME') text = `${g.constant(dayTimeText)}(${v})`;
    if (text !== undefined) return fitString(text, to);
  }
  // Strings to anything.
  if (isCharacterString(from)) {
    const t = g.temp();
    if (to.kind === 'BOOLEAN') return `((${t} = h.parseBoolean(${v})) === null ? ${failed} : ${t})`;
    if (to.kind === 'BIGINT') return `((${t} = h.castLong(${v})) === null ? ${failed} : ${t})`;
    if (isInteger(to)) {
      const [min, max] = INTEGER_RANGE[to.kind];
      return `((${t} = h.castInteger(${v}, ${min}, ${max})) === null ? ${failed} : ${t})`;
    }
    if (isApproximate(to))
      return `((${t} = h.parseDouble(${v})) === null ? ${failed} : ${to.kind === 'FLOAT' ? `Math.fround(${t})` : t})`;
    if (to.kind === 'DECIMAL') {
      // Text beyond the precision fails, as text that is no number (a number gives NULL).
      return `((${t} = h.parseDecimal(${v}, ${to.scale})) === undefined || (${t} = h.fitPrecision(${t}, ${to.precision})) === null ? ${failed} : ${t})`;
    }
    if (to.kind === 'DATE') return `((${t} = h.castDate(${v})) === undefined ? ${failed} : ${t})`;
    if (to.kind === 'TIME')
      return `((${t} = h.parseTime(${v})) === undefined ? ${failed} : ${truncated(t, to.precision)})`;
    if (isTimestamp(to))
      return `((${t} = h.parseTimestamp(${v})) === undefined ? ${failed} : ${truncated(t, to.precision)})`;
  }
  // Time to time.
  if (from.kind === 'DATE') {
    if (to.kind === 'DATE') return v;
    if (isTimestamp(to)) return `(${v} * ${DAY_MS})`;
  }
  if (isTimestamp(from)) {
    if (isTimestamp(to)) return to.precision >= from.precision ? v : truncated(v, to.precision);
    if (to.kind === 'DATE') return `Math.floor(${v} / ${DAY_MS})`;
    if (to.kind === 'TIME')
      return truncated(`(((${v} % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS})`, to.precision);
  }
  // A TIME as a TIMESTAMP is that time on 1970-01-01, as in Flink.
  if (from.kind === 'TIME' && to.kind === 'TIMESTAMP') return truncated(v, to.precision);
  // As a TIMESTAMP_LTZ: that wall clock in the session's time zone.
  if (from.kind === 'TIME' && to.kind === 'TIMESTAMP_LTZ') {
    const wall: LogicalType = { kind: 'TIMESTAMP', nullable: false, precision: to.precision };
    const t = g.temp();
    const zoned = convert(g, t, wall, to, tryCast);
    return zoned === undefined ? undefined : `(${t} = ${truncated(v, to.precision)}, ${zoned})`;
  }
  if (from.kind === 'TIME' && to.kind === 'TIME')
    return to.precision >= from.precision ? v : truncated(v, to.precision);
  if (
    from.kind === to.kind &&
    (from.kind === 'INTERVAL_DAY_TIME' || from.kind === 'INTERVAL_YEAR_MONTH')
  )
    return v;
  if (from.kind === 'ROW' && to.kind === 'ROW' && formatType(from) === formatType(to)) return v;
  return convertStructured(g, v, from, to, tryCast, convert);
}

/**
 * A conversion from or to a TIMESTAMP(p) or TIMESTAMP_LTZ(p) above p = 3 (epoch nanoseconds):
 * to and from text every digit, otherwise through the millisecond conversion, the
 * nanoseconds within the millisecond kept (a time zone shifts whole milliseconds).
 */
function convertPrecise(
  g: CodeGen,
  v: string,
  from: LogicalType,
  to: LogicalType,
  tryCast: boolean,
  failed: string,
): string | undefined {
  const inMillis = (t: LogicalType): LogicalType =>
    isTimestamp(t) ? { ...t, precision: Math.min(t.precision, 3) } : t;
  const cut = (code: string): string =>
    isTimestamp(to) && to.precision < 9 && (!isTimestamp(from) || to.precision < from.precision)
      ? `h.truncateNanos(${code}, ${to.precision})`
      : code;
  const t = g.temp();
  if (isPreciseTimestamp(from) && isPreciseTimestamp(to)) {
    if (from.kind === to.kind) return cut(v);
    const shifted = convert(g, `h.millisOfNanos(${v})`, inMillis(from), inMillis(to), tryCast);
    return shifted === undefined ? undefined : cut(`h.withMillis(${v}, ${shifted})`);
  }
  if (isPreciseTimestamp(from)) {
    if (isCharacterString(to)) {
      const wall =
        from.kind === 'TIMESTAMP'
          ? v
          : `h.withMillis(${v}, ${convert(g, `h.millisOfNanos(${v})`, inMillis(from), T_WALL, tryCast)})`;
      return fitString(`h.formatTimestampNanos(${wall}, ${from.precision})`, to);
    }
    const millis = convert(g, t, inMillis(from), to, tryCast);
    return millis === undefined ? undefined : `(${t} = h.millisOfNanos(${v}), ${millis})`;
  }
  if (isCharacterString(from)) {
    if (!isTimestamp(to)) return undefined;
    const instant =
      to.kind === 'TIMESTAMP'
        ? t
        : `h.withMillis(${t}, ${convert(g, `h.millisOfNanos(${t})`, T_WALL, inMillis(to), tryCast)})`;
    return `((${t} = h.parseTimestampNanos(${v})) === undefined ? ${failed} : ${cut(instant)})`;
  }
  const millis = convert(g, v, from, inMillis(to), tryCast);
  return millis === undefined ? undefined : `h.nanosOfMillis(${millis})`;
}

/** A wall clock in milliseconds, what a TIMESTAMP_LTZ's instant is shifted to and from. */
const T_WALL: LogicalType = { kind: 'TIMESTAMP', nullable: false, precision: 3 };

/**
 * `c` as a millisecond TIMESTAMP(3) or TIMESTAMP_LTZ(3) when it is precise, for the functions
 * that compute on milliseconds (the finer digits are dropped, rounding down); others unchanged.
 */
export function toMillis(g: CodeGen, c: Compiled): Compiled {
  if (!isPreciseTimestamp(c.type)) return c;
  return {
    code: nullSafe(g, [c], ([v]) => `h.millisOfNanos(${v})`),
    type: { ...c.type, precision: 3 },
  };
}

/** An INTERVAL YEAR TO MONTH (months) as Flink writes it: `+1-05`, `-10-03`. */
function yearMonthText(months: number): string {
  const m = Math.abs(months);
  return `${months < 0 ? '-' : '+'}${Math.floor(m / 12)}-${String(m % 12).padStart(2, '0')}`;
}

/** An INTERVAL DAY TO SECOND (milliseconds) as Flink writes it: `+1 10:17:36.789`. */
function dayTimeText(millis: number): string {
  const ms = Math.abs(millis);
  const two = (n: number): string => String(n).padStart(2, '0');
  const s = Math.floor(ms / 1000);
  return `${millis < 0 ? '-' : '+'}${Math.floor(s / 86400)} ${two(Math.floor(s / 3600) % 24)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}.${String(ms % 1000).padStart(3, '0')}`;
}

function fitString(code: string, to: LogicalType): string {
  if (to.kind === 'CHAR') return `(${code}).padEnd(${to.length}).slice(0, ${to.length})`;
  if (to.kind === 'VARCHAR' && to.length < MAX_LENGTH) return `(${code}).slice(0, ${to.length})`;
  return code;
}

/** `value` cast to `to` (NULL stays NULL; the result is nullable when the value is, or on TRY_CAST). */
export function castTo(
  g: CodeGen,
  value: Compiled,
  to: LogicalType,
  tryCast: boolean,
  at: SourcePosition,
): Compiled {
  const from = value.type;
  const sameType =
    formatType(withNullability(from, true)) === formatType(withNullability(to, true));
  const type = nullableRowFields(
    withNullability(to, from.nullable || tryCast || mayBecomeNull(from, to)),
  );
  if (sameType) return { code: value.code, type: withNullability(to, from.nullable) };
  if (from.kind === 'NULL') return { code: 'null', type: withNullability(to, true) };
  let converted: string | undefined;
  const code = nullSafe(g, [value], ([v]) => {
    converted = convert(g, v as string, from, to, tryCast);
    return converted ?? 'null';
  });
  if (converted === undefined) {
    sqlError(`cannot cast ${formatType(from)} to ${formatType(to)}`, at);
  }
  return LITERAL.test(value.code) ? foldConstant(g, { code, type }) : { code, type };
}

/** The code of a literal as the compiler writes it: a number, a bigint, a string, a boolean. */
const LITERAL = /^(\(-?\d+(\.\d+)?n?\)|"([^"\\]|\\.)*"|true|false|null)$/;

/**
 * `c` (a cast of a literal, such as the widening of `1000000` to DECIMAL in a comparison with
 * one) computed once at plan time instead of per row. A cast that fails keeps its code, so it
 * still fails on the row, as before.
 */
function foldConstant(g: CodeGen, c: Compiled): Compiled {
  let value: unknown;
  try {
    value = g.function<(r: readonly unknown[]) => unknown>(`return ${c.code};`)([]);
  } catch {
    return c;
  }
  switch (typeof value) {
    case 'bigint':
      return { code: `(${value}n)`, type: c.type };
    case 'string':
      return { code: JSON.stringify(value), type: c.type };
    case 'boolean':
      return { code: String(value), type: c.type };
    case 'number':
      return {
        code: Number.isFinite(value) && !Object.is(value, -0) ? `(${value})` : g.constant(value),
        type: c.type,
      };
    default:
      return value === null ? { code: 'null', type: c.type } : c;
  }
}

/**
 * `t` with the fields of each nullable ROW in it nullable, as Flink types a CAST to a ROW: a
 * NOT NULL field of a ROW that may be NULL is not kept (`CAST(f AS ROW<r ROW<s STRING NOT
 * NULL>>)` is of `ROW<r ROW<s STRING>>`).
 */
function nullableRowFields(t: LogicalType): LogicalType {
  if (t.kind !== 'ROW') return t;
  return {
    ...t,
    fields: t.fields.map((f) => ({
      ...f,
      type: nullableRowFields(t.nullable ? withNullability(f.type, true) : f.type),
    })),
  };
}

/** Casts whose result is NULL for some non-null input (decimal overflow). */
function mayBecomeNull(from: LogicalType, to: LogicalType): boolean {
  return to.kind === 'DECIMAL' && from.kind !== 'NULL';
}

/** `value` converted implicitly to `to`, or an error naming both types. */
export function coerce(
  g: CodeGen,
  value: Compiled,
  to: LogicalType,
  at: SourcePosition,
  what: string,
): Compiled {
  if (!canImplicitlyCast(value.type, to)) {
    sqlError(
      `${what}: ${formatType(value.type)} cannot be converted implicitly to ${formatType(to)}`,
      at,
    );
  }
  const result = castTo(g, value, to, false, at);
  // An implicit widening never overflows: keep the nullability of the value.
  if (isInteger(value.type) && to.kind === 'DECIMAL') {
    return { code: result.code, type: withNullability(to, value.type.nullable) };
  }
  return result;
}
