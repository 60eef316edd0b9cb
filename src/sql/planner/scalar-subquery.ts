/**
 * Uncorrelated scalar subqueries, `(SELECT MAX(price) FROM bid)` used as a value in a SELECT
 * list or a WHERE clause, rewritten as Flink's planner does: the FROM clause LEFT JOINed (ON
 * TRUE) with the subquery's result, whose one column replaces the subquery. The join has no
 * key, so it runs at one key on one subtask and keeps both sides, as Flink's does; the
 * subquery's row may change (an aggregate over a stream), and the join then updates every
 * row it was paired with. An empty subquery gives NULL (the LEFT join's padding).
 *
 * A correlated subquery, `(SELECT COUNT(*) FROM bid b WHERE b.auction = a.id)`, is
 * decorrelated as Flink does when it is one aggregate over its FROM and its WHERE ties it to
 * the outer query by equalities: the aggregate grouped by the subquery's side of those
 * equalities, LEFT JOINed on them, and a COUNT's missing group read as 0 (SQL's count over no
 * rows, which a LEFT join's NULL would get wrong). Outer columns are named with their table
 * or alias (`a.id`), as an unqualified name is the subquery's own first.
 *
 * In an aggregating query, a subquery of the WHERE clause or inside an aggregate call joins
 * the FROM clause before the aggregation, one of the SELECT list or HAVING clause joins the
 * aggregation's result.
 *
 * Not done: other correlated shapes, and a correlated one after an aggregation (refused, with
 * the subquery's position); a subquery beside OVER windows or grouping sets (refused where it
 * is compiled).
 *
 * An uncorrelated subquery that may give more than one row is wrapped in SINGLE_VALUE, as
 * Flink's planner wraps it: a second row fails the job.
 */
import { SINGLE_VALUE } from '../expressions/functions.js';
import type { Expr, FromItem, Query, Select, SelectItem } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { contains, exprKey, mapChildren } from './expr-tools.js';
import { isAggregateCall } from './grouping.js';
import { and, conjuncts } from './join-planner.js';

type ScalarSubquery = Extract<Expr, { kind: 'scalar-subquery' }>;

const isScalarSubquery = (e: Expr): e is ScalarSubquery => e.kind === 'scalar-subquery';

const aggregateOrOver = (e: Expr): boolean => (e.kind === 'call' && e.over) || isAggregateCall(e);

/** Whether the SELECT aggregates (GROUP BY, HAVING, an aggregate or OVER call): not rewritten. */
function aggregates(select: Select): boolean {
  return (
    select.groupBy.length > 0 ||
    select.having !== undefined ||
    select.items.some((i) => i.kind === 'expr' && contains(i.expr, aggregateOrOver))
  );
}

/**
 * `select` with each scalar subquery replaced by a column of a LEFT JOIN with the subquery
 * (hidden from `*`: its name starts with `$`); `select` itself when it has none. In an
 * aggregating query the subqueries of its WHERE clause and of its aggregate calls' arguments
 * join its FROM clause before the aggregation; those of its SELECT list and HAVING clause
 * join the aggregation's result (see {@link afterAggregation}).
 */
export function withScalarSubqueries(select: Select): Select {
  const found = [
    ...select.items.flatMap((i) => (i.kind === 'expr' ? [i.expr] : [])),
    ...(select.where === undefined ? [] : [select.where]),
    ...(select.having === undefined ? [] : [select.having]),
  ].some((e) => contains(e, isScalarSubquery));
  if (!found) return select;
  if (!aggregates(select)) {
    return joinedSubqueries(select, (replace) => ({
      items: select.items.map((i) => (i.kind === 'expr' ? { ...i, expr: replace(i.expr) } : i)),
      where: select.where === undefined ? undefined : replace(select.where),
    }));
  }
  // OVER windows and grouping sets beside a subquery: refused where the subquery is compiled.
  if (
    select.groupingSets !== undefined ||
    select.items.some(
      (i) => i.kind === 'expr' && contains(i.expr, (e) => e.kind === 'call' && e.over),
    )
  )
    return select;
  const withinAggregates = (replace: (e: Expr) => Expr) => {
    const inside = (e: Expr): Expr => (isAggregateCall(e) ? replace(e) : mapChildren(e, inside));
    return inside;
  };
  const before = joinedSubqueries(select, (replace) => ({
    items: select.items.map((i) =>
      i.kind === 'expr' ? { ...i, expr: withinAggregates(replace)(i.expr) } : i,
    ),
    where: select.where === undefined ? undefined : replace(select.where),
    having: select.having === undefined ? undefined : withinAggregates(replace)(select.having),
  }));
  const after = [
    ...before.items.flatMap((i) => (i.kind === 'expr' ? [i.expr] : [])),
    ...(before.having === undefined ? [] : [before.having]),
  ].some((e) => contains(e, isScalarSubquery));
  return after ? afterAggregation(before) : before;
}

