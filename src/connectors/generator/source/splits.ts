/**
 * The generator's position as splits: each split is the arithmetic progression
 * of record indices `next, next + step, next + 2 * step, ...` below `count`
 * that are still to be generated. A fresh subtask s of P owns the one split
 * (s, P). On restore every reader sees the splits of all old subtasks, drops
 * the finished ones, cuts them into finer progressions while there are fewer
 * than readers, and takes every P-th, so the records left are generated
 * exactly once at any new parallelism (what Flink's split enumerators do).
 */
import { WeirError } from '../../../core/errors.js';
import type { Json } from '../../../core/snapshot.js';

/** Record indices `next, next + step, ...`, the ones a reader has still to generate. */
export interface GeneratorSplit {
  next: number;
  readonly step: number;
}

/** The checkpointed position of one reader: its splits as `[next, step]` pairs. */
export function splitsPosition(splits: readonly GeneratorSplit[]): Json {
  return { splits: splits.map((s) => [s.next, s.step]) };
}

/**
 * The splits a position holds. A bare number is the position written before
 * positions were splits: the next index of a subtask stepping by the old
 * parallelism, `oldParallelism`.
 */
function decode(position: Json, oldParallelism: number, name: string): GeneratorSplit[] {
  if (typeof position === 'number') return [{ next: position, step: oldParallelism }];
  const splits =
    position !== null && typeof position === 'object' && !Array.isArray(position)
      ? position.splits
      : undefined;
  if (!Array.isArray(splits)) throw badPosition(name, position);
  return splits.map((pair) => {
    if (
      !Array.isArray(pair) ||
      pair.length !== 2 ||
      !Number.isSafeInteger(pair[0]) ||
      !Number.isSafeInteger(pair[1]) ||
      (pair[0] as number) < 0 ||
      (pair[1] as number) < 1
    ) {
      throw badPosition(name, position);
    }
    return { next: pair[0] as number, step: pair[1] as number };
  });
}

function badPosition(name: string, position: Json): WeirError {
  return new WeirError(
    'INVALID_JOB',
    `generator '${name}': the checkpoint's position ${JSON.stringify(position)} is not one this source writes`,
  );
}

/**
 * The splits of reader `subtaskIndex` of `parallelism`: on a fresh start its
 * own stride; on restore its share of every old reader's splits (`positions`,
 * in old subtask order), or of its own `position` when only that is known.
 */
export function assignSplits(
  name: string,
  count: number,
  subtaskIndex: number,
  parallelism: number,
  positions: readonly Json[] | undefined,
  position: Json | undefined,
): GeneratorSplit[] {
  let all: GeneratorSplit[];
  if (positions !== undefined) {
    all = positions.flatMap((p) => decode(p, positions.length, name));
  } else if (position !== undefined) {
    // Only this reader's own position: it keeps it whole, at the same parallelism.
    return decode(position, parallelism, name).filter((s) => s.next < count);
  } else {
    return [{ next: subtaskIndex, step: parallelism }];
  }
  const live = all.filter((s) => s.next < count);
  if (live.length === 0) return [];
  // Fewer splits than readers: cut each into `pieces` interleaved progressions.
  const pieces = live.length < parallelism ? Math.ceil(parallelism / live.length) : 1;
  const refined: GeneratorSplit[] = [];
  for (const s of live) {
    for (let k = 0; k < pieces; k++) {
      const next = s.next + k * s.step;
      if (next < count) refined.push({ next, step: s.step * pieces });
    }
  }
  return refined.filter((_, i) => i % parallelism === subtaskIndex);
}

/**
 * The split whose next index is lowest, so that a reader with several splits
 * generates its records in index order; undefined when there are none.
 */
export function lowestSplit(splits: readonly GeneratorSplit[]): GeneratorSplit | undefined {
  let lowest: GeneratorSplit | undefined;
  for (const s of splits) if (lowest === undefined || s.next < lowest.next) lowest = s;
  return lowest;
}
