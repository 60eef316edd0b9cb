/**
 * Regular joins (`[INNER | LEFT | RIGHT | FULL] JOIN ... ON`, and `FROM a, b WHERE ...`) on
 * equality keys, planned onto the DataStream API's regular join, or, when both inputs are
 * insert-only and the condition bounds two rowtimes (or two PROCTIME() columns) of the sides
 * from both sides (`interval-bounds.ts`), an interval join (`interval-join-planner.ts`), which,
 * as in Flink, needs no equality key (its rows then all meet at one key). The ON condition is split
 * into its AND-ed parts: equalities between a column expression of each side are the join
 * key, conditions on one side of an inner join filter that side before the join, and the
 * rest is checked on each pair. A join with a condition but no equality key (a theta join)
 * puts every row at one key, as Flink runs one on a single subtask. As in Flink, an inner join of insert-only inputs (and an
 * interval join of any type) emits insert-only rows; any other join emits a retract changelog. Rows are kept until they are
 * retracted (Flink's default `table.exec.state.ttl` of 0), or until idle for the TTL if one is set,
 * or, in an inner join with a window aggregation, until no later window can match them
 * (`join-retention.ts`; `filterAfter`, the WHERE over the join, may give that bound).
 */
import type { ChangelogStream } from '../../api/streams.js';
import type { JoinType } from '../../core/joins.js';
import type { Key } from '../../core/key-groups.js';
import type { StateTtlConfig } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { isDeterministic } from '../expressions/common-subexpressions.js';
import { compilePredicate, compileScalar } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, FromItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { formatType, withNullability } from '../types/logical-type.js';
import { noteChangelogRole } from './changelog-plan.js';
import { changesOf, isUpdating, updatingRelation } from './changelog-relation.js';
import { contains } from './expr-tools.js';
import { intervalBounds } from './interval-bounds.js';
import { planIntervalJoin } from './interval-join-planner.js';
import { joinRetention } from './join-retention.js';
import { keyEquality } from './key-equality.js';
import type { Relation } from './relation.js';
import { rowKeyOf } from './row-key.js';
import { ROW_SERIALIZER } from './row-serializer.js';
import { TwoRowJoinRelation, twoRowPredicate } from './two-row-join.js';
import { WindowDistinctRelation } from './window-distinct.js';
import { planWindowJoin, windowJoinColumns } from './window-join-planner.js';

type JoinItem = Extract<FromItem, { kind: 'join' }>;

const JOIN_TYPES: Readonly<Record<JoinItem['type'], JoinType>> = {
  INNER: 'inner',
  CROSS: 'inner',
  LEFT: 'left',
  RIGHT: 'right',
  FULL: 'full',
};

/** The AND-ed parts of a condition. */
export function conjuncts(e: Expr | undefined): Expr[] {
  if (e === undefined) return [];
  if (e.kind === 'binary' && e.op === 'AND') return [...conjuncts(e.left), ...conjuncts(e.right)];
  return [e];
}

/** The parts AND-ed together (undefined for none). */
export function and(parts: readonly Expr[], at: SourcePosition): Expr | undefined {
  if (parts.length === 0) return undefined;
  return parts.reduce((l, r) => ({ kind: 'binary', op: 'AND', left: l, right: r, at }));
}

/** Which sides of the join an expression's columns come from. */
function sidesOf(e: Expr, scope: Scope, leftWidth: number): { left: boolean; right: boolean } {
  const isColumn = (x: Expr): x is Extract<Expr, { kind: 'column' }> => x.kind === 'column';
  return {
    left: contains(e, (x) => isColumn(x) && scope.resolve(x.path, x.at).index < leftWidth),
    right: contains(e, (x) => isColumn(x) && scope.resolve(x.path, x.at).index >= leftWidth),
  };
}

/**
 * The WHERE conditions over a join's rows (`where`) that read one side only and are
 * deterministic, added to `leftOnly` / `rightOnly` so that they filter that side before the join,
 * as Flink's FilterJoinRule pushes them: the join keeps and pairs fewer rows (Nexmark q20 kept
 * every auction to pair every bid, then dropped nine pairs in ten). Into both sides of an inner
 * join, into the kept side of a LEFT or RIGHT join (a row of the other side that fails the
 * condition may still be padded); never through a FULL join. They stay in the WHERE too, which
 * they then pass.
 */
