/**
 * The unit of data movement: records travel between operators in batches, so
 * per-record costs are a loop iteration, not a call chain or an allocation.
 *
 * `timestamps[i]` is the event time of `values[i]` in epoch milliseconds, or
 * {@link NO_TIMESTAMP} when the record has none yet. `keys`, when present, holds
 * the key of each record as computed by the upstream `keyBy`, so keyed operators
 * do not run the key selector twice.
 */
export interface RecordBatch<T> {
  readonly values: T[];
  readonly timestamps: number[];
  readonly keys: unknown[] | undefined;
}

/** Event time of a record that has not been given one. */
export const NO_TIMESTAMP = Number.NEGATIVE_INFINITY;

export function batchOf<T>(values: T[], timestamps: number[], keys?: unknown[]): RecordBatch<T> {
  return { values, timestamps, keys };
}

/** A batch whose records all lack a timestamp. */
export function untimedBatch<T>(values: T[]): RecordBatch<T> {
  return {
    values,
    timestamps: new Array<number>(values.length).fill(NO_TIMESTAMP),
    keys: undefined,
  };
}

/**
 * Accumulates records and hands out batches of a fixed size. Operators that
 * emit a variable number of records per input (flatMap, windows, process
 * functions) collect into one of these and flush at the end of their input batch.
 */
export class BatchBuilder<T> {
  private values: T[] = [];
  private timestamps: number[] = [];

  get length(): number {
    return this.values.length;
  }

  push(value: T, timestamp: number): void {
    this.values.push(value);
    this.timestamps.push(timestamp);
  }

  /** Returns the accumulated batch and starts a new one; undefined when empty. */
  take(): RecordBatch<T> | undefined {
    if (this.values.length === 0) return undefined;
    const batch: RecordBatch<T> = {
      values: this.values,
      timestamps: this.timestamps,
      keys: undefined,
    };
    this.values = [];
    this.timestamps = [];
    return batch;
  }
}
