import type { RecordBatch } from '../../../core/record-batch.js';
import type { CollectingSink, Sink, SinkWriter } from '../../../core/sink.js';

/**
 * Collects records into an array in memory, for tests and small jobs.
 * Records of all subtasks land in the same array.
 */
export class CollectSink<T> implements CollectingSink<T> {
  readonly name = 'collect';
  readonly collects = true;
  /** Keeps whatever arrives, changes included. */
  readonly accepts = 'retract';
  readonly values: T[] = [];
  /** Event time of each collected record, index-aligned with `values`. */
  readonly timestamps: number[] = [];

  createWriter(): SinkWriter<T> {
    return {
      write: (batch: RecordBatch<T>) => {
        for (let i = 0; i < batch.values.length; i++) {
          this.values.push(batch.values[i] as T);
          this.timestamps.push(batch.timestamps[i]!);
        }
      },
      close() {},
    };
  }
}

/** A sink that drops everything it is given, after counting it. */
export class DiscardingSink<T> implements Sink<T> {
  readonly name = 'discard';
  /** Keeps whatever arrives, changes included. */
  readonly accepts = 'retract';
  count = 0;
  createWriter(): SinkWriter<T> {
    return {
      write: (batch: RecordBatch<T>) => {
        this.count += batch.values.length;
      },
      close() {},
    };
  }
}