function pushWhereToSides(
  where: Expr | undefined,
  type: JoinType,
  scope: Scope,
  leftWidth: number,
  leftOnly: Expr[],
  rightOnly: Expr[],
): void {
  for (const part of conjuncts(where)) {
    const subquery = (x: Expr) => x.kind === 'scalar-subquery' || x.kind === 'subquery-test';
    if (!isDeterministic(part) || contains(part, subquery)) continue;
    let sides: { left: boolean; right: boolean };
    try {
      sides = sidesOf(part, scope, leftWidth);
    } catch {
      // A name this join's inputs do not have (the query's errors come from the WHERE itself).
      continue;
    }
    if (sides.left && !sides.right && (type === 'inner' || type === 'left')) leftOnly.push(part);
    else if (sides.right && !sides.left && (type === 'inner' || type === 'right'))
      rightOnly.push(part);
  }
}

/**
 * The join key of one side: the key value itself for one `=` key, a text for several (or for
 * a NULL-safe one). Under `=` a row with a NULL key matches nothing (SQL's `NULL = NULL` is not
 * true), so it gets a key of its own side that no row of the other side has; under
 * `IS NOT DISTINCT FROM` (`nullSafe[i]`) NULL is a value of its own, the same on both sides and
 * unlike every non-NULL one. Each value of a text key is tagged by its kind and ends with \u0001;
 * a string that holds \u0001 is written with its length, so no two keys share a text.
 */
export function joinKey(
  fns: readonly ((row: Row) => unknown)[],
  side: 'left' | 'right',
  nullSafe: readonly boolean[] = [],
): (row: Row) => Key {
  const nullKey = `\u0000null ${side}`;
  if (fns.length === 1 && nullSafe[0] !== true) {
    const f = fns[0] as (row: Row) => unknown;
    return (row) => {
      const v = f(row);
      if (v === null) return nullKey;
      // A string that starts like the NULL key is moved out of its way (`\u0000s` + itself).
      return typeof v === 'string' && v.startsWith('\u0000') ? `\u0000s${v}` : (v as Key);
    };
  }
  return (row) => {
    let key = '';
    for (let i = 0; i < fns.length; i++) {
      const v = (fns[i] as (row: Row) => unknown)(row);
      if (v === null) {
        if (nullSafe[i] !== true) return nullKey;
        key += 'n\u0001';
      } else if (typeof v !== 'string') key += `v${String(v)}\u0001`;
      else if (v.includes('\u0001')) key += `S${v.length}:${v}\u0001`;
      else key += `s${v}\u0001`;
    }
    return key;
  };
}

/** The same expression, wherever it is written. */
const sameExpr = (a: Expr, b: Expr): boolean => {
  const text = (e: Expr) => JSON.stringify(e, (k, v: unknown) => (k === 'at' ? undefined : v));
  return text(a) === text(b);
};

/**
 * `x = y OR (x IS NULL AND y IS NULL)` (in either order) as the key `x IS NOT DISTINCT FROM y`:
 * Flink's planner rewrites it so, and the join is then an equi-join whose NULL keys match each
 * other, rather than one without keys (JoinITCase's testNull*OuterJoinWithNullCond).
 */
function nullSafeDisjunction(e: Expr): ReturnType<typeof keyEquality> {
  if (e.kind !== 'binary' || e.op !== 'OR') return undefined;
  for (const [eq, nulls] of [
    [e.left, e.right],
    [e.right, e.left],
  ] as const) {
    if (eq.kind !== 'binary' || eq.op !== '=' || nulls.kind !== 'binary' || nulls.op !== 'AND')
      continue;
    const isNull = (x: Expr): Expr | undefined =>
      x.kind === 'is' && x.test === 'NULL' && !x.negated ? x.arg : undefined;
    const p = isNull(nulls.left);
    const q = isNull(nulls.right);
    if (p === undefined || q === undefined) continue;
    if (
      (sameExpr(p, eq.left) && sameExpr(q, eq.right)) ||
      (sameExpr(p, eq.right) && sameExpr(q, eq.left))
    )
      return { operands: [eq.left, eq.right], nullSafe: true };
  }
  return undefined;
}

/**
 * Plans `item`; `planFrom` plans its two inputs. A comma join (`FROM a, b`) is an inner join
 * whose condition is `where`, the SELECT's WHERE clause.
 */
