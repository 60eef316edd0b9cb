/**
 * Joins whose output rows are written from the two joined rows by generated code: a condition
 * on a pair, and the projection of a SELECT over the join fused into the join's row builder
 * (`[l[0], l[3], d[1]]`), so that no joined row of every column is built only to be tested or
 * projected (lookup joins, Nexmark q13; inner regular joins of insert-only inputs, q9 and q20).
 */
import type { DataStream } from '../../api/streams.js';
import type { Row } from '../connectors/connector.js';
import { CodeGen } from '../expressions/code-gen.js';
import { compile } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { type Calc, calcBody, FusingRelation } from './calc.js';
import { concatenation } from './row-builders.js';

/** How a join writes its output row from the left row and the right one (or NULLs). */
export type JoinedRow = (l: Row, d: Row) => Row;

/** Reads of the joined row's columns from the left row `l` and the right row `d`. */
function twoRowReads(
  g: CodeGen,
  leftWidth: number,
): (column: number, field: number | undefined) => string {
  return (column, field) => {
    const value = column < leftWidth ? `l[${column}]` : `d[${column - leftWidth}]`;
    if (field === undefined) return value;
    const t = g.temp();
    return `((${t} = ${value}) === null ? null : ${t}[${field}])`;
  };
}

/** The conditions (over the joined row's `scope`) as a function of the two rows. */
export function twoRowPredicate(
  parts: readonly Expr[],
  scope: Scope,
  leftWidth: number,
): (l: Row, d: Row) => boolean {
  const g = new CodeGen();
  const read = twoRowReads(g, leftWidth);
  const conjunction = parts.reduce(
    (l, r): Expr => ({ kind: 'binary', op: 'AND', left: l, right: r, at: l.at }),
  );
  const test = compile(conjunction, { scope, g, read }).code;
  return g.function<(l: Row, d: Row) => boolean>(`return (${test}) === true;`, 'l, d');
}

/**
 * A join not yet built: `join` builds it with a row builder, by default the concatenation of
 * the two rows; a filter-free projection over it becomes the row builder instead.
 */
export class TwoRowJoinRelation extends FusingRelation {
  private built: DataStream<Row> | undefined;

  constructor(
    readonly columns: readonly ScopeColumn[],
    private readonly join: (rows: JoinedRow) => DataStream<Row>,
    private readonly leftWidth: number,
  ) {
    super();
  }

  /** The joined rows, the left's columns then the right's (built once). */
  get stream(): DataStream<Row> {
    this.built ??= this.join(concatenation(this.leftWidth, this.columns.length - this.leftWidth));
    return this.built;
  }

  /** Another join operator writing `calc`'s rows, when `calc` filters nothing out. */
  fuse(calc: Calc): DataStream<Row> | undefined {
    if (calc.where.length > 0) return undefined;
    const g = new CodeGen();
    const read = twoRowReads(g, this.leftWidth);
    const body = calcBody(calc, { scope: new Scope(calc.inputColumns), g, read });
    return this.join(g.function<JoinedRow>(body, 'l, d'));
  }
}
