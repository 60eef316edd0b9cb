/**
 * PostgreSQL date/time text (DateStyle ISO, TimeZone UTC, IntervalStyle
 * iso_8601, as the connector's sessions set them) to Debezium's temporal
 * representations, and back for sinks. Proleptic Gregorian calendar
 * throughout, as PostgreSQL uses; integer arithmetic only, no `Date`
 * (which mishandles years 0-99 and has only milliseconds).
 */

import { civilFromDays, daysFromCivil } from '../../util/civil-calendar.js';

const US_PER_DAY = 86_400_000_000;

export { civilFromDays, daysFromCivil };

const DATE_RE = /^(\d{4,})-(\d{2})-(\d{2})/;
const TIME_RE = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/;

/** Fraction digits (up to 6) as microseconds. */
function fractionUs(digits: string | undefined): number {
  return digits === undefined ? 0 : Number(digits.padEnd(6, '0'));
}

/** `YYYY-MM-DD[ BC]` as days since the epoch; `infinity` as ±Infinity. */
export function parseDateDays(text: string): number {
  if (text === 'infinity') return Number.POSITIVE_INFINITY;
  if (text === '-infinity') return Number.NEGATIVE_INFINITY;
  const m = DATE_RE.exec(text);
  if (m === null) throw new Error(`not a date: '${text}'`);
  let year = Number(m[1]);
  if (text.endsWith(' BC')) year = 1 - year;
  return daysFromCivil(year, Number(m[2]), Number(m[3]));
}

/** `HH:MM:SS[.ffffff]` as microseconds past midnight, and the rest of the text. */
export function parseTimeUs(text: string): { us: number; rest: string } {
  const m = TIME_RE.exec(text);
  if (m === null) throw new Error(`not a time: '${text}'`);
  const us =
    ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1_000_000 + fractionUs(m[4]);
  return { us, rest: text.slice(m[0].length) };
}

/** A UTC offset `+HH[:MM[:SS]]` in microseconds. */
function parseOffsetUs(text: string): number {
  const m = /^([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?/.exec(text);
  if (m === null) return 0;
  const us = ((Number(m[2]) * 60 + Number(m[3] ?? 0)) * 60 + Number(m[4] ?? 0)) * 1_000_000;
  return m[1] === '-' ? -us : us;
}

/** `YYYY-MM-DD HH:MM:SS[.ffffff][+TZ][ BC]` as microseconds since the epoch (UTC); `infinity` as ±Infinity. */
export function parseTimestampUs(text: string): number {
  if (text === 'infinity') return Number.POSITIVE_INFINITY;
  if (text === '-infinity') return Number.NEGATIVE_INFINITY;
  const days = parseDateDays(text);
  const space = text.indexOf(' ');
  const { us, rest } = parseTimeUs(text.slice(space + 1));
  return days * US_PER_DAY + us - parseOffsetUs(rest);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Fraction of a second: exactly `width` digits, or (width undefined) as few as needed (none for zero). */
function formatFraction(us: number, width: number | undefined): string {
  if (width === undefined) {
    if (us === 0) return '';
    return `.${pad(us, 6).replace(/0+$/, '')}`;
  }
  if (width <= 0) return '';
  return `.${pad(us, 6).slice(0, width)}`;
}

function formatYear(year: number): string {
  if (year >= 0 && year <= 9999) return pad(year, 4);
  return `${year < 0 ? '-' : '+'}${pad(Math.abs(year), 4)}`;
}

function formatTimeOfDay(us: number, fractionWidth: number | undefined): string {
  const s = Math.floor(us / 1_000_000);
  return `${pad(Math.floor(s / 3600), 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}${formatFraction(us % 1_000_000, fractionWidth)}`;
}

/**
 * Microseconds since the epoch as Debezium's `ZonedTimestamp` string in UTC,
 * e.g. `2024-02-29T12:00:00.123456Z`: `fractionWidth` digits (the column's
 * precision), or as few as needed when it is 0.
 */
export function formatZonedTimestamp(epochUs: number, fractionWidth: number): string {
  if (epochUs === Number.POSITIVE_INFINITY) return 'infinity';
  if (epochUs === Number.NEGATIVE_INFINITY) return '-infinity';
  const days = Math.floor(epochUs / US_PER_DAY);
  const timeUs = epochUs - days * US_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  return `${formatYear(year)}-${pad(month, 2)}-${pad(day, 2)}T${formatTimeOfDay(timeUs, fractionWidth > 0 ? fractionWidth : undefined)}Z`;
}

/** `HH:MM:SS[.ffffff]+TZ` as Debezium's `ZonedTime` string in UTC, e.g. `08:15:30.5Z`. */
export function formatZonedTime(text: string): string {
  const { us, rest } = parseTimeUs(text);
  let utc = (us - parseOffsetUs(rest)) % US_PER_DAY;
  if (utc < 0) utc += US_PER_DAY;
  return `${formatTimeOfDay(utc, undefined)}Z`;
}

/** ISO 8601 duration components as PostgreSQL's `iso_8601` IntervalStyle prints them. */
interface IntervalParts {
  years: number;
  months: number;
  days: number;
  hours: number;
  minutes: number;
  /** Seconds as printed (may have a fraction and a sign). */
  seconds: string;
}

function parseIsoInterval(text: string): IntervalParts {
  const m =
    /^P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?[\d.]+)S)?)?$/.exec(
      text,
    );
  if (m === null) throw new Error(`not an ISO 8601 interval: '${text}'`);
  return {
    years: Number(m[1] ?? 0),
    months: Number(m[2] ?? 0),
    days: Number(m[3] ?? 0),
    hours: Number(m[4] ?? 0),
    minutes: Number(m[5] ?? 0),
    seconds: m[6] ?? '0',
  };
}

