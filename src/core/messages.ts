import type { RecordBatch } from './record-batch.js';

/**
 * What flows on a channel between two tasks. Control messages travel in-band
 * with the data, so a watermark or end-of-input is seen by the consumer exactly
 * after the records that preceded it.
 */
export type StreamMessage<T> =
  | { readonly kind: 'batch'; readonly batch: RecordBatch<T> }
  | { readonly kind: 'watermark'; readonly time: number }
  /** The producer has no data for now: exclude it from watermark merging until it speaks again. */
  | { readonly kind: 'idle' }
  /**
   * Checkpoint barrier: everything before it belongs to checkpoint `checkpointId`.
   * `stop`: the savepoint of a stop; nothing follows it on the channel unless
   * that savepoint fails and the job goes on.
   */
  | {
      readonly kind: 'barrier';
      readonly checkpointId: number;
      readonly savepoint: boolean;
      readonly stop: boolean;
    }
  | { readonly kind: 'end' };

export const END_MESSAGE: StreamMessage<never> = { kind: 'end' };
export const IDLE_MESSAGE: StreamMessage<never> = { kind: 'idle' };

/** Watermark sent at end of bounded input: every event-time window and timer fires. */
export const MAX_WATERMARK = Number.POSITIVE_INFINITY;
/** The watermark before any has been received. */
export const MIN_WATERMARK = Number.NEGATIVE_INFINITY;