/**
 * `select` with the scalar subqueries of the parts `rewrite` gives replaced by columns of
 * LEFT JOINs of its FROM clause with them (decorrelated when they read its columns).
 */
function joinedSubqueries(
  select: Select,
  rewrite: (replace: (e: Expr) => Expr) => Partial<Select>,
): Select {
  const outerNames = namesIn(select.from);
  const joins: { right: FromItem; on: Expr; at: Expr['at'] }[] = [];
  const replace = (e: Expr): Expr => {
    if (!isScalarSubquery(e)) return mapChildren(e, replace);
    const alias = `$subquery${joins.length}`;
    const column = `$scalar${joins.length}`;
    const value: Expr = { kind: 'column', path: [alias, column], at: e.at };
    const decorrelated = decorrelate(e, alias, column, outerNames);
    if (decorrelated !== undefined) {
      joins.push({ right: decorrelated.right, on: decorrelated.on, at: e.at });
      return decorrelated.countOf ? coalesceZero(value) : value;
    }
    joins.push({
      right: {
        kind: 'subquery',
        query: oneRowAtMost(e.query) ? e.query : singleValued(e.query, e.at),
        alias,
        columns: { names: [column], at: e.at },
        at: e.at,
      },
      on: { kind: 'boolean', value: true, at: e.at },
      at: e.at,
    });
    return value;
  };
  const parts = rewrite(replace);
  if (joins.length === 0) return select;
  let from: FromItem = select.from ?? oneRow(select.at);
  for (const { right, on, at } of joins)
    from = { kind: 'join', type: 'LEFT', left: from, right, on, at };
  return { ...select, ...parts, from };
}

/** The alias of an aggregation's result that subqueries of its SELECT list and HAVING join. */
const AGGREGATED = '$aggregated';

/**
 * An aggregating `select` whose SELECT list or HAVING clause holds scalar subqueries, as a
 * SELECT over its aggregation: the inner query groups and aggregates (each GROUP BY
 * expression and aggregate call a column of it), the outer one LEFT JOINs its rows with the
 * subqueries (an updating join when the aggregation updates), computes the SELECT list and
 * filters by the HAVING clause. This is the plan Flink's gives such a query. The outer query's
 * unnamed items keep the names they would have had. A subquery there that reads the outer
 * query's columns is refused: its decorrelation would have to go through the aggregation.
 */
