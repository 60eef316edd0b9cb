/**
 * MIN, MAX, COUNT(DISTINCT), SUM(DISTINCT) and AVG(DISTINCT) over a changelog, as Flink's
 * retracting accumulators (a MapView of value to count): each keeps every distinct value with the
 * number of rows that hold it, so a retraction takes one row's value out and the state grows with
 * the distinct values of a group, not with its rows. MIN and MAX also keep the current extreme,
 * and look for the next one among the distinct values only when the last row holding it is
 * retracted; SUM and AVG fold the distinct values when the result is asked for.
 */
import type { Row } from '../connectors/connector.js';
import type { AccState, AggregateCallAst, AggregateSpec, Guard } from './aggregate-spec.js';

/** A group's distinct values: by their key, the encoded value and how many rows hold it. */
interface ValueCounts {
  values: Record<string, [unknown, number]>;
  /** MIN / MAX: the key of the current extreme, null when no value is held. */
  best: string | null;
  /** How many distinct values are held. */
  n: number;
}

/** The accumulator format these aggregates write, named in a refused restore of another. */
export const VALUE_COUNTS_FORMAT = 'weir.sql.value-counts';

interface Codec {
  enc: (v: unknown) => unknown;
  dec: (v: unknown) => unknown;
}

const state = (s: AccState) => s as unknown as ValueCounts;
const fresh = (): AccState => ({ values: {}, best: null, n: 0 }) as unknown as AccState;

/** Whether `call` over a changelog keeps value counts (see {@link retractingAggregate}). */
export function holdsValueCounts(call: AggregateCallAst): boolean {
  return (
    call.name === 'MIN' ||
    call.name === 'MAX' ||
    (call.distinct && (call.name === 'COUNT' || call.name === 'SUM' || call.name === 'AVG'))
  );
}

/**
 * The retracting form of `call` if it {@link holdsValueCounts}, else undefined. `keyOf` gives a
 * value's identity (equal values, equal keys). SUM and AVG DISTINCT fold their distinct values
 * with `fold`, the plain aggregate over a one-column row.
 */
export function retractingAggregate(
  call: AggregateCallAst,
  fn: (row: Row) => unknown,
  guard: Guard,
  { enc, dec }: Codec,
  keyOf: (v: unknown) => string,
  fold?: AggregateSpec,
  /**
   * A window's slices and partials, accumulated apart: a retraction of a value not held is
   * kept as a negative count, which the merge with the slice holding its row cancels (as
   * Flink's MapView counts go below zero). Only values with a positive count are held.
   */
  signed = false,
): Omit<AggregateSpec, 'type'> | undefined {
  if (!holdsValueCounts(call)) return undefined;
  const extremes = call.name === 'MIN' || call.name === 'MAX';
  const counting = !extremes;
  if (call.name !== 'COUNT' && counting && fold === undefined)
    throw new Error(`${call.name}(DISTINCT) over a changelog needs the aggregate to fold with`);
  const better =
    call.name === 'MIN'
      ? (a: unknown, b: unknown) => (a as number) < (b as number)
      : (a: unknown, b: unknown) => (a as number) > (b as number);
  /** The key of the extreme among the held values. */
  const extreme = (values: ValueCounts['values']): string | null => {
    let best: string | null = null;
    let bestValue: unknown;
    for (const key in values) {
      const [encoded, count] = values[key] as [unknown, number];
      if (count <= 0) continue;
      const v = dec(encoded);
      if (best === null || better(v, bestValue)) {
        best = key;
        bestValue = v;
      }
    }
    return best;
  };
  /** Changes how many rows hold `v` by `delta`; a value is held while its count is positive. */
  const changeValue = (s: ValueCounts, v: unknown, delta: number): void => {
    const key = keyOf(v);
    const entry = s.values[key];
    const before = entry?.[1] ?? 0;
    const after = before + delta;
    if (after === 0) delete s.values[key];
    else if (entry === undefined) s.values[key] = [enc(v), after];
    else entry[1] = after;
    if (before <= 0 && after > 0) {
      s.n++;
      if (!counting) {
        const best = s.best === null ? undefined : s.values[s.best];
        if (best === undefined || better(v, dec(best[0]))) s.best = key;
      }
    } else if (before > 0 && after <= 0) {
      s.n--;
      if (!counting && s.best === key) s.best = extreme(s.values);
    }
  };
  return {
    init: fresh,
    add: guard((s, row) => {
      const v = fn(row);
      if (v !== null) changeValue(state(s), v, 1);
      return s;
    }),
    retract: guard((s, row) => {
      const v = fn(row);
      if (v === null) return s;
      const st = state(s);
      // Unsigned, a value this group does not hold (its state expired): nothing to undo.
      if (!signed && st.values[keyOf(v)] === undefined) return s;
      changeValue(st, v, -1);
      return s;
    }),
    merge: (a, b) => {
      const merged = state(fresh());
      for (const side of [state(a), state(b)])
        for (const [encoded, count] of Object.values(side.values))
          changeValue(merged, dec(encoded), count);
      return merged as unknown as AccState;
    },
    result:
      fold !== undefined
        ? (s) => {
            let acc = fold.init();
            for (const [encoded, count] of Object.values(state(s).values))
              if (count > 0) acc = fold.add(acc, [dec(encoded)]);
            return fold.result(acc);
          }
        : counting
          ? (s) => state(s).n
          : (s) => {
              const st = state(s);
              const best = st.best === null ? undefined : st.values[st.best];
              return best === undefined ? null : dec(best[0]);
            },
    mergeable: false,
  };
}
