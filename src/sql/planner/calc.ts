/**
 * A filter and a projection not yet turned into operators (Flink's Calc): a SELECT over a view
 * or subquery that is itself a filter and projection is folded into it, so the chain
 * `WHERE`, `SELECT`, view, `SELECT` becomes one operator and one row per record.
 */
import type { DataStream } from '../../api/streams.js';
import type { Collector, ProcessFunction } from '../../core/functions.js';
import type { Row } from '../connectors/connector.js';
import { CodeGen, type WatermarkCell, watermarkValue } from '../expressions/code-gen.js';
import { shareRepeatedSubexpressions } from '../expressions/common-subexpressions.js';
import { type CompileContext, compile } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { formatType, type LogicalType } from '../types/logical-type.js';
import { contains, mapChildren } from './expr-tools.js';
import type { Relation, WindowProperties } from './relation.js';
import { SourceRelation } from './source-reads.js';

/**
 * An operator that can write a filter and projection's rows itself, in place of its own output
 * rows (a lookup join's row builder, lookup-join-planner.ts), so that no row is built only to
 * be projected. `fuse` gives undefined for a calc it cannot take; `stream` is its own rows.
 */
export abstract class FusingRelation implements Relation {
  abstract readonly columns: readonly ScopeColumn[];
  abstract readonly stream: DataStream<Row>;
  abstract fuse(calc: Calc): DataStream<Row> | undefined;
}

export interface Calc {
  /**
   * The input's rows; a source table is read through it so that it learns what is read, and
   * an operator that can build the calc's rows is given the calc.
   */
  readonly input: DataStream<Row> | SourceRelation | FusingRelation;
  readonly inputColumns: readonly ScopeColumn[];
  /** Conditions over the input (positional column references), all of which must hold. */
  readonly where: readonly Expr[];
  /** The output columns' expressions over the input. */
  readonly project: readonly Expr[];
}

/** A reference to the input's column `index` (and fields below it) that no name can shadow. */
export function positional(index: number, fields: readonly string[], at: Expr['at']): Expr {
  return { kind: 'column', path: [`#${index}`, ...fields], at };
}

export class CalcRelation implements Relation {
  readonly types: readonly LogicalType[];

  constructor(
    readonly calc: Calc,
    readonly columns: readonly ScopeColumn[],
    private readonly shared: { stream?: DataStream<Row> } = {},
    readonly windowed?: WindowProperties,
    readonly windowEndsAt?: readonly number[],
  ) {
    const g = new CodeGen();
    const scope = new Scope(calc.inputColumns);
    this.types = calc.project.map((e) => compile(e, { scope, g }).type);
  }

  withColumns(columns: readonly ScopeColumn[]): CalcRelation {
    return new CalcRelation(this.calc, columns, this.shared, this.windowed, this.windowEndsAt);
  }

  /** The operator, built on first use (once for all copies under other aliases). */
  get stream(): DataStream<Row> {
    if (this.shared.stream === undefined) this.shared.stream = build(this.calc);
    return this.shared.stream;
  }
}

function isIdentity(calc: Calc): boolean {
  return (
    calc.where.length === 0 &&
    calc.project.length === calc.inputColumns.length &&
    calc.project.every(
      (e, i) => e.kind === 'column' && e.path.length === 1 && e.path[0] === `#${i}`,
    )
  );
}

function build(calc: Calc): DataStream<Row> {
  // A source table's scan runs the filter and projection in its own generated function.
  if (calc.input instanceof SourceRelation) return calc.input.filterAndProject(calc);
  // CURRENT_WATERMARK is the calc's own input watermark: not fused into the operator before it.
  const fused =
    calc.input instanceof FusingRelation && !readsWatermark(calc)
      ? calc.input.fuse(calc)
      : undefined;
  if (fused !== undefined) return fused;
  const input = calc.input instanceof FusingRelation ? calc.input.stream : calc.input;
  if (isIdentity(calc)) return input;
  const g = new CodeGen();
  const body = calcBody(calc, { scope: new Scope(calc.inputColumns), g });
  const watermark = g.takeWatermark();
  if (watermark !== undefined)
    return input
      .process(watermarkCalc(g.function<(r: Row) => Row | undefined>(body), watermark))
      .name(calc.where.length === 0 ? 'select' : 'where, select');
  if (calc.where.length === 0) return input.map(g.function<(r: Row) => Row>(body)).name('select');
  return input
    .flatMap(collectDefined(g.function<(r: Row) => Row | undefined>(body)))
    .name('where, select');
}

/**
 * The rows of `stream` for which `where` (over `scope`) is TRUE: a filter, or a process
 * function when the condition reads CURRENT_WATERMARK (see {@link watermarkCalc}).
 */
