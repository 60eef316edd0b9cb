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
import { formatType, isInteger, type LogicalType } from '../../types/logical-type.js';
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

/** A field's text (a CSV field, or a JSON string) as a value of `type`. */
export function parseText(text: string, type: LogicalType, field: string): unknown {
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
    case 'TIME':
      return runtime.parseTime(text) ?? refuse(field, type, text);
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
export function fromJson(value: unknown, type: LogicalType, field: string): unknown {
  if (value === null || value === undefined) {
    if (!type.nullable)
      throw new FieldError(field, `is null but the column is ${formatType(type)}`);
    return null;
  }
  if (typeof value === 'string') {
    return type.kind === 'ROW' || type.kind === 'ARRAY' || type.kind === 'MAP'
      ? refuse(field, type, value)
      : parseText(value, type, field);
  }
  switch (type.kind) {
    case 'CHAR':
    case 'VARCHAR':
      // Flink's json format reads a number or an object into a string column as its JSON text.
      return JSON.stringify(value);
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : refuse(field, type, value);
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
      return type.fields.map((f) => fromJson(object[f.name], f.type, `${field}.${f.name}`));
    }
    case 'ARRAY':
      return Array.isArray(value)
        ? value.map((e, i) => fromJson(e, type.element, `${field}[${i}]`))
        : refuse(field, type, value);
    default:
      if (isInteger(type)) {
        const [min, max] = INTEGER_BOUNDS[type.kind as keyof typeof INTEGER_BOUNDS];
        return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
          ? value
          : refuse(field, type, value);
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

/** A SQL value as JSON text: DECIMAL as a plain number, times as Flink's SQL text form. */
export function toJsonText(value: unknown, type: LogicalType): string {
  if (value === null || value === undefined) return 'null';
  switch (type.kind) {
    case 'DECIMAL':
      return formatDecimal(value as bigint, type.scale);
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
    case 'ROW':
      return `{${type.fields
        .map((f, i) => `${JSON.stringify(f.name)}:${toJsonText((value as unknown[])[i], f.type)}`)
        .join(',')}}`;
    case 'ARRAY':
      return `[${(value as unknown[]).map((e) => toJsonText(e, type.element)).join(',')}]`;
    default:
      return JSON.stringify(toText(value, type));
  }
}
