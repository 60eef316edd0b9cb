/**
 * The expression compiler: type-checks an expression against a {@link Scope} and produces the
 * JavaScript source that evaluates it over a row, with SQL's NULL semantics (three-valued
 * logic, NULL in gives NULL out). Called once per query; rows never see the tree.
 */
import { userAggregate } from '../functions/user-functions.js';
import type { Expr } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { parseDecimal } from '../types/decimal.js';
import {
  asDecimal,
  commonType,
  formatType,
  isCharacterString,
  isInteger,
  isNumeric,
  isTimestamp,
  type LogicalType,
  MAX_LENGTH,
  MAX_PRECISION,
  T,
  withNullability,
} from '../types/logical-type.js';
import { castTo, coerce } from './cast.js';
import { CodeGen, type Compiled, nullSafe } from './code-gen.js';
import { compileShared } from './common-subexpressions.js';
import { modulo } from './functions/math-functions.js';
import { likeEscapeChar, SimilarToPatternError, similarToRegExp } from './functions/similar-to.js';
import { intervalLiteral, timeArithmetic } from './functions/time-arithmetic.js';
import { extract } from './functions/time-functions.js';
import { bytesCompare, sameValue } from './functions/value-order.js';
import { AGGREGATE_FUNCTIONS, callFunction } from './functions.js';
import { expandRowEquality } from './row-equality.js';
import { runtime } from './runtime.js';
import type { Scope } from './scope.js';
import { arithmeticType } from './typing.js';

export interface CompileContext {
  readonly scope: Scope;
  readonly g: CodeGen;
  /**
   * Code of a column, or of its ROW field `field`, where the value is not `r[column]`: a
   * fused scan reads the connector's record directly (planner/record-scan.ts).
   */
  readonly read?: (column: number, field: number | undefined) => string;
}

/** The type of a numeric literal: INTEGER, BIGINT, DECIMAL(p, s) or DOUBLE (with an exponent). */
function numberLiteral(text: string, at: SourcePosition): Compiled {
  if (/[eE]/.test(text)) return { code: `(${Number(text)})`, type: T.double(false) };
  if (!text.includes('.')) {
    const n = BigInt(text);
    if (n >= -2147483648n && n <= 2147483647n)
      return { code: `(${text})`, type: T.int('INTEGER', false) };
    // Beyond 2^53 a BIGINT is a bigint in the row (types/long.ts).
    if (n >= -(2n ** 63n) && n < 2n ** 63n)
      return {
        code: Number.isSafeInteger(Number(n)) ? `(${text})` : `(${n}n)`,
        type: T.bigint(false),
      };
  }
  // As Calcite: every digit counts, a leading zero too (0.908 is DECIMAL(4, 3)).
  const digits = text.replace(/^-/, '');
  const scale = digits.length - digits.indexOf('.') - 1;
  const precision = Math.max(digits.length - 1, 1);
  if (precision > MAX_PRECISION) sqlError(`numeric literal ${text} has more than 38 digits`, at);
  const unscaled = parseDecimal(text, scale) as bigint;
  return { code: `(${unscaled}n)`, type: T.decimal(precision, scale, false) };
}

function typedLiteral(e: Extract<Expr, { kind: 'typed-literal' }>): Compiled {
  if (e.type === 'DATE') {
    const days = runtime.parseDate(e.value);
    if (days === undefined) sqlError(`'${e.value}' is not a DATE (yyyy-MM-dd)`, e.at);
    return { code: `(${days})`, type: T.date(false) };
  }
  if (e.type === 'TIME') {
    const ms = runtime.parseTime(e.value);
    if (ms === undefined) sqlError(`'${e.value}' is not a TIME (HH:mm:ss)`, e.at);
    return { code: `(${ms})`, type: { kind: 'TIME', nullable: false, precision: 0 } };
  }
  const ms = runtime.parseTimestamp(e.value);
  if (ms === undefined)
    sqlError(`'${e.value}' is not a TIMESTAMP (yyyy-MM-dd HH:mm:ss[.fff])`, e.at);
  const fraction = /\.(\d+)$/.exec(e.value.trim())?.[1]?.length ?? 0;
  // Beyond milliseconds the value is epoch nanoseconds (functions/precise-time.ts).
  if (fraction > 3)
    return {
      code: `(${runtime.parseTimestampNanos(e.value)}n)`,
      type: T.timestamp(fraction, false),
    };
  return { code: `(${ms})`, type: T.timestamp(fraction, false) };
}