export function whereFilter(stream: DataStream<Row>, where: Expr, scope: Scope): DataStream<Row> {
  const g = new CodeGen();
  const c = compile(where, { scope, g });
  if (c.type.kind !== 'BOOLEAN' && c.type.kind !== 'NULL')
    sqlError(`WHERE condition must be BOOLEAN, got ${formatType(c.type)}`, where.at);
  const watermark = g.takeWatermark();
  const test = g.function<(r: Row) => boolean>(`return (${c.code}) === true;`);
  if (watermark === undefined) return stream.filter(test).name('where');
  return stream
    .process(watermarkCalc((r: Row) => (test(r) ? r : undefined), watermark))
    .name('where');
}

/** Whether the calc calls CURRENT_WATERMARK. */
export function readsWatermark(calc: Pick<Calc, 'where' | 'project'>): boolean {
  return [...calc.where, ...calc.project].some((e) =>
    contains(e, (x) => x.kind === 'call' && x.name === 'CURRENT_WATERMARK'),
  );
}

/**
 * A filter and projection that reads CURRENT_WATERMARK (`fn`, compiled to read `cell`) as a
 * process function: before each row, the cell gets the operator's current watermark, the last
 * one its input has sent (NULL before the first), as Flink's calc reads its own.
 */
export function watermarkCalc<T>(
  fn: (value: T) => Row | undefined,
  cell: WatermarkCell,
): ProcessFunction<T, Row> {
  return {
    processElement(value, ctx, out) {
      cell.value = watermarkValue(ctx.timerService.currentWatermark());
      const row = fn(value);
      if (row !== undefined) out.collect(row);
    },
  };
}

/**
 * The statements of a filter and projection: `return undefined;` for a row the conditions
 * drop, `return [...]` with the projected row otherwise.
 */
export function calcBody(calc: Pick<Calc, 'where' | 'project'>, ctx: CompileContext): string {
  shareRepeatedSubexpressions(ctx.g, ctx.scope, [...calc.where, ...calc.project]);
  const conditions = calc.where.map((w) => {
    const c = compile(w, ctx);
    if (c.type.kind !== 'BOOLEAN' && c.type.kind !== 'NULL')
      sqlError(`WHERE must be BOOLEAN, got ${formatType(c.type)}`, w.at);
    return `(${c.code}) !== true`;
  });
  const values = calc.project.map((e) => compile(e, ctx).code);
  const projection = `return [${values.join(', ')}];`;
  return conditions.length === 0
    ? projection
    : `if (${conditions.join(' || ')}) return undefined; ${projection}`;
}

/** `fn` as a flatMap function: its result when there is one. */
export function collectDefined<T, R>(
  fn: (value: T) => R | undefined,
): (value: T, out: Collector<R>) => void {
  return (value, out) => {
    const result = fn(value);
    if (result !== undefined) out.collect(result);
  };
}

/**
 * `e` (over `outer`, the calc's output columns) rewritten over the calc's input; undefined
 * when a reference cannot be inlined (a field of a computed ROW).
 */
/** Functions whose every call gives another value: a copy of one is not the same value. */
const RANDOM_FUNCTIONS: ReadonlySet<string> = new Set(['RAND', 'RAND_INTEGER', 'UUID']);

/**
 * Whether inlining `exprs` (over `outer`, the calc's output) would copy a random call of the
 * calc into two places: `SELECT r + 5, r + 7 FROM (SELECT RAND() AS r ...)` must read one value
 * of `r` twice, so the two projections are not merged (as Flink refuses to since FLINK-20887).
 */
export function inliningCopiesRandom(exprs: readonly Expr[], outer: Scope, calc: Calc): boolean {
  const uses = new Map<number, number>();
  const visit = (x: Expr): Expr => {
    if (x.kind !== 'column') return mapChildren(x, visit);
    const { index } = outer.resolve(x.path, x.at);
    uses.set(index, (uses.get(index) ?? 0) + 1);
    return x;
  };
  for (const e of exprs) visit(e);
  return [...uses].some(
    ([index, n]) =>
      n > 1 &&
      contains(
        calc.project[index] as Expr,
        (x) => x.kind === 'call' && RANDOM_FUNCTIONS.has(x.name),
      ),
  );
}

export function inline(e: Expr, outer: Scope, calc: Calc): Expr | undefined {
  let ok = true;
  const visit = (x: Expr): Expr => {
    if (x.kind === 'column') {
      const r = outer.resolve(x.path, x.at);
      const inner = calc.project[r.index] as Expr;
      const fields = x.path.slice(x.path.length - r.fields.length);
      if (fields.length === 0) return inner;
      if (inner.kind === 'column')
        return { kind: 'column', path: [...inner.path, ...fields], at: x.at };
      ok = false;
      return x;
    }
    return mapChildren(x, visit);
  };
  const result = visit(e);
  return ok ? result : undefined;
}