export function planJoin(
  item: JoinItem,
  planFrom: (item: FromItem) => Relation,
  where: Expr | undefined,
  stateTtl: StateTtlConfig | undefined,
  filterAfter?: Expr,
): Relation {
  // A CROSS JOIN without a WHERE is a theta join whose condition is TRUE: every pair.
  const condition = item.type === 'CROSS' ? where : item.on;
  let left = planFrom(item.left);
  let right = planFrom(item.right);
  // Taken before a side is filtered: a filter keeps the columns where they are.
  const leftWindowed = left.windowed;
  const rightWindowed = right.windowed;
  const type = JOIN_TYPES[item.type];
  const leftWidth = left.columns.length;
  const scope = new Scope([...left.columns, ...right.columns]);
  const leftScope = new Scope(left.columns);
  const rightScope = new Scope(right.columns);
  const leftKeys: Expr[] = [];
  const rightKeys: Expr[] = [];
  /** Per key: `IS NOT DISTINCT FROM` (NULL matches NULL) rather than `=`. */
  const nullSafe: boolean[] = [];
  const leftOnly: Expr[] = [];
  const rightOnly: Expr[] = [];
  const residual: Expr[] = [];
  const insertOnly = !isUpdating(left) && !isUpdating(right);
  /** The position of a rowtime column, of a PROCTIME() column: the bounds of an interval join. */
  const timeAt =
    (attribute: 'rowtime' | 'proctime') =>
    (e: Expr): number | undefined => {
      if (e.kind !== 'column') return undefined;
      const r = scope.resolve(e.path, e.at);
      return r.fields.length === 0 && r.column[attribute] === true ? r.index : undefined;
    };
  const rowtimeAt = timeAt('rowtime');
  const proctimeAt = timeAt('proctime');
  /** Equalities of a time attribute of each side, taken as bounds rather than keys. */
  const timeEqualities: { part: Expr; left: Expr; right: Expr }[] = [];
  for (const part of conjuncts(condition)) {
    // Type-checked as written first, so that errors name the user's expression.
    compilePredicate(part, scope, 'join condition');
    const sides = sidesOf(part, scope, leftWidth);
    const equality = keyEquality(part) ?? nullSafeDisjunction(part);
    if (equality !== undefined && !equality.nullSafe && insertOnly) {
      // Equal time attributes of the two sides bound an interval join to [0, 0], as in Flink.
      const [a, b] = equality.operands;
      const across = (at: (e: Expr) => number | undefined) => {
        const x = at(a);
        const y = at(b);
        return x !== undefined && y !== undefined && x < leftWidth !== y < leftWidth;
      };
      if (across(rowtimeAt) || across(proctimeAt)) {
        const aLeft = sidesOf(a, scope, leftWidth).left;
        timeEqualities.push({ part, left: aLeft ? a : b, right: aLeft ? b : a });
        residual.push(part);
        continue;
      }
    }
    if (equality !== undefined) {
      const [a, b] = equality.operands;
      const l = sidesOf(a, scope, leftWidth);
      const r = sidesOf(b, scope, leftWidth);
      if (l.left && !l.right && r.right && !r.left) {
        leftKeys.push(a);
        rightKeys.push(b);
        nullSafe.push(equality.nullSafe);
        continue;
      }
      if (l.right && !l.left && r.left && !r.right) {
        leftKeys.push(b);
        rightKeys.push(a);
        nullSafe.push(equality.nullSafe);
        continue;
      }
    }
    if (type === 'inner' && sides.left && !sides.right) leftOnly.push(part);
    else if (type === 'inner' && sides.right && !sides.left) rightOnly.push(part);
    else residual.push(part);
  }
  pushWhereToSides(filterAfter, type, scope, leftWidth, leftOnly, rightOnly);
  const rowtimes = insertOnly ? intervalBounds(residual, rowtimeAt, leftWidth) : undefined;
  const interval =
    rowtimes ?? (insertOnly ? intervalBounds(residual, proctimeAt, leftWidth) : undefined);
  if (interval === undefined) {
    // No interval join after all: equal times are join keys again.
    for (const eq of timeEqualities) {
      residual.splice(residual.indexOf(eq.part), 1);
      leftKeys.push(eq.left);
      rightKeys.push(eq.right);
      nullSafe.push(false);
    }
  }
  const leftKeyFns = leftKeys.map((k) => compileScalar(k, leftScope));
  const rightKeyFns = rightKeys.map((k) => compileScalar(k, rightScope));
  leftKeyFns.forEach((l, i) => {
    const r = rightKeyFns[i] as (typeof rightKeyFns)[number];
    const decimal = (t: typeof l.type) => (t.kind === 'DECIMAL' ? t.scale : -1);
    if (decimal(l.type) !== decimal(r.type)) {
      sqlError(
        `join keys of types ${formatType(l.type)} and ${formatType(r.type)} are not supported yet; CAST one side to the other's type`,
        (leftKeys[i] as Expr).at,
      );
    }
  });
  // Window ends stay where they are when a side is filtered.
  const retention =
    type === 'inner' && !isUpdating(left) && !isUpdating(right)
      ? joinRetention([...residual, ...conjuncts(filterAfter)], scope, left, right)
      : {};
  left = filtered(left, leftOnly, item.at);
  right = filtered(right, rightOnly, item.at);
  const leftKey = joinKey(
    leftKeyFns.map((k) => k.fn),
    'left',
    nullSafe,
  );
  const rightKey = joinKey(
    rightKeyFns.map((k) => k.fn),
    'right',
    nullSafe,
  );
  if (insertOnly && leftKeys.length > 0) {
    const windows = windowJoinColumns(
      leftKeys,
      rightKeys,
      leftScope,
      rightScope,
      leftWindowed,
      rightWindowed,
    );
    if (windows !== undefined) {
      const pairCondition = and(residual, item.at);
      // The window operator keeps each window apart: the key needs only the other equalities
      // (q8's `P.id = A.seller` alone, a number rather than a text of three values). Without
      // others, the window's end alone spreads windows over subtasks (q5: a number, not a text
      // of start and end).
      const keyed =
        leftKeys.length > 2
          ? (_: unknown, i: number) => !windows.keys.includes(i)
          : (_: unknown, i: number) => i === windows.keys[1];
      return planWindowJoin(left, right, {
        type,
        leftKey: joinKey(leftKeyFns.map((k) => k.fn).filter(keyed), 'left', nullSafe.filter(keyed)),
        rightKey: joinKey(
          rightKeyFns.map((k) => k.fn).filter(keyed),
          'right',
          nullSafe.filter(keyed),
        ),
        windows,
        at: item.at,
        test: pairTest(pairCondition, scope, leftWidth),
      });
    }
  }
  if (interval !== undefined) {
    const rest = and(interval.rest, item.at);
    return planIntervalJoin({
      type,
      left,
      right,
      leftKey,
      rightKey,
      bounds: interval.bounds,
      leftTime: interval.leftTime,
      rightTime: interval.rightTime - leftWidth,
      timeDomain: rowtimes === undefined ? 'processing-time' : 'event-time',
      test: rest === undefined ? undefined : compilePredicate(rest, scope, 'join condition'),
    });
  }
  // No equality between the sides (a theta join): every row meets at one key, on one subtask,
  // as Flink runs a join without keys; the condition is checked on each pair.
  const rightWidth = right.columns.length;
  const pairCondition = and(residual, item.at);
  const test = pairTest(pairCondition, scope, leftWidth);
  const nullsLeft: Row = new Array<unknown>(leftWidth).fill(null);
  const nullsRight: Row = new Array<unknown>(rightWidth).fill(null);
  const concat = (pair: readonly [Row | null, Row | null]): Row => [
    ...(pair[0] ?? nullsLeft),
    ...(pair[1] ?? nullsRight),
  ];
  const joinColumns = {
    left: columnsOf(leftKeys, leftScope),
    right: columnsOf(rightKeys, rightScope),
  };
  // Flink's join takes only the update-afters of an input whose upsert key contains the join
  // key: every change of a row then reaches the same join key, where a +U replaces its row.
  const keyedBy = (side: Relation, columns: readonly number[], exprs: readonly Expr[]) =>
    side.upsertKey !== undefined &&
    isUpdating(side) &&
    columns.length === exprs.length &&
    columns.every((c) => side.upsertKey?.includes(c));
  const keyedInputs: [boolean, boolean] = [
    keyedBy(left, joinColumns.left, leftKeys),
    keyedBy(right, joinColumns.right, rightKeys),
  ];
  const uniqueKeys = {
    ...(keyedInputs[0] && left.upsertKey !== undefined ? { left: rowKeyOf(left.upsertKey) } : {}),
    ...(keyedInputs[1] && right.upsertKey !== undefined
      ? { right: rowKeyOf(right.upsertKey) }
      : {}),
  };
  const joined = changesOf(left).regularJoin(changesOf(right), {
    type,
    leftKey,
    rightKey,
    uniqueKeys,
    ...(test === undefined ? {} : { where: test }),
    ...(stateTtl === undefined ? { unboundedState: true } : { ttl: stateTtl }),
    serializers: { left: ROW_SERIALIZER, right: ROW_SERIALIZER },
    retainUntil: retention,
  }) as ChangelogStream<readonly [Row | null, Row | null]>;
  noteChangelogRole(joined, { kind: 'join', inner: type === 'inner', keyedInputs });
  // Padded sides may be NULL; no column stays an event-time attribute (as in Flink).
  const pad = (c: ScopeColumn, padded: boolean): ScopeColumn => ({
    ...c,
    type: padded ? withNullability(c.type, true) : c.type,
    rowtime: false,
  });
  const columns = [
    ...left.columns.map((c) => pad(c, type === 'right' || type === 'full')),
    ...right.columns.map((c) => pad(c, type === 'left' || type === 'full')),
  ];
  // A SELECT's projection over it writes its rows from the pairs (see TwoRowJoinRelation).
  if (type === 'inner' && !isUpdating(left) && !isUpdating(right))
    return new TwoRowJoinRelation(
      columns,
      (rows) => joined.map((c) => rows(c.value[0] as Row, c.value[1] as Row)).name('join rows'),
      leftWidth,
    );
  return updatingRelation(
    joined.mapRows(concat),
    columns,
    `${item.type} JOIN`,
    joinUpsertKey(type, left, right, leftWidth, joinColumns),
  );
}

