/** Options of the data generator source, declared once: the schema gives the type and the validation. */
import * as v from 'valibot';
import type { DeterministicRandom } from '../../util/random.js';
import { fn, type OptionsOf } from '../shared/config.js';

/** Schema of {@link GeneratorSourceOptions}. */
export const generatorSourceSchema = v.object({
  /** Produces record number `index` (see {@link GeneratorSourceOptions}). */
  generate: fn<(index: number, random: DeterministicRandom) => unknown>(),
  /** Number of records; unbounded when omitted. */
  count: v.optional(
    v.pipe(
      v.number('must be a whole number >= 0'),
      v.integer('must be a whole number >= 0'),
      v.minValue(0, 'must be a whole number >= 0'),
    ),
  ),
  /** Records per second over all subtasks; as fast as possible when omitted. */
  ratePerSecond: v.optional(
    v.pipe(
      v.number('must be a positive number'),
      v.finite('must be a positive number'),
      v.gtValue(0, 'must be a positive number'),
    ),
  ),
  /** Seed of the records' random numbers. Default 0. */
  seed: v.optional(v.number('must be a number')),
  /** Shown in plans and metrics. Default `generator`. */
  name: v.optional(v.string('must be a string')),
});

// An interface rather than a type alias, so that the API reference lists every option.
/** Options of `GeneratorSource`. */
export interface GeneratorSourceOptions<T>
  extends Omit<OptionsOf<typeof generatorSourceSchema>, 'generate'> {
  /**
   * Produces record number `index`. `random` is seeded from (seed, index), so
   * the record depends on nothing else: the same seed gives the same records
   * at any parallelism.
   */
  readonly generate: (index: number, random: DeterministicRandom) => T;
}
