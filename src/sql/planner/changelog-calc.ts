/**
 * Filters, projections and UNION ALL over changing rows, and SELECT DISTINCT (a GROUP BY of
 * every selected column). A WHERE over a retract changelog drops every change of a row it
 * rejects; the projection maps each change's row and keeps its kind.
 */
import type { Row } from '../connectors/connector.js';
import { castTo } from '../expressions/cast.js';
import { CodeGen } from '../expressions/code-gen.js';
import { compilePredicate, compileProjection } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Select } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { commonType, formatType, type LogicalType } from '../types/logical-type.js';
import { changesOf, projectedKey, retracting, updatingRelation } from './changelog-relation.js';
import { contains, passedThrough } from './expr-tools.js';
import { isAggregateCall, selectList } from './grouping.js';
import type { Relation } from './relation.js';

/** WHERE and the SELECT list over a changing relation. */
export function planChangelogCalc(select: Select, from: Relation): Relation {
  const scope = new Scope(from.columns);
  if (select.where !== undefined && contains(select.where, isAggregateCall))
    sqlError('aggregates are not allowed in WHERE', select.where.at);
  let changes = changesOf(from);
  if (select.where !== undefined)
    changes = changes.filterRows(compilePredicate(select.where, scope, 'WHERE condition'));
  const items = selectList(select, from.columns);
  const { fn, types } = compileProjection(
    items.map((i) => i.expr),
    scope,
  );
  // `SELECT *` (the columns as they are) keeps an upsert changelog and its key; any other
  // projection may drop or rewrite the key, so an upsert input is normalized first.
  const sources = passedThrough(items, scope);
  const columns = items.map(
    (item, i): ScopeColumn => ({
      name: item.name,
      type: types[i] as LogicalType,
      qualifier: undefined,
      // A column passed through stays the event-time attribute (a versioned table's time).
      rowtime: sources[i] !== undefined && from.columns[sources[i]]?.rowtime === true,
    }),
  );
  const identity = items.length === from.columns.length && sources.every((k, i) => k === i);
  const key = projectedKey(from.upsertKey, sources);
  if (identity) return updatingRelation(changes, columns, 'SELECT', key);
  return updatingRelation(retracting(changes).mapRows(fn), columns, 'SELECT', key);
}

/** `SELECT DISTINCT items` as `SELECT items GROUP BY items`. */
export function distinctAsGroupBy(select: Select, from: Relation): Select {
  if (
    select.groupBy.length > 0 ||
    select.items.some((i) => i.kind === 'expr' && contains(i.expr, isAggregateCall))
  )
    return sqlError(
      'SELECT DISTINCT with GROUP BY or aggregates is not supported by Weir SQL yet',
      select.at,
    );
  return {
    ...select,
    distinct: false,
    groupBy: selectList(select, from.columns).map((item) => item.expr),
  };
}

/** UNION ALL where either side changes: the union of both changelogs, columns cast to common types. */
export function unionAllChanges(
  left: Relation,
  right: Relation,
  at: SourcePosition,
  what = 'UNION ALL',
): Relation {
  if (left.columns.length !== right.columns.length)
    sqlError(`${what} of ${left.columns.length} and ${right.columns.length} columns`, at);
  const types = left.columns.map((c, i) => {
    const r = right.columns[i] as ScopeColumn;
    const t = commonType([c.type, r.type]);
    if (t === undefined)
      return sqlError(
        `${what} column ${i + 1}: ${formatType(c.type)} and ${formatType(r.type)} have no common type`,
        at,
      );
    return t;
  });
  const conform = (rel: Relation) => {
    const changes = retracting(changesOf(rel));
    if (rel.columns.every((c, i) => formatType(c.type) === formatType(types[i] as LogicalType)))
      return changes;
    const g = new CodeGen();
    const codes = rel.columns.map(
      (c, i) =>
        castTo(g, { code: `r[${i}]`, type: c.type }, types[i] as LogicalType, false, at).code,
    );
    return changes.mapRows(g.function<(r: Row) => Row>(`return [${codes.join(', ')}];`));
  };
  const columns = left.columns.map((c, i) => ({
    name: c.name,
    type: types[i] as LogicalType,
    qualifier: undefined,
    rowtime: false,
  }));
  return updatingRelation(conform(left).union(conform(right)), columns, what);
}
