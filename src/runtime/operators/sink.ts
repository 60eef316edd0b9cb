import type { Sink, SinkWriter } from '../../connectors/sink.js';
import { WeirError } from '../../errors.js';
import { Operator } from '../operator.js';
import type { RecordBatch } from '../record-batch.js';
import type { Blocking } from '../task.js';

/** Hands batches to a sink's writer; holds the task while the writer is flushing. */
export class SinkOperator<T> extends Operator<T, never> implements Blocking {
  private writer!: SinkWriter<T>;

  constructor(private readonly sink: Sink<T>) {
    super();
  }

  override open(): void {
    this.writer = this.sink.createWriter({
      subtaskIndex: this.context.subtaskIndex,
      parallelism: this.context.parallelism,
      operatorId: this.context.operatorId,
      metrics: this.context.metrics,
    });
  }

  processBatch(batch: RecordBatch<T>): void {
    try {
      this.writer.write(batch);
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw new WeirError(
        'SINK_FAILED',
        `sink '${this.context.operatorId}' failed to write: ${cause instanceof Error ? cause.message : String(cause)}`,
        { operatorId: this.context.operatorId, cause, domain: 'external' },
      );
    }
  }

  // Watermarks end here.
  override processWatermark(): void {}
  override processIdle(): void {}

  blocked(): Promise<void> | undefined {
    return this.writer?.blocked?.();
  }

  override async close(): Promise<void> {
    await this.writer?.close();
  }
}
