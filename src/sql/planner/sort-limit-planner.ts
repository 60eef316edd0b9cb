/**
 * `ORDER BY` and `LIMIT` in a streaming query, as Flink allows them:
 * - `ORDER BY rowtime ASC [, more]` without LIMIT: a temporal sort. Rows wait in state until
 *   the watermark passes their rowtime and leave in rowtime order (ties by the further keys);
 *   insert-only, the rowtime stays an attribute. Rows behind the watermark are dropped.
 * - `ORDER BY keys LIMIT n`: a Top-N over all rows (one partition), a retract changelog of the
 *   n first rows by the keys; with `OFFSET m` the rows m + 1 to m + n. Over a changing input
 *   (or with an offset) the retracting Top-N, which keeps every row.
 * - `LIMIT n` alone: the first n rows to arrive (insert-only; which rows depends on arrival),
 *   after the first m with `OFFSET m`; over a changing input n of the current rows, a
 *   retracting Top-N whose rows all tie.
 * `FETCH FIRST n ROWS ONLY` is `LIMIT n`.
 * Anything else (ORDER BY a column that is not the rowtime, or the rowtime descending, without
 * LIMIT) is refused, as Flink refuses it, unless `table.exec.non-temporal-sort.enabled` is set
 * (Flink's testing option): then the rows are sorted at the end of the input
 * (non-temporal-sort.ts).
 */
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { StateTtlConfig, ValueState } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import { compareNullsLow } from '../expressions/functions/value-order.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, OrderItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import {
  changesOf,
  isUpdating,
  requireInsertOnly,
  retracting,
  updatingRelation,
} from './changelog-relation.js';
import { refuseMultiset } from './grouping.js';
import { sortAtEnd } from './non-temporal-sort.js';
import type { Relation } from './relation.js';
import { retractRank } from './retract-rank.js';
import { RowtimeBuffer } from './rowtime-buffer.js';

type RowComparator = (a: Row, b: Row) => number;

function comparator(items: readonly OrderItem[], scope: Scope): RowComparator {
  const keys = items.map((o) => {
    const key = compileScalar(o.expr, scope);
    refuseMultiset(key.type, o.expr.at, 'ORDER BY');
    return { fn: key.fn, sign: o.descending ? -1 : 1 };
  });
  return (a, b) => {
    for (const k of keys) {
      const c = compareNullsLow(k.fn(a), k.fn(b));
      if (c !== 0) return c * k.sign;
    }
    return 0;
  };
}

function limitOf(e: Expr | undefined, what: string): number | undefined {
  if (e === undefined) return undefined;
  const n = e.kind === 'number' ? Number(e.text) : Number.NaN;
  if (!Number.isInteger(n) || n < 0)
    sqlError(`${what} must be a whole number literal >= 0 in Weir SQL`, e.at);
  return n;
}

const ONE_PARTITION = (): Key => 0;

export function planSortLimit(
  input: Relation,
  orderBy: readonly OrderItem[],
  limitExpr: Expr | undefined,
  offsetExpr: Expr | undefined,
  at: SourcePosition,
  stateTtl?: StateTtlConfig,
  nonTemporalSort = false,
): Relation {
  const limit = limitOf(limitExpr, 'LIMIT');
  const offset = limitOf(offsetExpr, 'OFFSET') ?? 0;
  const scope = new Scope(input.columns);
  const columns = input.columns.map((c) => ({ ...c, rowtime: false, proctime: false }));
  if (limit === undefined) {
    if (offsetExpr !== undefined)
      return sqlError(
        'FETCH is missed, which on streaming table is not supported currently. OFFSET needs a LIMIT or FETCH in streaming',
        offsetExpr.at,
      );
    return planSort(input, orderBy, scope, columns, at, nonTemporalSort);
  }
  const what = `${orderBy.length > 0 ? 'ORDER BY ... ' : ''}LIMIT ${limit}${offset > 0 ? ` OFFSET ${offset}` : ''}`;
  if (limit === 0) {
    // No row is ever kept: an empty changelog of the input's kind.
    return isUpdating(input)
      ? updatingRelation(
          changesOf(input).filter(() => false),
          columns,
          what,
          input.upsertKey,
        )
      : { stream: input.stream.filter(() => false).name(what), columns };
  }
  if (isUpdating(input) || (offset > 0 && orderBy.length > 0)) {
    const changes = retractRank(
      retracting(changesOf(input)),
      ONE_PARTITION,
      {
        // Without ORDER BY every row ties: the rows kept are the earliest of the current ones.
        compare: orderBy.length > 0 ? comparator(orderBy, scope) : () => 0,
        start: offset + 1,
        end: offset + limit,
        width: input.columns.length,
        rankNumber: false,
        insertOnly: !isUpdating(input),
        ttl: stateTtl,
      },
      isUpdating(input) ? `${what} (retract)` : what,
    );
    return updatingRelation(changes, columns, what);
  }
  const keyed = input.stream.keyBy(
    ONE_PARTITION,
    orderBy.length > 0 ? 'top-n (global)' : 'limit (global)',
  );
  if (orderBy.length === 0)
    return { stream: keyed.process(new FirstN(limit, offset)).name(what), columns };
  const changes = keyed
    .topN({ n: limit, compare: comparator(orderBy, scope) })
    .name(what)
    .asChangelog('retract');
  return updatingRelation(changes, columns, 'ORDER BY ... LIMIT');
}

