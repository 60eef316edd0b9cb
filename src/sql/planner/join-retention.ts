/**
 * When a regular join may drop a row before it is retracted (Weir's, not Flink's: Flink keeps
 * every row of a regular join until the state TTL). An inner join of insert-only inputs whose
 * conditions bound one input's window end by the other input's time, as Nexmark q7's
 * `b.dateTime BETWEEN w.dateTime - INTERVAL '10' SECOND AND w.dateTime` with `w.dateTime` the
 * `window_end` of a window aggregation: every later row of the window side ends its window
 * after the watermark at its arrival (`Relation.windowEndsAt`), so once the watermark reaches
 * `b.dateTime + 10 s` no later window can pass the condition with `b`, and `b` goes. The
 * join's rows are the same; its state holds the rows of the bound's span, not all of them.
 */
import type { Row } from '../connectors/connector.js';
import type { Scope, ScopeColumn } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { timeTerm } from './interval-bounds.js';
import type { Relation } from './relation.js';

type Op = '<' | '<=' | '>' | '>=';

/** The finest spacing of the times at which the rows are dropped (see `until`). */
const MIN_GRID_MS = 1000;

/** Each input's last useful time of a row (undefined: kept as before). */
export interface JoinRetention {
  readonly left?: (row: Row) => number;
  readonly right?: (row: Row) => number;
}

/** A TIMESTAMP or TIMESTAMP_LTZ of at most millisecond precision: its values are epoch ms. */
function isMillisecondTime(column: ScopeColumn): boolean {
  const t = column.type;
  return (t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ') && t.precision <= 3;
}

/**
 * The retention `parts` (conditions every joined row must pass: the inner join's ON and the
 * WHERE above it) allow, over `scope` (the left columns, then the right ones). Parts whose
 * columns are not all in `scope` are not this join's, and are skipped.
 */
export function joinRetention(
  parts: readonly Expr[],
  scope: Scope,
  left: Relation,
  right: Relation,
): JoinRetention {
  const leftWidth = left.columns.length;
  const isEnd = (index: number): boolean =>
    index < leftWidth
      ? (left.windowEndsAt?.includes(index) ?? false)
      : (right.windowEndsAt?.includes(index - leftWidth) ?? false);
  const column = (e: Expr): number | undefined => {
    if (e.kind !== 'column') return undefined;
    try {
      const r = scope.resolve(e.path, e.at);
      return r.fields.length === 0 && isMillisecondTime(r.column) ? r.index : undefined;
    } catch {
      return undefined;
    }
  };
  const term = (e: Expr) => timeTerm(e, column);
  // The least bound per side: a row at t can match no window ending after t + slack.
  const slack: { left?: { at: number; ms: number }; right?: { at: number; ms: number } } = {};
  const bound = (side: 'left' | 'right', at: number, ms: number) => {
    const known = slack[side];
    if (known === undefined || ms < known.ms) slack[side] = { at, ms };
  };
  /** `a op b`: records a bound `end <= time + c` between a window end and the other side's time. */
  const apply = (a: Expr, op: Op, b: Expr): void => {
    const x = term(a);
    const y = term(b);
    if (x === undefined || y === undefined) return;
    // As `hi.column <= lo.column + c` (a strict `<` bounds it too).
    const [hi, lo] = op === '<' || op === '<=' ? [x, y] : [y, x];
    const c = lo.offset - hi.offset;
    const hiLeft = hi.index < leftWidth;
    const loLeft = lo.index < leftWidth;
    if (hiLeft === loLeft || !isEnd(hi.index)) return;
    // A TIMESTAMP against a TIMESTAMP_LTZ compares on the session zone's wall clock, which the
    // epoch milliseconds of the rows do not show: only like with like.
    if (scope.columns[hi.index]?.type.kind !== scope.columns[lo.index]?.type.kind) return;
    // `hi` is a window end of one input: the other input's row at `lo` matches none past lo + c.
    if (loLeft) bound('left', lo.index, c);
    else bound('right', lo.index - leftWidth, c);
  };
  for (const part of parts) {
    if (part.kind === 'between' && !part.negated) {
      apply(part.low, '<=', part.arg);
      apply(part.arg, '<=', part.high);
    } else if (
      part.kind === 'binary' &&
      (part.op === '<' || part.op === '<=' || part.op === '>' || part.op === '>=')
    ) {
      apply(part.left, part.op, part.right);
    }
  }
  const until = (s: { at: number; ms: number } | undefined) => {
    if (s === undefined) return undefined;
    const { at, ms } = s;
    // Rounded up to a grid as coarse as the bound (at least 1 s): each time is a sweep of all
    // of the side's rows, and a row is kept up to `grid` longer than it must be.
    const grid = Math.max(MIN_GRID_MS, Math.abs(ms));
    // A NULL time passes no comparison: the row can match nothing, now.
    return (row: Row): number => {
      const t = row[at] as number | null;
      return t === null ? Number.NEGATIVE_INFINITY : Math.ceil((t + ms) / grid) * grid;
    };
  };
  const l = until(slack.left);
  const r = until(slack.right);
  return { ...(l === undefined ? {} : { left: l }), ...(r === undefined ? {} : { right: r }) };
}
