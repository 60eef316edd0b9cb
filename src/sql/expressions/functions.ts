/**
 * Flink's built-in scalar functions that Weir SQL compiles: each entry checks its arguments'
 * types and returns the code of the call. NULL arguments give NULL unless the function says
 * otherwise (COALESCE, IF, NULLIF, CONCAT_WS's separator rules).
 */

import { compileUserFunction } from '../functions/user-functions.js';
import type { Expr } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import {
  commonType,
  formatType,
  isInteger,
  type LogicalType,
  T,
  withNullability,
} from '../types/logical-type.js';
import { castTo, coerce, toMillis } from './cast.js';
import { type CodeGen, type Compiled, nullSafe } from './code-gen.js';
import {
  anyNullable,
  arity,
  type FunctionCompiler,
  requireInteger,
  requireNumeric,
  requireString,
} from './functions/arguments.js';
import { FUNCTION_FAMILIES } from './functions/index.js';
import { TIME_FUNCTIONS } from './functions/time-functions.js';
import { roundDecimalType } from './typing.js';

/** Flink's statistical and value-collecting aggregates (planner/more-aggregates.ts builds them). */
export const MORE_AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set([
  'STDDEV_POP',
  'STDDEV_SAMP',
  'VAR_POP',
  'VAR_SAMP',
  'VARIANCE',
  'FIRST_VALUE',
  'LAST_VALUE',
  'LISTAGG',
  'ARRAY_AGG',
  'COLLECT',
]);

/**
 * Calcite's SINGLE_VALUE, which the planner puts over a scalar subquery that may give more than
 * one row (no name a query can write: it starts with `$`).
 */
export const SINGLE_VALUE = '$SINGLE_VALUE';

/** Names the planner treats as aggregates (in GROUP BY queries and window aggregations). */
export const AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set([
  'COUNT',
  'SUM',
  'MIN',
  'MAX',
  'AVG',
  ...MORE_AGGREGATE_FUNCTIONS,
  'JSON_OBJECTAGG',
  'JSON_ARRAYAGG',
  SINGLE_VALUE,
]);

/** A string function `fn(args)` over strings and integers, NULL in gives NULL out. */
function stringFunction(
  name: string,
  min: number,
  max: number,
  result: (args: Compiled[]) => LogicalType,
  body: (vars: string[], args: Compiled[]) => string,
  check: (args: Compiled[], at: SourcePosition) => void,
): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, min, max, at);
    check(args, at);
    return { code: nullSafe(g, args, (vars) => body(vars, args)), type: result(args) };
  };
}

/** REGEXP_EXTRACT's pattern as its run-time helper compiles it, or undefined if it does not. */
function compiledPattern(source: string): RegExp | undefined {
  try {
    return new RegExp(source, 'u');
  } catch {
    return undefined;
  }
}

const FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  ABS: (args, g, at) => {
    arity('ABS', args, 1, 1, at);
    const a = args[0] as Compiled;
    requireNumeric('ABS', a, at);
    const body =
      a.type.kind === 'DECIMAL'
        ? ([v]: string[]) => `(${v} < 0n ? -${v} : ${v})`
        : a.type.kind === 'BIGINT'
          ? ([v]: string[]) => `h.longAbs(${v})`
          : ([v]: string[]) => `Math.abs(${v})`;
    return { code: nullSafe(g, [a], body), type: a.type };
  },
  ROUND: (args, g, at, raw) => {
    arity('ROUND', args, 1, 2, at);
    const a = args[0] as Compiled;
    requireNumeric('ROUND', a, at);
    let digits = 0;
    if (args.length === 2) {
      const d = raw[1];
      if (d?.kind !== 'number' || !/^-?\d+$/.test(d.text))
        return sqlError('ROUND needs a whole number literal as its second argument', at);
      digits = Number(d.text);
    }
    if (isInteger(a.type)) {
      if (digits >= 0) return a;
      const unit = 10 ** -digits;
      if (a.type.kind === 'BIGINT')
        return { code: nullSafe(g, [a], ([v]) => `h.longRound(${v}, ${-digits})`), type: a.type };
      return {
        code: nullSafe(
          g,
          [a],
          ([v]) => `(Math.sign(${v}) * Math.round(Math.abs(${v}) / ${unit}) * ${unit})`,
        ),
        type: a.type,
      };
    }
    if (a.type.kind === 'DECIMAL') {
      const from = a.type.scale;
      // Every digit kept: the value and its type as they are (Flink's DECIMAL(p, s)).
      if (digits >= from) return a;
      // Nullable, a deliberate difference: a carry beyond 38 digits gives NULL.
      const type = roundDecimalType(a.type.precision, from, digits, true);
      const { precision, scale } = type as { precision: number; scale: number };
      const body =
        digits >= 0
          ? ([v]: string[]) => `h.fitPrecision(h.rescale(${v}, ${from}, ${scale}), ${precision})`
          : ([v]: string[]) =>
              `h.fitPrecision(h.rescale(h.rescale(${v}, ${from}, ${digits}), ${digits}, 0), ${precision})`;
      return { code: nullSafe(g, [a], body), type };
    }
    return { code: nullSafe(g, [a], ([v]) => `h.roundDouble(${v}, ${digits})`), type: a.type };
  },
  FLOOR: (args, g, at) => roundingFunction('FLOOR', args, g, at),
  CEIL: (args, g, at) => roundingFunction('CEIL', args, g, at),
  CEILING: (args, g, at) => roundingFunction('CEIL', args, g, at),
  POWER: (args, g, at) =>
    doubleFunction('POWER', args, g, at, 2, ([x, y]) => `Math.pow(${x}, ${y})`),
  SQRT: (args, g, at) => doubleFunction('SQRT', args, g, at, 1, ([x]) => `Math.sqrt(${x})`),
  EXP: (args, g, at) => doubleFunction('EXP', args, g, at, 1, ([x]) => `Math.exp(${x})`),
  LN: (args, g, at) => doubleFunction('LN', args, g, at, 1, ([x]) => `Math.log(${x})`),
  LOG10: (args, g, at) => doubleFunction('LOG10', args, g, at, 1, ([x]) => `Math.log10(${x})`),
  UPPER: stringFunction(
    'UPPER',
    1,
    1,
    (a) => T.string(anyNullable(a)),
    ([s]) => `${s}.toUpperCase()`,
    (a, at) => requireString('UPPER', a[0] as Compiled, at),
  ),
  LOWER: stringFunction(
    'LOWER',
    1,
    1,
    (a) => T.string(anyNullable(a)),
    ([s]) => `${s}.toLowerCase()`,
    (a, at) => requireString('LOWER', a[0] as Compiled, at),
  ),
  CHAR_LENGTH: stringFunction(
    'CHAR_LENGTH',
    1,
    1,
    (a) => T.int('INTEGER', anyNullable(a)),
    ([s]) => `h.charLength(${s})`,
    (a, at) => requireString('CHAR_LENGTH', a[0] as Compiled, at),
  ),
  CHARACTER_LENGTH: stringFunction(
    'CHARACTER_LENGTH',
    1,
    1,
    (a) => T.int('INTEGER', anyNullable(a)),
    ([s]) => `h.charLength(${s})`,
    (a, at) => requireString('CHARACTER_LENGTH', a[0] as Compiled, at),
  ),
  SUBSTRING: substring('SUBSTRING'),
  SUBSTR: substring('SUBSTR'),
  TRIM: (args, g, at, raw) => {
    // The parser passes (mode, characters, string).
    const mode = raw[0]?.kind === 'string' ? raw[0].value : 'BOTH';
    const [, chars, s] = args as [Compiled, Compiled, Compiled];
    requireString('TRIM', chars, at);
    requireString('TRIM', s, at);
    return {
      code: nullSafe(g, [chars, s], ([c, v]) => `h.trim(${v}, ${c}, ${JSON.stringify(mode)})`),
      type: T.string(chars.type.nullable || s.type.nullable),
    };
  },
  // LTRIM(s[, characters]): the characters (a space by default) taken off.
  LTRIM: stringFunction(
    'LTRIM',
    1,
    2,
    (a) => T.string(anyNullable(a)),
    ([s, c]) => `h.trim(${s}, ${c ?? "' '"}, 'LEADING')`,
    (a, at) => {
      for (const x of a) requireString('LTRIM', x, at);
    },
  ),
  // RTRIM(s[, characters]): the characters (a space by default) taken off.
  RTRIM: stringFunction(
    'RTRIM',
    1,
    2,
    (a) => T.string(anyNullable(a)),
    ([s, c]) => `h.trim(${s}, ${c ?? "' '"}, 'TRAILING')`,
    (a, at) => {
      for (const x of a) requireString('RTRIM', x, at);
    },
  ),
  CONCAT: (args, g, at) => {
    if (args.length === 0) sqlError('CONCAT needs at least one argument', at);
    for (const a of args) requireString('CONCAT', a, at);
    return {
      code: nullSafe(g, args, (vars) => `(${vars.join(' + ')})`),
      type: T.string(anyNullable(args)),
    };
  },
  CONCAT_WS: (args, g, at) => {
    if (args.length < 1) sqlError('CONCAT_WS needs a separator', at);
    for (const a of args) requireString('CONCAT_WS', a, at);
    const [sep, ...rest] = args as [Compiled, ...Compiled[]];
    // NULL strings are skipped; a NULL separator gives NULL.
    const parts = rest.map((r) => r.code);
    return {
      code: nullSafe(
        g,
        [sep],
        ([s]) => `[${parts.join(', ')}].filter((x) => x !== null).join(${s})`,
      ),
      type: T.string(sep.type.nullable),
    };
  },
  REPLACE: stringFunction(
    'REPLACE',
    3,
    3,
    (a) => T.string(anyNullable(a)),
    ([s, f, r]) => `${s}.split(${f}).join(${r})`,
    (a, at) => {
      for (const x of a) requireString('REPLACE', x, at);
    },
  ),
  POSITION: stringFunction(
    'POSITION',
    2,
    2,
    (a) => T.int('INTEGER', anyNullable(a)),
    ([n, s]) => `(${s}.indexOf(${n}) + 1)`,
    (a, at) => {
      for (const x of a) requireString('POSITION', x, at);
    },
  ),
  SPLIT_INDEX: (args, g, at) => {
    arity('SPLIT_INDEX', args, 3, 3, at);
    const [s, d, i] = args as [Compiled, Compiled, Compiled];
    requireString('SPLIT_INDEX', s, at);
    requireString('SPLIT_INDEX', d, at);
    requireInteger('SPLIT_INDEX', i, at);
    return {
      code: nullSafe(g, args, ([x, y, z]) => `h.splitIndex(${x}, ${y}, ${z})`),
      type: T.string(true),
    };
  },
  REGEXP_EXTRACT: (args, g, at, raw) => {
    arity('REGEXP_EXTRACT', args, 2, 3, at);
    requireString('REGEXP_EXTRACT', args[0] as Compiled, at);
    requireString('REGEXP_EXTRACT', args[1] as Compiled, at);
    if (args[2] !== undefined) requireInteger('REGEXP_EXTRACT', args[2], at);
    // A literal pattern is compiled once, at plan time (one that does not compile keeps
    // failing per row, as before). Without an index, the whole match (Flink's index 0).
    const re = raw[1]?.kind === 'string' ? compiledPattern(raw[1].value) : undefined;
    if (re !== undefined) {
      const c = g.constant(re);
      const rest = [args[0] as Compiled, ...args.slice(2)];
      return {
        code: nullSafe(g, rest, ([s, i]) => `h.regexpExtractWith(${s}, ${c}, ${i ?? 0})`),
        type: T.string(true),
      };
    }
    return {
      code: nullSafe(g, args, ([s, p, i]) => `h.regexpExtract(${s}, ${p}, ${i ?? 0})`),
      type: T.string(true),
    };
  },
  // ARRAY[a, b, ...]: the elements cast to their common type; an array is never NULL itself.
  'ARRAY[]': (args, g, at) => {
    if (args.length === 0) sqlError('ARRAY[] needs at least one element', at);
    const element = commonTypeOf('ARRAY elements', args, at);
    const items = args.map((a) => castTo(g, a, element, false, at).code);
    return { code: `[${items.join(', ')}]`, type: { kind: 'ARRAY', nullable: false, element } };
  },
  // MAP[k1, v1, k2, v2, ...]: a JavaScript Map, so keys keep their type; a repeated key keeps its
  // last value, as in Flink.
  'MAP[]': (args, g, at) => {
    if (args.length === 0 || args.length % 2 !== 0)
      sqlError('MAP[] takes keys and values in pairs: MAP[k1, v1, k2, v2, ...]', at);
    const keys = args.filter((_, i) => i % 2 === 0);
    const values = args.filter((_, i) => i % 2 === 1);
    const key = commonTypeOf('MAP keys', keys, at);
    const value = commonTypeOf('MAP values', values, at);
    const entries = keys.map(
      (k, i) =>
        `[${castTo(g, k, key, false, at).code}, ${castTo(g, values[i] as Compiled, value, false, at).code}]`,
    );
    return {
      code: `new Map([${entries.join(', ')}])`,
      type: { kind: 'MAP', nullable: false, key, value },
    };
  },
  CARDINALITY: (args, g, at) => {
    arity('CARDINALITY', args, 1, 1, at);
    const [arg] = args as [Compiled];
    if (arg.type.kind !== 'ARRAY' && arg.type.kind !== 'MAP')
      sqlError(`CARDINALITY needs an ARRAY or a MAP, got ${formatType(arg.type)}`, at);
    return {
      code: nullSafe(g, args, ([v]) => `h.cardinality(${v})`),
      type: T.int('INTEGER', arg.type.nullable),
    };
  },
  COALESCE: (args, g, at) => {
    if (args.length === 0) sqlError('COALESCE needs at least one argument', at);
    const type = commonType(args.map((a) => a.type));
    if (type === undefined)
      return sqlError(
        `COALESCE arguments have no common type: ${args.map((a) => formatType(a.type)).join(', ')}`,
        at,
      );
    let code = 'null';
    for (let i = args.length - 1; i >= 0; i--) {
      const c = castTo(g, args[i] as Compiled, withNullability(type, true), false, at);
      const t = g.temp();
      code = `((${t} = ${c.code}) !== null ? ${t} : ${code})`;
    }
    return {
      code,
      type: withNullability(
        type,
        args.every((a) => a.type.nullable),
      ),
    };
  },
  IF: (args, g, at) => {
    arity('IF', args, 3, 3, at);
    const [c, a, b] = args as [Compiled, Compiled, Compiled];
    if (c.type.kind !== 'BOOLEAN' && c.type.kind !== 'NULL')
      sqlError(`IF needs a BOOLEAN condition, got ${formatType(c.type)}`, at);
    const type = commonType([a.type, b.type]);
    if (type === undefined)
      return sqlError(
        `IF branches have no common type: ${formatType(a.type)}, ${formatType(b.type)}`,
        at,
      );
    const x = castTo(g, a, withNullability(type, a.type.nullable), false, at);
    const y = castTo(g, b, withNullability(type, b.type.nullable), false, at);
    return {
      code: `((${c.code}) === true ? ${x.code} : ${y.code})`,
      type: withNullability(type, a.type.nullable || b.type.nullable),
    };
  },
  NULLIF: (args, g, at) => {
    arity('NULLIF', args, 2, 2, at);
    const [a, b] = args as [Compiled, Compiled];
    const type = commonType([a.type, b.type]);
    if (type === undefined)
      return sqlError(
        `NULLIF arguments have no common type: ${formatType(a.type)}, ${formatType(b.type)}`,
        at,
      );
    const x = coerce(g, a, withNullability(type, a.type.nullable), at, 'NULLIF');
    const y = coerce(g, b, withNullability(type, b.type.nullable), at, 'NULLIF');
    const tx = g.temp();
    return {
      code: `((${tx} = ${x.code}) === (${y.code}) ? null : ${tx})`,
      type: withNullability(x.type, true),
    };
  },
  ...TIME_FUNCTIONS,
};

