/**
 * TIMESTAMP(p) and TIMESTAMP_LTZ(p) with p above 3 ("precise" timestamps). Their values are
 * bigints of epoch nanoseconds (of the wall-clock fields read in UTC for a TIMESTAMP, of the
 * instant for a TIMESTAMP_LTZ), so the millisecond timestamps of every other query stay plain
 * numbers, and bigints already compare, group, sort and go to state as DECIMAL's do. The
 * milliseconds of a value are its floor: Flink's TimestampData is epoch millis plus the
 * nanoseconds of that milli (0 to 999,999).
 */
import type { TimeZone } from '../../types/time-zone.js';
import { timeRuntime } from './time-runtime.js';

const NANOS_PER_MS = 1_000_000n;

/** The epoch millisecond that holds `nanos` (rounded down, also before 1970). */
export function millisOfNanos(nanos: bigint): number {
  const q = nanos / NANOS_PER_MS;
  return Number(nanos < 0n && q * NANOS_PER_MS !== nanos ? q - 1n : q);
}

export function nanosOfMillis(ms: number): bigint {
  return BigInt(ms) * NANOS_PER_MS;
}

/** `nanos` moved to the millisecond `ms`, keeping its nanoseconds within the millisecond. */
export function withMillis(nanos: bigint, ms: number): bigint {
  return nanos - nanosOfMillis(millisOfNanos(nanos)) + nanosOfMillis(ms);
}

/** `nanos` cut to `precision` (4 to 9) digits of the second: Flink zeroes the later digits. */
export function truncateNanos(nanos: bigint, precision: number): bigint {
  if (precision >= 9) return nanos;
  const unit = 10n ** BigInt(9 - precision);
  const rest = ((nanos % unit) + unit) % unit;
  return nanos - rest;
}

/** Flink's text form (`2024-01-01 10:00:00.123456`) as epoch nanoseconds, every digit kept. */
export function parseTimestampNanos(text: string): bigint | undefined {
  const ms = timeRuntime.parseTimestamp(text);
  if (ms === undefined) return undefined;
  const fraction = /\.(\d+)$/.exec(text.trim())?.[1] ?? '';
  return nanosOfMillis(ms) + BigInt(fraction.padEnd(9, '0').slice(3, 9));
}

/** The nanoseconds of the second, 0 to 999,999,999. */
function nanosOfSecond(nanos: bigint): bigint {
  return ((nanos % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
}

/** `yyyy-MM-dd HH:mm:ss` and `precision` digits of the second, as CAST to STRING gives it. */
export function formatTimestampNanos(nanos: bigint, precision: number): string {
  const base = timeRuntime.formatTimestampDefault(millisOfNanos(nanos), 0);
  return `${base}.${String(nanosOfSecond(nanos)).padStart(9, '0').slice(0, precision)}`;
}

/** EXTRACT(MICROSECOND | NANOSECOND FROM ...): the fraction of the second in that unit. */
export function extractSubSecond(nanos: bigint, unit: string): number {
  const n = nanosOfSecond(nanos);
  return Number(unit === 'NANOSECOND' ? n : n / 1000n);
}

/**
 * FLOOR / CEIL(t TO unit) of epoch nanoseconds, on the wall clock of `zone` when given (a
 * TIMESTAMP_LTZ): units are whole milliseconds or more, so the floor drops the digits below
 * the millisecond and the ceiling counts them as one more millisecond (59.987654 to .988).
 */
export function roundNanos(nanos: bigint, unit: string, ceil: boolean, zone?: TimeZone): bigint {
  const ms = millisOfNanos(nanos);
  const local = zone === undefined ? ms : zone.toLocal(ms);
  const rounded = ceil
    ? timeRuntime.ceilTime(local + (nanos === nanosOfMillis(ms) ? 0 : 1), unit)
    : timeRuntime.floorTime(local, unit);
  return nanosOfMillis(zone === undefined ? rounded : zone.toUtc(rounded));
}

/** The helpers compiled code calls (`h.millisOfNanos(...)`). */
export const preciseTimeRuntime = {
  millisOfNanos,
  nanosOfMillis,
  withMillis,
  truncateNanos,
  parseTimestampNanos,
  formatTimestampNanos,
  extractSubSecond,
  roundNanos,
};
