/**
 * Flink's JSON functions: JSON_VALUE, JSON_QUERY, JSON_EXISTS, IS JSON, JSON_STRING,
 * JSON_OBJECT and JSON_ARRAY (their clauses arrive as fixed arguments, see
 * parser/json-syntax.ts). Paths must be string literals and are parsed once per query.
 * Behaviour follows Flink 2.2: a lax path that finds nothing gives NULL, a non-scalar for
 * JSON_VALUE or a scalar for JSON_QUERY is an error (NULL ON ERROR by default), JSON_OBJECT
 * writes its keys sorted, JSON_ARRAY leaves NULLs out unless told `NULL ON NULL`.
 */
import type { Expr } from '../../parser/ast.js';
import { type SourcePosition, sqlError } from '../../sql-error.js';
import { fitPrecision, formatDecimal, parseDecimal } from '../../types/decimal.js';
import {
  formatType,
  isCharacterString,
  isInteger,
  type LogicalType,
  T,
  withNullability,
} from '../../types/logical-type.js';
import { toDisplayString } from '../../types/values.js';
import { castTo } from '../cast.js';
import { type CodeGen, type Compiled, nullSafe } from '../code-gen.js';
import {
  arity,
  type FunctionCompiler,
  functionFailed,
  helperCall,
  requireString,
  strictFunction,
} from './arguments.js';
import { javaDouble, javaFloat } from './java-text.js';
import {
  isScalar,
  type JsonNode,
  JsonNumber,
  type JsonPath,
  parseJson,
  parseJsonPath,
  selectJson,
  writeJson,
} from './json-text.js';

/** What a JSON function found where its result should be. */
const EMPTY = Symbol('empty');
const ERROR = Symbol('error');
type Found = JsonNode | typeof EMPTY | typeof ERROR;

function literalText(raw: readonly Expr[], i: number): string {
  const e = raw[i];
  return e?.kind === 'string' ? e.value : '';
}

function pathArg(name: string, raw: readonly Expr[], at: SourcePosition): JsonPath {
  const e = raw[1];
  if (e?.kind !== 'string') return sqlError(`${name} needs a string literal as its JSON path`, at);
  try {
    return parseJsonPath(e.value);
  } catch (err) {
    return sqlError(`${name}: ${(err as Error).message}`, e.at);
  }
}

/** The item a path selects in a document: EMPTY when none, ERROR for broken text or strict misses. */
function find(text: string, path: JsonPath): Found {
  let items: JsonNode[];
  try {
    items = selectJson(parseJson(text), path);
  } catch {
    return ERROR;
  }
  if (path.indefinite) return items;
  return items.length === 0 ? EMPTY : (items[0] as JsonNode);
}

/** A scalar's text as JSON_VALUE gives it (strings unquoted, numbers as Jackson reads them). */
function scalarText(node: JsonNode): string {
  return typeof node === 'string' ? node : writeJson(node);
}

type Converter = (text: string) => unknown;

/** JSON_VALUE's RETURNING types: the text converted, undefined when it does not convert. */
function converter(type: LogicalType, at: SourcePosition): Converter {
  if (isCharacterString(type)) return (s) => s;
  if (type.kind === 'BOOLEAN')
    return (s) => (s === 'true' ? true : s === 'false' ? false : undefined);
  if (isInteger(type)) {
    const bits = { TINYINT: 8, SMALLINT: 16, INTEGER: 32, BIGINT: 64 }[type.kind];
    return (s) => {
      if (!/^-?\d+$/.test(s)) return undefined;
      const n = BigInt(s);
      if (BigInt.asIntN(bits, n) !== n) return undefined;
      return Number.isSafeInteger(Number(n)) ? Number(n) : n;
    };
  }
  if (type.kind === 'DOUBLE' || type.kind === 'FLOAT') {
    const round = type.kind === 'FLOAT' ? Math.fround : (x: number) => x;
    return (s) => (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(s) ? round(Number(s)) : undefined);
  }
  if (type.kind === 'DECIMAL')
    return (s) => {
      const d = parseDecimal(s, type.scale);
      return d === undefined ? undefined : (fitPrecision(d, type.precision) ?? undefined);
    };
  return sqlError(
    `JSON_VALUE ... RETURNING ${formatType(type)} is not supported by Weir SQL yet`,
    at,
  );
}

