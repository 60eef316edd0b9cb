/**
 * Flink's JSON functions: JSON_VALUE, JSON_QUERY, JSON_EXISTS, IS JSON, JSON_STRING,
 * JSON_OBJECT and JSON_ARRAY (their clauses arrive as fixed arguments, see
 * parser/json-syntax.ts; `JSON(text)` is only a value of the last two), JSON_QUOTE,
 * JSON_UNQUOTE, and JSON_TYPE and JSON_LENGTH (with Jayway's paths, see json-text.ts). Paths
 * must be string literals and are parsed once per query.
 * Behaviour follows Flink 2.2 (Calcite's JSON functions): a path without `lax` is strict; a lax
 * path that finds nothing (or a JSON null) is empty (NULL ON EMPTY by default), a strict one's
 * miss is an error (NULL ON ERROR by default), as is a non-scalar for JSON_VALUE or a scalar for
 * JSON_QUERY on a strict path (empty on a lax one). JSON_OBJECT writes its keys sorted,
 * JSON_ARRAY leaves NULLs out unless told `NULL ON NULL`.
 */
import type { Expr } from '../../parser/ast.js';
import { RAW_JSON } from '../../parser/json-syntax.js';
import { type SourcePosition, sqlError } from '../../sql-error.js';
import { fitPrecision, formatDecimal, parseDecimal } from '../../types/decimal.js';
import {
  formatType,
  isCharacterString,
  isInteger,
  isNumeric,
  type LogicalType,
  multisetAsMap,
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
  type LoosePath,
  parseJson,
  parseJsonPath,
  parseLoosePath,
  selectJson,
  selectOne,
  writeJson,
} from './json-text.js';
import { formatTimestampNanos } from './precise-time.js';

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

/**
 * The item a path selects in a document: EMPTY when none, ERROR for a strict path's miss; broken
 * text is an ERROR for a strict path, EMPTY for a lax one (as in Calcite).
 */
function find(text: string, path: JsonPath): Found {
  let root: JsonNode;
  try {
    root = parseJson(text);
  } catch {
    return path.strict ? ERROR : EMPTY;
  }
  let items: JsonNode[];
  try {
    items = selectJson(root, path);
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
      // A fraction is truncated toward zero (as Flink does: 13.89 gives 13).
      const m = /^(-?\d+)(?:\.\d+)?$/.exec(s);
      if (m === null) return undefined;
      const n = BigInt(m[1] as string);
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
  // A JSON null is empty; so is an array or object on a lax path (on a strict one, an error).
  if (found === null) return EMPTY;
  if (!isScalar(found)) return path.strict ? ERROR : EMPTY;
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
  // Any type is taken (as Flink's JSON_VALUE does); a value that is not text is an error (NULL
  // ON ERROR by default).
  const text = isCharacterString(json.type) || json.type.kind === 'NULL';
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
        `((${t} = ${text ? helperCall(g, jsonValue, [v as string, g.constant(path), g.constant(convert)]) : g.constant(ERROR)}) === ${g.constant(ERROR)} ? ${onError} : ${t} === ${g.constant(EMPTY)} ? ${onEmpty} : ${t})`,
    ),
    type,
  };
};

/**
 * JSON_QUERY's result: the selected array or object as JSON text, or with RETURNING ARRAY the
 * elements of the selected array (strings as their text, the others as JSON text).
 */
function jsonQuery(
  text: string,
  path: JsonPath,
  wrapper: string,
  element: ElementConverter | undefined,
): unknown {
  const found = find(text, path);
  if (found === ERROR || found === EMPTY) return found;
  const wrapped =
    wrapper === 'UNCONDITIONAL' || (wrapper === 'CONDITIONAL' && !Array.isArray(found))
      ? [found]
      : found;
  if (wrapped === null || isScalar(wrapped) || (element !== undefined && !Array.isArray(wrapped)))
    return path.strict ? ERROR : EMPTY;
  if (element === undefined) return writeJson(wrapped);
  const values: unknown[] = [];
  for (const e of wrapped as JsonNode[]) {
    const v = e === null ? null : element(e);
    if (v === undefined) return ERROR;
    values.push(v);
  }
  return values;
}

/** A node with its objects' keys sorted, as Flink writes the elements of RETURNING ARRAY<STRING>. */
function sortedKeys(node: JsonNode): JsonNode {
  if (Array.isArray(node)) return node.map(sortedKeys);
  if (!(node instanceof Map)) return node;
  return new Map(
    [...node]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]): [string, JsonNode] => [k, sortedKeys(v)]),
  );
}

