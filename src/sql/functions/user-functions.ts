/**
 * TypeScript scalar functions in SQL: a function declares its argument and result SQL types
 * (`defineScalarFunction`), a table environment registers it by name (from TypeScript, or with
 * `CREATE FUNCTION name AS 'module.ts#export'`), and the expression compiler calls it as a
 * constant of the generated code, after converting each argument to its declared type.
 */

import { resolve } from 'node:path';
import { importUserModule } from '../../api/job-module/load-job-module.js';
import { DEFAULT_CATALOG, DEFAULT_DATABASE, objectName } from '../catalog/catalog.js';
import { coerce } from '../expressions/cast.js';
import type { CodeGen, Compiled } from '../expressions/code-gen.js';
import { parseDataType } from '../parser/parser.js';
import { type SourcePosition, SqlError, sqlError } from '../sql-error.js';
import { formatType, type LogicalType, withNullability } from '../types/logical-type.js';

/**
 * A scalar function for SQL. Values cross as rows hold them (docs/sql.md): DECIMAL is the
 * unscaled bigint, TIMESTAMP epoch ms, NULL `null` (the function is called with it).
 */
export interface ScalarFunction {
  readonly kind: 'scalar';
  /** The SQL types of the arguments, e.g. `['DECIMAL(10, 2)', 'INT']`. */
  readonly arguments: readonly string[];
  /** The SQL type of the result. */
  readonly result: string;
  readonly eval: (...args: never[]) => unknown;
}

/** A scalar function with its declared types (checked when it is registered). */
export function defineScalarFunction(spec: Omit<ScalarFunction, 'kind'>): ScalarFunction {
  return { kind: 'scalar', ...spec };
}

/**
 * An aggregate function for SQL (Flink's `AggregateFunction`): rows fold into an accumulator
 * with `accumulate`, called with the declared arguments' values (NULLs included). The
 * accumulator is kept in window and group state, so it must be JSON data (objects, arrays,
 * numbers, strings, booleans, null) to be checkpointed. `retract` lets the function read an
 * updating input (a changelog); `merge` lets sliding and session windows combine partial
 * accumulators. `accumulate`, `retract` and `merge` may change the accumulator they get and
 * return it.
 */
export interface AggregateFunctionSpec<ACC = unknown> {
  readonly kind: 'aggregate';
  readonly arguments: readonly string[];
  readonly result: string;
  // Methods rather than function properties: a function of any accumulator type is then an
  // AggregateFunctionSpec<unknown>, which is what the function catalog keeps.
  createAccumulator(): ACC;
  accumulate(accumulator: ACC, ...args: never[]): ACC;
  retract?(accumulator: ACC, ...args: never[]): ACC;
  merge?(a: ACC, b: ACC): ACC;
  getValue(accumulator: ACC): unknown;
}

/** An aggregate function with its declared types (checked when it is registered). */
export function defineAggregateFunction<ACC>(
  spec: Omit<AggregateFunctionSpec<ACC>, 'kind'>,
): AggregateFunctionSpec<ACC> {
  return { kind: 'aggregate', ...spec };
}

/**
 * A table function for SQL (Flink's `TableFunction`, called with `LATERAL TABLE(fn(...))`):
 * `eval` returns the rows for one call (any iterable, possibly empty). With a `ROW<...>`
 * result each row is an array of the fields' values, which name the columns, and a `null` row
 * is skipped (as Flink skips a NULL row or structured value); with another type each row is
 * one value (`null` too), in a column named `f0`, as in Flink.
 */
export interface TableFunctionSpec {
  readonly kind: 'table';
  readonly arguments: readonly string[];
  /** `ROW<word STRING, len INT>`, or one type for a single column. */
  readonly result: string;
  readonly eval: (...args: never[]) => Iterable<unknown>;
}

/** A table function with its declared types (checked when it is registered). */
export function defineTableFunction(spec: Omit<TableFunctionSpec, 'kind'>): TableFunctionSpec {
  return { kind: 'table', ...spec };
}

/** A registered table function, its types parsed. */
export interface ResolvedTableFunction {
  readonly name: string;
  readonly arguments: readonly LogicalType[];
  /** The columns of a row it returns. */
  readonly columns: readonly { readonly name: string; readonly type: LogicalType }[];
  /** Whether a row is an array of the columns (a ROW result) rather than one value. */
  readonly rowResult: boolean;
  readonly eval: (...args: never[]) => Iterable<unknown>;
}

interface Resolved {
  readonly name: string;
  readonly arguments: readonly LogicalType[];
  readonly result: LogicalType;
  readonly eval: (...args: never[]) => unknown;
}

/** A registered aggregate function, its types parsed. */
export interface ResolvedAggregate {
  readonly name: string;
  readonly arguments: readonly LogicalType[];
  readonly result: LogicalType;
  readonly spec: AggregateFunctionSpec;
}

