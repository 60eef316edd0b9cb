/** Walking and comparing expression trees at plan time. */
import type { Scope } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';

/** `e` with each direct child replaced by `f(child)`. */
export function mapChildren(e: Expr, f: (child: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'unary':
      return { ...e, arg: f(e.arg) };
    case 'binary':
      return { ...e, left: f(e.left), right: f(e.right) };
    case 'is':
      return { ...e, arg: f(e.arg) };
    case 'between':
      return { ...e, arg: f(e.arg), low: f(e.low), high: f(e.high) };
    case 'in':
      return { ...e, arg: f(e.arg), list: e.list.map(f) };
    // The query is a scope of its own: only the values it is compared with are children.
    case 'subquery-test':
      return { ...e, values: e.values.map(f) };
    case 'like':
      return {
        ...e,
        arg: f(e.arg),
        pattern: f(e.pattern),
        escape: e.escape === undefined ? undefined : f(e.escape),
      };
    case 'case':
      return {
        ...e,
        operand: e.operand === undefined ? undefined : f(e.operand),
        whens: e.whens.map((w) => ({ when: f(w.when), result: f(w.result) })),
        otherwise: e.otherwise === undefined ? undefined : f(e.otherwise),
      };
    case 'cast':
      return { ...e, arg: f(e.arg) };
    case 'extract':
      return { ...e, arg: f(e.arg) };
    case 'item':
      return { ...e, base: f(e.base), index: f(e.index) };
    case 'field':
      return { ...e, base: f(e.base) };
    case 'call':
      return {
        ...e,
        args: e.args.map(f),
        filter: e.filter === undefined ? undefined : f(e.filter),
      };
    default:
      return e;
  }
}

/** Whether `e` contains a node for which `test` holds. */
export function contains(e: Expr, test: (node: Expr) => boolean): boolean {
  if (test(e)) return true;
  let found = false;
  mapChildren(e, (child) => {
    if (!found && contains(child, test)) found = true;
    return child;
  });
  return found;
}

/** A key equal for structurally equal expressions (positions ignored). */
export function exprKey(e: Expr): string {
  return JSON.stringify(e, (key, value) => (key === 'at' ? undefined : value));
}

/** Column references replaced by their resolved position, so `b.auction` and `auction` compare equal. */
export function normalizedKey(e: Expr, scope: Scope): string {
  const normalize = (x: Expr): Expr => {
    if (x.kind === 'column') {
      const r = scope.resolve(x.path, x.at);
      return {
        kind: 'column',
        path: [`#${r.index}`, ...r.fields.map((f) => String(f.index))],
        at: x.at,
      };
    }
    return mapChildren(x, normalize);
  };
  return exprKey(normalize(e));
}

/** For each SELECT item, the input column it passes through as it is (undefined: computed). */
export function passedThrough(
  items: readonly { readonly expr: Expr }[],
  scope: Scope,
): (number | undefined)[] {
  return items.map(({ expr }) => {
    if (expr.kind !== 'column') return undefined;
    const r = scope.resolve(expr.path, expr.at);
    return r.fields.length === 0 ? r.index : undefined;
  });
}
