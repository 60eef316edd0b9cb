/**
 * DEFINE conditions and MEASURES of MATCH_RECOGNIZE as compiled functions. Everything that
 * reads the rows of a (partial) match (`A.price`, `FIRST(A.price, n)`, `LAST(price, n)`,
 * `AVG(A.price)`, `MATCH_ROWTIME()`) becomes a slot: a value computed from the match, read by
 * the rest of the expression as a column (`#i`). The rest is compiled once by the ordinary
 * expression compiler, so SQL semantics (NULLs, types, casts) stay in one place.
 *
 * Navigation follows Flink (after Calcite's rewriting): `A.price` is `LAST(A.price, 0)`, the
 * last row mapped to A; a column without a variable means every row of the match (in DEFINE
 * the row being tested is the last of them). In DEFINE the row being tested counts as a row of
 * the variable being defined.
 */
import type { Row } from '../connectors/connector.js';
import { CodeGen } from '../expressions/code-gen.js';
import { compile, compileScalar } from '../expressions/compile.js';
import { AGGREGATE_FUNCTIONS } from '../expressions/functions.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import { userAggregate } from '../functions/user-functions.js';
import type { Expr } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { formatType, type LogicalType, withNullability } from '../types/logical-type.js';
import { rowAggregate } from './aggregates.js';
import { exprKey, mapChildren } from './expr-tools.js';

/** Every row of the match, in pattern order (Calcite's universal pattern variable). */
export const ALL_ROWS = '*';

/**
 * What a slot reads: the rows of the match so far, by variable, oldest first. Rows are read
 * by position so that no list is copied per evaluation (a long loop would make it quadratic).
 */
export interface MatchView {
  /** How many rows are mapped to `variable` (or to any variable, for {@link ALL_ROWS}). */
  count(variable: string): number;
  /** The `index`-th row mapped to `variable`, oldest first. */
  row(variable: string, index: number): Row | undefined;
  /** The match's time (MATCH_ROWTIME). */
  readonly timestamp: number;
  processingTime(): number;
}

interface Slot {
  readonly type: LogicalType;
  readonly rowtime: boolean;
  read(view: MatchView): unknown;
}

/** An expression over a match, compiled. */
export interface MatchExpression {
  readonly type: LogicalType;
  /** Whether its value is the match's time attribute (MATCH_ROWTIME()). */
  readonly rowtime: boolean;
  evaluate(view: MatchView): unknown;
}

export interface MatchScope {
  /** The input relation's columns. */
  readonly input: readonly ScopeColumn[];
  /** The pattern variables, in pattern order. */
  readonly variables: readonly string[];
  /** The variable a DEFINE condition is for; undefined in MEASURES. */
  readonly defining: string | undefined;
  /** Whether MATCH_ROWTIME() is an event-time attribute: not when ordered by processing time. */
  readonly rowtimeAttribute?: boolean;
}

const NAVIGATION = new Set(['FIRST', 'LAST', 'PREV', 'NEXT']);

/** A built-in aggregate or a registered aggregate function (weightedAvg(price, weight)). */
const isAggregate = (name: string): boolean =>
  AGGREGATE_FUNCTIONS.has(name) || userAggregate(name) !== undefined;

/** The single pattern variable the columns of `exprs` name; ALL_ROWS if none does. */
function variableOf(
  exprs: readonly Expr[],
  at: SourcePosition,
  scope: MatchScope,
  what: string,
): string {
  const found = new Set<string>();
  const visit = (x: Expr): Expr => {
    if (x.kind === 'column') found.add(qualifierOf(x, scope) ?? ALL_ROWS);
    else if (x.kind === 'call' && (NAVIGATION.has(x.name) || isAggregate(x.name)))
      sqlError(`${x.name} cannot be nested inside ${what}`, x.at);
    return mapChildren(x, visit);
  };
  for (const e of exprs) visit(e);
  if (found.size > 1)
    sqlError(
      `${what} must refer to one pattern variable, got ${[...found].map((v) => (v === ALL_ROWS ? 'columns without a variable' : v)).join(' and ')}`,
      at,
    );
  return found.values().next().value ?? ALL_ROWS;
}

