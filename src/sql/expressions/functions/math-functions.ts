/**
 * Flink's arithmetic functions beyond the standard's: MOD (and the `%` operator), SIGN,
 * TRUNCATE, PI, E, LOG, LOG2, the trigonometric and hyperbolic functions, DEGREES, RADIANS,
 * CBRT, RAND, RAND_INTEGER, SHIFTLEFT and SHIFTRIGHT.
 * DECIMAL stays exact (SIGN and TRUNCATE work on the unscaled value); the functions of real
 * analysis take and give DOUBLE.
 */
import { sqlError } from '../../sql-error.js';
import { pow10 } from '../../types/decimal.js';
import { formatType, isInteger, type LogicalType, T } from '../../types/logical-type.js';
import { longOf } from '../../types/long.js';
import { castTo } from '../cast.js';
import { type CodeGen, type Compiled, nullSafe } from '../code-gen.js';
import { moduloType, roundDecimalType } from '../typing.js';
import {
  anyNullable,
  arity,
  type FunctionCompiler,
  functionFailed,
  helperCall,
  requireInteger,
  requireNumeric,
} from './arguments.js';
import { JavaRandom } from './java-random.js';

type Position = Parameters<FunctionCompiler>[2];

/**
 * MOD(a, b) and `a % b`, one operation in Flink, typed by `moduloType`: the remainder of the
 * exact division with the dividend's sign (Java's `%`); by zero it fails. Flink refuses a
 * FLOAT or DOUBLE operand (its validator coerces no types).
 */
export function modulo(name: string, a: Compiled, b: Compiled, g: CodeGen, at: Position): Compiled {
  const type = moduloType(a.type, b.type);
  if (type === undefined)
    return sqlError(
      `${name} needs exact numeric arguments, got ${formatType(a.type)} and ${formatType(b.type)}`,
      at,
    );
  if (isInteger(a.type) && isInteger(b.type)) {
    // MOD of a BIGINT by an INT is an INT, but its operand may be a bigint.
    const helper =
      a.type.kind === 'BIGINT' || b.type.kind === 'BIGINT' ? 'longRemainder' : 'intMod';
    return { code: nullSafe(g, [a, b], ([x, y]) => `h.${helper}(${x}, ${y})`), type };
  }
  // Both unscaled at the larger scale: the remainder is then at the result's scale (0 when the
  // result is b's type) and within its digits, so it is never cut and never overflows.
  const scaleOf = (t: LogicalType): number => (t.kind === 'DECIMAL' ? t.scale : 0);
  const scale = Math.max(scaleOf(a.type), scaleOf(b.type));
  const unscaled = (v: string, t: LogicalType): string => {
    const exact = isInteger(t) ? `BigInt(${v})` : v;
    const up = scale - scaleOf(t);
    return up === 0 ? exact : `(${exact} * ${10n ** BigInt(up)}n)`;
  };
  return {
    code: nullSafe(g, [a, b], ([x, y]) => {
      const r = `h.decimalMod(${unscaled(x as string, a.type)}, ${unscaled(y as string, b.type)})`;
      if (type.kind === 'BIGINT') return `h.longOfDecimal(${r}, 0)`;
      return isInteger(type) ? `Number(${r})` : r;
    }),
    type,
  };
}

/** A function of doubles: the arguments cast to DOUBLE, the result `Math` gives. */
function real(name: string, n: number, fn: (...xs: number[]) => number): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, n, n, at);
    for (const a of args) requireNumeric(name, a, at);
    const doubles = args.map((a) => castTo(g, a, T.double(a.type.nullable), false, at));
    return {
      code: nullSafe(g, doubles, (vars) => helperCall(g, fn, vars)),
      type: T.double(anyNullable(args)),
    };
  };
}

function constant(name: string, value: number): FunctionCompiler {
  return (args, _g, at) => {
    arity(name, args, 0, 0, at);
    return { code: `(${value})`, type: T.double(false) };
  };
}

/** LOG(x) is the natural logarithm; LOG(base, x) fails for a base of 1 or less, as in Flink. */
export function log(a: number, b?: number): number {
  if (b === undefined) return Math.log(a);
  if (a <= 1) functionFailed('LOG', `the base must be greater than 1, got ${a}`);
  return Math.log(b) / Math.log(a);
}