function jsonValue(text: string, path: JsonPath, convert: Converter): unknown {
  const found = find(text, path);
  if (found === ERROR || found === EMPTY) return found;
  if (found === null) return null;
  if (!isScalar(found)) return ERROR;
  const value = convert(scalarText(found));
  return value === undefined ? ERROR : value;
}

/** The code of an ON EMPTY / ON ERROR behaviour. */
function behaviour(
  name: string,
  mode: string,
  fallback: Compiled | undefined,
  what: string,
  g: CodeGen,
): string {
  switch (mode) {
    case 'ERROR':
      return helperCall(g, functionFailed, [JSON.stringify(name), JSON.stringify(what)]);
    case 'DEFAULT':
      return (fallback as Compiled).code;
    case 'EMPTY ARRAY':
      return "'[]'";
    case 'EMPTY OBJECT':
      return "'{}'";
    default:
      return 'null';
  }
}

const compileJsonValue: FunctionCompiler = (args, g, at, raw) => {
  const [json] = args as [Compiled];
  requireString('JSON_VALUE', json, at);
  const path = pathArg('JSON_VALUE', raw, at);
  const returning = raw[2]?.kind === 'cast' ? raw[2].type : T.string(true);
  const type = withNullability(returning, true);
  const convert = converter(type, at);
  const fallback = (i: number) =>
    literalText(raw, i) === 'DEFAULT'
      ? castTo(g, args[i + 1] as Compiled, type, false, at)
      : undefined;
  const onEmpty = behaviour(
    'JSON_VALUE',
    literalText(raw, 3),
    fallback(3),
    'the path selects nothing',
    g,
  );
  const onError = behaviour(
    'JSON_VALUE',
    literalText(raw, 5),
    fallback(5),
    'no scalar value at the path',
    g,
  );
  const t = g.temp();
  return {
    code: nullSafe(
      g,
      [json],
      ([v]) =>
        `((${t} = ${helperCall(g, jsonValue, [v as string, g.constant(path), g.constant(convert)])}) === ${g.constant(ERROR)} ? ${onError} : ${t} === ${g.constant(EMPTY)} ? ${literalText(raw, 3) === 'ERROR' ? onEmpty : 'null'} : ${t})`,
    ),
    type,
  };
};

/**
 * JSON_QUERY's result: the selected array or object as JSON text, or with RETURNING ARRAY the
 * elements of the selected array (strings as their text, the others as JSON text).
 */
function jsonQuery(text: string, path: JsonPath, wrapper: string, asArray: boolean): unknown {
  const found = find(text, path);
  if (found === ERROR || found === EMPTY) return found;
  const wrapped =
    wrapper === 'UNCONDITIONAL' || (wrapper === 'CONDITIONAL' && !Array.isArray(found))
      ? [found]
      : found;
  if (wrapped === null || isScalar(wrapped) || (asArray && !Array.isArray(wrapped)))
    return path.strict ? ERROR : EMPTY;
  if (asArray)
    return (wrapped as JsonNode[]).map((e) =>
      e === null ? null : typeof e === 'string' ? e : writeJson(e),
    );
  return writeJson(wrapped);
}

const compileJsonQuery: FunctionCompiler = (args, g, at, raw) => {
  const [json] = args as [Compiled];
  requireString('JSON_QUERY', json, at);
  const path = pathArg('JSON_QUERY', raw, at);
  const returning = raw[2]?.kind === 'cast' ? raw[2].type : T.string(true);
  const asArray = returning.kind === 'ARRAY' && isCharacterString(returning.element);
  if (!isCharacterString(returning) && !asArray)
    sqlError(
      `JSON_QUERY ... RETURNING ${formatType(returning)} is not supported by Weir SQL yet`,
      at,
    );
  const onEmpty = behaviour(
    'JSON_QUERY',
    literalText(raw, 4),
    undefined,
    'the path selects nothing',
    g,
  );
  const onError = behaviour(
    'JSON_QUERY',
    literalText(raw, 5),
    undefined,
    'no array or object at the path',
    g,
  );
  const t = g.temp();
  return {
    code: nullSafe(
      g,
      [json],
      ([v]) =>
        `((${t} = ${helperCall(g, jsonQuery, [v as string, g.constant(path), JSON.stringify(literalText(raw, 3)), String(asArray)])}) === ${g.constant(ERROR)} ? ${asArrayBehaviour(onError, asArray)} : ${t} === ${g.constant(EMPTY)} ? ${asArrayBehaviour(onEmpty, asArray)} : ${t})`,
    ),
    type: asArray ? { kind: 'ARRAY', nullable: true, element: T.string(true) } : T.string(true),
  };
};

