/**
 * The arguments of a call of a TypeScript function (aggregate or table function) for one row,
 * each converted to its declared type as an implicit cast would, in one generated function.
 */
import type { Row } from '../connectors/connector.js';
import { coerce } from '../expressions/cast.js';
import { CodeGen } from '../expressions/code-gen.js';
import { compile } from '../expressions/compile.js';
import type { Scope } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { formatType, type LogicalType } from '../types/logical-type.js';

export function compileArguments(
  name: string,
  args: readonly Expr[],
  declared: readonly LogicalType[],
  scope: Scope,
  at: SourcePosition,
): (row: Row) => never[] {
  if (args.length !== declared.length)
    sqlError(
      `${name} takes ${declared.length} arguments (${declared.map(formatType).join(', ')}), got ${args.length}`,
      at,
    );
  const g = new CodeGen();
  const codes = args.map((a, i) => {
    const c = compile(a, { scope, g });
    return coerce(g, c, declared[i] as LogicalType, a.at, `argument ${i + 1} of ${name}`).code;
  });
  return g.function<(row: Row) => never[]>(`return [${codes.join(', ')}];`);
}