function sign(v: number | bigint): number | bigint {
  if (typeof v === 'bigint') return v > 0n ? 1n : v < 0n ? -1n : 0n;
  return Math.sign(v);
}

/** The digits of a double as Java's BigDecimal.valueOf sees them, cut toward zero at `digits`. */
export function truncateDouble(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const [mantissa = '', exponent = '0'] = x.toExponential().split('e');
  const negative = mantissa.startsWith('-');
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  const unscaled = BigInt(whole + fraction);
  const scale = fraction.length - Number(exponent);
  const kept = scale <= digits ? unscaled : unscaled / pow10(scale - digits);
  const result = Number(`${kept}e${-Math.min(scale, digits)}`);
  return negative ? -result : result;
}

function truncateInteger(v: number | bigint, digits: number): number | bigint {
  if (digits >= 0) return v;
  const unit = pow10(-digits);
  const b = BigInt(v);
  const r = b - (b % unit);
  return typeof v === 'bigint' ? longOf(r) : Number(r);
}

function truncateUnscaled(v: bigint, from: number, to: number): bigint {
  // Toward zero to `to` digits, then back at scale `max(to, 0)`.
  if (to >= from) return v * pow10(Math.max(to, 0) - from);
  const cut = v / pow10(from - to);
  return to >= 0 ? cut : cut * pow10(-to);
}

/**
 * TRUNCATE(x[, digits]): Flink types it as ROUND (`roundDecimalType`), so a DECIMAL cut to
 * fewer digits has room for the digit ROUND may carry.
 */
function truncate(
  args: Compiled[],
  g: CodeGen,
  at: Position,
  raw: Parameters<FunctionCompiler>[3],
): Compiled {
  arity('TRUNCATE', args, 1, 2, at);
  const a = args[0] as Compiled;
  requireNumeric('TRUNCATE', a, at);
  let digits = 0;
  if (args.length === 2) {
    requireInteger('TRUNCATE', args[1] as Compiled, at);
    const d = raw[1];
    if (d?.kind !== 'number' || !/^-?\d+$/.test(d.text))
      return sqlError('TRUNCATE needs a whole number literal as its second argument', at);
    digits = Number(d.text);
  }
  if (isInteger(a.type))
    return {
      code: nullSafe(g, [a], ([v]) =>
        helperCall(g, truncateInteger, [v as string, String(digits)]),
      ),
      type: a.type,
    };
  if (a.type.kind === 'DECIMAL') {
    const { precision, scale } = a.type;
    return {
      code: nullSafe(g, [a], ([v]) =>
        helperCall(g, truncateUnscaled, [
          v as string,
          String(scale),
          String(Math.min(digits, scale)),
        ]),
      ),
      type: roundDecimalType(precision, scale, digits, a.type.nullable),
    };
  }
  const x = castTo(g, a, T.double(a.type.nullable), false, at);
  return {
    code: nullSafe(g, [x], ([v]) => helperCall(g, truncateDouble, [v as string, String(digits)])),
    type: x.type,
  };
}

function bigintSafe(v: number | bigint): number {
  return typeof v === 'bigint' ? Number(v) : v;
}

/**
 * RAND([seed]) and RAND_INTEGER([seed,] bound): without a seed Math.random; with one, Java's
 * `java.util.Random` sequence from that seed, one generator per compiled expression (per
 * operator instance), as Flink keeps one per generated function.
 */
function random(name: 'RAND' | 'RAND_INTEGER'): FunctionCompiler {
  return (args, g, at) => {
    const integer = name === 'RAND_INTEGER';
    arity(name, args, integer ? 1 : 0, integer ? 2 : 1, at);
    for (const a of args) requireInteger(name, a, at);
    const seeded = args.length === (integer ? 2 : 1);
    const generator = seeded ? g.temp() : undefined;
    const next = (bound?: string) => {
      if (generator === undefined)
        return bound === undefined ? 'Math.random()' : helperCall(g, randomBelow, [bound]);
      return bound === undefined ? `${generator}.nextDouble()` : `${generator}.nextInt(${bound})`;
    };
    const boundArg = integer ? (args[args.length - 1] as Compiled) : undefined;
    let code: string;
    if (generator !== undefined) {
      const seed = args[0] as Compiled;
      // The generator lives in a constant slot, made on first use from the first seed seen.
      const slot = g.constant({ generator: undefined as JavaRandom | undefined });
      const make = helperCall(g, makeRandom, [`${seed.code} ?? 0`]);
      code = `((${generator} = (${slot}.generator ??= ${make})), ${boundArg === undefined ? next() : nullSafe(g, [boundArg], ([b]) => next(b))})`;
    } else code = boundArg === undefined ? next() : nullSafe(g, [boundArg], ([b]) => next(b));
    return {
      code,
      type: integer ? T.int('INTEGER', boundArg?.type.nullable ?? false) : T.double(false),
    };
  };
}