/** Compiles `e`; the result's code reads the row `r`. */
export function compile(e: Expr, ctx: CompileContext): Compiled {
  return compileShared(e, ctx, compileNode) ?? compileNode(e, ctx);
}

function compileNode(e: Expr, ctx: CompileContext): Compiled {
  const { g } = ctx;
  switch (e.kind) {
    case 'number':
      return numberLiteral(e.text, e.at);
    case 'string':
      return { code: JSON.stringify(e.value), type: T.char(Math.max(e.value.length, 1), false) };
    case 'boolean':
      return { code: String(e.value), type: T.boolean(false) };
    case 'null':
      return { code: 'null', type: T.null() };
    case 'interval':
      return intervalLiteral(e);
    case 'typed-literal':
      return typedLiteral(e);
    case 'column': {
      const resolved = ctx.scope.resolve(e.path, e.at);
      let code = `r[${resolved.index}]`;
      let parentNullable = resolved.column.type.nullable;
      let fields = resolved.fields;
      if (ctx.read !== undefined) {
        const first = fields[0];
        code = ctx.read(resolved.index, first?.index);
        if (first !== undefined) {
          parentNullable = first.type.nullable;
          fields = fields.slice(1);
        }
      }
      for (const field of fields) {
        if (parentNullable) {
          const t = g.temp();
          code = `((${t} = ${code}) === null ? null : ${t}[${field.index}])`;
        } else code = `${code}[${field.index}]`;
        parentNullable = field.type.nullable;
      }
      return { code, type: resolved.type };
    }
    case 'unary': {
      const arg = compile(e.arg, ctx);
      if (e.op === 'NOT') {
        const b = booleanOperand(g, arg, e.at, 'NOT');
        return { code: nullSafe(g, [b], ([v]) => `!${v}`), type: b.type };
      }
      if (e.op === '+') return arg;
      if (
        !isNumeric(arg.type) &&
        arg.type.kind !== 'INTERVAL_DAY_TIME' &&
        arg.type.kind !== 'INTERVAL_YEAR_MONTH'
      ) {
        sqlError(`cannot negate ${formatType(arg.type)}`, e.at);
      }
      return {
        code: nullSafe(g, [arg], ([v]) =>
          arg.type.kind === 'BIGINT' ? `h.longNegate(${v})` : wrapIfInteger(`(-${v})`, arg.type),
        ),
        type: arg.type,
      };
    }
    case 'binary': {
      const rows = expandRowEquality(e);
      return rows === undefined ? binary(e, ctx) : compile(rows, ctx);
    }
    case 'is': {
      const arg = compile(e.arg, ctx);
      let code: string;
      if (e.test === 'NULL') code = `((${arg.code}) === null)`;
      else {
        if (arg.type.kind !== 'BOOLEAN' && arg.type.kind !== 'NULL')
          sqlError(`IS ${e.test} needs a BOOLEAN, got ${formatType(arg.type)}`, e.at);
        code =
          e.test === 'UNKNOWN'
            ? `((${arg.code}) === null)`
            : `((${arg.code}) === ${e.test === 'TRUE'})`;
      }
      return { code: e.negated ? `(!${code})` : code, type: T.boolean(false) };
    }
    case 'between': {
      const low: Expr = { kind: 'binary', op: '>=', left: e.arg, right: e.low, at: e.at };
      const high: Expr = { kind: 'binary', op: '<=', left: e.arg, right: e.high, at: e.at };
      const both: Expr = { kind: 'binary', op: 'AND', left: low, right: high, at: e.at };
      return compile(e.negated ? { kind: 'unary', op: 'NOT', arg: both, at: e.at } : both, ctx);
    }
    case 'in': {
      let any: Expr | undefined;
      for (const item of e.list) {
        const eq: Expr = { kind: 'binary', op: '=', left: e.arg, right: item, at: e.at };
        any = any === undefined ? eq : { kind: 'binary', op: 'OR', left: any, right: eq, at: e.at };
      }
      const all = any as Expr;
      return compile(e.negated ? { kind: 'unary', op: 'NOT', arg: all, at: e.at } : all, ctx);
    }
    case 'like': {
      if (e.similar === true) return similarTo(e, ctx);
      const arg = compile(e.arg, ctx);
      const pattern = compile(e.pattern, ctx);
      for (const [v, what] of [
        [arg, 'LIKE operand'],
        [pattern, 'LIKE pattern'],
      ] as const) {
        if (!isCharacterString(v.type) && v.type.kind !== 'NULL')
          sqlError(`${what} must be a string, got ${formatType(v.type)}`, e.at);
      }
      let escapeChar: string | null = null;
      if (e.escape !== undefined) {
        if (e.escape.kind !== 'string')
          sqlError('ESCAPE must be a string of one character', e.escape.at);
        const text = e.escape.value;
        escapeChar = likePattern(() => likeEscapeChar(text), e.escape.at);
      }
      const escapeCode = JSON.stringify(escapeChar);
      let body: (vars: string[]) => string;
      if (e.pattern.kind === 'string') {
        const source = e.pattern.value;
        const re = g.constant(
          likePattern(() => runtime.likeToRegExp(source, escapeChar), e.pattern.at),
        );
        body = ([v]) => `${re}.test(${v})`;
        const code = nullSafe(g, [arg], body);
        return {
          code: e.negated ? not(g, code, arg.type.nullable) : code,
          type: T.boolean(arg.type.nullable),
        };
      }
      const code = nullSafe(g, [arg, pattern], ([v, p]) => `h.like(${v}, ${p}, ${escapeCode})`);
      const nullable = arg.type.nullable || pattern.type.nullable;
      return { code: e.negated ? not(g, code, nullable) : code, type: T.boolean(nullable) };
    }
    case 'case':
      return caseExpression(e, ctx);
    case 'cast':
      return castTo(g, compile(e.arg, ctx), e.type, e.tryCast, e.at);
    case 'extract': {
      const arg = compile(e.arg, ctx);
      return extract(g, arg, e.unit, e.at);
    }
    case 'item':
      return elementAccess(e, ctx);
    case 'field':
      return fieldAccess(e, ctx);
    case 'call': {
      if (e.over) sqlError(`${e.name}(...) OVER (...) is not supported by Weir SQL yet`, e.at);
      if (AGGREGATE_FUNCTIONS.has(e.name) || userAggregate(e.name) !== undefined)
        sqlError(`aggregate ${e.name} is not allowed here`, e.at);
      if (e.filter !== undefined) sqlError('FILTER (WHERE ...) applies only to aggregates', e.at);
      if (e.star) sqlError(`${e.name}(*) is not a function`, e.at);
      if (e.name === 'CURRENT_WATERMARK') return currentWatermark(e, ctx);
      return callFunction(
        e.name,
        e.args.map((a) => compile(a, ctx)),
        g,
        e.at,
        e.args,
      );
    }
    case 'scalar-subquery':
      // Rewritten into a join before compiling where it can be (see scalar-subquery.ts).
      return sqlError(
        'a scalar subquery is supported by Weir SQL in the SELECT list, WHERE and HAVING clauses and aggregate arguments (not beside OVER windows or grouping sets), not here yet',
        e.at,
      );
    case 'subquery-test':
      // Only a WHERE's AND-ed conditions become semi and anti joins (as Flink plans them).
      return sqlError(
        `${e.test === 'EXISTS' ? 'EXISTS (subquery)' : `${e.negated ? 'NOT IN' : 'IN'} (subquery)`} other than as one of the AND-ed conditions of a WHERE clause is not supported by Weir SQL yet`,
        e.at,
      );
    case 'descriptor':
    case 'table-arg':
      return sqlError(
        `${e.kind === 'descriptor' ? 'DESCRIPTOR' : 'TABLE'} is only allowed as an argument of a window table function`,
        e.at,
      );
  }
}