/** An element of JSON_QUERY's RETURNING ARRAY as a SQL value; undefined when it does not convert. */
type ElementConverter = (e: JsonNode) => unknown;

/**
 * The elements of RETURNING ARRAY<type>: strings as their text (the others as JSON text) for a
 * string element type; else only a scalar of the type's own kind (no string is read as a number).
 */
function elementConverter(type: LogicalType, at: SourcePosition): ElementConverter {
  if (isCharacterString(type)) return (e) => (typeof e === 'string' ? e : writeJson(sortedKeys(e)));
  if (type.kind !== 'BOOLEAN' && !isNumeric(type))
    return sqlError(
      `Unsupported array element type ${formatType(type)} for RETURNING in JSON_QUERY()`,
      at,
    );
  const convert = converter(type, at);
  return (e) =>
    e instanceof JsonNumber || typeof e === 'boolean' ? convert(writeJson(e)) : undefined;
}

const compileJsonQuery: FunctionCompiler = (args, g, at, raw) => {
  const [json] = args as [Compiled];
  requireString('JSON_QUERY', json, at);
  const path = pathArg('JSON_QUERY', raw, at);
  const returning = raw[2]?.kind === 'cast' ? raw[2].type : T.string(true);
  const asArray = returning.kind === 'ARRAY';
  const element = asArray ? elementConverter(returning.element, at) : undefined;
  if (!isCharacterString(returning) && !asArray)
    sqlError(
      `Illegal type ${formatType(returning)} for RETURNING in JSON_QUERY(): a string or an ARRAY`,
      at,
    );
  for (const [i, what] of [
    [4, 'empty'],
    [5, 'error'],
  ] as const)
    if (asArray && literalText(raw, i) === 'EMPTY OBJECT')
      sqlError(
        `Illegal on ${what} behavior 'EMPTY OBJECT' for return type: ${formatType(returning)}`,
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
        `((${t} = ${helperCall(g, jsonQuery, [v as string, g.constant(path), JSON.stringify(literalText(raw, 3)), element === undefined ? 'undefined' : g.constant(element)])}) === ${g.constant(ERROR)} ? ${asArrayBehaviour(onError, asArray)} : ${t} === ${g.constant(EMPTY)} ? ${asArrayBehaviour(onEmpty, asArray)} : ${t})`,
    ),
    type: returning.kind === 'ARRAY' ? { ...returning, nullable: true } : T.string(true),
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
    case 'MULTISET':
      return sqlToJson(value, multisetAsMap(type));
    case 'ROW':
      // Flink writes a row's fields sorted by name, not in their declared order.
      return new Map(
        type.fields
          .map((f, i): [string, JsonNode] => [f.name, sqlToJson((value as unknown[])[i], f.type)])
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return jsonTimestamp(value as number | bigint) + (type.kind === 'TIMESTAMP_LTZ' ? 'Z' : '');
    default:
      return toDisplayString(value, type);
  }
}

/**
 * A timestamp as Flink's JSON functions write it: `2026-03-28T23:59:00.45` (no trailing zeros);
 * a TIMESTAMP(p > 3) value (epoch nanoseconds) with all its digits.
 */
function jsonTimestamp(value: number | bigint): string {
  const text =
    typeof value === 'bigint'
      ? formatTimestampNanos(value, 9).replace(' ', 'T')
      : new Date(value).toISOString().slice(0, 23);
  const [seconds, fraction = ''] = text.split('.');
  const digits = fraction.replace(/0+$/, '');
  return `${seconds}${digits === '' ? '' : `.${digits}`}`;
}

/**
 * The JSON of `JSON(text)` in a constructor: NULL for NULL, empty or blank text; a job error for
 * text that is not JSON.
 */
function rawJson(text: string | null): JsonNode {
  if (text === null || text.trim() === '') return null;
  try {
    return parseJson(text);
  } catch (err) {
    return functionFailed(
      'JSON',
      `Invalid JSON string in JSON(value) function: ${(err as Error).message}`,
    );
  }
}

