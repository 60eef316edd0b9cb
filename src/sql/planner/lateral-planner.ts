/**
 * Joins with a TypeScript table function, as Flink writes them: `FROM t, LATERAL TABLE(fn(a))
 * AS T(x, y)`, `[CROSS | INNER] JOIN LATERAL TABLE(...) ON cond` (each row of `t` with each row
 * the function returns for it) and `LEFT JOIN LATERAL TABLE(...) ON TRUE` (a row the function
 * returns nothing for is padded with NULLs). One `flatMap` over the left rows, insert-only,
 * keeping the left side's time attributes, or over a changing left side a correlate of its
 * changes ({@link correlatedRelation}).
 */
import type { Change } from '../../core/changelog.js';
import type { Collector } from '../../core/functions.js';
import type { Row } from '../connectors/connector.js';
import { compilePredicate } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import { userTableFunction } from '../functions/user-functions.js';
import type { Expr, FromItem } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { changesOf, isUpdating, retracting, updatingRelation } from './changelog-relation.js';
import { compileArguments } from './function-arguments.js';
import type { Relation } from './relation.js';

type JoinItem = Extract<FromItem, { kind: 'join' }>;
type LateralItem = Extract<FromItem, { kind: 'lateral' }>;

export function isLateralJoin(item: JoinItem): item is JoinItem & { right: LateralItem } {
  return item.right.kind === 'lateral';
}

/**
 * What a join with rows computed per left row (LATERAL TABLE, UNNEST) allows, as Flink: CROSS,
 * INNER, or LEFT with ON TRUE, over an insert-only input. True for a LEFT join.
 */
export function checkCorrelatedJoin(item: JoinItem, what: string, article: string): boolean {
  if (item.type !== 'INNER' && item.type !== 'CROSS' && item.type !== 'LEFT')
    sqlError(`${article} is joined with CROSS, INNER or LEFT JOIN, not ${item.type}`, item.at);
  const outer = item.type === 'LEFT';
  if (outer && !(item.on?.kind === 'boolean' && item.on.value === true))
    sqlError(`LEFT JOIN ${what}(...) takes ON TRUE (as in Flink)`, item.on?.at ?? item.at);
  return outer;
}

/** The condition on each joined row: a comma join's WHERE, an INNER join's ON, none for LEFT. */
export function correlatedJoinCondition(
  item: JoinItem,
  where: Expr | undefined,
  scope: Scope,
): ((row: Row) => boolean) | undefined {
  const conditionExpr = item.type === 'CROSS' ? where : item.type === 'LEFT' ? undefined : item.on;
  return conditionExpr === undefined
    ? undefined
    : compilePredicate(
        conditionExpr,
        scope,
        item.type === 'CROSS' ? 'WHERE condition' : 'join condition',
      );
}

/** `where` is the SELECT's WHERE for a comma join, which this join then applies. */
export function planLateralJoin(
  item: JoinItem & { right: LateralItem },
  left: Relation,
  where: Expr | undefined,
): Relation {
  const call = item.right;
  const fn = userTableFunction(call.name);
  if (fn === undefined)
    return sqlError(
      `unknown table function ${call.name} (register one made with defineTableFunction)`,
      call.at,
    );
  const outer = checkCorrelatedJoin(item, 'LATERAL TABLE', 'a table function');
  if (call.columns !== undefined && call.columns.length !== fn.columns.length)
    sqlError(
      `${call.name} returns ${fn.columns.length} columns, but ${call.columns.length} names are given`,
      call.at,
    );
  const qualifier = call.alias ?? call.name;
  const columns: ScopeColumn[] = fn.columns.map((c, i) => ({
    name: call.columns?.[i] ?? c.name,
    type: c.type,
    qualifier,
    rowtime: false,
  }));
  const argsOf = compileArguments(
    call.name,
    call.args,
    fn.arguments,
    new Scope(left.columns),
    call.at,
  );
  const scope = new Scope([...left.columns, ...columns]);
  const condition = correlatedJoinCondition(item, where, scope);
  const width = fn.columns.length;
  const nulls: Row = new Array<unknown>(width).fill(null);
  const { rowResult, name } = fn;
  const evaluate = fn.eval as (...args: unknown[]) => Iterable<unknown>;
  const joinRows = (row: Row, out: Collector<Row>): void => {
    let any = false;
    for (const value of evaluate(...argsOf(row))) {
      if (rowResult && (!Array.isArray(value) || value.length !== width))
        throw new Error(
          `table function ${name} returned ${JSON.stringify(value)} for the row ${JSON.stringify(row)}; each row must be an array of ${width} values`,
        );
      const joined = rowResult ? [...row, ...(value as Row)] : [...row, value];
      if (condition !== undefined && !condition(joined)) continue;
      any = true;
      out.collect(joined);
    }
    if (outer && !any) out.collect([...row, ...nulls]);
  };
  return correlatedRelation(left, joinRows, `LATERAL TABLE(${name})`, scope.columns);
}

/**
 * The rows `joinRows` joins to each left row, as a relation. Over an insert-only left side, one
 * `flatMap` keeping its time attributes. Over a changing one, Flink's correlate over a
 * changelog: each change of an outer row becomes the same kind of change of each of its joined
 * rows, so a `-U`/`-D` retracts exactly the rows its `+I`/`+U` added (the joined rows are a
 * function of the outer row, as Flink assumes of table functions). Stateless; a retract
 * changelog without an upsert key, after normalizing an upsert input.
 */
export function correlatedRelation(
  left: Relation,
  joinRows: (row: Row, out: Collector<Row>) => void,
  name: string,
  columns: readonly ScopeColumn[],
): Relation {
  if (!isUpdating(left)) return { stream: left.stream.flatMap(joinRows).name(name), columns };
  const joinChanges = (change: Change<Row>, out: Collector<Change<Row>>): void => {
    const kind = change.kind;
    joinRows(change.value, { collect: (value: Row) => out.collect({ kind, value }) });
  };
  const changes = retracting(changesOf(left))
    .flatMap(joinChanges)
    .name(name)
    .asChangelog<Row>('retract');
  return updatingRelation(changes, columns, name);
}
