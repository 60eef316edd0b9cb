/**
 * Flink's statistical and value-collecting aggregates: STDDEV_POP, STDDEV_SAMP, VAR_POP,
 * VAR_SAMP, VARIANCE, FIRST_VALUE, LAST_VALUE, LISTAGG, ARRAY_AGG and COLLECT. Each is an
 * {@link AggregateSpec} with a JSON accumulator, as the core aggregates in aggregates.ts.
 *
 * The value-collecting ones but COLLECT have no `retract`: over a changelog the updating
 * aggregation then keeps the group's rows and recomputes from those left in arrival order,
 * which gives what Flink's retracting variants (state of the values with their order) give.
 * Their `merge` appends `b` after `a` (window panes in time order); they are not split into
 * two phases, as Flink has no merge for them. COLLECT counts each element, whatever the order:
 * it retracts, and merges by adding counts, as Flink's CollectAggFunction.
 */
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import type { Scope } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { divideHalfUp, fitPrecision } from '../types/decimal.js';
import {
  formatType,
  isCharacterString,
  isInteger,
  isNumeric,
  type LogicalType,
  multisetAsMap,
  T,
  withNullability,
} from '../types/logical-type.js';
import { type Long, longOf } from '../types/long.js';
import type { AccState, AggregateCallAst, AggregateSpec, Guard } from './aggregate-spec.js';

type Codec = { enc: (v: unknown) => unknown; dec: (v: unknown) => unknown };

export function compileMoreAggregate(
  call: AggregateCallAst,
  scope: Scope,
  guard: Guard,
  codec: (type: LogicalType) => Codec,
): AggregateSpec {
  if (call.star) sqlError(`${call.name}(*) is not valid`, call.at);
  const max = call.name === 'LISTAGG' ? 2 : 1;
  if (call.args.length < 1 || call.args.length > max)
    sqlError(
      `${call.name} takes ${max === 1 ? 'one argument' : 'one or two arguments'}, got ${call.args.length}`,
      call.at,
    );
  const arg = compileScalar(call.args[0] as Expr, scope);
  switch (call.name) {
    case 'FIRST_VALUE':
    case 'LAST_VALUE':
      return edgeValue(call, arg.fn, plainValueType(call, arg.type), guard, codec(arg.type));
    case 'LISTAGG':
      return listAgg(call, arg, scope, guard);
    case 'ARRAY_AGG':
      return arrayAgg(call, arg.fn, arg.type, guard, nestedCodec(call, arg.type, codec));
    case 'COLLECT':
      return collect(call, arg.fn, arg.type, guard, nestedCodec(call, arg.type, codec));
    default:
      return variance(call, arg.fn, arg.type, guard);
  }
}

/** Values the accumulator can hold as JSON: refuses ROW, ARRAY, MAP, MULTISET and binary strings. */
function plainValueType(call: AggregateCallAst, type: LogicalType): LogicalType {
  if (['ROW', 'ARRAY', 'MAP', 'MULTISET', 'BINARY', 'VARBINARY'].includes(type.kind))
    sqlError(`${call.name} of ${formatType(type)} is not supported by Weir SQL yet`, call.at);
  return type;
}

/**
 * The accumulator's JSON form of a value that may be a ROW, ARRAY, MAP or MULTISET (ARRAY_AGG's
 * and COLLECT's elements: Flink aggregates rows too): a ROW or ARRAY as a list of its encoded
 * fields or elements, a MAP or MULTISET as a list of encoded [key, value] pairs; NULLs kept.
 * Binary strings stay refused.
 */