function isScalarFunction(x: unknown): x is ScalarFunction {
  const f = x as Partial<ScalarFunction> | null;
  return (
    f !== null &&
    typeof f === 'object' &&
    f.kind === 'scalar' &&
    Array.isArray(f.arguments) &&
    typeof f.result === 'string' &&
    typeof f.eval === 'function'
  );
}

function isAggregateFunctionSpec(x: unknown): x is AggregateFunctionSpec {
  const f = x as Partial<AggregateFunctionSpec> | null;
  return (
    f !== null &&
    typeof f === 'object' &&
    f.kind === 'aggregate' &&
    Array.isArray(f.arguments) &&
    typeof f.result === 'string' &&
    typeof f.createAccumulator === 'function' &&
    typeof f.accumulate === 'function' &&
    typeof f.getValue === 'function'
  );
}

function isTableFunctionSpec(x: unknown): x is TableFunctionSpec {
  const f = x as Partial<TableFunctionSpec> | null;
  return (
    f !== null &&
    typeof f === 'object' &&
    f.kind === 'table' &&
    Array.isArray(f.arguments) &&
    typeof f.result === 'string' &&
    typeof f.eval === 'function'
  );
}

function parseType(text: string, what: string, at: SourcePosition | undefined): LogicalType {
  try {
    return parseDataType(text);
  } catch (error) {
    return sqlError(
      `${what}: '${text}' is not a SQL type (${error instanceof Error ? error.message : String(error)})`,
      at,
    );
  }
}

/**
 * The key of function `name`: upper-cased, without a leading `default_catalog.default_database.`
 * or `default_database.` (Flink names a catalog function either way); another catalog or
 * database is refused, as Flink refuses one that does not exist.
 */
function functionKey(name: string, at: SourcePosition | undefined): string {
  const unqualified = objectName(name);
  const parts = unqualified.split('.');
  if (parts.length > 1) {
    const [catalog, database] = parts.length > 2 ? parts : [DEFAULT_CATALOG, parts[0]];
    if (catalog !== DEFAULT_CATALOG)
      sqlError(
        `function '${name}': catalog '${catalog}' does not exist (Weir SQL has one: ${DEFAULT_CATALOG})`,
        at,
      );
    sqlError(
      `function '${name}': database '${database}' does not exist in catalog '${catalog}' (Weir SQL has one: ${DEFAULT_DATABASE})`,
      at,
    );
  }
  return unqualified.toUpperCase();
}

/**
 * A ROW-returning table function's `eval` without the NULL rows it gives: Flink's correlate
 * skips a NULL of a composite type (a row or structured type) the function collects, while a
 * NULL of an atomic type is a row holding NULL.
 */
function withoutNullRows(
  evaluate: (...args: never[]) => Iterable<unknown>,
): (...args: never[]) => Iterable<unknown> {
  return function* (...args: never[]): Iterable<unknown> {
    for (const row of evaluate(...args)) if (row !== null && row !== undefined) yield row;
  };
}

/** The functions of one table environment, by upper-cased name. */
export class FunctionCatalog {
  private readonly functions = new Map<string, Resolved>();
  private readonly aggregates = new Map<string, ResolvedAggregate>();
  private readonly tables = new Map<string, ResolvedTableFunction>();

  register(name: string, fn: unknown, at?: SourcePosition): void {
    const key = functionKey(name, at);
    if (!isScalarFunction(fn) && !isAggregateFunctionSpec(fn) && !isTableFunctionSpec(fn))
      sqlError(
        `function '${name}' must be made with defineScalarFunction({ arguments, result, eval }), defineAggregateFunction({ arguments, result, createAccumulator, accumulate, getValue }) or defineTableFunction({ arguments, result, eval })`,
        at,
      );
    if (this.functions.has(key) || this.aggregates.has(key) || this.tables.has(key))
      sqlError(`a function named '${name}' already exists`, at);
    const types = {
      arguments: fn.arguments.map((t, i) =>
        parseType(t, `function '${name}' argument ${i + 1}`, at),
      ),
      result: withNullability(parseType(fn.result, `function '${name}' result`, at), true),
    };
    if (isTableFunctionSpec(fn)) {
      const result = types.result;
      const rowResult = result.kind === 'ROW';
      const columns = rowResult
        ? result.fields.map((f) => ({ name: f.name, type: withNullability(f.type, true) }))
        : [{ name: 'f0', type: result }];
      this.tables.set(key, {
        name: key,
        arguments: types.arguments,
        columns,
        rowResult,
        eval: rowResult ? withoutNullRows(fn.eval) : fn.eval,
      });
      return;
    }
    if (isAggregateFunctionSpec(fn)) {
      this.aggregates.set(key, { name: key, ...types, spec: fn });
      return;
    }
    this.functions.set(key, { name: key, ...types, eval: fn.eval });
  }

