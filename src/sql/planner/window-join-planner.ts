/**
 * Window joins: a join whose condition equates `window_start` and `window_end` of two inputs
 * that carry them (window TVFs or window aggregations, whose window columns may be renamed),
 * as Flink recognises them. Each side's
 * rows are kept per join key and window until the watermark passes the window's end; then
 * the window's pairs (and, for outer joins, its unmatched rows padded with NULLs) are
 * emitted once, insert-only, and its state is dropped. A row whose window has already fired
 * is late: dropped and counted (`weir_join_late_records_total`). Window semi and anti joins
 * (EXISTS / IN subqueries correlated on both window columns) run on the same operator and emit
 * only the left rows.
 */
import { judgingLatenessByInput } from '../../api/joins.js';
import type { DataStream } from '../../api/streams.js';
import type { Collector } from '../../core/functions.js';
import type { JoinType } from '../../core/joins.js';
import type { Key } from '../../core/key-groups.js';
import { windowSemiJoinRows } from '../../runtime/operators/joins/window-join.js';
import type { Row } from '../connectors/connector.js';
import type { Scope, ScopeColumn } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { withNullability } from '../types/logical-type.js';
import type { TimeZone } from '../types/time-zone.js';
import { onWindowClock, windowClock } from './local-time-windows.js';
import type { Relation, WindowProperties } from './relation.js';
import { concatenation } from './row-builders.js';
import { type JoinedRow, TwoRowJoinRelation } from './two-row-join.js';
import { distinctRows, WindowDistinctRelation } from './window-distinct.js';
import { recordWindows, type WindowColumns } from './window-rank-planner.js';

/** The window columns of the two sides, found in the equalities of the join key. */
export interface WindowJoinColumns {
  readonly left: WindowColumns;
  readonly right: WindowColumns;
  /** The indexes of the two key equalities of the window columns. */
  readonly keys: readonly [number, number];
}

/**
 * The position of the column `e` names in `scope`'s rows if it is the window column `name`:
 * by that name (a window TVF's columns), or at the position `windowed` gives (a window
 * aggregation's, whose window columns keep their window property under another name, as
 * Flink's planner tracks them: q8's `window_start AS starttime`).
 */
function columnAt(
  e: Expr,
  name: 'window_start' | 'window_end',
  scope: Scope,
  windowed: WindowProperties | undefined,
): number | undefined {
  if (e.kind !== 'column') return undefined;
  const r = scope.resolve(e.path, e.at);
  if (r.fields.length !== 0) return undefined;
  // By the resolved column's name, so positional references (`#3`) are found too.
  if (scope.columns[r.index]?.name.toLowerCase() === name) return r.index;
  const at = name === 'window_start' ? windowed?.startAt : windowed?.endAt;
  return r.index === at ? r.index : undefined;
}

/** Whether two window aggregations' windows end at the same instants. */
function sameWindowEnds(a: WindowProperties | undefined, b: WindowProperties | undefined): boolean {
  return a !== undefined && b !== undefined && a.spacing === b.spacing && a.offset === b.offset;
}

/**
 * The window columns of both sides when the key equalities include `window_start = window_start`
 * and `window_end = window_end`; undefined for any other join. `leftWindowed` and
 * `rightWindowed` are the sides' window properties when they are window aggregations whose
 * windows end alike (the only window join Flink plans over them).
 */
