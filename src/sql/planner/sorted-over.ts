/**
 * OVER aggregations ordered by a column that is not a time attribute, as Flink 2.2 runs them
 * in streaming: an updating query. Each partition keeps its rows sorted by the ORDER BY
 * (ties in arrival order); a new row is inserted at its place and emitted (`+I`) with its
 * frame's aggregates, and every row whose frame now holds it is updated (`-U` old, `+U`
 * new): the rows after it and, in RANGE mode, its peers (rows of an equal order key, which
 * share one aggregate). Frames run from UNBOUNDED PRECEDING to the current row.
 */
import type { Change } from '../../core/changelog.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
} from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { StateTtlConfig, ValueState } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { compareNullsLow } from '../expressions/functions/value-order.js';
import { ROWS_SERIALIZER } from './row-serializer.js';
import { ttlOption } from './state-ttl.js';

/** The aggregation of an OVER window's calls, as `rowAggregate` makes it. */
export interface OverAggregator {
  createAccumulator(): unknown;
  add(row: Row, acc: unknown): unknown;
  getResult(acc: unknown): Row;
}

/** A comparator of rows by the ORDER BY's values. */
export function rowOrder(
  keys: readonly { readonly value: (row: Row) => unknown; readonly descending: boolean }[],
): (a: Row, b: Row) => number {
  return (a, b) => {
    for (const k of keys) {
      const c = compareNullsLow(k.value(a), k.value(b));
      if (c !== 0) return k.descending ? -c : c;
    }
    return 0;
  };
}

export class SortedOverFunction implements KeyedProcessFunction<Key, Row, Change<Row>> {
  /** The partition's rows in ORDER BY order, ties in arrival order. */
  private rows!: ValueState<Row[]>;

  constructor(
    private readonly mode: 'ROWS' | 'RANGE',
    private readonly compare: (a: Row, b: Row) => number,
    private readonly agg: OverAggregator,
    private readonly stateTtl: StateTtlConfig | undefined,
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.rows = context.state.getValueState<Row[]>({
      name: 'over-sorted-rows',
      serializer: ROWS_SERIALIZER,
      ...ttlOption(this.stateTtl),
    });
  }

  processElement(row: Row, _context: KeyedProcessContext<Key>, out: Collector<Change<Row>>): void {
    const rows = this.rows.value() ?? [];
    const before = this.results(rows);
    let at = rows.length;
    while (at > 0 && this.compare(rows[at - 1] as Row, row) > 0) at--;
    rows.splice(at, 0, row);
    const after = this.results(rows);
    // The rows whose frame now holds the new one: the later ones and, in RANGE mode, its peers.
    let first = at;
    if (this.mode === 'RANGE')
      while (first > 0 && this.compare(rows[first - 1] as Row, row) === 0) first--;
    for (let i = first; i < rows.length; i++) {
      const r = rows[i] as Row;
      if (i === at) {
        out.collect({ kind: '+I', value: [...r, ...(after[i] as Row)] });
        continue;
      }
      const was = before[i < at ? i : i - 1] as Row;
      out.collect({ kind: '-U', value: [...r, ...was] });
      out.collect({ kind: '+U', value: [...r, ...(after[i] as Row)] });
    }
    this.rows.update(rows);
  }

  /** Each row's aggregates: a running accumulator; in RANGE mode peers share the last one's. */
  private results(rows: readonly Row[]): Row[] {
    const { agg } = this;
    const results: Row[] = new Array(rows.length);
    let acc = agg.createAccumulator();
    let peersFrom = 0;
    for (let i = 0; i < rows.length; i++) {
      acc = agg.add(rows[i] as Row, acc);
      const result = agg.getResult(acc);
      if (this.mode === 'ROWS') {
        results[i] = result;
        continue;
      }
      const next = rows[i + 1];
      if (next !== undefined && this.compare(next, rows[i] as Row) === 0) continue;
      for (let j = peersFrom; j <= i; j++) results[j] = result;
      peersFrom = i + 1;
    }
    return results;
  }
}
