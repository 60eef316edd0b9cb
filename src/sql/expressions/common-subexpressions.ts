/**
 * Common subexpressions of one generated function, computed at most once per row. A text such
 * as Nexmark q21 names `LOWER(channel)` in five places and `REGEXP_EXTRACT(url, ...)` in two;
 * compiled naively, each place calls again. Before compiling a function's expressions,
 * {@link shareRepeatedSubexpressions} counts the deterministic subexpressions that occur more
 * than once; {@link compileShared} then compiles such a node once and wraps its code in a
 * temporary that is filled on first use: `(t === undefined ? (t = code) : t)`.
 *
 * Filling on first use (not before the function's body) keeps SQL's evaluation order: a
 * subexpression that sits in a CASE branch or behind AND/OR is evaluated only where the
 * original code would have evaluated it, so neither NULL results nor errors change. The
 * temporaries are the function's `let` variables, undefined at the start of every call, and a
 * compiled value is never undefined (SQL NULL is null), so the test is exact.
 */
import type { Expr } from '../parser/ast.js';
import { exprKey, mapChildren } from '../planner/expr-tools.js';
import type { CodeGen, Compiled } from './code-gen.js';
import type { Scope } from './scope.js';

/**
 * Built-in functions whose result depends on their arguments alone (no clock, no random, no
 * state), so two calls with the same arguments in one row give the same value. User functions
 * are left out: their determinism is not declared.
 */
const DETERMINISTIC_FUNCTIONS: ReadonlySet<string> = new Set([
  'LOWER',
  'UPPER',
  'INITCAP',
  'CHAR_LENGTH',
  'CHARACTER_LENGTH',
  'SUBSTRING',
  'SUBSTR',
  'TRIM',
  'LTRIM',
  'RTRIM',
  'CONCAT',
  'CONCAT_WS',
  'REPLACE',
  'POSITION',
  'SPLIT_INDEX',
  'REGEXP_EXTRACT',
  'REGEXP_REPLACE',
  'REGEXP',
  'PARSE_URL',
  'MOD',
  'ABS',
  'ROUND',
  'FLOOR',
  'CEIL',
  'CEILING',
  'YEAR',
  'QUARTER',
  'MONTH',
  'WEEK',
  'DAYOFYEAR',
  'DAYOFMONTH',
  'DAYOFWEEK',
  'HOUR',
  'MINUTE',
  'SECOND',
  'DATE_FORMAT',
]);

const ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*', '/', '%']);

/** What compile.ts compiles with (its CompileContext; named here to keep imports one way). */
interface Context {
  readonly scope: Scope;
  readonly g: CodeGen;
}

/** Per code generator: the scope its function reads and the keys of repeated subexpressions. */
interface Sharing {
  readonly scope: Scope;
  readonly repeated: ReadonlySet<string>;
  readonly compiled: Map<string, Compiled>;
}

const sharings = new WeakMap<CodeGen, Sharing>();

/** A node worth sharing: a call of a deterministic built-in, arithmetic, a CAST, an EXTRACT. */
function isCandidate(e: Expr): boolean {
  switch (e.kind) {
    case 'call':
      return (
        DETERMINISTIC_FUNCTIONS.has(e.name) &&
        !e.over &&
        !e.star &&
        !e.distinct &&
        e.filter === undefined
      );
    case 'binary':
      return ARITHMETIC.has(e.op);
    case 'cast':
    case 'extract':
      return true;
    default:
      return false;
  }
}

/** Whether every call below `e` (and `e` itself) is a deterministic built-in. */
export function isDeterministic(e: Expr): boolean {
  if (e.kind === 'call' && !DETERMINISTIC_FUNCTIONS.has(e.name)) return false;
  let ok = true;
  mapChildren(e, (child) => {
    if (ok && !isDeterministic(child)) ok = false;
    return child;
  });
  return ok;
}

/**
 * Marks the deterministic subexpressions that occur more than once in `exprs` (all compiled
 * with `g` over `scope` into one function) for sharing. A repeated node's own children are
 * not counted again: they are inside the shared value.
 */
export function shareRepeatedSubexpressions(
  g: CodeGen,
  scope: Scope,
  exprs: readonly Expr[],
): void {
  const counts = new Map<string, number>();
  const visit = (e: Expr): Expr => {
    if (isCandidate(e) && isDeterministic(e)) {
      const key = exprKey(e);
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      if (n > 1) return e;
    }
    // The compiler expands `x IN (a, b, c)` into one comparison per item and BETWEEN into two,
    // each compiling `x` again.
    if (e.kind === 'in') for (let i = 1; i < e.list.length; i++) visit(e.arg);
    if (e.kind === 'between') visit(e.arg);
    // `CASE x WHEN a ... WHEN b ...` compiles `x = a`, `x = b`: `x` once per WHEN.
    if (e.kind === 'case' && e.operand !== undefined)
      for (let i = 1; i < e.whens.length; i++) visit(e.operand);
    return mapChildren(e, visit);
  };
  for (const e of exprs) visit(e);
  const repeated = new Set<string>();
  for (const [key, n] of counts) if (n > 1) repeated.add(key);
  if (repeated.size > 0) sharings.set(g, { scope, repeated, compiled: new Map() });
}

/**
 * `e` compiled by `compileNode`, its value shared with the other occurrences in the function
 * when {@link shareRepeatedSubexpressions} found it repeated; undefined otherwise.
 */
export function compileShared(
  e: Expr,
  ctx: Context,
  compileNode: (e: Expr, ctx: Context) => Compiled,
): Compiled | undefined {
  const sharing = sharings.get(ctx.g);
  if (sharing === undefined || sharing.scope !== ctx.scope || !isCandidate(e)) return undefined;
  const key = exprKey(e);
  if (!sharing.repeated.has(key)) return undefined;
  const known = sharing.compiled.get(key);
  if (known !== undefined) return known;
  const c = compileNode(e, ctx);
  const t = ctx.g.temp();
  const shared: Compiled = {
    code: `(${t} === undefined ? (${t} = ${c.code}) : ${t})`,
    type: c.type,
  };
  sharing.compiled.set(key, shared);
  return shared;
}
