/**
 * Values of the `json` and `csv` formats as SQL values (see docs/sql.md for each type's value
 * in a row), and back. A value that does not fit its column throws a `FieldError` naming the
 * field and the type, which the format prefixes with where the record came from.
 */
import {
  formatTimestampNanos,
  nanosOfMillis,
  truncateNanos,
} from '../../expressions/functions/precise-time.js';
import { runtime } from '../../expressions/runtime.js';
import { fitPrecision, formatDecimal, parseDecimal } from '../../types/decimal.js';
import {
  formatType,
  isInteger,
  type LogicalType,
  multisetAsMap,
} from '../../types/logical-type.js';
import { parseLong } from '../../types/long.js';

/** A value that does not fit its column; `field` is its path (`order.price`). */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`field '${field}' ${message}`);
    this.name = 'FieldError';
  }
}

/** Flink's 'json.timestamp-format.standard': how TIMESTAMP and TIMESTAMP_LTZ text looks. */
export type TimestampStandard = 'SQL' | 'ISO-8601';

/** How the json format reads a value (Flink's json options). */
export interface JsonReadOptions {
  /** Read times strictly in this form; unset, both forms (and an optional `Z`) are accepted. */
  readonly timestampStandard?: TimestampStandard;
  /** 'json.ignore-parse-errors': a value that does not fit its field is null, as in Flink. */
  readonly ignoreParseErrors?: boolean;
}

/** How the json format writes a value (Flink's json options). */
export interface JsonWriteOptions {
  readonly timestampStandard?: TimestampStandard;
  /** 'json.map-null-key.mode' (default FAIL) and 'json.map-null-key.literal' (default `null`). */
  readonly mapNullKeyMode?: 'FAIL' | 'DROP' | 'LITERAL';
  readonly mapNullKeyLiteral?: string;
  /** 'json.encode.decimal-as-plain-number' (default false: `1E+2`, `2.7E-8`, as Flink writes). */
  readonly decimalAsPlainNumber?: boolean;
}

/** The writing options with Flink's defaults (SQL times, MAP null keys refused, Jackson's DECIMAL text). */
export function withWriteDefaults(options: JsonWriteOptions): JsonWriteOptions {
  return {
    timestampStandard: options.timestampStandard ?? 'SQL',
    ...(options.mapNullKeyMode === undefined ? {} : { mapNullKeyMode: options.mapNullKeyMode }),
    ...(options.mapNullKeyLiteral === undefined
      ? {}
      : { mapNullKeyLiteral: options.mapNullKeyLiteral }),
    decimalAsPlainNumber: options.decimalAsPlainNumber === true,
  };
}

/** A record's bytes as JSON ({@link parseJsonRecord}), or an error saying they are not JSON. */
export function parseJsonBytes(bytes: Buffer): unknown {
  try {
    return parseJsonRecord(bytes.toString('utf8'));
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const INTEGER_BOUNDS = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INTEGER: [-2147483648, 2147483647],
  // Only up to 2^53 as a JSON number; beyond, parseJsonExact gives its digits (parseText).
  BIGINT: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
} as const;

function show(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function refuse(field: string, type: LogicalType, value: unknown): never {
  throw new FieldError(field, `expects ${formatType(type)}, got ${show(value)}`);
}

// Flink's TimeFormats: SQL is `2024-01-02 03:04:05[.fff]`, ISO-8601 `2024-01-02T03:04[:05[.fff]]`;
// a TIMESTAMP_LTZ ends in a literal `Z`.
const TIMESTAMP_FORMS: Record<TimestampStandard, RegExp> = {
  SQL: /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)(Z?)$/,
  'ISO-8601': /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z?)$/,
};

/** TIMESTAMP or TIMESTAMP_LTZ text in exactly the form of `standard`, as a value of `type`. */
function parseStrictTimestamp(
  text: string,
  type: LogicalType & { kind: 'TIMESTAMP' | 'TIMESTAMP_LTZ' },
  field: string,
  standard: TimestampStandard,
): unknown {
  const m = TIMESTAMP_FORMS[standard].exec(text);
  if (m === null || (m[3] === 'Z') !== (type.kind === 'TIMESTAMP_LTZ'))
    return refuse(field, type, text);
  const time = (m[2] as string).length === 5 ? `${m[2]}:00` : (m[2] as string);
  return parseText(`${m[1]} ${time}`, type, field);
}

