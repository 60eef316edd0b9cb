/** Building a plain call node (no DISTINCT, FILTER or OVER), for syntax that stands for a call. */
import type { SourcePosition } from '../sql-error.js';
import type { Expr } from './ast.js';

export type Call = Extract<Expr, { kind: 'call' }>;

/** `name(args)` as a call of a scalar function. */
export function plainCall(name: string, args: Expr[], at: SourcePosition): Call {
  return {
    kind: 'call',
    name,
    args,
    star: false,
    distinct: false,
    filter: undefined,
    over: false,
    at,
  };
}
