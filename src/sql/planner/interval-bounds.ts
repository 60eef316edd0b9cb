/**
 * Recognises an interval join in a join condition, as Flink does: bounds on the difference
 * of a time attribute of each input, both rowtimes or both PROCTIME() columns (`r.t BETWEEN
 * l.t - INTERVAL '5' SECOND AND l.t + INTERVAL '5' SECOND`, `>=`/`<=`/`>`/`<` pairs, or
 * `r.t = l.t`, the interval [0, 0]) that limit it from both sides. Such a join keeps each row
 * only until the watermark (or the processing-time clock) passes its interval, and emits
 * insert-only rows.
 */
import { compileScalar } from '../expressions/compile.js';
import { Scope } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';

/** `r.t - l.t` lies between `lower` and `upper` (ms). */
export interface IntervalBounds {
  readonly lower: number;
  readonly upper: number;
  readonly lowerExclusive: boolean;
  readonly upperExclusive: boolean;
}

/** A time column plus a constant (ms): `t`, `t + INTERVAL ...`, `t - INTERVAL ...`. */
export interface TimeTerm {
  readonly index: number;
  readonly offset: number;
}

/**
 * `e` as a term of the column `columnAt` finds (its position), or undefined. Intervals may be
 * chained (`t + INTERVAL '1' SECOND - INTERVAL '10' SECOND`), as Flink folds them.
 */
export function timeTerm(e: Expr, columnAt: (e: Expr) => number | undefined): TimeTerm | undefined {
  const index = columnAt(e);
  if (index !== undefined) return { index, offset: 0 };
  if (e.kind === 'binary' && (e.op === '+' || e.op === '-')) {
    const base = timeTerm(e.left, columnAt);
    const ms = intervalMs(e.right);
    if (base !== undefined && ms !== undefined)
      return { index: base.index, offset: base.offset + (e.op === '+' ? ms : -ms) };
  }
  return undefined;
}

type Op = '<' | '<=' | '>' | '>=';

const FLIP: Readonly<Record<Op, Op>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** The milliseconds of a day-time INTERVAL literal; undefined for anything else. */
export function intervalMs(e: Expr): number | undefined {
  if (e.kind !== 'interval') return undefined;
  const c = compileScalar(e, new Scope([]));
  return c.type.kind === 'INTERVAL_DAY_TIME' ? (c.fn([]) as number) : undefined;
}

/**
 * The bounds in `parts`, and the parts that are not bounds; undefined unless both a lower
 * and an upper bound are found. `isTime(e)` gives the position of a reference to a time
 * attribute of one kind (rowtimes, or PROCTIME() columns; left columns before right ones), or
 * undefined. The bounds relate one attribute of each side (`leftTime`, `rightTime`: their
 * positions); a comparison of others (of an input with several, an interval join's) is no
 * bound but a further condition.
 */
export function intervalBounds(
  parts: readonly Expr[],
  isTime: (e: Expr) => number | undefined,
  leftWidth: number,
): { bounds: IntervalBounds; rest: Expr[]; leftTime: number; rightTime: number } | undefined {
  const term = (e: Expr) => timeTerm(e, isTime);
  let lower: { value: number; exclusive: boolean } | undefined;
  let upper: { value: number; exclusive: boolean } | undefined;
  let times: { left: number; right: number } | undefined;
  /** Applies `a op b`; false when it is no bound between the two sides. */
  const apply = (a: Expr, op: Op, b: Expr): boolean => {
    let x = term(a);
    let y = term(b);
    if (x === undefined || y === undefined) return false;
    let o = op;
    // Normalise to `right.t op left.t + c`.
    if (x.index < leftWidth && y.index >= leftWidth) {
      [x, y] = [y, x];
      o = FLIP[op];
    } else if (!(x.index >= leftWidth && y.index < leftWidth)) return false;
    if (times === undefined) times = { left: y.index, right: x.index };
    else if (times.left !== y.index || times.right !== x.index) return false;
    const c = y.offset - x.offset;
    const exclusive = o === '<' || o === '>';
    if (o === '>' || o === '>=') {
      if (lower === undefined || c > lower.value || (c === lower.value && exclusive))
        lower = { value: c, exclusive };
    } else if (upper === undefined || c < upper.value || (c === upper.value && exclusive)) {
      upper = { value: c, exclusive };
    }
    return true;
  };
  const rest: Expr[] = [];
  /** Applies both `a >= b` and `c <= d`, or neither. */
  const applyBoth = (a: Expr, b: Expr, c: Expr, d: Expr): boolean => {
    const before = { lower, upper, times };
    if (apply(a, '>=', b) && apply(c, '<=', d)) return true;
    ({ lower, upper, times } = before);
    return false;
  };
  for (const part of parts) {
    if (part.kind === 'between' && !part.negated) {
      if (applyBoth(part.arg, part.low, part.arg, part.high)) continue;
    } else if (part.kind === 'binary' && part.op === '=') {
      // Equal times (Flink's testRowTimeInnerJoinWithEquiTimeAttrs): the interval [0, 0].
      if (applyBoth(part.left, part.right, part.left, part.right)) continue;
    } else if (
      part.kind === 'binary' &&
      (part.op === '<' || part.op === '<=' || part.op === '>' || part.op === '>=') &&
      apply(part.left, part.op, part.right)
    ) {
      continue;
    }
    rest.push(part);
  }
  if (lower === undefined || upper === undefined || times === undefined) return undefined;
  return {
    bounds: {
      lower: lower.value,
      upper: upper.value,
      lowerExclusive: lower.exclusive,
      upperExclusive: upper.exclusive,
    },
    rest,
    leftTime: times.left,
    rightTime: times.right,
  };
}
