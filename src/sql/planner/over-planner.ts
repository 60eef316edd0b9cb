/**
 * OVER aggregations, `agg(x) OVER (PARTITION BY k ORDER BY time <frame>)`, as Flink runs them.
 * In event time rows wait in keyed state until the watermark passes their rowtime, then are
 * processed in rowtime order, each emitted once with its frame's aggregates (insert-only).
 * Late rows are dropped and counted, as Flink drops them: with an unbounded frame a row at or
 * behind the watermark on arrival, with a bounded frame a row at or behind the last rowtime
 * its partition has processed (a row the watermark has passed is still taken, at the
 * watermark's next advance, if no later row of its partition was processed). In processing time (ORDER BY a
 * PROCTIME() attribute) each row is processed on arrival, its time the operator's clock.
 * Frames: ROWS or RANGE from UNBOUNDED PRECEDING, `ROWS n PRECEDING`, `RANGE INTERVAL ...
 * PRECEDING`, all to the current row; in RANGE mode rows with the same rowtime see each other.
 * LAG, ROW_NUMBER, RANK and DENSE_RANK run beside the aggregates (over-window-functions.ts).
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
import { AGGREGATE_FUNCTIONS } from '../expressions/functions.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import { userAggregate } from '../functions/user-functions.js';
import type { Expr, OverWindow, Select, SelectItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';
import type { AggregateCallAst } from './aggregate-spec.js';
import { rowAggregate } from './aggregates.js';
import { whereFilter } from './calc.js';
import { requireInsertOnly, updatingRelation } from './changelog-relation.js';
import { contains, mapChildren, normalizedKey } from './expr-tools.js';
import { compileKeys, groupKey } from './grouping.js';
import {
  isWindowFunction,
  type OverFrame,
  windowFunctionFrame,
  withWindowFunctions,
} from './over-window-functions.js';
import type { Relation } from './relation.js';
import { ROWS_SERIALIZER } from './row-serializer.js';
import { RowtimeBuffer } from './rowtime-buffer.js';
import { type OverAggregator as Aggregator, rowOrder, SortedOverFunction } from './sorted-over.js';
import { ttlOption } from './state-ttl.js';

export type { OverFrame };

type CallExpr = Extract<Expr, { kind: 'call' }>;
type OverCall = CallExpr & { readonly overWindow: OverWindow };

/** A built-in or TypeScript aggregate, or a window function (LAG, RANK, ...), called with OVER. */
export function isOverAggregate(e: Expr): e is CallExpr {
  return (
    e.kind === 'call' &&
    e.over &&
    (AGGREGATE_FUNCTIONS.has(e.name) || userAggregate(e.name) !== undefined || isWindowFunction(e))
  );
}

const UNIT_MS: Readonly<Record<string, number>> = {
  MILLISECOND: 1,
  SECOND: 1_000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
};

/** Parses the frame text the parser keeps; none means RANGE UNBOUNDED PRECEDING (Flink's default). */
export function parseFrame(text: string | undefined, at: SourcePosition): OverFrame {
  if (text === undefined) return { mode: 'RANGE', preceding: Number.POSITIVE_INFINITY };
  const words = text.toUpperCase().split(' ');
  const mode = words[0];
  if (mode !== 'ROWS' && mode !== 'RANGE') return sqlError(`unsupported frame '${text}'`, at);
  let rest = words.slice(1);
  if (rest[0] === 'BETWEEN') {
    // Flink's streaming OVER runs frames ending at the current row only, and says so.
    if (rest.slice(-3).join(' ') !== 'AND CURRENT ROW')
      return sqlError(
        `OVER RANGE FOLLOWING windows are not supported yet (as Flink says for ROWS frames too: a streaming OVER frame ends at CURRENT ROW; got '${text}')`,
        at,
      );
    rest = rest.slice(1, -3);
  }
  if (rest[rest.length - 1] === 'FOLLOWING')
    return sqlError(
      `OVER RANGE FOLLOWING windows are not supported yet (as Flink says for ROWS frames too: a streaming OVER frame ends at CURRENT ROW; got '${text}')`,
      at,
    );
  const bound = rest.join(' ');
  if (bound === 'UNBOUNDED PRECEDING') return { mode, preceding: Number.POSITIVE_INFINITY };
  if (bound === 'CURRENT ROW') return { mode, preceding: 0 };
  if (
    mode === 'ROWS' &&
    rest.length === 2 &&
    rest[1] === 'PRECEDING' &&
    /^\d+$/.test(rest[0] ?? '')
  )
    return { mode, preceding: Number(rest[0]) };
  if (mode === 'RANGE' && rest.length === 4 && rest[0] === 'INTERVAL' && rest[3] === 'PRECEDING') {
    const unit = UNIT_MS[(rest[2] ?? '').replace(/S$/, '')];
    const value = Number(rest[1]);
    if (unit !== undefined && Number.isFinite(value) && value >= 0)
      return { mode, preceding: Math.round(value * unit) };
  }
  return sqlError(
    `unsupported OVER frame '${text}' (Weir SQL supports ROWS n PRECEDING, RANGE INTERVAL 'x' unit PRECEDING and UNBOUNDED PRECEDING, to CURRENT ROW)`,
    at,
  );
}

