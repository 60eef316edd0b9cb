import type { RecordBatch } from '../../../core/record-batch.js';
import { NO_TIMESTAMP } from '../../../core/record-batch.js';
import type { PollStatus, Source, SourceContext, SourceReader } from '../../../core/source.js';
import { DeterministicRandom } from '../../../util/random.js';
import { parseOptions } from '../../shared/config.js';
import { type GeneratorSourceOptions, generatorSourceSchema } from '../config.js';
import { assignSplits, lowestSplit, splitsPosition } from './splits.js';

export type { GeneratorSourceOptions } from '../config.js';

/**
 * A deterministic, splittable data generator. Subtask s of P produces records
 * s, s+P, s+2P, ... Batches have a fixed size (smaller under a low rate limit)
 * so that watermarks, which follow batches, do not depend on timing.
 */
export class GeneratorSource<T> implements Source<T> {
  readonly bounded: boolean;
  readonly parallelizable = true;
  /**
   * Its position is the records still to generate, as index progressions
   * (splits, see splits.ts); on restore the readers share out the splits of
   * every old subtask, so a checkpoint restores at any parallelism and each
   * record is generated exactly once.
   */
  readonly rescalable = true;
  readonly name: string;

  constructor(private readonly options: GeneratorSourceOptions<T>) {
    const config = parseOptions('generator', generatorSourceSchema, options);
    this.bounded = config.count !== undefined;
    this.name = config.name ?? 'generator';
  }

  createReader(context: SourceContext): SourceReader<T> {
    const { generate, count = Number.POSITIVE_INFINITY, ratePerSecond, seed = 0 } = this.options;
    const { subtaskIndex, parallelism, clock } = context;
    const random = new DeterministicRandom();
    const rate = ratePerSecond === undefined ? undefined : ratePerSecond / parallelism;
    const chunk =
      rate === undefined
        ? context.batchSize
        : Math.max(1, Math.min(context.batchSize, Math.floor(rate / 50)));
    // The indices this subtask still generates: its own stride, or its share of a checkpoint's.
    const splits = assignSplits(
      this.name,
      count,
      subtaskIndex,
      parallelism,
      context.restoredPositions,
      context.restoredPosition,
    );
    let produced = 0;
    let startedAt = 0;
    let wakeUp: Promise<void> | undefined;
    return {
      open() {
        startedAt = clock.now();
      },
      poll(): RecordBatch<T> | PollStatus {
        let split = lowestSplit(splits);
        if (split === undefined || split.next >= count) return 'end';
        let n = chunk;
        if (rate !== undefined) {
          const due = Math.floor(((clock.now() - startedAt) * rate) / 1000) - produced;
          if (due < chunk) {
            const waitMs = Math.max(
              1,
              ((produced + chunk) * 1000) / rate - (clock.now() - startedAt),
            );
            wakeUp = new Promise((resolve) => setTimeout(resolve, waitMs));
            return 'wait';
          }
        }
        const values: T[] = [];
        const timestamps: number[] = [];
        while (n-- > 0 && split !== undefined && split.next < count) {
          const index = split.next;
          values.push(generate(index, random.reseed(seed, index)));
          timestamps.push(NO_TIMESTAMP);
          split.next += split.step;
          if (splits.length > 1) split = lowestSplit(splits);
        }
        produced += values.length;
        return { values, timestamps, keys: undefined };
      },
      available: () => wakeUp ?? Promise.resolve(),
      snapshot: () => splitsPosition(splits),
      close() {},
    };
  }
}
