/**
 * What every built-in function module shares: the compiler signature of a function, its
 * argument checks (with the call's position), and calls of run-time helpers. A helper is handed
 * to the compiled code as a constant, so a function module needs no entry in runtime.ts.
 */
import { WeirError } from '../../../core/errors.js';
import type { Expr } from '../../parser/ast.js';
import { type SourcePosition, sqlError } from '../../sql-error.js';
import {
  formatType,
  isCharacterString,
  isInteger,
  isNumeric,
  type LogicalType,
} from '../../types/logical-type.js';
import { type CodeGen, type Compiled, nullSafe } from '../code-gen.js';
import { isBinaryString } from '../structured-cast.js';

export { isBinaryString };

/** Checks a call's arguments and returns the code of the call. */
export type FunctionCompiler = (
  args: Compiled[],
  g: CodeGen,
  at: SourcePosition,
  raw: readonly Expr[],
) => Compiled;

export function arity(
  name: string,
  args: readonly Compiled[],
  min: number,
  max: number,
  at: SourcePosition,
): void {
  if (args.length < min || args.length > max) {
    const expected =
      min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    sqlError(`${name} takes ${expected} argument${max === 1 ? '' : 's'}, got ${args.length}`, at);
  }
}

function requireKind(
  name: string,
  c: Compiled,
  at: SourcePosition,
  test: (t: LogicalType) => boolean,
  what: string,
): void {
  if (!test(c.type) && c.type.kind !== 'NULL')
    sqlError(`${name} needs ${what} argument, got ${formatType(c.type)}`, at);
}

export function requireString(name: string, c: Compiled, at: SourcePosition): void {
  requireKind(name, c, at, isCharacterString, 'a string');
}

export function requireNumeric(name: string, c: Compiled, at: SourcePosition): void {
  requireKind(name, c, at, isNumeric, 'a numeric');
}

export function requireInteger(name: string, c: Compiled, at: SourcePosition): void {
  requireKind(name, c, at, isInteger, 'an integer');
}

export function requireBinary(name: string, c: Compiled, at: SourcePosition): void {
  requireKind(name, c, at, isBinaryString, 'a BYTES');
}

export function anyNullable(args: readonly Compiled[]): boolean {
  return args.some((a) => a.type.nullable);
}

/** The code calling `helper` (a run-time function) on the given argument codes. */
export function helperCall(
  g: CodeGen,
  helper: (...args: never[]) => unknown,
  codes: readonly string[],
): string {
  return `${g.constant(helper)}(${codes.join(', ')})`;
}

/**
 * A function whose every argument is checked by `check` and whose result is `helper` of the
 * arguments, NULL when one of them is NULL. `nullable` says whether the helper itself may give
 * NULL for values that are not (an invalid regular expression, a missing URL part...).
 */
export function strictFunction(
  name: string,
  min: number,
  max: number,
  check: (c: Compiled, i: number, at: SourcePosition) => void,
  result: LogicalType,
  helper: (...args: never[]) => unknown,
): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, min, max, at);
    for (const [i, a] of args.entries()) check(a, i, at);
    const nullable = result.nullable || anyNullable(args);
    return {
      code: nullSafe(g, args, (vars) => helperCall(g, helper, vars)),
      type: { ...result, nullable } as LogicalType,
    };
  };
}

/** A function failing on a value (a job error naming the function and the value). */
export function functionFailed(name: string, message: string): never {
  throw new WeirError('USER_FUNCTION_FAILED', `${name}: ${message}`);
}
