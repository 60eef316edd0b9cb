/**
 * The clauses of the SQL/JSON functions, which are not plain argument lists: JSON_VALUE's
 * `RETURNING type` and `... ON EMPTY` / `... ON ERROR`, JSON_QUERY's wrapper clause,
 * JSON_EXISTS's `... ON ERROR`, and JSON_OBJECT's `KEY k VALUE v` pairs with `NULL | ABSENT ON
 * NULL`. Each call becomes an ordinary call whose fixed argument positions carry the clauses
 * (as string literals, and the RETURNING type as a CAST of NULL), so the compiler reads them
 * from the call's arguments.
 */
import { type SourcePosition, sqlError } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';
import type { Expr } from './ast.js';
import type { ClauseParser } from './match-recognize.js';

/** The main parser's cursor, with its data types. */
export interface JsonClauseParser extends ClauseParser {
  dataType(): LogicalType;
}

/** The JSON aggregates, which take no FILTER (as in Flink SQL). */
export const JSON_AGGREGATES: ReadonlySet<string> = new Set(['JSON_OBJECTAGG', 'JSON_ARRAYAGG']);

/** The functions whose arguments this module parses. */
export const JSON_SYNTAX_FUNCTIONS: ReadonlySet<string> = new Set([
  'JSON_VALUE',
  'JSON_QUERY',
  'JSON_EXISTS',
  'JSON_OBJECT',
  'JSON_ARRAY',
  ...JSON_AGGREGATES,
]);

function text(value: string, at: SourcePosition): Expr {
  return { kind: 'string', value, at };
}

/**
 * `RETURNING type`, if present, as a CAST of NULL; `pendingNull` when the type's parser took the
 * `NULL` of a following `NULL ON EMPTY | ERROR` for the type's nullability (`INT NULL ON ...`).
 */
function returning(p: JsonClauseParser, at: SourcePosition): { type: Expr; pendingNull: boolean } {
  const type = p.acceptWord('RETURNING') ? p.dataType() : undefined;
  const nullExpr: Expr = { kind: 'null', at };
  if (type === undefined) return { type: nullExpr, pendingNull: false };
  return {
    type: { kind: 'cast', arg: nullExpr, type, tryCast: false, at },
    pendingNull: p.isWord('ON'),
  };
}

/** `JSON(text)` as a JSON_OBJECT value or a JSON_ARRAY element: its text inserted as JSON. */
export const RAW_JSON = 'JSON VALUE';

/**
 * A value of JSON_OBJECT or JSON_ARRAY: a `JSON(...)` call there becomes RAW_JSON (a name no SQL
 * text can call), so that `JSON(...)` anywhere else is refused.
 */
function constructorValue(p: JsonClauseParser): Expr {
  const e = p.expression();
  return e.kind === 'call' && e.name === 'JSON' && !e.over ? { ...e, name: RAW_JSON } : e;
}

/**
 * `behaviour ON EMPTY` then `behaviour ON ERROR`, each optional, as (mode, default) pairs;
 * `modes` are the words a behaviour may be (DEFAULT takes an expression).
 */
function behaviours(
  p: JsonClauseParser,
  modes: readonly string[],
  targets: readonly string[],
  pendingNull = false,
): Map<string, [string, Expr | undefined]> {
  const found = new Map<string, [string, Expr | undefined]>();
  let pending = pendingNull;
  for (;;) {
    const mode = pending ? 'NULL' : modes.find((m) => p.acceptWord(...m.split(' ')));
    pending = false;
    if (mode === undefined) return found;
    const value = mode === 'DEFAULT' ? p.expression() : undefined;
    p.expectWord('ON');
    const target = targets.find((t) => p.acceptWord(t));
    if (target === undefined) return p.fail(targets.map((t) => `ON ${t}`).join(' or '));
    found.set(target, [mode, value]);
  }
}

function behaviourArgs(
  found: Map<string, [string, Expr | undefined]>,
  target: string,
  fallback: string,
  at: SourcePosition,
): Expr[] {
  const [mode, value] = found.get(target) ?? [fallback, undefined];
  return [text(mode, at), value ?? { kind: 'null', at }];
}

/** `NULL ON NULL` or `ABSENT ON NULL`, if present. */
function onNull(p: JsonClauseParser): string | undefined {
  if (p.acceptWord('NULL', 'ON', 'NULL')) return 'NULL';
  if (p.acceptWord('ABSENT', 'ON', 'NULL')) return 'ABSENT';
  return undefined;
}