function roundingFunction(
  name: 'FLOOR' | 'CEIL',
  args: Compiled[],
  g: CodeGen,
  at: SourcePosition,
): Compiled {
  arity(name, args, 1, 1, at);
  const a = args[0] as Compiled;
  requireNumeric(name, a, at);
  if (isInteger(a.type)) return a;
  if (a.type.kind === 'DECIMAL') {
    const { scale, precision } = a.type;
    const unit = 10n ** BigInt(scale);
    const type = T.decimal(Math.min(38, precision - scale + 1), 0, a.type.nullable);
    const body =
      name === 'FLOOR'
        ? ([v]: string[]) => `((${v} - (((${v} % ${unit}n) + ${unit}n) % ${unit}n)) / ${unit}n)`
        : ([v]: string[]) => `((${v} + (((-${v} % ${unit}n) + ${unit}n) % ${unit}n)) / ${unit}n)`;
    return { code: nullSafe(g, [a], body), type };
  }
  return {
    code: nullSafe(g, [a], ([v]) => `Math.${name === 'FLOOR' ? 'floor' : 'ceil'}(${v})`),
    type: a.type,
  };
}

function doubleFunction(
  name: string,
  args: Compiled[],
  g: CodeGen,
  at: SourcePosition,
  n: number,
  body: (vars: string[]) => string,
): Compiled {
  arity(name, args, n, n, at);
  for (const a of args) requireNumeric(name, a, at);
  const doubles = args.map((a) => castTo(g, a, T.double(a.type.nullable), false, at));
  return { code: nullSafe(g, doubles, body), type: T.double(anyNullable(args)) };
}