/** A value of a JSON constructor: a nested JSON_OBJECT / JSON_ARRAY is JSON, not a string. */
function jsonArgument(g: CodeGen, c: Compiled, raw: Expr | undefined): string {
  if (raw?.kind === 'call' && (raw.name === 'JSON_OBJECT' || raw.name === 'JSON_ARRAY'))
    return `${g.constant(parseJson)}(${c.code})`;
  if (raw?.kind === 'call' && raw.name === RAW_JSON) return helperCall(g, rawJson, [c.code]);
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

/**
 * JSON_QUOTE: the string as a JSON string literal, non-ASCII characters (`\u00fc`) and `/`
 * (`\/`) escaped.
 */
export function jsonQuote(s: string): string {
  return JSON.stringify(s)
    .replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`,
    )
    .replaceAll('/', '\\/');
}

const UNESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * JSON_UNQUOTE: the text between the quotes, its escapes undone, of a text in quotes that begins
 * with a JSON string (what follows that string is not checked, as Flink's parser stops after one
 * value: `"["a"]"` gives `["a"]`); any other text, or one with a broken escape, as it is.
 */
export function jsonUnquote(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids them unescaped in strings
  const string = /^"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/;
  if (s.length < 2 || !s.endsWith('"') || !string.test(s)) return s;
  let out = '';
  const inner = s.slice(1, -1);
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = inner[++i] ?? '';
    if (e === 'u') {
      const hex = inner.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return s;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 4;
    } else if (UNESCAPES[e] !== undefined) out += UNESCAPES[e];
    else return s;
  }
  return out;
}

/** JSON_TYPE's name of a node's kind. */
function jsonTypeName(node: JsonNode): string {
  if (node === null) return 'null';
  if (node instanceof JsonNumber) return 'number';
  if (Array.isArray(node)) return 'array';
  if (node instanceof Map) return 'object';
  return typeof node;
}

/** JSON_LENGTH: an array's elements, an object's members, 1 for a scalar (a JSON null too). */
function jsonLength(node: JsonNode): number {
  if (Array.isArray(node)) return node.length;
  return node instanceof Map ? node.size : 1;
}

/** `measure` of what a loose path selects in a document; NULL for broken text or no single item. */
function measureAt(
  text: string,
  path: LoosePath | null,
  measure: (node: JsonNode) => unknown,
): unknown {
  if (path === null) return null;
  let root: JsonNode;
  try {
    root = parseJson(text);
  } catch {
    return null;
  }
  const node = selectOne(root, path);
  return node === undefined ? null : measure(node);
}

/**
 * JSON_TYPE and JSON_LENGTH: `fn(json [, path])`, the path a string literal without a lax/strict
 * mode (refused, as in Flink); a path that is not one finds nothing.
 */
function jsonMeasure(
  name: string,
  measure: (node: JsonNode) => unknown,
  result: LogicalType,
): FunctionCompiler {
  return (args, g, at, raw) => {
    arity(name, args, 1, 2, at);
    const [json] = args as [Compiled];
    requireString(name, json, at);
    let path: LoosePath | null = { steps: [] };
    const e = raw[1];
    if (args.length === 2) {
      if (e?.kind !== 'string')
        return sqlError(`${name} needs a string literal as its JSON path`, at);
      if (/^\s*(lax|strict)\s/i.test(e.value))
        sqlError(
          `${name} does not support the 'lax'/'strict' path mode prefix (got: '${e.value}'). ` +
            "Use a plain path such as '$.a.b'. To check path existence or handle invalid input, " +
            'use JSON_EXISTS or IS JSON.',
          e.at,
        );
      path = parseLoosePath(e.value) ?? null;
    }
    return {
      code: nullSafe(g, [json], ([v]) =>
        helperCall(g, measureAt, [v as string, g.constant(path), g.constant(measure)]),
      ),
      type: result,
    };
  };
}

export const JSON_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  JSON_TYPE: jsonMeasure('JSON_TYPE', jsonTypeName, T.string(true)),
  JSON_LENGTH: jsonMeasure('JSON_LENGTH', jsonLength, T.int()),
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
  JSON_STRING: (args, g, at, raw) => {
    arity('JSON_STRING', args, 1, 1, at);
    const [v] = args as [Compiled];
    // A constructor's result is JSON already, not a string to quote (as in Flink).
    const inner = raw[0];
    if (inner?.kind === 'call' && (inner.name === 'JSON_OBJECT' || inner.name === 'JSON_ARRAY'))
      return v;
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
  // JSON(text) means something only as a constructor's value (see parser/json-syntax.ts).
  JSON: (_args, _g, at) =>
    sqlError(
      'The JSON() function is currently only supported inside JSON_ARRAY() or as the VALUE param of JSON_OBJECT()',
      at,
    ),
  [RAW_JSON]: (args, _g, at) => {
    arity('JSON', args, 1, 1, at);
    const [text] = args as [Compiled];
    requireString('JSON', text, at);
    return text;
  },
};