export function nestedCodec(
  call: AggregateCallAst,
  type: LogicalType,
  codec: (type: LogicalType) => Codec,
): Codec {
  const nullable = (c: Codec): Codec => ({
    enc: (v) => (v === null ? null : c.enc(v)),
    dec: (v) => (v === null ? null : c.dec(v)),
  });
  switch (type.kind) {
    case 'ROW': {
      const fields = type.fields.map((f) => nullable(nestedCodec(call, f.type, codec)));
      return {
        enc: (v) => (v as unknown[]).map((x, i) => (fields[i] as Codec).enc(x)),
        dec: (v) => (v as unknown[]).map((x, i) => (fields[i] as Codec).dec(x)),
      };
    }
    case 'ARRAY': {
      const element = nullable(nestedCodec(call, type.element, codec));
      return {
        enc: (v) => (v as unknown[]).map(element.enc),
        dec: (v) => (v as unknown[]).map(element.dec),
      };
    }
    case 'MAP': {
      const key = nullable(nestedCodec(call, type.key, codec));
      const value = nullable(nestedCodec(call, type.value, codec));
      return {
        enc: (v) =>
          (v instanceof Map ? [...v] : Object.entries(v as Record<string, unknown>)).map(
            ([k, x]: [unknown, unknown]) => [key.enc(k), value.enc(x)],
          ),
        dec: (v) =>
          new Map((v as [unknown, unknown][]).map(([k, x]) => [key.dec(k), value.dec(x)])),
      };
    }
    case 'MULTISET': {
      // Its entries in the order of their text, so that equal MULTISETs encode alike.
      const map = nestedCodec(call, multisetAsMap(type), codec);
      return {
        enc: (v) =>
          (map.enc(v) as unknown[])
            .map((entry) => [JSON.stringify(entry), entry] as const)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([, entry]) => entry),
        dec: map.dec,
      };
    }
    default:
      return codec(plainValueType(call, type));
  }
}

/**
 * FIRST_VALUE / LAST_VALUE: the first (last) non-NULL value in arrival order, NULL when there
 * is none. DISTINCT changes nothing.
 */
function edgeValue(
  call: AggregateCallAst,
  fn: (row: Row) => unknown,
  type: LogicalType,
  guard: Guard,
  { enc, dec }: Codec,
): AggregateSpec {
  const first = call.name === 'FIRST_VALUE';
  return {
    init: () => null,
    add: guard((s, row) => {
      if (first && s !== null) return s;
      const v = fn(row);
      return v === null ? s : (enc(v) as AccState);
    }),
    merge: first ? (a, b) => a ?? b : (a, b) => b ?? a,
    result: (s) => (s === null ? null : dec(s)),
    type: withNullability(type, true),
    mergeable: false,
  };
}

/** LISTAGG's accumulator: the values in arrival order, and the separator last seen. */
type ListState = [string[], string];

/**
 * LISTAGG(x [, separator]): the non-NULL values joined by the separator (',' by default),
 * NULL when there are none. As Flink's, the separator is the last row's.
 */
function listAgg(
  call: AggregateCallAst,
  arg: { fn: (row: Row) => unknown; type: LogicalType },
  scope: Scope,
  guard: Guard,
): AggregateSpec {
  if (!isCharacterString(arg.type) && arg.type.kind !== 'NULL')
    sqlError(`LISTAGG needs a character string, got ${formatType(arg.type)}`, call.at);
  const sepArg = call.args[1];
  const sep = sepArg === undefined ? undefined : compileScalar(sepArg, scope);
  if (sep !== undefined && !isCharacterString(sep.type))
    sqlError(
      `LISTAGG's separator must be a character string, got ${formatType(sep.type)}`,
      call.at,
    );
  const { fn } = arg;
  const join = (values: readonly string[]) =>
    call.distinct ? [...new Set(values)] : (values as string[]);
  return {
    init: () => null,
    add: guard((s, row) => {
      const v = fn(row) as string | null;
      if (v === null) return s;
      const separator = sep === undefined ? ',' : ((sep.fn(row) as string | null) ?? '');
      if (s === null) return [[v], separator] as unknown as AccState;
      const list = s as unknown as ListState;
      list[0].push(v);
      list[1] = separator;
      return s;
    }),
    merge: (a, b) => {
      if (a === null || b === null) return copyList(a ?? b);
      const [va, _] = a as unknown as ListState;
      const [vb, sb] = b as unknown as ListState;
      return [[...va, ...vb], sb] as unknown as AccState;
    },
    result: (s) => {
      if (s === null) return null;
      const [values, separator] = s as unknown as ListState;
      return join(values).join(separator);
    },
    type: T.string(true),
    mergeable: false,
  };
}

