/** The key equalities of a join condition: `=`, and Flink's NULL-safe `IS NOT DISTINCT FROM`. */
import type { Expr } from '../parser/ast.js';

/** `a = b`, or `a IS NOT DISTINCT FROM b` (NULL-safe), as the two operands of a key equality. */
export function keyEquality(
  e: Expr,
): { readonly operands: readonly [Expr, Expr]; readonly nullSafe: boolean } | undefined {
  if (e.kind === 'binary' && e.op === '=') return { operands: [e.left, e.right], nullSafe: false };
  if (e.kind === 'call' && e.name === 'IS NOT DISTINCT FROM' && e.args.length === 2)
    return { operands: [e.args[0] as Expr, e.args[1] as Expr], nullSafe: true };
  return undefined;
}