// A string, or a number with 16 or more digits: a double cannot hold those exactly.
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * A json record's text as JSON values, as Flink's Jackson reads it: a number of 16 or more
 * digits comes back as its text (DECIMAL(38, 18) and BIGINT keep every digit; a DOUBLE column
 * parses the text to the same double), and control characters inside strings are allowed.
 */
export function parseJsonRecord(text: string): unknown {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
  if (!/\d[\d.]{15}|[\u0000-\u001f]/.test(text)) return JSON.parse(text);
  const fixed = text.replace(STRING_OR_NUMBER, (token) => {
    if (token.startsWith('"'))
      return token.replace(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: escaped as JSON.parse needs them
        /[\u0000-\u001f]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
    const digits = token.replace(/[eE].*$/, '').replace(/\D/g, '').length;
    return digits < 16 || Number.isSafeInteger(Number(token)) ? token : `"${token}"`;
  });
  return JSON.parse(fixed);
}

/** A field's text (a CSV field, or a JSON string) as a value of `type`. */
export function parseText(
  text: string,
  type: LogicalType,
  field: string,
  standard?: TimestampStandard,
): unknown {
  if (standard !== undefined && (type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ'))
    return parseStrictTimestamp(text, type, field, standard);
  switch (type.kind) {
    case 'CHAR':
    case 'VARCHAR':
      return text;
    case 'BOOLEAN': {
      const b = runtime.parseBoolean(text);
      return b ?? refuse(field, type, text);
    }
    case 'BIGINT':
      return parseLong(text) ?? refuse(field, type, text);
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER': {
      const [min, max] = INTEGER_BOUNDS[type.kind];
      return runtime.parseInteger(text, min, max) ?? refuse(field, type, text);
    }
    case 'FLOAT': {
      // The 32-bit float the text names, as Flink reads it.
      const x = runtime.parseDouble(text);
      return x === null ? refuse(field, type, text) : Math.fround(x);
    }
    case 'DOUBLE':
      return runtime.parseDouble(text) ?? refuse(field, type, text);
    case 'DECIMAL': {
      const unscaled = parseDecimal(text, type.scale);
      const fitted = unscaled === undefined ? null : fitPrecision(unscaled, type.precision);
      return fitted ?? refuse(field, type, text);
    }
    case 'DATE':
      return runtime.parseDate(text) ?? refuse(field, type, text);
    case 'TIME': {
      // Flink's formats cut the fraction to the column's precision (TIME(1) of `12:12:12.2235` is `12:12:12.2`).
      const ms = runtime.parseTime(text);
      if (ms === null || ms === undefined) return refuse(field, type, text);
      const unit = 10 ** (3 - Math.min(type.precision, 3));
      return ms - (ms % unit);
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      // Flink's SQL form (`2024-01-02 03:04:05.678`) and ISO-8601 (`T`, optional `Z`).
      const wall = text.replace(/Z$/, '');
      if (type.precision <= 3) return runtime.parseTimestamp(wall) ?? refuse(field, type, text);
      const nanos = runtime.parseTimestampNanos(wall);
      return nanos === undefined ? refuse(field, type, text) : truncateNanos(nanos, type.precision);
    }
    case 'BINARY':
    case 'VARBINARY':
      return new Uint8Array(Buffer.from(text, 'base64'));
    default:
      return refuse(field, type, text);
  }
}

/** A JSON value as a value of `type` (null stays null; a NOT NULL column refuses it). */
export function fromJson(
  value: unknown,
  type: LogicalType,
  field: string,
  options: JsonReadOptions = {},
): unknown {
  if (options.ignoreParseErrors !== true) return convertJson(value, type, field, options);
  try {
    return convertJson(value, type, field, options);
  } catch (error) {
    // Flink nulls the value that does not fit, at any depth, and keeps the record.
    if (error instanceof FieldError) return null;
    throw error;
  }
}

function convertJson(
  value: unknown,
  type: LogicalType,
  field: string,
  options: JsonReadOptions,
): unknown {
  if (value === null || value === undefined) {
    if (!type.nullable)
      throw new FieldError(field, `is null but the column is ${formatType(type)}`);
    return null;
  }
  // Flink reads anything but `true` (any case) into a BOOLEAN as false, as Boolean.parseBoolean.
  if (type.kind === 'BOOLEAN')
    return typeof value === 'boolean' ? value : String(value).trim().toLowerCase() === 'true';
  if (typeof value === 'string') {
    return type.kind === 'ROW' ||
      type.kind === 'ARRAY' ||
      type.kind === 'MAP' ||
      type.kind === 'MULTISET'
      ? refuse(field, type, value)
      : parseText(value, type, field, options.timestampStandard);
  }
  switch (type.kind) {
    case 'CHAR':
    case 'VARCHAR':
      // Flink's json format reads a number or an object into a string column as its JSON text.
      return JSON.stringify(value);
    case 'FLOAT':
      return typeof value === 'number' ? Math.fround(value) : refuse(field, type, value);
    case 'DOUBLE':
      return typeof value === 'number' ? value : refuse(field, type, value);
    case 'DECIMAL':
      return typeof value === 'number'
        ? parseText(String(value), type, field)
        : refuse(field, type, value);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      // Epoch milliseconds are accepted too.
      if (typeof value !== 'number' || !Number.isInteger(value)) return refuse(field, type, value);
      return type.precision > 3 ? nanosOfMillis(value) : value;
    case 'ROW': {
      if (typeof value !== 'object' || Array.isArray(value)) return refuse(field, type, value);
      const object = value as Record<string, unknown>;
      return type.fields.map((f) =>
        fromJson(object[f.name], f.type, `${field}.${f.name}`, options),
      );
    }
    case 'ARRAY':
      return Array.isArray(value)
        ? value.map((e, i) => fromJson(e, type.element, `${field}[${i}]`, options))
        : refuse(field, type, value);
    case 'MAP': {
      if (typeof value !== 'object' || Array.isArray(value)) return refuse(field, type, value);
      const map = new Map<unknown, unknown>();
      for (const [k, v] of Object.entries(value as Record<string, unknown>))
        map.set(
          fromJson(k, type.key, `${field}.${k}`, options),
          fromJson(v, type.value, `${field}.${k}`, options),
        );
      return map;
    }
    case 'MULTISET':
      // As Flink's json format: an object of each element to its count.
      return convertJson(value, multisetAsMap(type), field, options);
    default:
      if (isInteger(type)) {
        const [min, max] = INTEGER_BOUNDS[type.kind as keyof typeof INTEGER_BOUNDS];
        if (typeof value !== 'number') return refuse(field, type, value);
        // Flink cuts the fraction of a number read into an INT or a BIGINT (112.013 is 112).
        const n =
          (type.kind === 'INTEGER' || type.kind === 'BIGINT') && !Number.isInteger(value)
            ? Math.trunc(value)
            : value;
        return Number.isInteger(n) && n >= min && n <= max ? n : refuse(field, type, value);
      }
      return refuse(field, type, value);
  }
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** A TIMESTAMP as Flink's SQL text form, `2024-01-02 03:04:05.678`. */
export function timestampText(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}`;
}

/** `03:04:05.120` as `03:04:05.12`, `03:04:05.000` as `03:04:05`: Flink's formats print no trailing zeros. */
function minimalFraction(text: string): string {
  return text.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}

/**
 * A TIME, TIMESTAMP or TIMESTAMP_LTZ as Flink's json and csv formats write it: the fraction
 * without trailing zeros, `T` between date and time for ISO-8601, and a `Z` after an LTZ.
 */
export function timeText(
  value: unknown,
  type: LogicalType & { kind: 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_LTZ' },
  standard: TimestampStandard = 'SQL',
): string {
  if (type.kind === 'TIME') return minimalFraction(runtime.formatTime(value as number, 3));
  const wall = minimalFraction(
    type.precision > 3 ? formatTimestampNanos(value as bigint, 9) : timestampText(value as number),
  );
  const text = standard === 'ISO-8601' ? wall.replace(' ', 'T') : wall;
  return type.kind === 'TIMESTAMP_LTZ' ? `${text}Z` : text;
}

/**
 * A DECIMAL as Flink's json format writes it: trailing zeros dropped (Jackson normalizes the
 * number), then Java's BigDecimal.toString (`1E+2`, `2.7E-8`) or, `plain`, toPlainString.
 */
export function decimalJsonText(unscaled: bigint, scale: number, plain: boolean): string {
  if (unscaled === 0n) return '0';
  let u = unscaled;
  let s = scale;
  while (u % 10n === 0n) {
    u /= 10n;
    s--;
  }
  if (s <= 0 && plain) return `${u}${'0'.repeat(-s)}`;
  const digits = (u < 0n ? -u : u).toString();
  const adjusted = digits.length - 1 - s;
  if (plain || (s >= 0 && adjusted >= -6)) return formatDecimal(u, s);
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${u < 0n ? '-' : ''}${mantissa}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
}

/** A non-null SQL value as text (CSV fields, PostgreSQL parameters); null for nested types. */
export function toText(value: unknown, type: LogicalType): string {
  switch (type.kind) {
    case 'DECIMAL':
      return formatDecimal(value as bigint, type.scale);
    case 'TIMESTAMP':
      return type.precision > 3
        ? formatTimestampNanos(value as bigint, type.precision)
        : timestampText(value as number);
    case 'TIMESTAMP_LTZ':
      return `${(type.precision > 3 ? formatTimestampNanos(value as bigint, type.precision) : timestampText(value as number)).replace(' ', 'T')}Z`;
    case 'DATE':
      return runtime.formatDate(value as number);
    case 'TIME':
      return runtime.formatTime(value as number, type.precision);
    case 'BINARY':
    case 'VARBINARY':
      return Buffer.from(value as Uint8Array).toString('base64');
    case 'FLOAT':
      // Java's Float.toString, not the digits of the double holding the float.
      return Number.isFinite(value) ? runtime.formatFloat(value as number) : String(value);
    default:
      return String(value);
  }
}

/**
 * A SQL value as JSON text, as Flink's json format writes it (see {@link JsonWriteOptions}).
 * Without `options`, DECIMAL is plain and times are {@link toText}'s (what callers that pass
 * none have always had).
 */
export function toJsonText(value: unknown, type: LogicalType, options?: JsonWriteOptions): string {
  if (value === null || value === undefined) return 'null';
  switch (type.kind) {
    case 'DECIMAL':
      return options === undefined
        ? formatDecimal(value as bigint, type.scale)
        : decimalJsonText(value as bigint, type.scale, options.decimalAsPlainNumber === true);
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'BIGINT':
      return String(value);
    case 'FLOAT':
      // Java's Float.toString, as Flink's json format writes a FLOAT (`1.1`, `1.0E10`).
      return Number.isFinite(value)
        ? runtime.formatFloat(value as number)
        : JSON.stringify(String(value));
    case 'DOUBLE':
      return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return JSON.stringify(
        options === undefined
          ? toText(value, type)
          : timeText(value, type, options.timestampStandard),
      );
    case 'ROW':
      return `{${type.fields
        .map(
          (f, i) =>
            `${JSON.stringify(f.name)}:${toJsonText((value as unknown[])[i], f.type, options)}`,
        )
        .join(',')}}`;
    case 'ARRAY':
      return `[${(value as unknown[]).map((e) => toJsonText(e, type.element, options)).join(',')}]`;
    case 'MAP': {
      const entries: string[] = [];
      for (const [k, v] of value as Map<unknown, unknown>) {
        let key: string;
        if (k === null || k === undefined) {
          const mode = options?.mapNullKeyMode ?? 'FAIL';
          if (mode === 'DROP') continue;
          if (mode === 'FAIL')
            throw new Error(
              "a MAP with a null key cannot be written as JSON; set 'json.map-null-key.mode' to 'DROP' or 'LITERAL'",
            );
          key = options?.mapNullKeyLiteral ?? 'null';
        } else key = typeof k === 'string' ? k : toText(k, type.key);
        entries.push(`${JSON.stringify(key)}:${toJsonText(v, type.value, options)}`);
      }
      return `{${entries.join(',')}}`;
    }
    case 'MULTISET':
      return toJsonText(value, multisetAsMap(type), options);
    default:
      return JSON.stringify(toText(value, type));
  }
}