function copyList(s: AccState): AccState {
  if (s === null) return null;
  const [values, separator] = s as unknown as ListState;
  return [[...values], separator] as unknown as AccState;
}

/**
 * ARRAY_AGG(x): the values in arrival order, NULLs included (Flink's RESPECT NULLS default);
 * NULL when no row was aggregated. DISTINCT keeps each value's first arrival.
 */
function arrayAgg(
  call: AggregateCallAst,
  fn: (row: Row) => unknown,
  type: LogicalType,
  guard: Guard,
  { enc, dec }: Codec,
): AggregateSpec {
  return {
    init: () => null,
    add: guard((s, row) => {
      const v = fn(row);
      const e = v === null ? null : enc(v);
      if (s === null) return [e] as unknown as AccState;
      (s as unknown as unknown[]).push(e);
      return s;
    }),
    merge: (a, b) =>
      a === null || b === null
        ? a === null && b === null
          ? null
          : ([...((a ?? b) as unknown as unknown[])] as unknown as AccState)
        : ([...(a as unknown as unknown[]), ...(b as unknown as unknown[])] as unknown as AccState),
    result: (s) => {
      if (s === null) return null;
      const values = s as unknown as unknown[];
      const kept = call.distinct ? distinctInOrder(values) : values;
      return kept.map((e) => (e === null ? null : dec(e)));
    },
    type: { kind: 'ARRAY', nullable: true, element: type },
    mergeable: false,
  };
}

/** COLLECT's accumulator: each element (encoded) with its count, by the element's text. */
type Bag = Record<string, [unknown, number]>;

function bagKey(e: unknown): string {
  if (typeof e === 'string') return `s${e}`;
  return typeof e === 'number' ? `n${e}` : `j${JSON.stringify(e)}`;
}

/** Adds `n` of the element `e` (under `key`) to `bag`: an element whose count reaches 0 leaves. */
function addToBag(bag: Bag, key: string, e: unknown, n: number): void {
  const had = bag[key];
  if (had === undefined) bag[key] = [e, n];
  else if (had[1] + n === 0) delete bag[key];
  else had[1] += n;
}

/**
 * COLLECT(x): the MULTISET of the non-NULL values, as Flink's CollectAggFunction: a count per
 * element, a retraction takes one out (an element retracted before it was added counts -1
 * until it comes), the empty MULTISET when none is left. DISTINCT counts each element once.
 */
function collect(
  call: AggregateCallAst,
  fn: (row: Row) => unknown,
  type: LogicalType,
  guard: Guard,
  { enc, dec }: Codec,
): AggregateSpec {
  // A state that was never initialized (null) is the empty bag.
  const bagOf = (s: AccState): Bag => (s ?? {}) as unknown as Bag;
  const step = (sign: 1 | -1) =>
    guard((s, row) => {
      const v = fn(row);
      if (v === null) return s;
      const e = enc(v);
      const bag = bagOf(s);
      addToBag(bag, bagKey(e), e, sign);
      return bag as unknown as AccState;
    });
  const mergeInto = (a: AccState, b: AccState): AccState => {
    const bag = bagOf(a);
    for (const [key, [e, n]] of Object.entries(bagOf(b))) addToBag(bag, key, e, n);
    return bag as unknown as AccState;
  };
  return {
    init: () => ({}) as unknown as AccState,
    add: step(1),
    retract: step(-1),
    merge: (a, b) => {
      const copy: Bag = {};
      for (const [key, [e, n]] of Object.entries(bagOf(a))) copy[key] = [e, n];
      return mergeInto(copy as unknown as AccState, b);
    },
    mergeInto,
    result: (s) => {
      const out = new Map<unknown, number>();
      for (const [e, n] of Object.values(bagOf(s)))
        if (!call.distinct) out.set(dec(e), n);
        else if (n > 0) out.set(dec(e), 1);
      return out;
    },
    type: { kind: 'MULTISET', nullable: false, element: type },
  };
}