/** Days per month Debezium assumes when turning months into microseconds (365.25 / 12). */
const DAYS_PER_MONTH = 365.25 / 12;

/** An interval as Debezium's `MicroDuration`: approximate microseconds. */
export function intervalMicros(text: string): number {
  const p = parseIsoInterval(text);
  const days = (p.years * 12 + p.months) * DAYS_PER_MONTH + p.days;
  const secondsUs = Math.round(Number(p.seconds) * 1_000_000);
  return Math.trunc(days * US_PER_DAY) + (p.hours * 3600 + p.minutes * 60) * 1_000_000 + secondsUs;
}

/** An interval as Debezium's `Interval` string: every component, e.g. `P1Y2M3DT4H5M6.78S`. */
export function intervalString(text: string): string {
  const p = parseIsoInterval(text);
  return `P${p.years}Y${p.months}M${p.days}DT${p.hours}H${p.minutes}M${p.seconds}S`;
}

// ---- back to PostgreSQL input text, for sinks ----

/** Days since the epoch as `YYYY-MM-DD` (BC years as PostgreSQL writes them). */
export function formatDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  const y = year <= 0 ? `${pad(1 - year, 4)}` : pad(year, 4);
  return `${y}-${pad(month, 2)}-${pad(day, 2)}${year <= 0 ? ' BC' : ''}`;
}

/** Microseconds since the epoch as a PostgreSQL timestamp literal in UTC. */
export function formatTimestampLiteral(epochUs: number): string {
  if (epochUs === Number.POSITIVE_INFINITY) return 'infinity';
  if (epochUs === Number.NEGATIVE_INFINITY) return '-infinity';
  const days = Math.floor(epochUs / US_PER_DAY);
  const timeUs = epochUs - days * US_PER_DAY;
  const date = formatDate(days);
  const bc = date.endsWith(' BC');
  return `${bc ? date.slice(0, -3) : date} ${formatTimeOfDay(timeUs, 6)}${bc ? ' BC' : ''}`;
}

/** Microseconds past midnight as a PostgreSQL time literal. */
export function formatTimeLiteral(us: number): string {
  return formatTimeOfDay(us, 6);
}