/**
 * `CURRENT_WATERMARK(rowtime)` (Flink 1.15+): the current watermark of the operator that
 * evaluates it, NULL before its first one; a TIMESTAMP(3) or TIMESTAMP_LTZ(3) as the rowtime
 * is. Non-deterministic: never computed at plan time, never shared with another operator's
 * code; the calc that reads it runs as an operator that sees watermarks (planner/calc.ts).
 */
function currentWatermark(e: Extract<Expr, { kind: 'call' }>, ctx: CompileContext): Compiled {
  const MUST = 'CURRENT_WATERMARK() must be called with a single rowtime attribute argument';
  const [first] = e.args;
  if (first === undefined || e.args.length !== 1)
    return sqlError(`${MUST}, got ${e.args.length} arguments`, e.at);
  const arg = compile(first, ctx);
  if (!isTimestamp(arg.type))
    return sqlError(`${MUST}, but '${formatType(arg.type)}' cannot be a time attribute`, first.at);
  const resolved = first.kind === 'column' ? ctx.scope.resolve(first.path, first.at) : undefined;
  if (resolved === undefined || resolved.fields.length > 0 || !resolved.column.rowtime)
    return sqlError(
      `${MUST}, but ${first.kind === 'column' ? `'${first.path.join('.')}'` : 'the argument'} (${formatType(arg.type)}) is not a rowtime attribute (a column with a WATERMARK)`,
      first.at,
    );
  return {
    code: ctx.g.watermark(e.at),
    type: { kind: arg.type.kind, precision: 3, nullable: true },
  };
}