/** With RETURNING ARRAY, EMPTY ARRAY ON ... is an empty array, not its JSON text. */
function asArrayBehaviour(code: string, asArray: boolean): string {
  return asArray && code === "'[]'" ? '[]' : code;
}

/** Whether the path selects something; a JSON null is nothing, as in Flink. */
function jsonExists(text: string, path: JsonPath): boolean | typeof ERROR {
  const found = find(text, path);
  if (found === ERROR) return ERROR;
  return (
    found !== EMPTY && found !== null && !(path.indefinite && (found as JsonNode[]).length === 0)
  );
}

const compileJsonExists: FunctionCompiler = (args, g, at, raw) => {
  const [json] = args as [Compiled];
  requireString('JSON_EXISTS', json, at);
  const path = pathArg('JSON_EXISTS', raw, at);
  const mode = literalText(raw, 2);
  const onError =
    mode === 'ERROR'
      ? behaviour(
          'JSON_EXISTS',
          'ERROR',
          undefined,
          'the document is not JSON or the strict path fails',
          g,
        )
      : mode === 'TRUE'
        ? 'true'
        : mode === 'UNKNOWN'
          ? 'null'
          : 'false';
  const t = g.temp();
  return {
    code: nullSafe(
      g,
      [json],
      ([v]) =>
        `((${t} = ${helperCall(g, jsonExists, [v as string, g.constant(path)])}) === ${g.constant(ERROR)} ? ${onError} : ${t})`,
    ),
    type: T.boolean(true),
  };
};

/** `s IS JSON [VALUE | SCALAR | ARRAY | OBJECT]`: FALSE for NULL, as in Flink. */
export function isJson(text: string | null, kind: string): boolean {
  if (text === null) return false;
  let node: JsonNode;
  try {
    node = parseJson(text);
  } catch {
    return false;
  }
  switch (kind) {
    case 'SCALAR':
      return isScalar(node);
    case 'ARRAY':
      return Array.isArray(node);
    case 'OBJECT':
      return node instanceof Map;
    default:
      return true;
  }
}

/** A SQL value as a JSON node (DECIMAL and DOUBLE as Java writes them, BYTES as Base64). */
export function sqlToJson(value: unknown, type: LogicalType): JsonNode {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'BOOLEAN':
      return value as boolean;
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'BIGINT':
      return new JsonNumber(String(value));
    case 'FLOAT':
    case 'DOUBLE': {
      // Java's Float.toString for a FLOAT, Double.toString for a DOUBLE.
      const text = type.kind === 'FLOAT' ? javaFloat(value as number) : javaDouble(value as number);
      return Number.isFinite(value) ? new JsonNumber(text, true) : text;
    }
    case 'DECIMAL':
      return new JsonNumber(formatDecimal(value as bigint, type.scale), true);
    case 'CHAR':
    case 'VARCHAR':
      return value as string;
    case 'BINARY':
    case 'VARBINARY':
      return Buffer.from(value as Uint8Array).toString('base64');
    case 'ARRAY':
      return (value as unknown[]).map((v) => sqlToJson(v, type.element));
    case 'MAP':
      return new Map(
        [...(value as Map<unknown, unknown>)].map(([k, v]) => [
          k === null ? 'null' : toDisplayString(k, type.key),
          sqlToJson(v, type.value),
        ]),
      );
    case 'ROW':
      return new Map(
        type.fields.map((f, i) => [f.name, sqlToJson((value as unknown[])[i], f.type)]),
      );
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return jsonTimestamp(value as number) + (type.kind === 'TIMESTAMP_LTZ' ? 'Z' : '');
    default:
      return toDisplayString(value, type);
  }
}