  names(): string[] {
    return [...this.functions.keys(), ...this.aggregates.keys(), ...this.tables.keys()];
  }

  /** Whether a function of this name is registered (CREATE FUNCTION IF NOT EXISTS). */
  has(name: string): boolean {
    const key = functionKey(name, undefined);
    return this.functions.has(key) || this.aggregates.has(key) || this.tables.has(key);
  }

  /** Removes a function (DROP FUNCTION); whether there was one of that name. */
  drop(name: string, at?: SourcePosition): boolean {
    const key = functionKey(name, at);
    return [this.functions, this.aggregates, this.tables].some((m) => m.delete(key));
  }

  table(name: string): ResolvedTableFunction | undefined {
    return this.tables.get(name.toUpperCase());
  }

  aggregate(name: string): ResolvedAggregate | undefined {
    return this.aggregates.get(name.toUpperCase());
  }

  get(name: string): Resolved | undefined {
    return this.functions.get(name.toUpperCase());
  }
}

/**
 * The catalog planning is under: planning is synchronous, so the table environment sets it
 * around each statement it plans, and the compiler finds user functions without every
 * planner function passing it along.
 */
let active: FunctionCatalog | undefined;

export function withFunctions<T>(catalog: FunctionCatalog, body: () => T): T {
  const outer = active;
  active = catalog;
  try {
    return body();
  } finally {
    active = outer;
  }
}

/** The user table function `name` of the statement being planned, if there is one. */
export function userTableFunction(name: string): ResolvedTableFunction | undefined {
  return active?.table(name);
}

/** The user aggregate function `name` of the statement being planned, if there is one. */
export function userAggregate(name: string): ResolvedAggregate | undefined {
  return active?.aggregate(name);
}

/** The call of a user function `name`, or undefined when there is none of that name. */
export function compileUserFunction(
  name: string,
  args: readonly Compiled[],
  g: CodeGen,
  at: SourcePosition,
): Compiled | undefined {
  const fn = active?.get(name);
  if (fn === undefined) {
    if (active?.table(name) !== undefined)
      sqlError(
        `${name} is a table function: it is called in FROM, with LATERAL TABLE(${name}(...)), not as a scalar function`,
        at,
      );
    return undefined;
  }
  if (args.length !== fn.arguments.length)
    sqlError(
      `${name} takes ${fn.arguments.length} arguments (${fn.arguments.map(formatType).join(', ')}), got ${args.length}`,
      at,
    );
  const codes = args.map(
    (a, i) => coerce(g, a, fn.arguments[i] as LogicalType, at, `argument ${i + 1} of ${name}`).code,
  );
  return { code: `${g.constant(fn.eval)}(${codes.join(', ')})`, type: fn.result };
}

/** Exports of modules named by CREATE FUNCTION, loaded ahead of the (synchronous) statements. */
const loaded = new Map<string, unknown>();

function referenceKey(
  reference: string,
  baseDir: string,
): { file: string; name: string; key: string } {
  const hash = reference.lastIndexOf('#');
  const file = resolve(baseDir, hash < 0 ? reference : reference.slice(0, hash));
  const name = hash < 0 ? 'default' : reference.slice(hash + 1);
  return { file, name, key: `${file}#${name}` };
}

/** Imports every module a script's CREATE FUNCTION statements name (relative to `baseDir`). */
export async function loadFunctionModules(
  references: readonly string[],
  baseDir: string,
): Promise<void> {
  for (const reference of references) {
    const { file, name, key } = referenceKey(reference, baseDir);
    if (loaded.has(key)) continue;
    let module: Record<string, unknown>;
    try {
      module = await importUserModule(file);
    } catch (error) {
      throw new SqlError(
        `CREATE FUNCTION: cannot load '${file}': ${error instanceof Error ? error.message : String(error)}`,
        undefined,
      );
    }
    if (!(name in module)) {
      throw new SqlError(
        `CREATE FUNCTION: '${file}' has no export '${name}'; it exports ${Object.keys(module).join(', ')}`,
        undefined,
      );
    }
    loaded.set(key, module[name]);
  }
}

/** The export a CREATE FUNCTION names, once `loadFunctionModules` has loaded it. */
export function loadedFunction(reference: string, baseDir: string, at: SourcePosition): unknown {
  const { key } = referenceKey(reference, baseDir);
  if (!loaded.has(key))
    sqlError(
      `CREATE FUNCTION: '${reference}' is not loaded; a program awaits tEnv.loadFunctionModules(script) before executeSql`,
      at,
    );
  return loaded.get(key);
}
