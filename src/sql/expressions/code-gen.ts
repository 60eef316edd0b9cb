/**
 * Building the JavaScript source of compiled expressions: a compiled expression is a source
 * fragment reading the row `r`, using temporaries `t1, t2, ...`, the run-time library `h` and
 * constants `c[i]`. {@link CodeGen.function} turns fragments into one function, once per query.
 */
import { type Runtime, runtime } from './runtime.js';

export interface Compiled {
  readonly code: string;
  readonly type: import('../types/logical-type.js').LogicalType;
}

export class CodeGen {
  private temps = 0;
  readonly constants: unknown[] = [];

  /** A fresh temporary variable. */
  temp(): string {
    this.temps++;
    return `t${this.temps}`;
  }

  /** A constant (a RegExp, a big value) the code reads as `c[i]`. */
  constant(value: unknown): string {
    this.constants.push(value);
    return `c[${this.constants.length - 1}]`;
  }

  /**
   * `body` (a statement list ending in `return`) as a function of the row `r`, or of the
   * parameters `params` (a lookup join's row builder reads its two rows `l` and `d`).
   */
  function<F>(body: string, params = 'r'): F {
    const declarations =
      this.temps === 0
        ? ''
        : `let ${Array.from({ length: this.temps }, (_, i) => `t${i + 1}`).join(', ')};`;
    const source = `"use strict"; return function compiled(${params}) { ${declarations} ${body} };`;
    // One Function per query part (a projection, a filter): built at plan time, never per row.
    const factory = new Function('h', 'c', source) as (h: Runtime, c: unknown[]) => F;
    return factory(runtime, this.constants);
  }
}

/** `code` evaluated once into a temporary, then `body(temp)`, or NULL when it is NULL. */
export function nullSafe(
  g: CodeGen,
  values: readonly Compiled[],
  body: (vars: string[]) => string,
): string {
  const vars: string[] = [];
  const tests: string[] = [];
  const assigns: string[] = [];
  for (const v of values) {
    const t = g.temp();
    vars.push(t);
    if (v.type.nullable) tests.push(`(${t} = ${v.code}) === null`);
    else assigns.push(`(${t} = ${v.code})`);
  }
  const inner = body(vars);
  const prefix = assigns.length === 0 ? '' : `${assigns.join(', ')}, `;
  if (tests.length === 0) return `(${prefix}${inner})`;
  return `(${prefix}${tests.join(' || ')} ? null : ${inner})`;
}