/** A LIKE pattern's or escape's translation; Flink's message when it refuses them. */
function likePattern<T>(translate: () => T, at: SourcePosition): T {
  try {
    return translate();
  } catch (cause) {
    if (!(cause instanceof SimilarToPatternError)) throw cause;
    return sqlError(`LIKE: ${cause.message}`, at);
  }
}

/**
 * `arg [NOT] SIMILAR TO pattern [ESCAPE 'c']` (functions/similar-to.ts): a literal pattern is
 * translated once, when the query is planned (an invalid one is refused there); any other is
 * translated on first use and cached. NULL in gives NULL out.
 */
function similarTo(e: Extract<Expr, { kind: 'like' }>, ctx: CompileContext): Compiled {
  const { g } = ctx;
  const arg = compile(e.arg, ctx);
  const pattern = compile(e.pattern, ctx);
  for (const [v, what] of [
    [arg, 'SIMILAR TO operand'],
    [pattern, 'SIMILAR TO pattern'],
  ] as const) {
    if (!isCharacterString(v.type) && v.type.kind !== 'NULL')
      sqlError(`${what} must be a string, got ${formatType(v.type)}`, e.at);
  }
  let escapeChar: string | null = null;
  if (e.escape !== undefined) {
    if (e.escape.kind !== 'string' || e.escape.value.length !== 1)
      sqlError('ESCAPE must be a string of one character', e.escape.at);
    escapeChar = e.escape.value;
  }
  let code: string;
  let nullable = arg.type.nullable;
  if (e.pattern.kind === 'string') {
    let re: RegExp;
    try {
      re = similarToRegExp(e.pattern.value, escapeChar);
    } catch (cause) {
      if (!(cause instanceof SimilarToPatternError)) throw cause;
      return sqlError(`SIMILAR TO: ${cause.message}`, e.pattern.at);
    }
    const constant = g.constant(re);
    code = nullSafe(g, [arg], ([v]) => `${constant}.test(${v})`);
  } else {
    const escapeCode = JSON.stringify(escapeChar);
    code = nullSafe(g, [arg, pattern], ([v, p]) => `h.similar(${v}, ${p}, ${escapeCode})`);
    nullable ||= pattern.type.nullable;
  }
  return { code: e.negated ? not(g, code, nullable) : code, type: T.boolean(nullable) };
}

/**
 * `a[i]` and `m[k]` as Flink: an ARRAY's elements count from 1, and an index out of range
 * (0 and negative ones too) or a key the MAP lacks gives NULL, never an error.
 */
function elementAccess(e: Extract<Expr, { kind: 'item' }>, ctx: CompileContext): Compiled {
  const { g } = ctx;
  const base = compile(e.base, ctx);
  const index = compile(e.index, ctx);
  const t = base.type;
  if (t.kind === 'ARRAY') {
    if (!isInteger(index.type) && index.type.kind !== 'NULL')
      sqlError(`an ARRAY index must be an integer, got ${formatType(index.type)}`, e.index.at);
    return {
      code: nullSafe(g, [base, index], ([a, i]) => `h.arrayItem(${a}, ${i})`),
      type: withNullability(t.element, true),
    };
  }
  if (t.kind === 'MAP') {
    const key = coerce(g, index, withNullability(t.key, true), e.index.at, 'MAP key');
    return {
      code: nullSafe(g, [base, key], ([m, k]) => `h.mapItem(${m}, ${k})`),
      type: withNullability(t.value, true),
    };
  }
  if (t.kind === 'NULL') return { code: 'null', type: T.null() };
  return sqlError(
    `[...] needs an ARRAY or a MAP, got ${formatType(t)}${t.kind === 'ROW' ? ' (a ROW field is read with .name)' : ''}`,
    e.at,
  );
}

