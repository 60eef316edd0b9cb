import type { RecordBatch } from '../../runtime/record-batch.js';
import { untimedBatch } from '../../runtime/record-batch.js';
import {
  NEVER,
  type PollStatus,
  type Source,
  type SourceContext,
  type SourceReader,
} from '../source.js';

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
        return batch.length === 0 ? 'end' : untimedBatch(batch);
      },
      available: () => NEVER,
      close() {},
    };
  }
}