/** A timestamp as Flink's JSON functions write it: `2026-03-28T23:59:00.45` (no trailing zeros). */
function jsonTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A value of a JSON constructor: a nested JSON_OBJECT / JSON_ARRAY is JSON, not a string. */
function jsonArgument(g: CodeGen, c: Compiled, raw: Expr | undefined): string {
  if (raw?.kind === 'call' && (raw.name === 'JSON_OBJECT' || raw.name === 'JSON_ARRAY'))
    return `${g.constant(parseJson)}(${c.code})`;
  return `${g.constant(sqlToJson)}(${c.code}, ${g.constant(c.type)})`;
}

function jsonObject(absentOnNull: boolean, ...pairs: JsonNode[]): string {
  const entries: [string, JsonNode][] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const key = pairs[i];
    if (key === null) functionFailed('JSON_OBJECT', 'a key is NULL');
    const value = pairs[i + 1] as JsonNode;
    if (value === null && absentOnNull) continue;
    entries.push([key as string, value]);
  }
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return writeJson(new Map(entries));
}

function jsonArray(absentOnNull: boolean, ...values: JsonNode[]): string {
  return writeJson(absentOnNull ? values.filter((v) => v !== null) : values);
}

const compileJsonObject: FunctionCompiler = (args, g, at, raw) => {
  if (args.length % 2 !== 1) sqlError('JSON_OBJECT takes KEY ... VALUE ... pairs', at);
  const values: string[] = [];
  for (let i = 1; i < args.length; i += 2) {
    const key = args[i] as Compiled;
    requireString('JSON_OBJECT', key, at);
    values.push(key.code, jsonArgument(g, args[i + 1] as Compiled, raw[i + 1]));
  }
  return {
    code: helperCall(g, jsonObject, [String(literalText(raw, 0) === 'ABSENT'), ...values]),
    type: T.string(false),
  };
};

const compileJsonArray: FunctionCompiler = (args, g, _at, raw) => ({
  code: helperCall(g, jsonArray, [
    String(literalText(raw, 0) !== 'NULL'),
    ...args.slice(1).map((a, i) => jsonArgument(g, a, raw[i + 1])),
  ]),
  type: T.string(false),
});

/** JSON_QUOTE: the string as a JSON string literal, non-ASCII characters escaped (`\u00fc`). */
export function jsonQuote(s: string): string {
  return JSON.stringify(s).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
  );
}

/** JSON_UNQUOTE: the text of a JSON string literal; other text as it is. */
export function jsonUnquote(s: string): string {
  try {
    const node = parseJson(s);
    return typeof node === 'string' ? node : s;
  } catch {
    return s;
  }
}

export const JSON_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  JSON_QUOTE: strictFunction(
    'JSON_QUOTE',
    1,
    1,
    (c, _i, at) => requireString('JSON_QUOTE', c, at),
    T.string(false),
    jsonQuote,
  ),
  JSON_UNQUOTE: strictFunction(
    'JSON_UNQUOTE',
    1,
    1,
    (c, _i, at) => requireString('JSON_UNQUOTE', c, at),
    T.string(false),
    jsonUnquote,
  ),
  JSON_VALUE: compileJsonValue,
  JSON_QUERY: compileJsonQuery,
  JSON_EXISTS: compileJsonExists,
  'IS JSON': (args, g, at, raw) => {
    arity('IS JSON', args, 2, 2, at);
    requireString('IS JSON', args[0] as Compiled, at);
    return {
      code: helperCall(g, isJson, [
        (args[0] as Compiled).code,
        JSON.stringify(literalText(raw, 1)),
      ]),
      type: T.boolean(false),
    };
  },
  // JSON_STRING(v): v as JSON text; NULL for NULL.
  JSON_STRING: (args, g, at) => {
    arity('JSON_STRING', args, 1, 1, at);
    const [v] = args as [Compiled];
    if (v.type.kind === 'DATE' || v.type.kind === 'TIME')
      sqlError(`JSON_STRING does not take a ${v.type.kind} (as in Flink)`, at);
    return {
      code: nullSafe(
        g,
        [v],
        ([x]) => `${g.constant(writeJson)}(${g.constant(sqlToJson)}(${x}, ${g.constant(v.type)}))`,
      ),
      type: T.string(v.type.nullable),
    };
  },
  JSON_OBJECT: compileJsonObject,
  JSON_ARRAY: compileJsonArray,
};