export function windowJoinColumns(
  leftKeys: readonly Expr[],
  rightKeys: readonly Expr[],
  leftScope: Scope,
  rightScope: Scope,
  leftWindowed?: WindowProperties,
  rightWindowed?: WindowProperties,
): WindowJoinColumns | undefined {
  const aligned = sameWindowEnds(leftWindowed, rightWindowed);
  const find = (name: 'window_start' | 'window_end'): [number, number, number] | undefined => {
    for (let i = 0; i < leftKeys.length; i++) {
      const l = columnAt(leftKeys[i] as Expr, name, leftScope, aligned ? leftWindowed : undefined);
      const r = columnAt(
        rightKeys[i] as Expr,
        name,
        rightScope,
        aligned ? rightWindowed : undefined,
      );
      if (l !== undefined && r !== undefined) return [l, r, i];
    }
    return undefined;
  };
  const start = find('window_start');
  const end = find('window_end');
  if (start === undefined || end === undefined) return undefined;
  return {
    left: { startAt: start[0], endAt: end[0] },
    right: { startAt: start[1], endAt: end[1] },
    keys: [start[2], end[2]],
  };
}

export interface WindowJoinSpec {
  readonly type: JoinType;
  /** The join keys, which include the window columns. */
  readonly leftKey: (row: Row) => Key;
  readonly rightKey: (row: Row) => Key;
  readonly windows: WindowJoinColumns;
  /** The condition on each pair beyond the key, on the left row and the right one. */
  readonly test: ((l: Row, r: Row) => boolean) | undefined;
  /** Where the join is written, for errors. */
  readonly at: SourcePosition;
}

function clockName(zone: TimeZone | undefined): string {
  return zone === undefined
    ? 'windows of a TIMESTAMP time attribute'
    : `the wall clock of '${zone.id}'`;
}

/**
 * A side's rows as the join reads them: a grouping-only window aggregation's input rows, made
 * distinct per window by the join itself (window-distinct.ts), else the side's own.
 */
function sideRows(side: Relation): {
  stream: DataStream<Row>;
  distinct: (rows: readonly Row[]) => readonly Row[];
  /** The side stands in for a window aggregation. */
  aggregated: boolean;
} {
  if (!(side instanceof WindowDistinctRelation))
    return { stream: side.stream, distinct: (r) => r, aggregated: false };
  const key = side.plan.distinctKey;
  return { stream: side.rows, distinct: (rows) => distinctRows(rows, key), aggregated: true };
}

/** What a window join and a window semi/anti join share: the keys, windows and clocks. */
export interface WindowCoGroupSpec {
  readonly leftKey: (row: Row) => Key;
  readonly rightKey: (row: Row) => Key;
  readonly windows: WindowJoinColumns;
  readonly at: SourcePosition;
}

/** The clock both sides' windows follow; refused when they follow two. */
function sharedClock(
  left: Relation,
  right: Relation,
  spec: WindowCoGroupSpec,
): TimeZone | undefined {
  const zone = windowClock(left.columns, spec.windows.left);
  const rightZone = windowClock(right.columns, spec.windows.right);
  if (zone !== rightZone)
    sqlError(
      `a window join needs the windows of both sides on one clock: ${clockName(zone)} on the left, ${clockName(rightZone)} on the right (cast both time attributes to TIMESTAMP_LTZ, or both to TIMESTAMP)`,
      spec.at,
    );
  return zone;
}

/**
 * Each side's rows kept per key and window until the watermark passes the window's end, then
 * handed to `perWindow` (made distinct where a side stands in for a grouping-only window
 * aggregation), on the windows' clock.
 */
function coGroupWindows(
  left: Relation,
  right: Relation,
  spec: WindowCoGroupSpec,
  perWindow: (lefts: readonly Row[], rights: readonly Row[], out: Collector<Row>) => void,
): DataStream<Row> {
  const leftRows = sideRows(left);
  const rightRows = sideRows(right);
  const zone = sharedClock(left, right, spec);
  // Windows of a local wall clock fire when the watermark passes their end as an instant.
  // A side standing in for a window aggregation drops the rows late for that aggregation.
  const ownLateness = { left: leftRows.aggregated, right: rightRows.aggregated };
  return onWindowClock(zone, [leftRows.stream, rightRows.stream], (l, r) =>
    judgingLatenessByInput(
      l
        .coGroup(r)
        .where(spec.leftKey)
        .equalTo(spec.rightKey)
        .window({
          left: recordWindows(spec.windows.left),
          right: recordWindows(spec.windows.right),
        }),
      ownLateness,
    ).apply((lefts: readonly Row[], rights: readonly Row[], out: Collector<Row>) =>
      perWindow(leftRows.distinct(lefts), rightRows.distinct(rights), out),
    ),
  );
}