/** `expr.name`: a field of a ROW value that is not a column (`a[1].name`, `(expr).name`). */
function fieldAccess(e: Extract<Expr, { kind: 'field' }>, ctx: CompileContext): Compiled {
  const { g } = ctx;
  const base = compile(e.base, ctx);
  const t = base.type;
  if (t.kind !== 'ROW')
    return sqlError(`'${e.name}' is not a field: the value is ${formatType(t)}`, e.at);
  const index = t.fields.findIndex((f) => f.name === e.name);
  if (index < 0)
    return sqlError(
      `field '${e.name}' not found; the fields are: ${t.fields.map((f) => f.name).join(', ')}`,
      e.at,
    );
  const field = (t.fields[index] as { type: LogicalType }).type;
  return {
    code: nullSafe(g, [base], ([r]) => `${r}[${index}]`),
    type: withNullability(field, field.nullable || t.nullable),
  };
}

function not(g: CodeGen, code: string, nullable: boolean): string {
  if (!nullable) return `(!${code})`;
  const t = g.temp();
  return `((${t} = ${code}) === null ? null : !${t})`;
}

function booleanOperand(g: CodeGen, c: Compiled, at: SourcePosition, op: string): Compiled {
  if (c.type.kind === 'NULL') return { code: 'null', type: T.boolean(true) };
  if (c.type.kind !== 'BOOLEAN')
    sqlError(`${op} needs BOOLEAN operands, got ${formatType(c.type)}`, at);
  void g;
  return c;
}

function wrapIfInteger(code: string, type: LogicalType): string {
  switch (type.kind) {
    case 'TINYINT':
      return `h.wrap8(${code})`;
    case 'SMALLINT':
      return `h.wrap16(${code})`;
    case 'INTEGER':
      return `(${code} | 0)`;
    default:
      return code;
  }
}

function binary(e: Extract<Expr, { kind: 'binary' }>, ctx: CompileContext): Compiled {
  const { g } = ctx;
  const left = compile(e.left, ctx);
  const right = compile(e.right, ctx);
  const nullable = left.type.nullable || right.type.nullable;
  switch (e.op) {
    case 'AND':
    case 'OR': {
      const a = booleanOperand(g, left, e.at, e.op);
      const b = booleanOperand(g, right, e.at, e.op);
      const decisive = e.op === 'AND' ? 'false' : 'true';
      if (!nullable)
        return {
          code: `(${a.code} ${e.op === 'AND' ? '&&' : '||'} ${b.code})`,
          type: T.boolean(false),
        };
      const ta = g.temp();
      const tb = g.temp();
      // Three-valued: FALSE AND NULL is FALSE, TRUE OR NULL is TRUE, otherwise NULL wins.
      return {
        code: `((${ta} = ${a.code}) === ${decisive} ? ${decisive} : (${tb} = ${b.code}) === ${decisive} ? ${decisive} : ${ta} === null || ${tb} === null ? null : ${e.op === 'AND' ? 'true' : 'false'})`,
        type: T.boolean(true),
      };
    }
    case '=':
    case '<>':
    case '<':
    case '<=':
    case '>':
    case '>=': {
      if ((e.op === '=' || e.op === '<>') && isMultiset(left.type, right.type))
        return multisetEquality(g, e, left, right);
      const common = comparisonType(left.type, right.type, e.at, e.op);
      const a = comparable(g, left, common, e.at, `operand of ${e.op}`);
      const b = comparable(g, right, common, e.at, `operand of ${e.op}`);
      const op = e.op === '=' ? '===' : e.op === '<>' ? '!==' : e.op;
      // BYTES compare byte by byte, not as objects.
      const bytes = common.kind === 'BINARY' || common.kind === 'VARBINARY';
      return {
        code: nullSafe(g, [a, b], ([x, y]) =>
          bytes ? `(${g.constant(bytesCompare)}(${x}, ${y}) ${op} 0)` : `(${x} ${op} ${y})`,
        ),
        type: T.boolean(a.type.nullable || b.type.nullable),
      };
    }
    case '||': {
      for (const v of [left, right]) {
        if (!isCharacterString(v.type) && v.type.kind !== 'NULL')
          sqlError(`|| needs strings, got ${formatType(v.type)}`, e.at);
      }
      return {
        code: nullSafe(g, [left, right], ([x, y]) => `(${x} + ${y})`),
        type: T.string(nullable),
      };
    }
    default:
      return arithmetic(e.op, left, right, g, e.at);
  }
}