/** The pattern variable of `A.price`, or undefined for `price`. */
function qualifierOf(e: Extract<Expr, { kind: 'column' }>, scope: MatchScope): string | undefined {
  const [first] = e.path;
  return e.path.length > 1 && first !== undefined && scope.variables.includes(first)
    ? first
    : undefined;
}

/** `e` with pattern variables dropped from its columns, so it reads one input row. */
function stripVariables(e: Expr, scope: MatchScope): Expr {
  if (e.kind === 'column' && qualifierOf(e, scope) !== undefined)
    return { ...e, path: e.path.slice(1) };
  return mapChildren(e, (c) => stripVariables(c, scope));
}

function offsetOf(e: Expr | undefined, name: string): number {
  if (e === undefined) return 0;
  if (e.kind !== 'number' || !/^\d+$/.test(e.text))
    return sqlError(`the offset of ${name} must be a whole number literal`, e.at);
  return Number(e.text);
}

/** A slot reading `fn` of the row `offset` rows from the first or last row of `variable`. */
function navigationSlot(
  variable: string,
  fromFirst: boolean,
  offset: number,
  arg: Expr,
  scope: MatchScope,
): Slot {
  const { fn, type } = compileScalar(stripVariables(arg, scope), new Scope(scope.input));
  return {
    type: withNullability(type, true),
    rowtime: false,
    read(view) {
      const index = fromFirst ? offset : view.count(variable) - offset - 1;
      const row = index >= 0 ? view.row(variable, index) : undefined;
      return row === undefined ? null : fn(row);
    },
  };
}

function aggregateSlot(call: Extract<Expr, { kind: 'call' }>, scope: MatchScope): Slot {
  if (call.distinct)
    sqlError(`${call.name}(DISTINCT ...) is not supported in MATCH_RECOGNIZE`, call.at);
  if (call.filter !== undefined)
    sqlError('FILTER (WHERE ...) is not supported in MATCH_RECOGNIZE', call.at);
  const variable = variableOf(call.args, call.at, scope, call.name);
  const ast = {
    name: call.name,
    args: call.args.map((a) => stripVariables(a, scope)),
    star: call.star,
    distinct: false,
    filter: undefined,
    at: call.at,
  };
  const { fn, types } = rowAggregate([], [], [ast], new Scope(scope.input));
  return {
    type: types[0] as LogicalType,
    rowtime: false,
    read(view) {
      let acc = fn.createAccumulator();
      const n = view.count(variable);
      for (let i = 0; i < n; i++) acc = fn.add(view.row(variable, i) as Row, acc);
      return (fn.getResult(acc) as Row)[0];
    },
  };
}

/**
 * The type of MATCH_ROWTIME([column]), as Flink types it: TIMESTAMP(3) without an argument;
 * with one, which must name a rowtime attribute, that attribute's kind (a TIMESTAMP_LTZ
 * rowtime gives a TIMESTAMP_LTZ(3)).
 */
function matchRowtimeType(arg: Expr | undefined, scope: MatchScope): LogicalType {
  if (arg === undefined) return { kind: 'TIMESTAMP', nullable: false, precision: 3 };
  const path =
    arg.kind !== 'column' ? undefined : qualifierOf(arg, scope) ? arg.path.slice(1) : arg.path;
  const column =
    path === undefined
      ? undefined
      : scope.input[new Scope(scope.input).resolve(path, arg.at).index];
  if (column?.rowtime !== true)
    sqlError('MATCH_ROWTIME(...) takes a rowtime attribute column as its argument', arg.at);
  const kind = column.type.kind === 'TIMESTAMP_LTZ' ? 'TIMESTAMP_LTZ' : 'TIMESTAMP';
  return { kind, nullable: false, precision: 3 };
}

/** The slots of one expression; the same navigation or aggregate twice is one slot. */
class Slots {
  readonly list: Slot[] = [];
  private readonly byKey = new Map<string, number>();

  /** A column reading the slot `make()` builds, made once per distinct `source`. */
  ref(source: Expr, make: () => Slot): Expr {
    const key = exprKey(source);
    let index = this.byKey.get(key);
    if (index === undefined) {
      index = this.list.push(make()) - 1;
      this.byKey.set(key, index);
    }
    return { kind: 'column', path: [`#${index}`], at: source.at };
  }
}

