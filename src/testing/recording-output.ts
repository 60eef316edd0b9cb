import type { Output } from '../core/operator.js';
import type { OutputTag } from '../core/output-tag.js';
import { NO_TIMESTAMP, type RecordBatch } from '../core/record-batch.js';

/** A record an operator emitted, with its event time (undefined when it has none). */
export interface StreamRecord<T> {
  readonly value: T;
  readonly timestamp: number | undefined;
}

/** Everything an operator emits, in the order it emitted it. */
export type Emitted<T> =
  | { readonly kind: 'record'; readonly value: T; readonly timestamp: number | undefined }
  | { readonly kind: 'watermark'; readonly time: number }
  | { readonly kind: 'idle' }
  | {
      readonly kind: 'side';
      readonly tag: string;
      readonly value: unknown;
      readonly timestamp: number | undefined;
    }
  | { readonly kind: 'end' };

const timestampOf = (t: number): number | undefined => (t === NO_TIMESTAMP ? undefined : t);

/** The output a harness hands to its operator: keeps everything, for the test to inspect. */
export class RecordingOutput<T> implements Output<T> {
  log: Emitted<T>[] = [];

  emit(batch: RecordBatch<T>): void {
    const { values, timestamps } = batch;
    for (let i = 0; i < values.length; i++) {
      this.log.push({
        kind: 'record',
        value: values[i] as T,
        timestamp: timestampOf(timestamps[i]!),
      });
    }
  }

  emitWatermark(time: number): void {
    this.log.push({ kind: 'watermark', time });
  }

  emitIdle(): void {
    this.log.push({ kind: 'idle' });
  }

  emitSide<S>(tag: OutputTag<S>, batch: RecordBatch<S>): void {
    const { values, timestamps } = batch;
    for (let i = 0; i < values.length; i++) {
      this.log.push({
        kind: 'side',
        tag: tag.id,
        value: values[i],
        timestamp: timestampOf(timestamps[i]!),
      });
    }
  }

  end(): void {
    this.log.push({ kind: 'end' });
  }
}