function substring(name: string): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, 2, 3, at);
    requireString(name, args[0] as Compiled, at);
    requireInteger(name, args[1] as Compiled, at);
    if (args[2] !== undefined) requireInteger(name, args[2], at);
    return {
      code: nullSafe(g, args, ([s, p, l]) => `h.substring(${s}, ${p}, ${l ?? 'undefined'})`),
      type: T.string(anyNullable(args)),
    };
  };
}

/** The built-in functions' names, for `SHOW FUNCTIONS`. */
export function builtInFunctionNames(): string[] {
  const callable = Object.keys(FUNCTION_FAMILIES).filter((n) => /^[A-Z_0-9]+$/.test(n));
  const aggregates = [...AGGREGATE_FUNCTIONS].filter((n) => n !== SINGLE_VALUE);
  return [...Object.keys(FUNCTIONS), ...callable, ...aggregates].sort();
}

/** The common type of a constructor's values (nullable when one of them is). */
function commonTypeOf(what: string, args: readonly Compiled[], at: SourcePosition): LogicalType {
  const type = commonType(args.map((a) => a.type));
  if (type === undefined || type.kind === 'NULL')
    return sqlError(
      `${what} have no common type: ${args.map((a) => formatType(a.type)).join(', ')}`,
      at,
    );
  return withNullability(
    type,
    args.some((a) => a.type.nullable),
  );
}

