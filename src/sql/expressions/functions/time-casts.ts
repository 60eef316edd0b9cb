/**
 * CASTs to and from TIMESTAMP_LTZ, which depend on the session time zone: an instant becomes
 * the zone's wall clock as a TIMESTAMP, DATE, TIME or text, and a wall clock becomes the instant
 * it names in the zone (java.time's rules at DST gaps and overlaps). Flink has no cast between
 * TIMESTAMP_LTZ and numbers.
 */
import { isCharacterString, isTimestamp, type LogicalType } from '../../types/logical-type.js';
import type { CodeGen } from '../code-gen.js';
import { sessionTimeZone } from '../session-time-zone.js';
import { DAY_MS } from './time-runtime.js';

/**
 * Times are held in ms: a precision below 3 drops the finer digits. Flink rounds a TIMESTAMP or
 * TIME down (1969-12-31 23:59:59.5 becomes 23:59:59 at precision 0) but cuts the epoch
 * millisecond of a TIMESTAMP_LTZ toward zero (the same instant becomes 1970-01-01 00:00:00).
 */
export function truncated(code: string, precision: number, towardZero = false): string {
  if (precision >= 3) return code;
  const unit = 10 ** (3 - precision);
  return towardZero
    ? `(Math.trunc(${code} / ${unit}) * ${unit} + 0)`
    : `(Math.floor(${code} / ${unit}) * ${unit})`;
}

/**
 * The conversion of a non-null value `v` when either side is a TIMESTAMP_LTZ; undefined when
 * neither is (or Flink has no such cast). `failed` is the code for text that is no timestamp.
 */
export function convertZoned(
  g: CodeGen,
  v: string,
  from: LogicalType,
  to: LogicalType,
  failed: string,
): string | undefined {
  if (from.kind !== 'TIMESTAMP_LTZ' && to.kind !== 'TIMESTAMP_LTZ') return undefined;
  const zone = sessionTimeZone();
  const utc = zone.isUtc;
  const z = utc ? '' : g.constant(zone);
  const local = (x: string) => (utc ? x : `h.toLocal(${z}, ${x})`);
  const instant = (x: string) => (utc ? x : `h.toUtc(${z}, ${x})`);
  if (from.kind === 'TIMESTAMP_LTZ') {
    if (to.kind === 'TIMESTAMP_LTZ')
      return to.precision >= from.precision ? v : truncated(v, to.precision, true);
    if (to.kind === 'TIMESTAMP') return truncated(local(v), to.precision);
    if (to.kind === 'DATE') return `Math.floor(${local(v)} / ${DAY_MS})`;
    if (to.kind === 'TIME')
      return truncated(`(((${local(v)} % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS})`, to.precision);
    if (isCharacterString(to)) return `h.formatTimestampDefault(${local(v)}, ${from.precision})`;
    return undefined; // Flink has no cast of a TIMESTAMP_LTZ to a number
  }
  const precision = isTimestamp(to) ? to.precision : 3;
  if (from.kind === 'TIMESTAMP') return truncated(instant(v), precision, true);
  if (from.kind === 'DATE') return instant(`(${v} * ${DAY_MS})`);
  if (isCharacterString(from)) {
    const t = g.temp();
    return `((${t} = h.parseTimestamp(${v})) === undefined ? ${failed} : ${truncated(instant(t), precision, true)})`;
  }
  return undefined; // nor of a number to a TIMESTAMP_LTZ (TO_TIMESTAMP_LTZ does that)
}
