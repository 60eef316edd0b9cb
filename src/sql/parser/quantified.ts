/**
 * `x op ALL (query)` and `x op SOME (query)` (`ANY` is `SOME`): a comparison with every, or
 * some, row of a one-column query. Flink's planner (Calcite's) rewrites them into joins; Weir
 * rewrites them into the EXISTS and NOT EXISTS tests it plans as semi and anti joins, with the
 * comparison as the correlated condition. SQL's three values decide the form, as only a TRUE
 * test keeps a row:
 * - `x < ALL (q)` is TRUE when every comparison is: NOT EXISTS a `v` where `x < v` IS NOT TRUE;
 *   `NOT (x < ALL (q))` when one is FALSE: EXISTS a `v` where `x < v` IS FALSE.
 * - `x < SOME (q)` is TRUE when one comparison is: EXISTS a `v` where `x < v`;
 *   `NOT (x < SOME (q))` when every one is FALSE: NOT EXISTS a `v` where `x < v` IS NOT FALSE.
 */
import type { SourcePosition } from '../sql-error.js';
import type { Expr, Query } from './ast.js';

export type ComparisonOp = '=' | '<>' | '<=' | '>=' | '<' | '>';

type SubqueryTest = Extract<Expr, { kind: 'subquery-test' }>;

/** The query's rows under a name the outer query cannot hold. */
const ROWS = '$quantified';
const VALUE = '$value';

/** EXISTS (or NOT EXISTS) a row of `query` where `condition` holds of its value. */
function exists(query: Query, condition: Expr, negated: boolean, at: SourcePosition): SubqueryTest {
  const rows: Query = {
    kind: 'select',
    distinct: false,
    items: [{ kind: 'star', qualifier: undefined, at }],
    from: { kind: 'subquery', query, alias: ROWS, columns: { names: [VALUE], at }, at },
    where: condition,
    groupBy: [],
    having: undefined,
    at,
  };
  return { kind: 'subquery-test', test: 'EXISTS', values: [], query: rows, negated, at };
}

/** The test of `left op quantifier (query)` and the test of its negation. */
export function quantifiedComparison(
  left: Expr,
  op: ComparisonOp,
  quantifier: 'ALL' | 'SOME',
  query: Query,
  at: SourcePosition,
): { readonly test: SubqueryTest; readonly negation: SubqueryTest } {
  const right: Expr = { kind: 'column', path: [ROWS, VALUE], at };
  const compared: Expr = { kind: 'binary', op, left, right, at };
  const is = (test: 'TRUE' | 'FALSE'): Expr => ({
    kind: 'is',
    arg: compared,
    test,
    negated: quantifier === 'ALL' ? test === 'TRUE' : test === 'FALSE',
    at,
  });
  return quantifier === 'ALL'
    ? { test: exists(query, is('TRUE'), true, at), negation: exists(query, is('FALSE'), false, at) }
    : { test: exists(query, compared, false, at), negation: exists(query, is('FALSE'), true, at) };
}