/**
 * Plans the window join of two insert-only relations; its output is insert-only. The condition
 * is tested on each pair of rows, and an inner join's rows are written from the pair by a SELECT
 * over it (see TwoRowJoinRelation): no joined row is built for a pair the condition rejects.
 */
export function planWindowJoin(left: Relation, right: Relation, spec: WindowJoinSpec): Relation {
  const { type, test } = spec;
  // Checked now: the operator is built only when the rows are asked for.
  sharedClock(left, right, spec);
  const leftWidth = left.columns.length;
  const rightWidth = right.columns.length;
  const nullsLeft: Row = new Array<unknown>(leftWidth).fill(null);
  const nullsRight: Row = new Array<unknown>(rightWidth).fill(null);
  const padLeft = type === 'right' || type === 'full';
  const padRight = type === 'left' || type === 'full';
  const join = (rows: JoinedRow): DataStream<Row> =>
    coGroupWindows(left, right, spec, (lefts, rights, out) => {
      const matchedRight = padLeft ? new Array<boolean>(rights.length).fill(false) : undefined;
      for (const l of lefts) {
        let matched = false;
        for (let j = 0; j < rights.length; j++) {
          const r = rights[j] as Row;
          if (test !== undefined && !test(l, r)) continue;
          out.collect(rows(l, r));
          matched = true;
          if (matchedRight !== undefined) matchedRight[j] = true;
        }
        if (!matched && padRight) out.collect(rows(l, nullsRight));
      }
      if (matchedRight !== undefined)
        rights.forEach((r, j) => {
          if (!matchedRight[j]) out.collect(rows(nullsLeft, r));
        });
    }).name(`window ${type} join`);
  // Padded sides may be NULL; no column stays an event-time attribute.
  const pad = (c: ScopeColumn, padded: boolean): ScopeColumn => ({
    ...c,
    type: padded ? withNullability(c.type, true) : c.type,
    rowtime: false,
  });
  const columns = [
    ...left.columns.map((c) => pad(c, padLeft)),
    ...right.columns.map((c) => pad(c, padRight)),
  ];
  if (type === 'inner') return new TwoRowJoinRelation(columns, join, leftWidth);
  return { stream: join(concatenation(leftWidth, rightWidth)), columns };
}

export interface WindowSemiJoinSpec extends WindowCoGroupSpec {
  /** SEMI keeps the left rows with a match in their window, ANTI those without. */
  readonly type: 'semi' | 'anti';
  /** The condition on each pair beyond the key, over the concatenated row. */
  readonly test: ((row: Row) => boolean) | undefined;
  /** The operator's name in EXPLAIN. */
  readonly label: string;
}

/**
 * Plans the window semi or anti join of two insert-only relations (Flink's window join of
 * type SEMI / ANTI, written as EXISTS or IN correlated on both window columns): the left rows
 * of each window, kept or dropped by whether a right row of the same key and window matches,
 * emitted once when the watermark passes the window's end; insert-only.
 */
export function planWindowSemiJoin(
  left: Relation,
  right: Relation,
  spec: WindowSemiJoinSpec,
): Relation {
  const { test } = spec;
  const keep = windowSemiJoinRows<Row, Row>(
    spec.type,
    test === undefined ? undefined : (l, r) => test([...l, ...r]),
  );
  const stream = coGroupWindows(left, right, spec, keep);
  return {
    stream: stream.name(spec.label),
    // As after a window join, no column stays an event-time attribute.
    columns: left.columns.map((c) => ({ ...c, rowtime: false })),
  };
}
