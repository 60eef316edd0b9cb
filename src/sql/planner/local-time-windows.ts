/**
 * Window TVFs over a TIMESTAMP_LTZ time attribute in a session time zone other than UTC, as
 * Flink aligns them: on the zone's wall clock. A day window starts at local midnight, and the
 * day of a DST change lasts 23 or 25 hours; `window_start` and `window_end` are local
 * TIMESTAMPs and `window_time` is the TIMESTAMP_LTZ instant of the window's last millisecond.
 *
 * The window operators stay as they are: the rows enter them with the local wall clock as
 * their event time, and the watermark is re-expressed on that clock so that a window fires
 * when the real (UTC) watermark reaches Flink's timer for its end (`windowTimer`). After the
 * window operator the results get their `window_time` instants and a UTC watermark back. The
 * window aggregation, Top-N, deduplication and join all run this way (`onWindowClock`);
 * processing-time windows read the zone's wall clock through their assigner (`wallClockOf`).
 */
import type { DataStream } from '../../api/streams.js';
import {
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkStrategy,
} from '../../core/watermarks.js';
import type { WindowClock } from '../../core/windows.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import type { TimeZone } from '../types/time-zone.js';

const HOUR_MS = 3_600_000;

const daylightSaving = new WeakMap<TimeZone, boolean>();

/**
 * Whether the zone changes its offset within the current year (as java.util's
 * `TimeZone.useDaylightTime`, which decides whether Flink's timers take the DST path).
 */
function usesDaylightTime(zone: TimeZone): boolean {
  let known = daylightSaving.get(zone);
  if (known === undefined) {
    const year = new Date().getUTCFullYear();
    known =
      !zone.isFixed && zone.offsetAt(Date.UTC(year, 0, 1)) !== zone.offsetAt(Date.UTC(year, 6, 1));
    daylightSaving.set(zone, known);
  }
  return known;
}

/**
 * The instant (epoch ms) at which the watermark fires a window whose last local millisecond is
 * `localMs` (Flink's `toEpochMillsForTimer`): the instant of that wall clock; in a DST gap the
 * first instant after the gap, in an overlap the later of the two instants, so that both
 * passes through the repeated hour are in the window before it fires.
 */
export function windowTimer(zone: TimeZone, localMs: number): number {
  if (zone.isUtc || !Number.isFinite(localMs)) return localMs;
  const t1 = zone.toUtc(localMs);
  if (!usesDaylightTime(zone)) return t1;
  const t2 = zone.toUtc(localMs + HOUR_MS);
  if (t1 === t2) return t1 - (t1 % HOUR_MS);
  if (t2 - t1 > HOUR_MS) return t1 + HOUR_MS;
  return t1;
}

/**
 * The watermark on the local clock that stands for the UTC watermark `utcMs`: the latest local
 * time whose timer it has reached, so that exactly the windows Flink fires at `utcMs` fire
 * (and the same rows are late). Non-decreasing in `utcMs`, as `windowTimer` is.
 */
export function localWatermark(zone: TimeZone, utcMs: number): number {
  if (!Number.isFinite(utcMs)) return utcMs;
  const local = zone.toLocal(utcMs);
  if (windowTimer(zone, local) <= utcMs) return local;
  // The first pass through a repeated hour: its local times fire on the second pass. The
  // latest local time already due lies within the two hours before.
  let due = local - 2 * HOUR_MS;
  let notDue = local;
  while (notDue - due > 1) {
    const mid = Math.floor((due + notDue) / 2);
    if (windowTimer(zone, mid) <= utcMs) due = mid;
    else notDue = mid;
  }
  return due;
}

/**
 * The zone's wall clock for processing-time windows: a row joins the windows of the wall
 * clock when it arrives, and a window fires when its last millisecond is due (`windowTimer`).
 */
export function wallClockOf(zone: TimeZone): WindowClock {
  return { readingAt: (ms) => zone.toLocal(ms), dueAt: (localMs) => windowTimer(zone, localMs) };
}

/** `window_time` of a window ending (exclusive) at local `endMs`: the instant of its last millisecond. */
export function localWindowTime(zone: TimeZone, endMs: number): number {
  return zone.toUtc(endMs - 1);
}

/** Re-expresses each upstream watermark through `convert`; never goes back. */
class ConvertedWatermarks implements WatermarkGenerator<Row> {
  private last = Number.NEGATIVE_INFINITY;
  constructor(private readonly convert: (watermark: number) => number) {}
  onEvent(): void {}
  onUpstreamWatermark(watermark: number, output: WatermarkOutput): void {
    const converted = this.convert(watermark);
    if (converted > this.last) {
      this.last = converted;
      output.emitWatermark(converted);
    }
  }
}

/** The rows with the zone's wall clock of their event time as event time, and the watermark likewise. */
function toLocalEventTime(stream: DataStream<Row>, zone: TimeZone): DataStream<Row> {
  return stream
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forGenerator<Row>(
        () => new ConvertedWatermarks((w) => localWatermark(zone, w)),
      ).withTimestampAssigner((_row, ts) => zone.toLocal(ts)),
    )
    .name(`event time on the wall clock of ${zone.id}`);
}

/**
 * The earliest instant a local time `L` or any later one can name: the instant of `L`, or in a
 * repeated hour the first pass, or in a gap the end of the gap (where java.time moves a time in
 * the gap past it). Non-decreasing in `L`, unlike the instant alone.
 */
function earliestInstant(zone: TimeZone, localMs: number): number {
  return Math.min(zone.toUtc(localMs), windowTimer(zone, localMs));
}

/**
 * Window results back on UTC event time: each row's event time, a window's last local
 * millisecond as the window operators emit it, becomes that millisecond's instant (the
 * `window_time`), and a local watermark `L` becomes the earliest instant of `L + 1` less 1 ms,
 * which no later window's `window_time` precedes.
 */
function toUtcEventTime<T>(stream: DataStream<T>, zone: TimeZone): DataStream<T> {
  return stream
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forGenerator<T>(
        () =>
          new ConvertedWatermarks((w) =>
            Number.isFinite(w) ? earliestInstant(zone, w + 1) - 1 : w,
          ),
      ).withTimestampAssigner((_row, ts) => zone.toUtc(ts)),
    )
    .name('window results on UTC event time');
}

/**
 * The zone on whose wall clock the windows named by the columns at `startAt` and `endAt` lie
 * (undefined: windows of a TIMESTAMP time attribute, or in UTC, whose ends are instants as
 * they are). As Flink's window Top-N, deduplication and join take their time zone from the
 * windows' time attribute.
 */
export function windowClock(
  columns: readonly ScopeColumn[],
  at: { readonly startAt: number; readonly endAt: number },
): TimeZone | undefined {
  return columns[at.startAt]?.windowZone ?? columns[at.endAt]?.windowZone;
}

/**
 * Runs `fire`, a window operator that fires a window when the watermark passes its
 * `window_end`, over `inputs` on the wall clock of `zone` (as the window aggregation runs),
 * and puts its results (rows, or changes of rows) back on UTC event time; with no zone, on the
 * inputs as they are.
 */
export function onWindowClock<I extends readonly DataStream<Row>[], O = Row>(
  zone: TimeZone | undefined,
  inputs: I,
  fire: (...local: I) => DataStream<O>,
): DataStream<O> {
  if (zone === undefined) return fire(...inputs);
  const local = inputs.map((input) => toLocalEventTime(input, zone)) as unknown as I;
  return toUtcEventTime(fire(...local), zone);
}
