/**
 * How SQL values are held in rows, and how they leave them. In a row: BOOLEAN a boolean,
 * TINYINT..INT and FLOAT/DOUBLE a number, BIGINT a number or beyond 2^53 a bigint (long.ts), DECIMAL(p, s) its unscaled bigint, CHAR/VARCHAR a
 * string, BINARY/VARBINARY a Uint8Array, DATE days since 1970-01-01, TIME ms of the day,
 * TIMESTAMP and TIMESTAMP_LTZ epoch ms (UTC; above precision 3 a bigint of epoch ns), INTERVAL ms or months, ROW an array,
 * MULTISET a Map of element to its count, NULL null.
 */
import { millisOfNanos, withMillis } from '../expressions/functions/precise-time.js';
import { runtime } from '../expressions/runtime.js';
import { formatDecimal } from './decimal.js';
import { type LogicalType, multisetAsMap } from './logical-type.js';
import type { TimeZone } from './time-zone.js';

/**
 * A value as JSON carries it: DECIMAL as its plain string, a BIGINT beyond 2^53 as its digits,
 * times as epoch ms (as the Flink peer writes them).
 */
export type JsonValue = null | boolean | number | string | JsonValue[];

export function toJsonValue(value: unknown, type: LogicalType): JsonValue {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'DECIMAL':
      return formatDecimal(value as bigint, type.scale);
    case 'ROW':
      return (value as unknown[]).map((v, i) =>
        toJsonValue(v, (type.fields[i] as { type: LogicalType }).type),
      );
    case 'ARRAY':
      return (value as unknown[]).map((v) => toJsonValue(v, type.element));
    // JSON objects key by text only: a MAP's entries (a MULTISET's elements and counts) as pairs,
    // each key keeping its type.
    case 'MAP':
      return [...(value as Map<unknown, unknown>)].map(([k, v]) => [
        toJsonValue(k, type.key),
        toJsonValue(v, type.value),
      ]);
    case 'MULTISET':
      return [...(value as Map<unknown, number>)].map(([k, n]) => [
        toJsonValue(k, type.element),
        n,
      ]);
    case 'BINARY':
    case 'VARBINARY':
      return Buffer.from(value as Uint8Array).toString('base64');
    case 'BIGINT':
      // Beyond 2^53 a JSON number would round: the digits as a string.
      return typeof value === 'bigint' ? value.toString() : (value as number);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      // Above p = 3 epoch nanoseconds, whose digits a JSON number would round.
      return typeof value === 'bigint' ? value.toString() : (value as number);
    default:
      return value as JsonValue;
  }
}

/**
 * Epoch nanoseconds as Java's LocalDateTime.toString shows them (Flink's print): the fraction
 * in groups of three digits, as many as it needs.
 */
function preciseDisplay(nanos: bigint): string {
  const ms = millisOfNanos(nanos);
  const second = ms - (((ms % 1000) + 1000) % 1000);
  const text = toDisplayString(second, { kind: 'TIMESTAMP', nullable: false, precision: 0 });
  const fraction = Number(nanos - BigInt(second) * 1_000_000n);
  if (fraction === 0) return text;
  const digits = String(fraction).padStart(9, '0');
  const shown = fraction % 1_000_000 === 0 ? 3 : fraction % 1000 === 0 ? 6 : 9;
  return `${text.length === 16 ? `${text}:00` : text}.${digits.slice(0, shown)}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * A value as Flink's print connector shows it (`2015-07-15T00:00:01.234`, `908.000`, a DOUBLE
 * or FLOAT as Java's Double/Float.toString, `1.0`, `1.0E10`; a TIMESTAMP_LTZ as its UTC
 * instant, `...Z`). With a `zone` (the SQL client's session time zone)
 * a TIMESTAMP_LTZ shows as the zone's wall clock instead, as Flink's SQL client shows it.
 */
/** A value inside a ROW, ARRAY or MAP: NULL there is `NULL`, as in Flink's casts to text. */
function nestedDisplay(value: unknown, type: LogicalType, zone: TimeZone | undefined): string {
  return value === null || value === undefined ? 'NULL' : toDisplayString(value, type, zone);
}

export function toDisplayString(value: unknown, type: LogicalType, zone?: TimeZone): string {
  if (value === null || value === undefined) return '<NULL>';
  switch (type.kind) {
    case 'DECIMAL':
      return formatDecimal(value as bigint, type.scale);
    case 'TIMESTAMP_LTZ': {
      const wall = { ...type, kind: 'TIMESTAMP' } as const;
      if (zone === undefined) return `${toDisplayString(value, wall)}Z`;
      if (typeof value !== 'bigint') return toDisplayString(zone.toLocal(value as number), wall);
      return toDisplayString(withMillis(value, zone.toLocal(millisOfNanos(value))), wall);
    }
    case 'TIMESTAMP': {
      if (typeof value === 'bigint') return preciseDisplay(value);
      const d = new Date(value as number);
      const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`;
      const seconds = d.getUTCSeconds();
      const ms = d.getUTCMilliseconds();
      const text =
        ms === 0
          ? seconds === 0
            ? base
            : `${base}:${pad(seconds, 2)}`
          : `${base}:${pad(seconds, 2)}.${pad(ms, 3)}`;
      return text;
    }
    case 'DATE': {
      const d = new Date((value as number) * 86_400_000);
      return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
    }
    case 'TIME': {
      // As Java's LocalTime.toString (Flink's print): `14:34`, `14:34:24`, `14:34:24.001`.
      // Without this case a TIME showed as its milliseconds of the day (Flink's
      // CalcITCase.testAdvancedDataTypes).
      const ms = Number(value);
      const base = `${pad(Math.floor(ms / 3_600_000), 2)}:${pad(Math.floor(ms / 60_000) % 60, 2)}`;
      const seconds = Math.floor(ms / 1000) % 60;
      const fraction = ms % 1000;
      if (fraction !== 0) return `${base}:${pad(seconds, 2)}.${pad(fraction, 3)}`;
      return seconds === 0 ? base : `${base}:${pad(seconds, 2)}`;
    }
    case 'BOOLEAN':
      return value ? 'TRUE' : 'FALSE';
    case 'BINARY':
    case 'VARBINARY':
      return `x'${Buffer.from(value as Uint8Array).toString('hex')}'`;
    case 'ROW':
      return `(${(value as unknown[]).map((v, i) => nestedDisplay(v, (type.fields[i] as { type: LogicalType }).type, zone)).join(', ')})`;
    // As Flink casts collections to text: `[1, NULL]`, `{a=1, b=NULL}`.
    case 'ARRAY':
      return `[${(value as unknown[]).map((v) => nestedDisplay(v, type.element, zone)).join(', ')}]`;
    case 'MAP':
      return `{${[...(value as Map<unknown, unknown>)].map(([k, v]) => `${nestedDisplay(k, type.key, zone)}=${nestedDisplay(v, type.value, zone)}`).join(', ')}}`;
    case 'MULTISET':
      return toDisplayString(value, multisetAsMap(type), zone);
    case 'FLOAT':
      // Java's Float.toString (`1.1`, `1.0`), not the digits of the double holding the float.
      return runtime.formatFloat(value as number);
    case 'DOUBLE':
      return runtime.formatDouble(value as number);
    default:
      return String(value);
  }
}