function isMultiset(a: LogicalType, b: LogicalType): boolean {
  return a.kind === 'MULTISET' || b.kind === 'MULTISET';
}

/**
 * `=` / `<>` of MULTISETs, as Flink's generateEquals compares them (as maps of element to
 * count, whatever their order); ordering them is refused, as Flink does.
 */
function multisetEquality(
  g: CodeGen,
  e: Extract<Expr, { kind: 'binary' }>,
  left: Compiled,
  right: Compiled,
): Compiled {
  const common = commonType([left.type, right.type]);
  if (common === undefined || (common.kind !== 'MULTISET' && common.kind !== 'NULL'))
    return sqlError(
      `cannot compare ${formatType(left.type)} with ${formatType(right.type)} (${e.op})`,
      e.at,
    );
  const [a, b] = [left, right].map((v) =>
    coerce(g, v, withNullability(common, v.type.nullable), e.at, `operand of ${e.op}`),
  ) as [Compiled, Compiled];
  const not = e.op === '<>' ? '!' : '';
  return {
    code: nullSafe(g, [a, b], ([x, y]) => `${not}${g.constant(sameValue)}(${x}, ${y})`),
    type: T.boolean(a.type.nullable || b.type.nullable),
  };
}

const DATETIME_KINDS: ReadonlySet<LogicalType['kind']> = new Set([
  'DATE',
  'TIME',
  'TIMESTAMP',
  'TIMESTAMP_LTZ',
]);

/**
 * An operand of a comparison in the comparison's type. A character string
 * compared with a date or time is read as one (a CAST that fails on text
 * that is no such value), as Calcite's implicit coercion does for Flink:
 * `d = '2024-01-01'`, `d = DATE_FORMAT(ts, 'yyyy-MM-dd')`.
 */
function comparable(
  g: CodeGen,
  value: Compiled,
  type: LogicalType,
  at: SourcePosition,
  what: string,
): Compiled {
  if (isCharacterString(value.type) && DATETIME_KINDS.has(type.kind))
    return castTo(g, value, withNullability(type, value.type.nullable), false, at);
  return coerce(g, value, type, at, what);
}

function comparisonType(
  a: LogicalType,
  b: LogicalType,
  at: SourcePosition,
  op: string,
): LogicalType {
  // A date or time against a string: compared as the date or time (see `comparable`).
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const)
    if (DATETIME_KINDS.has(x.kind) && isCharacterString(y))
      return withNullability(x, x.nullable || y.nullable);
  const common = commonType([a, b]);
  if (
    common === undefined ||
    common.kind === 'ROW' ||
    common.kind === 'ARRAY' ||
    common.kind === 'MAP' ||
    common.kind === 'MULTISET'
  ) {
    return sqlError(`cannot compare ${formatType(a)} with ${formatType(b)} (${op})`, at);
  }
  return common.kind === 'NULL' ? T.boolean(true) : common;
}

/** BIGINT arithmetic: exact over 64 bits and wrapping as Java's long (types/long.ts). */
const LONG_OPERATIONS = {
  '+': 'longAdd',
  '-': 'longSubtract',
  '*': 'longMultiply',
  '/': 'longDivide',
} as const;