/**
 * The upsert key of a regular join, as Flink derives its unique keys (one of them). When one
 * side's upsert key lies within its join columns, each row of the other side meets at most one
 * row of it, so the other side's key identifies a joined row, unless that other side's rows
 * can be padded with NULL (it is the inner side of an outer join, where rows without a match
 * share the NULL key). Otherwise both keys together do, in every kind of join: a padded row
 * holds one side's key and NULLs, and each row of a side is padded at most once.
 */
function joinUpsertKey(
  type: JoinType,
  left: Relation,
  right: Relation,
  leftWidth: number,
  joinColumns: { readonly left: readonly number[]; readonly right: readonly number[] },
): number[] | undefined {
  if (left.upsertKey === undefined || right.upsertKey === undefined) return undefined;
  const shifted = right.upsertKey.map((k) => k + leftWidth);
  const within = (key: readonly number[], columns: readonly number[]) =>
    key.every((k) => columns.includes(k));
  if ((type === 'inner' || type === 'left') && within(right.upsertKey, joinColumns.right))
    return [...left.upsertKey];
  if ((type === 'inner' || type === 'right') && within(left.upsertKey, joinColumns.left))
    return shifted;
  return [...left.upsertKey, ...shifted];
}

/** The positions of the expressions that are plain columns of `scope` (others are left out). */
function columnsOf(exprs: readonly Expr[], scope: Scope): number[] {
  const out: number[] = [];
  for (const e of exprs) {
    if (e.kind !== 'column') continue;
    const r = scope.resolve(e.path, e.at);
    if (r.fields.length === 0) out.push(r.index);
  }
  return out;
}

