/**
 * Several groups aggregated inside one window of all rows: Flink's SESSION TVF without
 * PARTITION BY forms its sessions over the whole table, and the GROUP BY keys only split each
 * session's rows afterwards. The window is then kept once (not per key), and its accumulator
 * holds one accumulator per group.
 */
import type { AggregateFunction } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { Row } from '../connectors/connector.js';

/** Accumulators by the text of their group key: plain JSON data, so a checkpoint can hold it. */
export type GroupAccumulators<A> = Record<string, A>;

/** The aggregate of each group separately; the result has a row per group seen in the window. */
export function aggregatePerGroup<A>(
  keyOf: (row: Row) => Key,
  aggregate: AggregateFunction<Row, A, Row>,
): AggregateFunction<Row, GroupAccumulators<A>, Row[]> {
  // The type goes into the text, so that the number 1 and the string '1' stay two groups.
  const textOf = (row: Row): string => {
    const key = keyOf(row);
    return `${typeof key}:${String(key)}`;
  };
  const merge = aggregate.merge;
  return {
    createAccumulator: () => ({}),
    add(row, groups) {
      const text = textOf(row);
      groups[text] = aggregate.add(row, groups[text] ?? aggregate.createAccumulator());
      return groups;
    },
    getResult: (groups) => Object.values(groups).map((acc) => aggregate.getResult(acc)),
    ...(merge === undefined
      ? {}
      : {
          merge(a: GroupAccumulators<A>, b: GroupAccumulators<A>): GroupAccumulators<A> {
            const out: GroupAccumulators<A> = { ...a };
            for (const [text, acc] of Object.entries(b)) {
              const mine = out[text];
              out[text] = mine === undefined ? acc : merge.call(aggregate, mine, acc);
            }
            return out;
          },
        }),
  };
}
