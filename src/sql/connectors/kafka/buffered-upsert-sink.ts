/**
 * Flink's `sink.buffer-flush.max-rows` / `sink.buffer-flush.interval` of `upsert-kafka`
 * (its ReducingUpsertWriter): changes are kept per record key, only the last of each key
 * written, when the buffer holds `maxRows` keys, when `intervalMs` has passed, before a
 * checkpoint and at the end of the input.
 */
import { batchOf, type RecordBatch } from '../../../core/record-batch.js';
import {
  isTwoPhaseCommit,
  type Sink,
  type SinkContext,
  type SinkWriter,
  type TwoPhaseCommitWriter,
} from '../../../core/sink.js';
import type { Json } from '../../../core/snapshot.js';

export function bufferedUpsertSink<T>(
  sink: Sink<T>,
  keyOf: (value: T) => string,
  maxRows: number,
  intervalMs: number,
): Sink<T> {
  return {
    name: sink.name,
    ...(sink.accepts === undefined ? {} : { accepts: sink.accepts }),
    ...(sink.commitsOnCheckpoint === undefined
      ? {}
      : { commitsOnCheckpoint: sink.commitsOnCheckpoint }),
    createWriter: (context: SinkContext) =>
      new BufferedWriter(sink.createWriter(context), keyOf, maxRows, intervalMs),
  };
}

class BufferedWriter<T> implements TwoPhaseCommitWriter<T> {
  /** The last change of each key, with its event time; a Map keeps the keys' first order. */
  private readonly buffer = new Map<string, { value: T; timestamp: number }>();
  private readonly timer: NodeJS.Timeout;
  /** A timed flush's failure, thrown by the next call of the task. */
  private failure: unknown;

  constructor(
    private readonly inner: SinkWriter<T>,
    private readonly keyOf: (value: T) => string,
    private readonly maxRows: number,
    intervalMs: number,
  ) {
    // Runs between the task's calls (one thread): a flush never interleaves with a write.
    this.timer = setInterval(() => {
      try {
        this.flush();
      } catch (error) {
        this.failure ??= error;
      }
    }, intervalMs);
    this.timer.unref();
  }

  write(batch: RecordBatch<T>): void {
    if (this.failure !== undefined) throw this.failure;
    for (let i = 0; i < batch.values.length; i++) {
      const value = batch.values[i] as T;
      const key = this.keyOf(value);
      // Re-inserted: a key written again goes after the keys written since.
      this.buffer.delete(key);
      this.buffer.set(key, { value, timestamp: batch.timestamps[i] as number });
      if (this.buffer.size >= this.maxRows) this.flush();
    }
  }

  private flush(): void {
    if (this.buffer.size === 0) return;
    const values: T[] = [];
    const timestamps: number[] = [];
    for (const { value, timestamp } of this.buffer.values()) {
      values.push(value);
      timestamps.push(timestamp);
    }
    this.buffer.clear();
    this.inner.write(batchOf(values, timestamps));
  }

  blocked(): Promise<void> | undefined {
    return this.inner.blocked?.();
  }

  preCommit(checkpointId: number): Json {
    if (this.failure !== undefined) throw this.failure;
    this.flush();
    return isTwoPhaseCommit(this.inner) ? this.inner.preCommit(checkpointId) : null;
  }

  commit(committables: readonly Json[]): Promise<void> | void {
    if (isTwoPhaseCommit(this.inner)) return this.inner.commit(committables);
  }

  recover(committables: readonly Json[]): Promise<void> | void {
    if (isTwoPhaseCommit(this.inner)) return this.inner.recover(committables);
  }

  close(): Promise<void> | void {
    clearInterval(this.timer);
    if (this.failure !== undefined) throw this.failure;
    this.flush();
    return this.inner.close();
  }
}