function rewrite(e: Expr, scope: MatchScope, slots: Slots): Expr {
  if (e.kind === 'column') {
    const variable = qualifierOf(e, scope) ?? ALL_ROWS;
    return slots.ref(e, () => navigationSlot(variable, false, 0, e, scope));
  }
  if (e.kind !== 'call') return mapChildren(e, (c) => rewrite(c, scope, slots));
  const name = e.name;
  if (name === 'FIRST' || name === 'LAST' || name === 'PREV') {
    const [arg, offset] = e.args;
    if (arg === undefined || e.args.length > 2)
      sqlError(`${name} takes a column and an optional offset`, e.at);
    if (name === 'PREV')
      // Flink plans PREV as a physical offset within the partition, which it does not run.
      sqlError(
        'PREV is not supported in MATCH_RECOGNIZE (as in Flink SQL: no physical offsets within the partition); use LAST(A.col, n)',
        e.at,
      );
    const variable = variableOf([arg], arg.at, scope, name);
    return slots.ref(e, () =>
      navigationSlot(variable, name === 'FIRST', offsetOf(offset, name), arg, scope),
    );
  }
  if (name === 'NEXT')
    sqlError('NEXT is not supported in MATCH_RECOGNIZE (a stream cannot look ahead)', e.at);
  if (isAggregate(name)) return slots.ref(e, () => aggregateSlot(e, scope));
  if (name === 'MATCH_ROWTIME' || name === 'MATCH_PROCTIME') {
    if (scope.defining !== undefined) sqlError(`${name}() is only allowed in MEASURES`, e.at);
    const rowtime = name === 'MATCH_ROWTIME';
    if (e.args.length > (rowtime ? 1 : 0))
      sqlError(`${name}() takes ${rowtime ? 'at most one argument' : 'no arguments'}`, e.at);
    const type = rowtime
      ? matchRowtimeType(e.args[0], scope)
      : ({ kind: 'TIMESTAMP_LTZ', nullable: false, precision: 3 } as const);
    return slots.ref(e, () => ({
      type,
      rowtime: rowtime && scope.rowtimeAttribute !== false,
      read: (view) => (rowtime ? view.timestamp : view.processingTime()),
    }));
  }
  if (name === 'CLASSIFIER' || name === 'MATCH_NUMBER' || name === 'RUNNING' || name === 'FINAL')
    sqlError(`${name} is not supported in MATCH_RECOGNIZE by Weir SQL yet`, e.at);
  return mapChildren(e, (c) => rewrite(c, scope, slots));
}

/** Compiles a DEFINE condition or a measure over the rows of a match. */
export function compileMatchExpression(e: Expr, scope: MatchScope): MatchExpression {
  const slots = new Slots();
  const rewritten = rewrite(e, scope, slots);
  const list = slots.list;
  const columns = list.map((s, i) => ({
    name: `#${i}`,
    type: s.type,
    qualifier: undefined,
    rowtime: s.rowtime,
  }));
  const g = new CodeGen();
  const compiled = compile(rewritten, { scope: new Scope(columns), g });
  const fn = g.function<(values: unknown[]) => unknown>(`return ${compiled.code};`);
  const onlySlot = rewritten.kind === 'column' && list.length === 1 ? list[0] : undefined;
  // One array of slot values per expression, refilled each time (evaluation never nests).
  const values = new Array<unknown>(list.length);
  return {
    type: compiled.type,
    rowtime: onlySlot?.rowtime ?? false,
    evaluate(view) {
      for (let i = 0; i < list.length; i++) values[i] = (list[i] as Slot).read(view);
      return fn(values);
    },
  };
}

/** Compiles a DEFINE condition: a predicate that holds only when the condition is TRUE. */
export function compileMatchCondition(e: Expr, scope: MatchScope): (view: MatchView) => boolean {
  const c = compileMatchExpression(e, scope);
  if (c.type.kind !== 'BOOLEAN' && c.type.kind !== 'NULL')
    sqlError(
      `DEFINE ${scope.defining} must be a BOOLEAN condition, got ${formatType(c.type)}`,
      e.at,
    );
  return (view) => c.evaluate(view) === true;
}
