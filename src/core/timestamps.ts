import { describeRecord, WeirError } from './errors.js';
import { NO_TIMESTAMP, type RecordBatch } from './record-batch.js';

/**
 * Whether `time` can be an event time: a whole number of epoch milliseconds
 * within ±`Number.MAX_SAFE_INTEGER` (so neither NaN nor ±Infinity). Beyond
 * that range neighbouring milliseconds collapse into one double, so window
 * ends (`end - 1`) and watermark comparisons (`t <= W`) would silently be
 * wrong; a fraction of a millisecond has no place in a window that ends at
 * `end - 1` (Flink's event times are whole milliseconds too).
 */
export function isEventTime(time: unknown): time is number {
  return Number.isInteger(time) && Math.abs(time as number) <= MAX_EVENT_TIME;
}

/** The largest event time magnitude: the safe-integer bound. */
export const MAX_EVENT_TIME = Number.MAX_SAFE_INTEGER;

/** Renders a bad timestamp for a message: `NaN`, `Infinity`, `1.5`, or a non-number as data. */
function renderTime(time: unknown): string {
  return typeof time === 'number' ? String(time) : describeRecord(time);
}

/**
 * The `INVALID_TIMESTAMP` error for a record whose event time `time` is not
 * an event time ({@link isEventTime}). `what` says who produced it and is followed by the value, e.g.
 * "timestamp assigner returned" or "source attached event time", so the
 * message points at what to fix.
 */
export function invalidTimestamp(
  operatorId: string,
  what: string,
  record: unknown,
  time: unknown,
): WeirError {
  const shown = describeRecord(record);
  return new WeirError(
    'INVALID_TIMESTAMP',
    `${what} ${renderTime(time)} for record ${shown} in operator '${operatorId}'; event time must be a whole number of epoch milliseconds between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
    { operatorId, record: shown },
  );
}

/**
 * Checks the event times a source stamped on a batch and returns the batch:
 * each must be an event time ({@link isEventTime}) or {@link NO_TIMESTAMP} (not stamped). Sources
 * that stamp records themselves call it once per batch, as they hand it out;
 * it costs a comparison per record. Throws {@link invalidTimestamp} for the
 * first bad one.
 */
export function checkTimestamps<B extends RecordBatch<unknown>>(
  batch: B,
  operatorId: string,
  what: string,
): B {
  const { timestamps } = batch;
  for (let i = 0; i < timestamps.length; i++) {
    const t = timestamps[i]!;
    if (t !== NO_TIMESTAMP && !isEventTime(t)) {
      throw invalidTimestamp(operatorId, what, batch.values[i], t);
    }
  }
  return batch;
}