function makeRandom(seed: number | bigint): JavaRandom {
  return new JavaRandom(BigInt(seed));
}

function randomBelow(bound: number): number {
  if (bound <= 0) functionFailed('RAND_INTEGER', `the bound must be positive, got ${bound}`);
  return Math.floor(Math.random() * bound);
}

/**
 * SHIFTLEFT and SHIFTRIGHT: the value as Java's long shifted as Java shifts one (by the amount's
 * low six bits, wrapping at 64 bits; to the right keeping the sign).
 */
export function shiftLeft(v: number | bigint, bits: number | bigint): number | bigint {
  return longOf(BigInt(v) << BigInt.asUintN(6, BigInt(bits)));
}

export function shiftRight(v: number | bigint, bits: number | bigint): number | bigint {
  return longOf(BigInt(v) >> BigInt.asUintN(6, BigInt(bits)));
}

function shift(name: string, fn: typeof shiftLeft): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, 2, 2, at);
    for (const a of args) requireInteger(name, a, at);
    return {
      code: nullSafe(g, args, (vars) => helperCall(g, fn, vars)),
      type: T.bigint(anyNullable(args)),
    };
  };
}

function signFunction(args: Compiled[], g: CodeGen, at: Position): Compiled {
  arity('SIGN', args, 1, 1, at);
  const a = args[0] as Compiled;
  requireNumeric('SIGN', a, at);
  if (a.type.kind === 'DECIMAL') {
    const unit = `${pow10(a.type.scale)}n`;
    return {
      code: nullSafe(g, [a], ([v]) => `(${helperCall(g, sign, [v as string])} * ${unit})`),
      type: a.type,
    };
  }
  if (a.type.kind === 'BIGINT')
    return {
      code: nullSafe(g, [a], ([v]) =>
        helperCall(g, bigintSafe, [helperCall(g, sign, [v as string])]),
      ),
      type: a.type,
    };
  return { code: nullSafe(g, [a], ([v]) => `(Math.sign(${v}) + 0)`), type: a.type as LogicalType };
}

export const MATH_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  SIGN: signFunction,
  MOD: (args, g, at) => {
    arity('MOD', args, 2, 2, at);
    return modulo('MOD', args[0] as Compiled, args[1] as Compiled, g, at);
  },
  TRUNCATE: truncate,
  PI: constant('PI', Math.PI),
  E: constant('E', Math.E),
  LOG: (args, g, at) => real('LOG', args.length === 2 ? 2 : 1, log)(args, g, at, []),
  LOG2: real('LOG2', 1, Math.log2),
  SIN: real('SIN', 1, Math.sin),
  COS: real('COS', 1, Math.cos),
  TAN: real('TAN', 1, Math.tan),
  COT: real('COT', 1, (x) => 1 / Math.tan(x)),
  ASIN: real('ASIN', 1, Math.asin),
  ACOS: real('ACOS', 1, Math.acos),
  ATAN: real('ATAN', 1, Math.atan),
  ATAN2: real('ATAN2', 2, Math.atan2),
  SINH: real('SINH', 1, Math.sinh),
  COSH: real('COSH', 1, Math.cosh),
  TANH: real('TANH', 1, Math.tanh),
  DEGREES: real('DEGREES', 1, (x) => (x * 180) / Math.PI),
  RADIANS: real('RADIANS', 1, (x) => (x / 180) * Math.PI),
  RAND: random('RAND'),
  RAND_INTEGER: random('RAND_INTEGER'),
  SHIFTLEFT: shift('SHIFTLEFT', shiftLeft),
  SHIFTRIGHT: shift('SHIFTRIGHT', shiftRight),
};