/**
 * ORDER BY without LIMIT: by the rowtime ascending (then further keys), or by the processing
 * time alone, over insert-only rows; any other sort only with the non-temporal sort enabled,
 * at the end of the input.
 */
function planSort(
  input: Relation,
  orderBy: readonly OrderItem[],
  scope: Scope,
  columns: readonly ScopeColumn[],
  at: SourcePosition,
  nonTemporalSort: boolean,
): Relation {
  const first = orderBy[0] as OrderItem;
  const r =
    first.expr.kind === 'column' ? scope.resolve(first.expr.path, first.expr.at) : undefined;
  const column = r !== undefined && r.fields.length === 0 ? r : undefined;
  const insertOnly = !isUpdating(input);
  // Rows arrive in processing-time order: sorting by it alone is the arrival order (Flink's
  // ProcTimeSortOperator with no further keys). Rows of one subtask keep it, so one partition.
  if (insertOnly && column?.column.proctime === true && !first.descending && orderBy.length === 1) {
    const stream = input.stream
      .keyBy(ONE_PARTITION, 'sort (global)')
      .filter(() => true)
      .name('ORDER BY proctime');
    return { stream, columns };
  }
  const isRowtime = column?.column.rowtime === true;
  if (insertOnly && column !== undefined && isRowtime && !first.descending) {
    const ties = comparator(orderBy.slice(1), scope);
    const stream = input.stream
      .keyBy(ONE_PARTITION, 'sort (global)')
      .process(new TemporalSort(column.index, ties))
      .name('ORDER BY rowtime');
    return { stream, columns: input.columns };
  }
  if (nonTemporalSort) return sortAtEnd(input, comparator(orderBy, scope), columns);
  requireInsertOnly(input, 'ORDER BY', at);
  return sqlError(
    isRowtime
      ? 'Sort on a time attribute descending is not supported in streaming: ORDER BY the rowtime ASC, or add LIMIT'
      : 'Sort on a non-time-attribute field is not supported in streaming: ORDER BY the rowtime ASC first, or add LIMIT',
    first.expr.at,
  );
}

/** Rows by rowtime until the watermark passes it, then in rowtime order. */
class TemporalSort implements KeyedProcessFunction<Key, Row, Row> {
  // Made in open: the runtime copies this object per subtask (Object.create), so a buffer made
  // in the constructor would be shared by the subtasks.
  private pending!: RowtimeBuffer;

  constructor(
    private readonly timeIndex: number,
    private readonly ties: RowComparator,
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.pending = new RowtimeBuffer('sort-pending', this.timeIndex);
    this.pending.open(context);
  }

  processElement(row: Row, context: KeyedProcessContext<Key>): void {
    this.pending.add(row, context);
  }

  onTimer(time: number, _context: OnTimerContext<Key>, out: Collector<Row>): void {
    // Array.prototype.sort is stable: equal rows keep their arrival order.
    for (const row of this.pending.take(time)?.sort(this.ties) ?? []) out.collect(row);
  }
}

/** The first `n` rows after the first `skip`, then nothing. */
class FirstN implements KeyedProcessFunction<Key, Row, Row> {
  private count!: ValueState<number>;

  constructor(
    private readonly n: number,
    private readonly skip: number,
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.count = context.state.getValueState<number>('limit-count');
  }

  processElement(row: Row, _context: KeyedProcessContext<Key>, out: Collector<Row>): void {
    const seen = this.count.value() ?? 0;
    if (seen >= this.skip + this.n) return;
    this.count.update(seen + 1);
    if (seen >= this.skip) out.collect(row);
  }
}