function distinctInOrder(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = JSON.stringify(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The bits of each integer type, in which Flink's integer arithmetic wraps. */
const INTEGER_WIDTH: Readonly<Record<string, number>> = {
  TINYINT: 8,
  SMALLINT: 16,
  INTEGER: 32,
  BIGINT: 64,
};

/** [sum, sum of squares, count] of the non-NULL values: exact (as text) but for FLOAT/DOUBLE. */
type MomentState = [number | string, number | string, number];

/**
 * The variances and standard deviations, as Flink computes them (Calcite's reduction to
 * sums): (SUM(x*x) - SUM(x)*SUM(x)/COUNT(x)) / (COUNT(x) or COUNT(x) - 1), its square root for
 * STDDEV, cast to the argument's type (DECIMAL: the scale of AVG's). Integer arguments use
 * integer division, as Flink's integer arithmetic does; the sample variants are NULL for one
 * value, all are NULL for none. VARIANCE is VAR_SAMP.
 */
function variance(
  call: AggregateCallAst,
  fn: (row: Row) => unknown,
  argType: LogicalType,
  guard: Guard,
): AggregateSpec {
  if (!isNumeric(argType))
    sqlError(`${call.name} needs a numeric argument, got ${formatType(argType)}`, call.at);
  if (call.distinct) return distinctMoments(call, fn, argType, guard);
  const exact = isInteger(argType) || argType.kind === 'DECIMAL';
  const sample =
    call.name === 'STDDEV_SAMP' || call.name === 'VAR_SAMP' || call.name === 'VARIANCE';
  const root = call.name.startsWith('STDDEV');
  const scale = argType.kind === 'DECIMAL' ? argType.scale : 0;
  const resultScale = Math.max(scale, 6);
  const width = INTEGER_WIDTH[argType.kind] ?? 64;
  const type =
    argType.kind === 'DECIMAL' ? T.decimal(38, resultScale, true) : withNullability(argType, true);
  const step =
    (sign: 1 | -1) =>
    (s: AccState, row: Row): AccState => {
      const v = fn(row);
      if (v === null || (s === null && sign < 0)) return s;
      const m = (s ?? (exact ? ['0', '0', 0] : [0, 0, 0])) as unknown as MomentState;
      if (m[2] + sign === 0) return null;
      if (exact) {
        const b = typeof v === 'bigint' ? v : BigInt(v as number);
        m[0] = String(BigInt(m[0]) + BigInt(sign) * b);
        m[1] = String(BigInt(m[1]) + BigInt(sign) * b * b);
      } else {
        m[0] = (m[0] as number) + sign * (v as number);
        m[1] = (m[1] as number) + sign * (v as number) * (v as number);
      }
      m[2] += sign;
      return m as unknown as AccState;
    };
  const result = (s: AccState): unknown => {
    if (s === null) return null;
    const [sum, squares, n] = s as unknown as MomentState;
    const d = sample ? n - 1 : n;
    if (d <= 0) return null;
    if (!exact) {
      const v = ((squares as number) - ((sum as number) * (sum as number)) / n) / d;
      const r = root ? Math.sqrt(v) : v;
      return argType.kind === 'FLOAT' ? Math.fround(r) : r;
    }
    const S = BigInt(sum);
    const S2 = BigInt(squares);
    if (argType.kind === 'DECIMAL') {
      // n*S2 - S*S at scale 2s, over n*d, to the result scale.
      const num = BigInt(n) * S2 - S * S;
      const den = BigInt(n) * BigInt(d);
      if (!root) {
        const shift = resultScale - 2 * scale;
        const value =
          shift >= 0
            ? divideHalfUp(num * 10n ** BigInt(shift), den)
            : divideHalfUp(num, den * 10n ** BigInt(-shift));
        return fitPrecision(value, 38);
      }
      const x = Math.sqrt(Number(num) / Number(den) / 10 ** (2 * scale));
      return fitPrecision(BigInt(Math.round(x * 10 ** resultScale)), 38);
    }
    // Flink's integer arithmetic: x*x, SUM and SUM*SUM wrap in the argument's width (the
    // exact sums taken modulo 2^width are what wrapping running sums hold), the division by
    // COUNT is BIGINT and truncates toward zero, as BigInt's.
    const wrap = (x: bigint) => BigInt.asIntN(width, x);
    const q = wrap(wrap(S) * wrap(S)) / BigInt(n);
    const v = BigInt.asIntN(64, wrap(S2) - q) / BigInt(d);
    const r = wrap(root ? BigInt(Math.trunc(Math.sqrt(Math.max(0, Number(v))))) : v);
    return argType.kind === 'BIGINT' ? (longOf(r) as Long) : Number(r);
  };
  return {
    init: () => null,
    add: guard(step(1)),
    retract: guard(step(-1)),
    merge: (a, b) => {
      if (a === null || b === null) {
        const one = (a ?? b) as unknown as MomentState | null;
        return one === null ? null : ([...one] as unknown as AccState);
      }
      const [sa, qa, na] = a as unknown as MomentState;
      const [sb, qb, nb] = b as unknown as MomentState;
      return (exact
        ? [String(BigInt(sa) + BigInt(sb)), String(BigInt(qa) + BigInt(qb)), na + nb]
        : [
            (sa as number) + (sb as number),
            (qa as number) + (qb as number),
            na + nb,
          ]) as unknown as AccState;
    },
    result,
    type,
  };
}

/** DISTINCT for the variances: the distinct values, folded when the result is asked for. */
function distinctMoments(
  call: AggregateCallAst,
  fn: (row: Row) => unknown,
  argType: LogicalType,
  guard: Guard,
): AggregateSpec {
  const base = variance(
    { ...call, distinct: false },
    (r) => r[0],
    argType,
    (add) => add,
  );
  const enc = (v: unknown) => (typeof v === 'bigint' ? `n${v}` : v);
  const dec = (v: unknown) => (typeof v === 'string' && v.startsWith('n') ? BigInt(v.slice(1)) : v);
  type Values = { values: Record<string, [unknown, number]> };
  const step =
    (sign: 1 | -1) =>
    (s: AccState, row: Row): AccState => {
      const v = fn(row);
      if (v === null) return s;
      const d = s as unknown as Values;
      const key = `${typeof v}:${String(v)}`;
      const had = d.values[key];
      if (had === undefined) {
        if (sign > 0) d.values[key] = [enc(v), 1];
      } else if (had[1] + sign === 0) delete d.values[key];
      else had[1] += sign;
      return s;
    };
  return {
    init: () => ({ values: {} }) as unknown as AccState,
    add: guard(step(1)),
    retract: guard(step(-1)),
    merge: (a, b) => {
      const values: Values['values'] = {};
      for (const from of [a, b] as unknown as Values[])
        for (const [key, [v, n]] of Object.entries(from.values))
          values[key] = [v, (values[key]?.[1] ?? 0) + n];
      return { values } as unknown as AccState;
    },
    result: (s) => {
      let acc = base.init();
      for (const [v] of Object.values((s as unknown as Values).values))
        acc = base.add(acc, [dec(v)]);
      return base.result(acc);
    },
    type: base.type,
  };
}