function afterAggregation(select: Select): Select {
  const outer = namesIn(select.from);
  const refuseCorrelated = (e: Expr): void => {
    if (!isScalarSubquery(e)) {
      mapChildren(e, (child) => {
        refuseCorrelated(child);
        return child;
      });
      return;
    }
    const q = e.query;
    if (q.kind !== 'select' || q.from === undefined) return;
    const own = namesIn(q.from);
    const reads = [
      ...q.items.flatMap((i) => (i.kind === 'expr' ? [i.expr] : [])),
      ...(q.where === undefined ? [] : [q.where]),
    ].some((x) => readsOuter(x, outer, own));
    if (reads)
      sqlError(
        'a correlated scalar subquery in the SELECT list or HAVING clause of an aggregating query is not supported by Weir SQL yet',
        e.at,
      );
  };
  const column = (name: string, at: Expr['at']): Expr => ({
    kind: 'column',
    path: [AGGREGATED, name],
    at,
  });
  const keyNames = select.groupBy.map((g, k) => {
    const name = g.kind === 'column' ? (g.path[g.path.length - 1] as string) : undefined;
    const unique =
      name !== undefined &&
      select.groupBy.filter((o) => o.kind === 'column' && o.path[o.path.length - 1] === name)
        .length === 1;
    return unique ? name : `$key${k}`;
  });
  const keyOf = new Map(select.groupBy.map((g, k) => [exprKey(g), k]));
  const calls: Expr[] = [];
  const callOf = new Map<string, number>();
  const lift = (e: Expr): Expr => {
    if (isScalarSubquery(e)) {
      refuseCorrelated(e);
      return e;
    }
    const key = keyOf.get(exprKey(e));
    if (key !== undefined) return column(keyNames[key] as string, e.at);
    if (isAggregateCall(e)) {
      const text = exprKey(e);
      let i = callOf.get(text);
      if (i === undefined) {
        i = calls.length;
        calls.push(e);
        callOf.set(text, i);
      }
      return column(`$aggregate${i}`, e.at);
    }
    if (e.kind === 'column') {
      // `a` beside `GROUP BY t.a` (or the other way round): the one key of that name.
      const name = e.path[e.path.length - 1];
      const named = select.groupBy.flatMap((g, k) =>
        g.kind === 'column' && g.path[g.path.length - 1] === name ? [k] : [],
      );
      if (named.length === 1) return column(keyNames[named[0] as number] as string, e.at);
    }
    return mapChildren(e, lift);
  };
  const items = select.items.map((item, i): SelectItem => {
    if (item.kind !== 'expr') return item;
    const alias =
      item.alias ??
      (item.expr.kind === 'column'
        ? (item.expr.path[item.expr.path.length - 1] as string)
        : `EXPR$${i}`);
    return { ...item, expr: lift(item.expr), alias };
  });
  const having = select.having === undefined ? undefined : lift(select.having);
  const aggregation: Select = {
    ...select,
    distinct: false,
    having: undefined,
    items: [
      ...select.groupBy.map((g, k): SelectItem => ({ kind: 'expr', expr: g, alias: keyNames[k] })),
      ...calls.map((c, i): SelectItem => ({ kind: 'expr', expr: c, alias: `$aggregate${i}` })),
    ],
  };
  const over: Select = {
    kind: 'select',
    distinct: select.distinct,
    items,
    from: { kind: 'subquery', query: aggregation, alias: AGGREGATED, at: select.at },
    where: having,
    groupBy: [],
    having: undefined,
    at: select.at,
  };
  return withScalarSubqueries(over);
}

/** The names a FROM clause's columns can be qualified with (tables, aliases). */
function namesIn(from: FromItem | undefined): Set<string> {
  const names = new Set<string>();
  const visit = (f: FromItem): void => {
    if (f.kind === 'join') {
      visit(f.left);
      visit(f.right);
    } else if (f.kind === 'table') names.add(f.alias ?? f.name);
    else if (f.alias !== undefined) names.add(f.alias);
  };
  if (from !== undefined) visit(from);
  return names;
}

/** Whether `e` names a column qualified by one of `names` (and not by the subquery's own). */
function readsOuter(e: Expr, outer: ReadonlySet<string>, own: ReadonlySet<string>): boolean {
  return contains(
    e,
    (x) =>
      x.kind === 'column' &&
      x.path.length >= 2 &&
      outer.has(x.path[0] as string) &&
      !own.has(x.path[0] as string),
  );
}

/**
 * A correlated subquery of one aggregate, as the aggregate grouped by its side of the
 * correlating equalities (`right`, under `alias`, its value in `column`) and the join
 * condition (`on`); undefined when the subquery reads no outer column. Other correlated shapes
 * are refused.
 */
