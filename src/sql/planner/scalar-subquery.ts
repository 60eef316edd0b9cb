/**
 * Uncorrelated scalar subqueries, `(SELECT MAX(price) FROM bid)` used as a value in a SELECT
 * list or a WHERE clause, rewritten as Flink's planner does: the FROM clause LEFT JOINed (ON
 * TRUE) with the subquery's result, whose one column replaces the subquery. The join has no
 * key, so it runs at one key on one subtask and keeps both sides, as Flink's does; the
 * subquery's row may change (an aggregate over a stream), and the join then updates every
 * row it was paired with. An empty subquery gives NULL (the LEFT join's padding).
 *
 * Not done: a correlated subquery (one that reads columns of the outer query), which Flink
 * decorrelates into a join on the correlated columns; a subquery in a query with GROUP BY,
 * aggregates or OVER windows (refused where it is compiled); and Flink's run-time check that
 * the subquery yields at most one row.
 */
import type { Expr, FromItem, Select } from '../parser/ast.js';
import { contains, mapChildren } from './expr-tools.js';
import { isAggregateCall } from './grouping.js';

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
 * `select` with each scalar subquery of its SELECT list and WHERE clause replaced by a column
 * of a LEFT JOIN of its FROM clause with the subquery (hidden from `*`: its name starts with
 * `$`); `select` itself when it has none, or aggregates (see the module comment).
 */
export function withScalarSubqueries(select: Select): Select {
  const found = [
    ...select.items.flatMap((i) => (i.kind === 'expr' ? [i.expr] : [])),
    ...(select.where === undefined ? [] : [select.where]),
  ].some((e) => contains(e, isScalarSubquery));
  if (!found || aggregates(select)) return select;
  const joined: { alias: string; column: string; subquery: ScalarSubquery }[] = [];
  const replace = (e: Expr): Expr => {
    if (!isScalarSubquery(e)) return mapChildren(e, replace);
    const n = joined.length;
    const entry = { alias: `$subquery${n}`, column: `$scalar${n}`, subquery: e };
    joined.push(entry);
    return { kind: 'column', path: [entry.alias, entry.column], at: e.at };
  };
  const items = select.items.map((i) => (i.kind === 'expr' ? { ...i, expr: replace(i.expr) } : i));
  const where = select.where === undefined ? undefined : replace(select.where);
  let from: FromItem = select.from ?? oneRow(select.at);
  for (const { alias, column, subquery } of joined) {
    from = {
      kind: 'join',
      type: 'LEFT',
      left: from,
      right: {
        kind: 'subquery',
        query: subquery.query,
        alias,
        columns: { names: [column], at: subquery.at },
        at: subquery.at,
      },
      on: { kind: 'boolean', value: true, at: subquery.at },
      at: subquery.at,
    };
  }
  return { ...select, items, where, from };
}

/** `VALUES ()`: one row of no columns, the FROM of a SELECT that has none. */
function oneRow(at: Select['at']): FromItem {
  return {
    kind: 'subquery',
    query: { kind: 'values', rows: [[]], at },
    alias: undefined,
    at,
  };
}