/**
 * The arguments of a SQL/JSON call, after its '(' and up to (not including) its ')':
 * - JSON_VALUE: json, path, returning, empty mode, empty default, error mode, error default
 * - JSON_QUERY: json, path, returning, wrapper, empty mode, error mode
 * - JSON_EXISTS: json, path, error mode
 * - JSON_OBJECT: on-null mode, then key, value pairs
 * - JSON_ARRAY: on-null mode, then the values
 * - JSON_OBJECTAGG: on-null mode, key, value; JSON_ARRAYAGG: on-null mode, value
 */
export function parseJsonArguments(p: JsonClauseParser, name: string): Expr[] {
  const at = p.at;
  if (name === 'JSON_OBJECT') {
    const args: Expr[] = [];
    let mode: string | undefined;
    while (!p.isSymbol(')')) {
      mode = onNull(p);
      if (mode !== undefined) break;
      p.acceptWord('KEY');
      args.push(p.expression());
      if (!p.acceptWord('VALUE')) p.expectSymbol(':');
      args.push(constructorValue(p));
      if (!p.acceptSymbol(',')) mode = onNull(p);
      if (mode !== undefined) break;
    }
    return [text(mode ?? 'NULL', at), ...args];
  }
  if (name === 'JSON_OBJECTAGG') {
    p.acceptWord('KEY');
    const key = p.expression();
    if (!p.acceptWord('VALUE')) p.expectSymbol(':');
    const value = p.expression();
    return [text(onNull(p) ?? 'NULL', at), key, value];
  }
  if (name === 'JSON_ARRAYAGG') {
    const value = p.expression();
    if (p.isWord('ORDER'))
      sqlError('JSON_ARRAYAGG(... ORDER BY ...) is not supported by Weir SQL yet', p.at);
    return [text(onNull(p) ?? 'ABSENT', at), value];
  }
  if (name === 'JSON_ARRAY') {
    const args: Expr[] = [];
    let mode: string | undefined = onNull(p);
    while (mode === undefined && !p.isSymbol(')')) {
      args.push(constructorValue(p));
      if (!p.acceptSymbol(',')) mode = onNull(p);
    }
    return [text(mode ?? 'ABSENT', at), ...args];
  }
  const json = p.expression();
  p.expectSymbol(',');
  const path = p.expression();
  if (name === 'JSON_EXISTS') {
    const found = behaviours(p, ['TRUE', 'FALSE', 'UNKNOWN', 'ERROR'], ['ERROR']);
    return [json, path, text(found.get('ERROR')?.[0] ?? 'FALSE', at)];
  }
  const { type, pendingNull } = returning(p, at);
  if (name === 'JSON_VALUE') {
    const found = behaviours(p, ['NULL', 'ERROR', 'DEFAULT'], ['EMPTY', 'ERROR'], pendingNull);
    return [
      json,
      path,
      type,
      ...behaviourArgs(found, 'EMPTY', 'NULL', at),
      ...behaviourArgs(found, 'ERROR', 'NULL', at),
    ];
  }
  let wrapper = 'WITHOUT';
  if (p.acceptWord('WITHOUT')) {
    p.acceptWord('ARRAY');
    p.expectWord('WRAPPER');
  } else if (p.acceptWord('WITH')) {
    wrapper = p.acceptWord('CONDITIONAL') ? 'CONDITIONAL' : 'UNCONDITIONAL';
    p.acceptWord('UNCONDITIONAL');
    p.acceptWord('ARRAY');
    p.expectWord('WRAPPER');
  }
  const found = behaviours(
    p,
    ['NULL', 'ERROR', 'EMPTY ARRAY', 'EMPTY OBJECT'],
    ['EMPTY', 'ERROR'],
    pendingNull && wrapper === 'WITHOUT',
  );
  return [
    json,
    path,
    type,
    text(wrapper, at),
    text(found.get('EMPTY')?.[0] ?? 'NULL', at),
    text(found.get('ERROR')?.[0] ?? 'NULL', at),
  ];
}

/** After `IS [NOT] JSON`: the kind tested (VALUE when none is named). */
export function parseJsonKind(p: ClauseParser): string {
  for (const kind of ['VALUE', 'SCALAR', 'ARRAY', 'OBJECT']) if (p.acceptWord(kind)) return kind;
  return 'VALUE';
}
