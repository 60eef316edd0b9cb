/**
 * CASTs to and from TIMESTAMP_LTZ, which depend on the session time zone: an instant becomes
 * the zone's wall clock as a TIMESTAMP, DATE, TIME or text, and a wall clock becomes the instant
 * it names in the zone (java.time's rules at DST gaps and overlaps). Numbers are epoch seconds.
 */
import {
  isApproximate,
  isCharacterString,
  isInteger,
  isTimestamp,
  type LogicalType,
} from '../../types/logical-type.js';
import type { CodeGen } from '../code-gen.js';
import { sessionTimeZone } from '../session-time-zone.js';
import { DAY_MS } from './time-runtime.js';

/** Timestamps are held in ms: a precision below 3 drops the finer digits. */
function truncated(code: string, precision: number): string {
  if (precision >= 3) return code;
  const unit = 10 ** (3 - precision);
  return `(Math.floor(${code} / ${unit}) * ${unit})`;
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
  const utc = zone.isFixed && zone.offsetAt(0) === 0;
  const z = utc ? '' : g.constant(zone);
  const local = (x: string) => (utc ? x : `h.toLocal(${z}, ${x})`);
  const instant = (x: string) => (utc ? x : `h.toUtc(${z}, ${x})`);
  if (from.kind === 'TIMESTAMP_LTZ') {
    if (to.kind === 'TIMESTAMP_LTZ')
      return to.precision >= from.precision ? v : truncated(v, to.precision);
    if (to.kind === 'TIMESTAMP') return truncated(local(v), to.precision);
    if (to.kind === 'DATE') return `Math.floor(${local(v)} / ${DAY_MS})`;
    if (to.kind === 'TIME') return `(((${local(v)} % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS})`;
    if (isCharacterString(to)) return `h.formatTimestampDefault(${local(v)}, ${from.precision})`;
    if (to.kind === 'BIGINT' || to.kind === 'INTEGER') return `Math.floor(${v} / 1000)`;
    if (to.kind === 'DOUBLE') return `(${v} / 1000)`;
    return undefined;
  }
  const precision = isTimestamp(to) ? to.precision : 3;
  if (from.kind === 'TIMESTAMP') return truncated(instant(v), precision);
  if (from.kind === 'DATE') return instant(`(${v} * ${DAY_MS})`);
  if (isCharacterString(from)) {
    const t = g.temp();
    return `((${t} = h.parseTimestamp(${v})) === undefined ? ${failed} : ${truncated(instant(t), precision)})`;
  }
  if (isInteger(from)) return `(Number(${v}) * 1000)`;
  if (isApproximate(from)) return `Math.trunc(${v} * 1000)`;
  return undefined;
}