/**
 * The keyed function. In event time it holds rows until the watermark passes them, then emits
 * them with their aggregates; in processing time (`timeIndex` undefined) it emits each row on
 * arrival, its frame measured by the operator's clock.
 */
class OverFunction implements KeyedProcessFunction<Key, Row, Row> {
  /** Rows waiting for the watermark, by rowtime, in arrival order. */
  // Made in open: the runtime copies this object per subtask (Object.create), so a buffer made
  // in the constructor would be shared by the subtasks.
  private pending!: RowtimeBuffer;
  /** Unbounded frames: the running accumulator. */
  private acc!: ValueState<unknown>;
  /** Bounded frames: the rows still inside a later row's frame, in processing order. */
  private history!: ValueState<Row[]>;

  constructor(
    private readonly frame: OverFrame,
    /** The rowtime's position; undefined in processing time. */
    private readonly timeIndex: number | undefined,
    /** Input columns: in processing time a row's arrival time is kept after them. */
    private readonly width: number,
    private readonly agg: Aggregator,
    /** Drops a partition's accumulator and frame rows once idle this long (not its waiting rows). */
    private readonly stateTtl: StateTtlConfig | undefined,
  ) {}

  open(context: KeyedRuntimeContext): void {
    if (this.timeIndex !== undefined) {
      // Flink's bounded frames drop a row only behind its key's last processed rowtime;
      // unbounded ones, behind the watermark.
      const bounded = this.frame.preceding !== Number.POSITIVE_INFINITY;
      this.pending = new RowtimeBuffer(
        'over-pending',
        this.timeIndex,
        bounded ? 'key' : 'watermark',
      );
      this.pending.open(context);
    }
    this.acc = context.state.getValueState<unknown>({
      name: 'over-acc',
      ...ttlOption(this.stateTtl),
    });
    this.history = context.state.getValueState<Row[]>({
      name: 'over-history',
      serializer: ROWS_SERIALIZER,
      ...ttlOption(this.stateTtl),
    });
  }

  processElement(row: Row, context: KeyedProcessContext<Key>, out: Collector<Row>): void {
    if (this.timeIndex !== undefined) {
      this.pending.add(row, context);
      return;
    }
    const now = context.timerService.currentProcessingTime();
    const { frame, width } = this;
    if (frame.mode === 'ROWS' || frame.preceding === Number.POSITIVE_INFINITY) {
      this.process(now, [row], width, (r, result) => out.collect([...r, ...result]));
      return;
    }
    // A bounded RANGE frame keeps each row's arrival time after its columns, to tell which
    // rows a later row's frame still reaches.
    this.process(now, [[...row, now]], width, (r, result) =>
      out.collect([...r.slice(0, width), ...result]),
    );
  }

  onTimer(time: number, _context: OnTimerContext<Key>, out: Collector<Row>): void {
    const rows = this.pending.take(time);
    if (rows === undefined) return;
    this.process(time, rows, this.timeIndex as number, (row, result) =>
      out.collect([...row, ...result]),
    );
  }

  /** Adds the rows of one time (in order) to the partition's frame, emitting each with its aggregates. */
  private process(
    time: number,
    rows: readonly Row[],
    timeIndex: number,
    emit: (row: Row, result: Row) => void,
  ): void {
    const { frame, agg } = this;
    if (frame.preceding === Number.POSITIVE_INFINITY) {
      let acc = this.acc.value() ?? agg.createAccumulator();
      for (const row of rows) {
        acc = agg.add(row, acc);
        if (frame.mode === 'ROWS') emit(row, agg.getResult(acc));
      }
      this.acc.update(acc);
      if (frame.mode === 'RANGE') {
        const result = agg.getResult(acc);
        for (const row of rows) emit(row, result);
      }
      return;
    }
    let history = this.history.value() ?? [];
    if (frame.mode === 'ROWS') {
      for (const row of rows) {
        history.push(row);
        if (history.length > frame.preceding + 1) history.shift();
        emit(row, this.over(history));
      }
      history = history.slice(Math.max(0, history.length - frame.preceding));
    } else {
      const from = time - frame.preceding;
      history = history.filter((r) => (r[timeIndex] as number) >= from);
      history.push(...rows);
      const result = this.over(history);
      for (const row of rows) emit(row, result);
    }
    if (history.length === 0) this.history.clear();
    else this.history.update(history);
  }