function arithmetic(
  op: '+' | '-' | '*' | '/' | '%',
  left: Compiled,
  right: Compiled,
  g: CodeGen,
  at: SourcePosition,
): Compiled {
  // Time arithmetic: DATE / TIME / TIMESTAMP +/- INTERVAL, INTERVAL +/- INTERVAL, INTERVAL * n.
  const time = timeArithmetic(op, left, right, g, at);
  if (time !== undefined) return time;
  const lt = left.type;
  const rt = right.type;
  if (lt.kind === 'NULL' || rt.kind === 'NULL') {
    const other = lt.kind === 'NULL' ? rt : lt;
    if (other.kind === 'NULL' || isNumeric(other))
      return { code: 'null', type: withNullability(other.kind === 'NULL' ? T.int() : other, true) };
  }
  // `%` is MOD, typed and computed as it (Flink types both by Calcite's NULLABLE_MOD).
  if (op === '%') return modulo('%', left, right, g, at);
  const type = arithmeticType(op, lt, rt);
  if (type === undefined)
    return sqlError(`cannot apply ${op} to ${formatType(lt)} and ${formatType(rt)}`, at);
  if (type.kind === 'DOUBLE') {
    const a = castTo(g, left, T.double(lt.nullable), false, at);
    const b = castTo(g, right, T.double(rt.nullable), false, at);
    return { code: nullSafe(g, [a, b], ([x, y]) => `(${x} ${op} ${y})`), type };
  }
  if (type.kind === 'FLOAT') {
    // In 32 bits as Java's float: the operands as floats, the double result rounded to one
    // (exact for + - * / %, a double holding every float result before its rounding).
    const a = castTo(g, left, { kind: 'FLOAT', nullable: lt.nullable }, false, at);
    const b = castTo(g, right, { kind: 'FLOAT', nullable: rt.nullable }, false, at);
    return { code: nullSafe(g, [a, b], ([x, y]) => `Math.fround(${x} ${op} ${y})`), type };
  }
  if (type.kind === 'BIGINT') {
    const helper = LONG_OPERATIONS[op];
    return { code: nullSafe(g, [left, right], ([x, y]) => `h.${helper}(${x}, ${y})`), type };
  }
  if (isInteger(type)) {
    const body = ([x, y]: string[]) =>
      op === '/'
        ? `h.intDivide(${x}, ${y})`
        : op === '*' && type.kind === 'INTEGER'
          ? `Math.imul(${x}, ${y})` // the exact 32-bit product; a double would round first
          : wrapIfInteger(`(${x} ${op} ${y})`, type);
    return { code: nullSafe(g, [left, right], body), type };
  }
  if (type.kind !== 'DECIMAL')
    return sqlError(`cannot apply ${op} to ${formatType(lt)} and ${formatType(rt)}`, at);
  const da = asDecimal(lt) as { precision: number; scale: number };
  const db = asDecimal(rt) as { precision: number; scale: number };
  const byConstant =
    op === '*' ? integerTimesConstant(left, right, da.scale + db.scale, type) : undefined;
  if (byConstant !== undefined) return byConstant(g);
  const a = isInteger(lt)
    ? {
        code: nullSafe(g, [left], ([v]) => `BigInt(${v})`),
        type: T.decimal(da.precision, 0, lt.nullable),
      }
    : left;
  const b = isInteger(rt)
    ? {
        code: nullSafe(g, [right], ([v]) => `BigInt(${v})`),
        type: T.decimal(db.precision, 0, rt.nullable),
      }
    : right;
  const s = type.scale;
  // Exact at the larger scale, then rounded half up to the result's: a sum whose precision
  // passes 38 keeps fewer fraction digits than its operands (DECIMAL(38, 18) + 1.0).
  const exact = Math.max(da.scale, db.scale, s);
  const scaleUp = (v: string, from: number) =>
    from === exact ? v : `(${v} * ${10n ** BigInt(exact - from)}n)`;
  let body: (vars: string[]) => string;
  switch (op) {
    case '+':
    case '-':
      body = ([x, y]) => {
        const sum = `${scaleUp(x as string, da.scale)} ${op} ${scaleUp(y as string, db.scale)}`;
        return `h.fitPrecision(${exact === s ? sum : `h.rescale(${sum}, ${exact}, ${s})`}, ${type.precision})`;
      };
      break;
    case '*':
      body = ([x, y]) =>
        `h.fitPrecision(h.rescale(${x} * ${y}, ${da.scale + db.scale}, ${s}), ${type.precision})`;
      break;
    case '/':
      body = ([x, y]) =>
        `h.decimalDivide(${x}, ${da.scale}, ${y}, ${db.scale}, ${s}, ${type.precision})`;
      break;
  }
  return { code: nullSafe(g, [a, b], body), type: withNullability(type, true) };
}

/**
 * An integer column times a DECIMAL literal (Nexmark's `0.908 * price`) with no rescaling: the
 * product through doubles while it is exact (`multiplyByConstant`), instead of two bigints.
 */
