/**
 * Streams of changes rather than inserts: what updating operators (a
 * non-windowed aggregation, keep-last deduplication, top-N, outer joins)
 * emit, and what sinks declare they can take.
 */

/**
 * The kind of a change, in Flink's notation: `+I` insert, `-U` the old value
 * of an update (update-before), `+U` the new value (update-after), `-D` delete.
 */
export type ChangeKind = '+I' | '-U' | '+U' | '-D';

/** One change to a row. */
export interface Change<T> {
  readonly kind: ChangeKind;
  readonly value: T;
}

/**
 * What a stream may contain, or what a sink accepts:
 * - `insert-only`: only `+I` (an ordinary append stream);
 * - `upsert`: `+I`, `+U`, `-D` on a unique key (no `-U`: an update replaces the
 *   row with the same key);
 * - `retract`: all four kinds (an update is `-U` of the old row then `+U`).
 *
 * Each includes the ones before it: a sink that accepts `retract` accepts
 * everything, one that accepts `upsert` also takes append streams.
 */
export type ChangelogMode = 'insert-only' | 'upsert' | 'retract';

const RANK: Readonly<Record<ChangelogMode, number>> = { 'insert-only': 0, upsert: 1, retract: 2 };

/** Whether a sink accepting `accepted` can take a stream of `mode`. */
export function acceptsChangelog(accepted: ChangelogMode, mode: ChangelogMode): boolean {
  return RANK[accepted] >= RANK[mode];
}

/** The widest of several modes (a union of streams). */
export function widestChangelog(modes: Iterable<ChangelogMode>): ChangelogMode {
  let widest: ChangelogMode = 'insert-only';
  for (const m of modes) if (RANK[m] > RANK[widest]) widest = m;
  return widest;
}

export const Changes = {
  insert: <T>(value: T): Change<T> => ({ kind: '+I', value }),
  updateBefore: <T>(value: T): Change<T> => ({ kind: '-U', value }),
  updateAfter: <T>(value: T): Change<T> => ({ kind: '+U', value }),
  delete: <T>(value: T): Change<T> => ({ kind: '-D', value }),
  /** Whether a change adds its value to the result (`+I`, `+U`) or takes it away (`-U`, `-D`). */
  isAccumulate: (change: Change<unknown>): boolean => change.kind === '+I' || change.kind === '+U',
};

/** Whether `value` is a {@link Change} (an object with a valid `kind` and a `value`). */
export function isChange(value: unknown): value is Change<unknown> {
  if (value === null || typeof value !== 'object' || !('value' in value)) return false;
  const kind = (value as { kind?: unknown }).kind;
  return kind === '+I' || kind === '-U' || kind === '+U' || kind === '-D';
}

/**
 * An aggregate function that can also take a row back out of its
 * accumulator. Updating aggregations over a changelog call `retract` for
 * `-U` and `-D` input; without it the operator keeps every input row of a
 * group and recomputes the group after a retraction.
 */
export interface RetractableAggregateFunction<IN, ACC, OUT> {
  createAccumulator(): ACC;
  add(value: IN, accumulator: ACC): ACC;
  /** Removes one earlier added `value` from the accumulator. */
  retract?(value: IN, accumulator: ACC): ACC;
  /** Must not return the accumulator itself (or a part that `add` mutates later). */
  getResult(accumulator: ACC): OUT;
  /**
   * Merges the partial accumulator `b` (one bundle's records of the group, folded before the
   * exchange) into the group's accumulator `a` and returns the result: two-phase aggregation
   * (`localAggregation`) needs it. `a` is the group's own and may be updated in place; `b` is
   * not used again.
   */
  merge?(a: ACC, b: ACC): ACC;
  /** What EXPLAIN says about the function beside its operator, if anything. */
  readonly explain?: string;
}

/** One row of an updating aggregation: the group's key and its current aggregate. */
export interface GroupResult<K, R> {
  readonly key: K;
  readonly value: R;
}