  /** Bounded frames are recomputed: MIN and MAX cannot take a row back out. */
  private over(rows: readonly Row[]): Row {
    let acc = this.agg.createAccumulator();
    for (const r of rows) acc = this.agg.add(r, acc);
    return this.agg.getResult(acc);
  }
}

/** The input's columns followed by one hidden column (`$over<i>`) per OVER call. */
function overColumns(input: readonly ScopeColumn[], types: readonly LogicalType[]): ScopeColumn[] {
  return [
    ...input,
    ...types.map((type, i) => ({ name: `$over${i}`, type, qualifier: undefined, rowtime: false })),
  ];
}

/**
 * One aggregation computing every OVER call of a SELECT, and the calls' result types;
 * `orderKey` reads a row's rowtime, for the ranks of peers (undefined in processing time).
 */
function overAggregation(
  calls: readonly OverCall[],
  scope: Scope,
  orderKey?: (row: Row) => unknown,
): { agg: Aggregator; types: LogicalType[] } {
  if (calls.some(isWindowFunction)) {
    const rest = calls.filter((c) => !isWindowFunction(c));
    const aggregates = rest.length === 0 ? undefined : overAggregation(rest, scope);
    return withWindowFunctions(calls, aggregates, scope, orderKey);
  }
  const aggregateCalls: AggregateCallAst[] = calls.map((c) => ({
    name: c.name,
    args: c.args,
    star: c.star,
    distinct: c.distinct,
    filter: c.filter,
    at: c.at,
  }));
  const { fn, types } = rowAggregate([], [], aggregateCalls, scope);
  return { agg: fn as unknown as Aggregator, types };
}

/**
 * OVER ordered by a column that is not a time attribute (Flink 2.2's updating OVER): one
 * ORDER BY column and frames from UNBOUNDED PRECEDING, as Flink allows; the result is a
 * retract changelog of the input's rows with their aggregates.
 */
function planSortedOver(
  select: Select,
  items: readonly SelectItem[],
  from: Relation,
  stream: Relation['stream'],
  calls: readonly OverCall[],
  scope: Scope,
  stateTtl: StateTtlConfig | undefined,
): { select: Select; from: Relation } {
  const first = calls[0] as OverCall;
  const window = first.overWindow;
  const windowFunction = calls.find(isWindowFunction);
  if (windowFunction !== undefined)
    sqlError(
      window.orderBy.length === 0
        ? `${windowFunction.name}(...) OVER (...) needs an ORDER BY (a rowtime or a processing-time attribute), as in Flink`
        : `${windowFunction.name}(...) OVER a window ordered by a column that is not a time attribute is not supported by Weir SQL yet (order it by a rowtime or a processing-time attribute)`,
      windowFunction.at,
    );
  if (window.orderBy.length !== 1)
    sqlError(
      `The window can only be ordered by a single time column. (Flink's words: an OVER window in streaming has one ORDER BY column, got ${window.orderBy.length})`,
      first.at,
    );
  const frame = parseFrame(window.frame, first.at);
  if (frame.preceding !== Number.POSITIVE_INFINITY)
    sqlError(
      `Non-time attribute sort is not supported for bounded OVER window. (Flink's words: ordered by a column that is not a time attribute, a frame runs from UNBOUNDED PRECEDING; got '${window.frame}')`,
      first.at,
    );
  const compare = rowOrder(
    window.orderBy.map((o) => ({
      value: compileScalar(o.expr, scope).fn,
      descending: o.descending,
    })),
  );
  const keyFns = compileKeys(window.partitionBy, scope, 'PARTITION BY').map((k) => k.fn);
  const { agg, types } = overAggregation(calls, scope);
  const changes = stream
    .keyBy(groupKey(keyFns), window.partitionBy.length === 0 ? 'over (global)' : 'partition key')
    .process(new SortedOverFunction(frame.mode, compare, agg, stateTtl))
    .name('over aggregate (sorted)')
    .asChangelog('retract');
  // An updating result carries no time attributes.
  const columns = overColumns(
    from.columns.map((c) => ({ ...c, rowtime: false, proctime: false })),
    types,
  );
  return {
    select: { ...select, items, where: undefined },
    from: updatingRelation(changes, columns, 'an OVER aggregation ordered by a non-time column'),
  };
}

/**
 * Plans the OVER aggregates of a SELECT: its WHERE filters the input first, then one keyed
 * function adds a column per OVER aggregate. Returns the relation with those columns (named
 * `$over<i>`) and the SELECT rewritten to read them, without its WHERE.
 */
