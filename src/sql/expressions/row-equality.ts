/**
 * ROW equality as Flink 2.2 plans it (checked against it by the differential suite):
 * `(a, b) = (c, d)` and `ROW(a, b) = ROW(c, d)` compare field by field, `a = c AND b = d`, so a
 * NULL field makes the result UNKNOWN unless another field decides it; `<>` compares the two
 * rows as values, NULL fields equal to each other, so it is never UNKNOWN: `a IS DISTINCT FROM
 * c OR b IS DISTINCT FROM d`. Rows of different widths are refused naming both.
 */
import type { Expr } from '../parser/ast.js';
import { plainCall } from '../parser/calls.js';
import { sqlError } from '../sql-error.js';

function rowFields(e: Expr): readonly Expr[] | undefined {
  return e.kind === 'call' && e.name === 'ROW' && e.over !== true ? e.args : undefined;
}

/** The field-wise form of `=` or `<>` between two row constructors; undefined for anything else. */
export function expandRowEquality(e: Extract<Expr, { kind: 'binary' }>): Expr | undefined {
  if (e.op !== '=' && e.op !== '<>') return undefined;
  const left = rowFields(e.left);
  const right = rowFields(e.right);
  if (left === undefined || right === undefined) return undefined;
  if (left.length !== right.length)
    sqlError(
      `cannot compare a ROW of ${left.length} fields with a ROW of ${right.length} fields (${e.op})`,
      e.at,
    );
  const { op, at } = e;
  const fields = left.map(
    (l, i): Expr =>
      op === '='
        ? { kind: 'binary', op, left: l, right: right[i] as Expr, at }
        : plainCall('IS DISTINCT FROM', [l, right[i] as Expr], at),
  );
  const join = op === '=' ? 'AND' : 'OR';
  return fields.reduce(
    (acc, next): Expr => ({ kind: 'binary', op: join, left: acc, right: next, at }),
  );
}
