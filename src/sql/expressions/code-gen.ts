/**
 * Building the JavaScript source of compiled expressions: a compiled expression is a source
 * fragment reading the row `r`, using temporaries `t1, t2, ...`, the run-time library `h` and
 * constants `c[i]`. {@link CodeGen.function} turns fragments into one function, once per query.
 */
import { type SourcePosition, sqlError } from '../sql-error.js';
import { type Runtime, runtime } from './runtime.js';

export interface Compiled {
  readonly code: string;
  readonly type: import('../types/logical-type.js').LogicalType;
}

/**
 * The current watermark of the operator that runs a compiled function reading it
 * (`CURRENT_WATERMARK`): the operator sets `value` before each call (NULL before the first
 * watermark), see planner/calc.ts.
 */
export interface WatermarkCell {
  value: number | null;
}

/** `watermark` (an operator's, -Infinity before the first) as CURRENT_WATERMARK gives it. */
export function watermarkValue(watermark: number): number | null {
  return Number.isFinite(watermark) ? watermark : null;
}

export class CodeGen {
  private temps = 0;
  readonly constants: unknown[] = [];
  /** The watermark the code reads, and where CURRENT_WATERMARK first asks for it. */
  private watermarkCell: { readonly cell: WatermarkCell; readonly at: SourcePosition } | undefined;
  private watermarkTaken = false;

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
   * The code of the current watermark of the operator that runs the function (epoch
   * milliseconds, NULL before the first one), for CURRENT_WATERMARK at `at`. Only an operator
   * that gives the function its watermark may build it (see {@link takeWatermark}).
   */
  watermark(at: SourcePosition): string {
    if (this.watermarkCell === undefined) this.watermarkCell = { cell: { value: null }, at };
    const index = this.constants.indexOf(this.watermarkCell.cell);
    return `${index < 0 ? this.constant(this.watermarkCell.cell) : `c[${index}]`}.value`;
  }

  /**
   * The cell the code reads the watermark from, if it reads it: the caller runs the function
   * in an operator that sets the cell to its current watermark before each call (or only
   * checks the code). Without this, {@link function} refuses code that reads the watermark.
   */
  takeWatermark(): WatermarkCell | undefined {
    this.watermarkTaken = true;
    return this.watermarkCell?.cell;
  }

  /**
   * `body` (a statement list ending in `return`) as a function of the row `r`, or of the
   * parameters `params` (a lookup join's row builder reads its two rows `l` and `d`).
   */
  function<F>(body: string, params = 'r'): F {
    if (this.watermarkCell !== undefined && !this.watermarkTaken)
      sqlError(
        'CURRENT_WATERMARK here is not supported by Weir SQL yet: it is in the SELECT list and the WHERE, GROUP BY and HAVING clauses of a query over insert-only rows (not over a changelog, in a window TVF aggregation, a join condition or a table definition)',
        this.watermarkCell.at,
      );
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