export function planOver(
  select: Select,
  from: Relation,
  stateTtl?: StateTtlConfig,
): { select: Select; from: Relation } {
  requireInsertOnly(from, 'an OVER aggregation', select.at);
  const scope = new Scope(from.columns);
  let stream = from.stream;
  if (select.where !== undefined) {
    if (contains(select.where, isOverAggregate))
      sqlError('OVER aggregates are not allowed in WHERE', select.where.at);
    stream = whereFilter(stream, select.where, scope);
  }
  const calls: OverCall[] = [];
  const index = new Map<string, number>();
  const rewrite = (e: Expr): Expr => {
    if (isOverAggregate(e)) {
      const overWindow =
        e.overWindow ?? (e.overName === undefined ? undefined : select.windows?.get(e.overName));
      if (overWindow === undefined)
        return sqlError(`no window '${e.overName ?? ''}' in the WINDOW clause`, e.at);
      const call: OverCall = { ...e, overWindow, overName: undefined };
      const key = normalizedKey(call, scope);
      let i = index.get(key);
      if (i === undefined) {
        i = calls.length;
        calls.push(call);
        index.set(key, i);
      }
      return { kind: 'column', path: [`$over${i}`], at: e.at };
    }
    return mapChildren(e, rewrite);
  };
  // An unnamed item keeps the name it would have had (EXPR$i), not the hidden column's.
  const items = select.items.map((item, i): SelectItem => {
    if (item.kind !== 'expr') return item;
    const alias = item.alias ?? (item.expr.kind === 'column' ? undefined : `EXPR$${i}`);
    return { ...item, expr: rewrite(item.expr), alias };
  });
  const first = calls[0] as OverCall;
  const window = first.overWindow;
  // Frames compare as they run: a window function's is implied (ROW_NUMBER's is ROWS), so
  // ROW_NUMBER() beside an aggregate over RANGE needs two windows, which Flink refuses too.
  const frameOf = (c: OverCall): OverFrame =>
    isWindowFunction(c)
      ? windowFunctionFrame(c, c.overWindow.frame)
      : parseFrame(c.overWindow.frame, c.at);
  const frames = calls.map(frameOf);
  const windowKey = (w: OverWindow, f: OverFrame): string =>
    JSON.stringify([
      w.partitionBy.map((p) => normalizedKey(p, scope)),
      w.orderBy.map((o) => [normalizedKey(o.expr, scope), o.descending]),
      f.mode,
      String(f.preceding),
    ]);
  const frame = frames[0] as OverFrame;
  calls.forEach((c, i) => {
    if (windowKey(c.overWindow, frames[i] as OverFrame) !== windowKey(window, frame))
      sqlError(
        `all OVER aggregates of a SELECT must use the same window${isWindowFunction(c) || isWindowFunction(first) ? ' (ROW_NUMBER() runs over ROWS, RANK(), DENSE_RANK() and LAG over RANGE, from UNBOUNDED PRECEDING to the current row)' : ''}`,
        c.at,
      );
  });
  const order = window.orderBy[0];
  const orderColumn =
    order?.expr.kind === 'column' ? scope.resolve(order.expr.path, order.expr.at) : undefined;
  // `ORDER BY PROCTIME()` orders by processing time as a PROCTIME() column does.
  const proctimeCall =
    order?.expr.kind === 'call' && order.expr.name === 'PROCTIME' && order.expr.args.length === 0;
  const proctime = proctimeCall || orderColumn?.column.proctime === true;
  const timeOrdered =
    window.orderBy.length === 1 &&
    (proctimeCall ||
      (orderColumn !== undefined &&
        (orderColumn.column.rowtime || proctime) &&
        orderColumn.fields.length === 0));
  if (!timeOrdered) return planSortedOver(select, items, from, stream, calls, scope, stateTtl);
  if (order?.descending === true)
    sqlError('an OVER window must be ordered by its time attribute ascending', order.expr.at);
  const timeIndex = proctime ? undefined : (orderColumn as { index: number }).index;
  const keyFns = compileKeys(window.partitionBy, scope, 'PARTITION BY').map((k) => k.fn);
  const { agg, types } = overAggregation(
    calls,
    scope,
    timeIndex === undefined ? undefined : (row) => row[timeIndex],
  );
  const rows = stream
    .keyBy(groupKey(keyFns), window.partitionBy.length === 0 ? 'over (global)' : 'partition key')
    .process(new OverFunction(frame, timeIndex, from.columns.length, agg, stateTtl))
    .name(proctime ? 'over aggregate (processing time)' : 'over aggregate');
  const columns = overColumns(from.columns, types);
  return {
    select: { ...select, items, where: undefined },
    from: { stream: rows, columns },
  };
}