function decorrelate(
  subquery: ScalarSubquery,
  alias: string,
  column: string,
  outer: ReadonlySet<string>,
): { right: FromItem; on: Expr; countOf: boolean } | undefined {
  const q = subquery.query;
  if (q.kind !== 'select' || q.from === undefined) return undefined;
  const own = namesIn(q.from);
  const correlated =
    q.items.some((i) => i.kind === 'expr' && readsOuter(i.expr, outer, own)) ||
    (q.where !== undefined && readsOuter(q.where, outer, own));
  if (!correlated) return undefined;
  const refuse = (why: string): never =>
    sqlError(`a correlated scalar subquery ${why} is not supported by Weir SQL yet`, subquery.at);
  const item = q.items[0];
  if (
    q.items.length !== 1 ||
    item?.kind !== 'expr' ||
    q.groupBy.length > 0 ||
    q.having !== undefined ||
    q.distinct ||
    !contains(item.expr, isAggregateCall)
  )
    return refuse('other than one aggregate of its FROM (no GROUP BY)');
  if (readsOuter(item.expr, outer, own)) return refuse('whose SELECT reads outer columns');
  const keys: { inner: Expr; outer: Expr }[] = [];
  const rest: Expr[] = [];
  for (const part of conjuncts(q.where)) {
    if (!readsOuter(part, outer, own)) {
      rest.push(part);
      continue;
    }
    if (part.kind !== 'binary' || part.op !== '=')
      return refuse('whose WHERE ties it to the outer query other than by equalities');
    const [l, r] = [part.left, part.right];
    if (readsOuter(l, outer, own) && !readsOuter(r, outer, own)) keys.push({ inner: r, outer: l });
    else if (readsOuter(r, outer, own) && !readsOuter(l, outer, own))
      keys.push({ inner: l, outer: r });
    else return refuse('whose equality reads outer columns on both sides');
  }
  const keyNames = keys.map((_, i) => `$key${i}`);
  const grouped: Select = {
    ...q,
    items: [
      ...keys.map((k, i) => ({ kind: 'expr' as const, expr: k.inner, alias: keyNames[i] })),
      { kind: 'expr', expr: item.expr, alias: column },
    ],
    where: and(rest, q.at),
    groupBy: keys.map((k) => k.inner),
  };
  const on = and(
    keys.map(
      (k, i): Expr => ({
        kind: 'binary',
        op: '=',
        left: k.outer,
        right: { kind: 'column', path: [alias, keyNames[i] as string], at: subquery.at },
        at: subquery.at,
      }),
    ),
    subquery.at,
  ) as Expr;
  const countOf = item.expr.kind === 'call' && item.expr.name === 'COUNT';
  if (!countOf && contains(item.expr, (x) => x.kind === 'call' && x.name === 'COUNT'))
    return refuse('with a COUNT inside an expression');
  return {
    right: { kind: 'subquery', query: grouped, alias, at: subquery.at },
    on,
    countOf,
  };
}

/** Whether `q` gives one row at most: an aggregate without GROUP BY, or a SELECT without FROM. */
function oneRowAtMost(q: Query): boolean {
  if (q.kind !== 'select') return false;
  if (q.from === undefined) return true;
  return (
    q.groupBy.length === 0 &&
    q.groupingSets === undefined &&
    q.items.length > 0 &&
    q.items.every((i) => i.kind === 'expr' && contains(i.expr, isAggregateCall))
  );
}

/**
 * `SELECT SINGLE_VALUE(v) FROM (q) AS $single(v)`: the value of `q`'s one row, failing the
 * job when it gives more than one, as Flink's plan does (its SingleValueAggFunction).
 */
function singleValued(q: Query, at: Expr['at']): Query {
  return {
    kind: 'select',
    distinct: false,
    items: [
      {
        kind: 'expr',
        expr: {
          kind: 'call',
          name: SINGLE_VALUE,
          args: [{ kind: 'column', path: ['$single', '$value'], at }],
          star: false,
          distinct: false,
          filter: undefined,
          over: false,
          at,
        },
        alias: undefined,
      },
    ],
    from: { kind: 'subquery', query: q, alias: '$single', columns: { names: ['$value'], at }, at },
    where: undefined,
    groupBy: [],
    having: undefined,
    at,
  };
}

/** `COALESCE(e, 0)`: a correlated COUNT over no rows is 0, not the LEFT join's NULL. */
function coalesceZero(e: Expr): Expr {
  return {
    kind: 'call',
    name: 'COALESCE',
    args: [e, { kind: 'number', text: '0', at: e.at }],
    star: false,
    distinct: false,
    filter: undefined,
    over: false,
    at: e.at,
  };
}

/** `VALUES ()`: one row of no columns (the FROM of a SELECT that has none, Calcite's). */
export function oneRow(at: Select['at']): FromItem {
  return {
    kind: 'subquery',
    query: { kind: 'values', rows: [[]], at },
    alias: undefined,
    at,
  };
}