function integerTimesConstant(
  left: Compiled,
  right: Compiled,
  productScale: number,
  type: LogicalType,
): ((g: CodeGen) => Compiled) | undefined {
  if (type.kind !== 'DECIMAL' || type.scale !== productScale) return undefined;
  const [integer, constant] = isInteger(left.type) ? [left, right] : [right, left];
  if (!isInteger(integer.type)) return undefined;
  const literal = /^\((-?\d+)n\)$/.exec(constant.code)?.[1];
  if (literal === undefined || !Number.isSafeInteger(Number(literal))) return undefined;
  const { precision } = type;
  return (g) => ({
    code: nullSafe(
      g,
      [integer],
      ([v]) => `h.multiplyByConstant(${v}, ${Number(literal)}, ${literal}n, ${precision})`,
    ),
    type: withNullability(type, true),
  });
}

function caseExpression(e: Extract<Expr, { kind: 'case' }>, ctx: CompileContext): Compiled {
  const { g } = ctx;
  const conditions = e.whens.map((w) => {
    const cond: Expr =
      e.operand === undefined
        ? w.when
        : { kind: 'binary', op: '=', left: e.operand, right: w.when, at: w.when.at };
    const c = compile(cond, ctx);
    if (c.type.kind !== 'BOOLEAN' && c.type.kind !== 'NULL')
      sqlError(`WHEN needs a BOOLEAN condition, got ${formatType(c.type)}`, w.when.at);
    return c;
  });
  const results = e.whens.map((w) => compile(w.result, ctx));
  const otherwise =
    e.otherwise === undefined ? { code: 'null', type: T.null() } : compile(e.otherwise, ctx);
  const all = [...results, otherwise];
  const type = commonType(all.map((r) => r.type));
  if (type === undefined)
    return sqlError(
      `CASE branches have no common type: ${all.map((r) => formatType(r.type)).join(', ')}`,
      e.at,
    );
  const branch = (r: Compiled) =>
    castTo(g, r, withNullability(type, r.type.nullable), false, e.at).code;
  let code = branch(otherwise);
  for (let i = conditions.length - 1; i >= 0; i--) {
    code = `((${(conditions[i] as Compiled).code}) === true ? ${branch(results[i] as Compiled)} : ${code})`;
  }
  return {
    code,
    type: withNullability(
      type,
      all.some((r) => r.type.nullable),
    ),
  };
}

/** Compiles expressions into one function returning their values as a new row. */
export function compileProjection(
  exprs: readonly Expr[],
  scope: Scope,
  checking = false,
): { fn: (row: unknown[]) => unknown[]; types: LogicalType[] } {
  const g = new CodeGen();
  const compiled = exprs.map((e) => compile(e, { scope, g }));
  // Built only to check the expressions: they may read an operator's watermark.
  if (checking) g.takeWatermark();
  const fn = g.function<(row: unknown[]) => unknown[]>(
    `return [${compiled.map((c) => c.code).join(', ')}];`,
  );
  return { fn, types: compiled.map((c) => c.type) };
}

/**
 * Compiles expressions whose values are appended to the row they read (a table's computed
 * columns after its stored ones): the row grows in place instead of being copied, for a row
 * that no other operator holds.
 */
export function compileAppend(
  exprs: readonly Expr[],
  scope: Scope,
): { fn: (row: unknown[]) => unknown[]; types: LogicalType[] } {
  const g = new CodeGen();
  const compiled = exprs.map((e) => compile(e, { scope, g }));
  const fn = g.function<(row: unknown[]) => unknown[]>(
    `r.push(${compiled.map((c) => c.code).join(', ')}); return r;`,
  );
  return { fn, types: compiled.map((c) => c.type) };
}

/** Compiles a condition into a predicate that holds only when it is TRUE (not FALSE, not NULL). */
export function compilePredicate(
  e: Expr,
  scope: Scope,
  what: string,
  checking = false,
): (row: unknown[]) => boolean {
  const g = new CodeGen();
  const c = compile(e, { scope, g });
  // Built only to check the condition: it may read an operator's watermark.
  if (checking) g.takeWatermark();
  if (c.type.kind !== 'BOOLEAN' && c.type.kind !== 'NULL')
    sqlError(`${what} must be BOOLEAN, got ${formatType(c.type)}`, e.at);
  return g.function<(row: unknown[]) => boolean>(`return (${c.code}) === true;`);
}

/** Compiles one expression into a function of the row, with its type. */
export function compileScalar(
  e: Expr,
  scope: Scope,
): { fn: (row: unknown[]) => unknown; type: LogicalType } {
  const g = new CodeGen();
  const c = compile(e, { scope, g });
  return { fn: g.function<(row: unknown[]) => unknown>(`return ${c.code};`), type: c.type };
}

export { MAX_LENGTH };
