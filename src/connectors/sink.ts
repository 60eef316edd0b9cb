import type { MetricGroup } from '../metrics/registry.js';
import type { RecordBatch } from '../runtime/record-batch.js';

export interface SinkContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly operatorId: string;
  readonly metrics: MetricGroup;
}

/**
 * Writes one subtask's records. `write` is synchronous; a writer doing I/O
 * buffers and reports through `blocked` until its buffer drains, which holds
 * the task (backpressure).
 */
export interface SinkWriter<T> {
  write(batch: RecordBatch<T>): void;
  blocked?(): Promise<void> | undefined;
  /** Flushes everything written; called once at the end of the job. */
  close(): Promise<void> | void;
}

/** A destination for records: the runtime creates one writer per subtask. */
export interface Sink<T> {
  readonly name: string;
  createWriter(context: SinkContext): SinkWriter<T>;
}