/**
 * `relation` with the rows for which every condition holds (`what` names the conditions in
 * errors, `step` the filter in plans).
 */
export function filtered(
  relation: Relation,
  conditions: readonly Expr[],
  at: SourcePosition,
  what = 'join condition',
  step = 'join input filter',
): Relation {
  const condition = and(conditions, at);
  if (condition === undefined) return relation;
  const test = compilePredicate(condition, new Scope(relation.columns), what);
  if (relation instanceof WindowDistinctRelation) return relation.filter(test);
  if (relation.changes !== undefined && isUpdating(relation))
    return updatingRelation(
      relation.changes.filterRows(test),
      relation.columns,
      'its input',
      relation.upsertKey,
    );
  return {
    stream: relation.stream.filter(test).name(step),
    columns: relation.columns,
  };
}

/**
 * A join condition as a test of the pair of rows: checked first as one condition over the
 * joined row (so that its errors name that row's columns), then run on the pair, with no joined
 * row built.
 */
function pairTest(
  condition: Expr | undefined,
  scope: Scope,
  leftWidth: number,
): ((l: Row, r: Row) => boolean) | undefined {
  if (condition === undefined) return undefined;
  compilePredicate(condition, scope, 'join condition');
  return twoRowPredicate([condition], scope, leftWidth);
}
