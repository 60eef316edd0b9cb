import type { RecordBatch } from '../../../core/record-batch.js';
import { untimedBatch } from '../../../core/record-batch.js';
import {
  NEVER,
  type PollStatus,
  type Source,
  type SourceContext,
  type SourceReader,
} from '../../../core/source.js';

/**
 * A bounded source over an in-memory array or iterable, read in order by a
 * single subtask, in batches of the configured size.
 */
export class ArraySource<T> implements Source<T> {
  readonly bounded = true;
  readonly parallelizable = false;

  constructor(
    private readonly values: Iterable<T>,
    readonly name = 'array',
  ) {}

  createReader(context: SourceContext): SourceReader<T> {
    const iterator = this.values[Symbol.iterator]();
    let done = false;
    let position = 0;
    // Resume after the records a checkpoint covered (the iterable must replay the same values).
    const skip = typeof context.restoredPosition === 'number' ? context.restoredPosition : 0;
    while (position < skip && !iterator.next().done) position++;
    return {
      open() {},
      poll(): RecordBatch<T> | PollStatus {
        if (done) return 'end';
        const batch: T[] = [];
        while (batch.length < context.batchSize) {
          const next = iterator.next();
          if (next.done) {
            done = true;
            break;
          }
          batch.push(next.value);
        }
        position += batch.length;
        return batch.length === 0 ? 'end' : untimedBatch(batch);
      },
      snapshot: () => position,
      available: () => NEVER,
      close() {},
    };
  }
}