export function callFunction(
  name: string,
  args: Compiled[],
  g: CodeGen,
  at: SourcePosition,
  raw: readonly Expr[],
): Compiled {
  // A function registered under a built-in's name shadows it (as Flink resolves a temporary
  // system function before the built-in one).
  const user = compileUserFunction(name, args, g, at);
  if (user !== undefined) return user;
  const fn = FUNCTIONS[name] ?? FUNCTION_FAMILIES[name];
  if (fn === undefined)
    return sqlError(`unknown function ${name}: not supported by Weir SQL yet`, at);
  return fn(PRECISE_ARGUMENTS.has(name) ? args : args.map((a) => toMillis(g, a)), g, at, raw);
}

/**
 * The built-ins that take a TIMESTAMP(p > 3) as it is: they only pick or compare values of
 * their arguments' common type. The others compute on milliseconds (cast.ts `toMillis`).
 */
const PRECISE_ARGUMENTS = new Set([
  'COALESCE',
  'IF',
  'NULLIF',
  'IFNULL',
  'GREATEST',
  'LEAST',
  'TYPEOF',
  // The constructors keep their values (MAP[t, ts] of a TIMESTAMP(6) was a TIMESTAMP(3) map,
  // ROW(ts) a ROW<TIMESTAMP(3)>).
  'ARRAY[]',
  'MAP[]',
  'ROW',
  // Their value meets the elements at the elements' type (a TIMESTAMP(6) cut to milliseconds
  // never equalled an element of an ARRAY<TIMESTAMP(6)>).
  'ARRAY_CONTAINS',
  'ARRAY_POSITION',
  'ARRAY_REMOVE',
  'ARRAY_APPEND',
  'ARRAY_PREPEND',
  'IS DISTINCT FROM',
  'IS NOT DISTINCT FROM',
  // Adds whole milliseconds to the nanoseconds of a TIMESTAMP(p > 3) (time-functions.ts).
  'TIMESTAMPADD',
  // Round the nanoseconds, keeping the precision (time-functions.ts).
  'FLOOR TO',
  'CEIL TO',
  // Compares the nanoseconds (time-functions.ts).
  'OVERLAPS',
]);
