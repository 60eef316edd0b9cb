/**
 * `ORDER BY` and `LIMIT` in a streaming query, as Flink allows them:
 * - `ORDER BY rowtime ASC [, more]` without LIMIT: a temporal sort. Rows wait in state until
 *   the watermark passes their rowtime and leave in rowtime order (ties by the further keys);
 *   insert-only, the rowtime stays an attribute. Rows behind the watermark are dropped.
 * - `ORDER BY keys LIMIT n`: a Top-N over all rows (one partition), a retract changelog of the
 *   n first rows by the keys.
 * - `LIMIT n` alone: the first n rows to arrive (insert-only; which rows depends on arrival).
 * Anything else (ORDER BY a column that is not the rowtime, or the rowtime descending, without
 * LIMIT) is refused, as Flink refuses it.
 */
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { ValueState } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import { Scope } from '../expressions/scope.js';
import type { Expr, OrderItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { requireInsertOnly, updatingRelation } from './changelog-relation.js';
import type { Relation } from './relation.js';
import { RowtimeBuffer } from './rowtime-buffer.js';

type RowComparator = (a: Row, b: Row) => number;

/** Nulls first ascending, last descending (Flink's default for ORDER BY). */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function comparator(items: readonly OrderItem[], scope: Scope): RowComparator {
  const keys = items.map((o) => ({
    fn: compileScalar(o.expr, scope).fn,
    sign: o.descending ? -1 : 1,
  }));
  return (a, b) => {
    for (const k of keys) {
      const c = compareValues(k.fn(a), k.fn(b));
      if (c !== 0) return c * k.sign;
    }
    return 0;
  };
}

function limitOf(e: Expr | undefined): number | undefined {
  if (e === undefined) return undefined;
  const n = e.kind === 'number' ? Number(e.text) : Number.NaN;
  if (!Number.isInteger(n) || n < 0)
    sqlError('LIMIT must be a whole number literal >= 0 in Weir SQL', e.at);
  return n;
}

const ONE_PARTITION = (): Key => 0;

export function planSortLimit(
  input: Relation,
  orderBy: readonly OrderItem[],
  limitExpr: Expr | undefined,
  at: SourcePosition,
): Relation {
  const limit = limitOf(limitExpr);
  requireInsertOnly(input, orderBy.length > 0 ? 'ORDER BY' : 'LIMIT', at);
  const scope = new Scope(input.columns);
  const columns = input.columns.map((c) => ({ ...c, rowtime: false, proctime: false }));
  if (limit === undefined) {
    const first = orderBy[0] as OrderItem;
    const r =
      first.expr.kind === 'column' ? scope.resolve(first.expr.path, first.expr.at) : undefined;
    const isRowtime = r !== undefined && r.fields.length === 0 && r.column.rowtime;
    if (!isRowtime || first.descending)
      return sqlError(
        isRowtime
          ? 'Sort on a time attribute descending is not supported in streaming: ORDER BY the rowtime ASC, or add LIMIT'
          : 'Sort on a non-time-attribute field is not supported in streaming: ORDER BY the rowtime ASC first, or add LIMIT',
        first.expr.at,
      );
    const ties = comparator(orderBy.slice(1), scope);
    const stream = input.stream
      .keyBy(ONE_PARTITION, 'sort (global)')
      .process(new TemporalSort((r as { index: number }).index, ties))
      .name('ORDER BY rowtime');
    return { stream, columns: input.columns };
  }
  const keyed = input.stream.keyBy(
    ONE_PARTITION,
    orderBy.length > 0 ? 'top-n (global)' : 'limit (global)',
  );
  if (orderBy.length === 0)
    return { stream: keyed.process(new FirstN(limit)).name(`LIMIT ${limit}`), columns };
  const changes = keyed
    .topN({ n: limit, compare: comparator(orderBy, scope) })
    .name(`ORDER BY ... LIMIT ${limit}`)
    .asChangelog('retract');
  return updatingRelation(changes, columns, 'ORDER BY ... LIMIT');
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

/** The first `n` rows, then nothing. */
class FirstN implements KeyedProcessFunction<Key, Row, Row> {
  private count!: ValueState<number>;

  constructor(private readonly n: number) {}

  open(context: KeyedRuntimeContext): void {
    this.count = context.state.getValueState<number>('limit-count');
  }

  processElement(row: Row, _context: KeyedProcessContext<Key>, out: Collector<Row>): void {
    const seen = this.count.value() ?? 0;
    if (seen >= this.n) return;
    this.count.update(seen + 1);
    out.collect(row);
  }
}
