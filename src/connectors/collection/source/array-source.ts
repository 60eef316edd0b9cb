import type { RecordBatch } from '../../../core/record-batch.js';
import { untimedBatch } from '../../../core/record-batch.js';
import type { ReplayableSource, ReplayRange } from '../../../core/replay.js';
import {
  NEVER,
  type PollStatus,
  type SourceContext,
  type SourceReader,
} from '../../../core/source.js';
import { refuseTimeRange } from '../../shared/replay-range.js';

/**
 * A bounded source over an in-memory array or iterable, read in order by a
 * single subtask, in batches of the configured size. A replay (`weir replay`)
 * reads the values again: the iterable must yield the same values each time
 * it is iterated (an array does; a one-shot iterator does not).
 */
export class ArraySource<T> implements ReplayableSource<T> {
  readonly bounded = true;
  readonly parallelizable = false;

  constructor(
    private readonly values: Iterable<T>,
    readonly name = 'array',
  ) {}

  /**
   * The same values, in the same order. A time range is refused (records
   * carry no event time); `files` and `positions` name other sources' input
   * and are ignored.
   */
  replay(range: ReplayRange): ArraySource<T> {
    refuseTimeRange(this.name, range);
    return new ArraySource(this.values, this.name);
  }

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
