/**
 * GREATEST, LEAST, IFNULL and IS [NOT] DISTINCT FROM, over the common type of their arguments
 * (numbers widen, strings compare by UTF-16 code units as Java's String.compareTo does).
 */
import { type SourcePosition, sqlError } from '../../sql-error.js';
import {
  commonType,
  formatType,
  type LogicalType,
  T,
  withNullability,
} from '../../types/logical-type.js';
import { castTo } from '../cast.js';
import { type CodeGen, type Compiled, nullSafe } from '../code-gen.js';
import { currentDatabase } from '../session-time-zone.js';
import {
  anyNullable,
  arity,
  type FunctionCompiler,
  helperCall,
  requireString,
} from './arguments.js';
import { compareValues, isDistinct } from './value-order.js';

/** The arguments cast to their common type, or an error naming every type. */
export function toCommonType(
  name: string,
  args: readonly Compiled[],
  g: CodeGen,
  at: SourcePosition,
): { values: Compiled[]; type: LogicalType } {
  const type = commonType(args.map((a) => a.type));
  if (type === undefined || type.kind === 'ROW' || type.kind === 'MAP')
    return sqlError(
      `${name} arguments have no common comparable type: ${args.map((a) => formatType(a.type)).join(', ')}`,
      at,
    );
  const values = args.map((a) => castTo(g, a, withNullability(type, a.type.nullable), false, at));
  return { values, type: type.kind === 'NULL' ? T.null() : type };
}

function extreme(sign: 1 | -1) {
  return (...values: unknown[]): unknown => {
    let best = values[0];
    for (let i = 1; i < values.length; i++) {
      if (compareValues(values[i], best) * sign > 0) best = values[i];
    }
    return best;
  };
}

const greatest = extreme(1);
const least = extreme(-1);

/** GREATEST / LEAST: NULL when one argument is NULL (Flink 2's behaviour). */
function extremeFunction(name: string, pick: (...values: unknown[]) => unknown): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, 1, Infinity, at);
    const { values, type } = toCommonType(name, args, g, at);
    return {
      code: nullSafe(g, values, (vars) => helperCall(g, pick, vars)),
      type: withNullability(type, anyNullable(args)),
    };
  };
}

function distinctFrom(negated: boolean): FunctionCompiler {
  const name = negated ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM';
  return (args, g, at) => {
    arity(name, args, 2, 2, at);
    const { values } = toCommonType(name, args, g, at);
    const code = helperCall(
      g,
      isDistinct,
      values.map((v) => v.code),
    );
    return { code: negated ? `(!${code})` : code, type: T.boolean(false) };
  };
}

/** IS_ALPHA, IS_DIGIT, IS_DECIMAL: FALSE for NULL and for the empty string. */
export function isAlpha(s: string | null): boolean {
  return s !== null && /^\p{L}+$/u.test(s);
}

export function isDigit(s: string | null): boolean {
  return s !== null && /^\p{Nd}+$/u.test(s);
}

export function isDecimal(s: string | null): boolean {
  return s !== null && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s);
}

function stringTest(name: string, test: (s: string | null) => boolean): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, 1, 1, at);
    requireString(name, args[0] as Compiled, at);
    return { code: helperCall(g, test, [(args[0] as Compiled).code]), type: T.boolean(false) };
  };
}

export const CONDITIONAL_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  // TYPEOF(x[, forceSerializable]): the argument's SQL type as Flink prints it.
  TYPEOF: (args, _g, at) => {
    arity('TYPEOF', args, 1, 2, at);
    return { code: JSON.stringify(formatType((args[0] as Compiled).type)), type: T.string(false) };
  },
  // CURRENT_DATABASE(): the database USE made current when the query was planned.
  CURRENT_DATABASE: (args, _g, at) => {
    arity('CURRENT_DATABASE', args, 0, 0, at);
    return { code: JSON.stringify(currentDatabase()), type: T.string(false) };
  },
  IS_ALPHA: stringTest('IS_ALPHA', isAlpha),
  IS_DIGIT: stringTest('IS_DIGIT', isDigit),
  IS_DECIMAL: stringTest('IS_DECIMAL', isDecimal),
  GREATEST: extremeFunction('GREATEST', greatest),
  LEAST: extremeFunction('LEAST', least),
  // IFNULL(a, b): a unless it is NULL; nullable only when b is.
  IFNULL: (args, g, at) => {
    arity('IFNULL', args, 2, 2, at);
    const { values, type } = toCommonType('IFNULL', args, g, at);
    const [a, b] = values as [Compiled, Compiled];
    const t = g.temp();
    return {
      code: `((${t} = ${a.code}) !== null ? ${t} : ${b.code})`,
      type: withNullability(type, (args[1] as Compiled).type.nullable),
    };
  },
  'IS DISTINCT FROM': distinctFrom(false),
  'IS NOT DISTINCT FROM': distinctFrom(true),
};
