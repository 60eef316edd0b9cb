/**
 * SQL aggregate functions (COUNT, SUM, AVG, each also DISTINCT, MIN, MAX, each with an optional
 * FILTER (WHERE ...); the others in more-aggregates.ts) as one Weir AggregateFunction over rows. The accumulator is JSON data
 * (DECIMAL values as decimal text), or writes itself as JSON (COUNT(DISTINCT)'s values seen, see
 * distinct-seen.ts), so window state checkpoints like any other.
 */
import type { AggregateFunction } from '../../core/functions.js';
import type { Row } from '../connectors/connector.js';
import { compilePredicate, compileScalar } from '../expressions/compile.js';
import { MORE_AGGREGATE_FUNCTIONS, SINGLE_VALUE } from '../expressions/functions.js';
import type { Scope } from '../expressions/scope.js';
import {
  type AggregateFunctionSpec,
  type ResolvedAggregate,
  userAggregate,
} from '../functions/user-functions.js';
import type { Expr } from '../parser/ast.js';
import { JSON_AGGREGATES } from '../parser/json-syntax.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { divideHalfUp, fitPrecision, rescale } from '../types/decimal.js';
import {
  formatType,
  isInteger,
  isNumeric,
  isPreciseTimestamp,
  type LogicalType,
  T,
  withNullability,
} from '../types/logical-type.js';
import {
  type Long,
  longAdd,
  longDivide,
  longFromJson,
  longSubtract,
  longToJson,
} from '../types/long.js';
import type {
  AccState,
  AggregateCallAst,
  AggregateSpec,
  DistinctState,
  DistinctValues,
  Guard,
  SharedDistinctState,
} from './aggregate-spec.js';
import {
  denseSlot,
  maskOf,
  newSeen,
  ownSeen,
  seenCount,
  seenEntries,
  setMask,
} from './distinct-seen.js';
import { normalizedKey } from './expr-tools.js';
import { compileArguments } from './function-arguments.js';
import { fusedAdd, fusedCreateAndMerge, fusedResult } from './fused-accumulate.js';
import { compileJsonAggregate } from './json-aggregates.js';
import { compileMoreAggregate, nestedCodec } from './more-aggregates.js';
import { retractingAggregate } from './retracting-aggregates.js';

/**
 * A TypeScript aggregate function: its arguments converted to the declared types as for a
 * scalar function, its accumulator kept as the function made it (JSON data).
 */
function userAggregateSpec(
  fn: ResolvedAggregate,
  call: AggregateCallAst,
  scope: Scope,
  guard: (add: AggregateSpec['add']) => AggregateSpec['add'],
): AggregateSpec {
  if (call.star)
    sqlError(`${call.name}(*) is not supported for a TypeScript aggregate function`, call.at);
  const argsOf = compileArguments(call.name, call.args, fn.arguments, scope, call.at);
  if (call.distinct) return userDistinctSpec(fn, argsOf, guard);
  // Called as methods of the function object, so `this` in them is the object.
  const spec = fn.spec as AggregateFunctionSpec;
  return {
    init: () => spec.createAccumulator() as AccState,
    add: guard((s, row) => spec.accumulate(s, ...argsOf(row)) as AccState),
    ...(spec.retract === undefined
      ? {}
      : {
          retract: guard(
            (s, row) =>
              (spec.retract as NonNullable<AggregateFunctionSpec['retract']>).call(
                spec,
                s,
                ...argsOf(row),
              ) as AccState,
          ),
        }),
    ...(spec.merge === undefined ? { mergeable: false } : {}),
    merge: (a, b) => {
      if (spec.merge === undefined)
        throw new Error(
          `aggregate function ${call.name} has no merge, which these windows need (sliding or session): give it merge(a, b)`,
        );
      return spec.merge(a, b) as AccState;
    },
    result: (s) => spec.getValue(s),
    type: fn.result,
  };
}

/** A TypeScript aggregate's DISTINCT state: each distinct argument tuple (encoded) with how many rows hold it. */
interface UserDistinctState {
  tuples: Record<string, [number, unknown[]]>;
}

/**
 * `f(DISTINCT a, ...)` of a TypeScript aggregate, as Flink runs a distinct aggregate: the
 * distinct argument tuples are counted (so a retraction can take one out), and the function
 * folds them when the result is asked for, so it needs neither `retract` nor `merge`. NULL is
 * a distinct value like any other: the function sees it once, as Flink passes it (Flink's
 * CountNullNonNull(DISTINCT c) counts one NULL).
 */
function userDistinctSpec(
  fn: ResolvedAggregate,
  argsOf: (row: Row) => never[],
  guard: Guard,
): AggregateSpec {
  const spec = fn.spec as AggregateFunctionSpec;
  const codecs = fn.arguments.map(codec);
  const tupleKey = (args: readonly unknown[]): string => args.map(distinctKey).join('\u0000');
  const step =
    (sign: 1 | -1) =>
    (s: AccState, row: Row): AccState => {
      const args = argsOf(row) as unknown[];
      const d = s as unknown as UserDistinctState;
      const key = tupleKey(args);
      const had = d.tuples[key];
      if (had === undefined) {
        if (sign > 0)
          d.tuples[key] = [
            1,
            args.map((a, i) =>
              a === null ? null : (codecs[i] as ReturnType<typeof codec>).enc(a),
            ),
          ];
      } else if (had[0] + sign === 0) delete d.tuples[key];
      else had[0] += sign;
      return s;
    };
  const union = (a: AccState, b: AccState): AccState => {
    const tuples: UserDistinctState['tuples'] = {};
    for (const from of [a, b] as unknown as UserDistinctState[])
      for (const [key, [n, args]] of Object.entries(from.tuples)) {
        const had = tuples[key];
        tuples[key] = had === undefined ? [n, args] : [had[0] + n, args];
      }
    return { tuples } as unknown as AccState;
  };
  return {
    init: () => ({ tuples: {} }) as unknown as AccState,
    add: guard(step(1)),
    retract: guard(step(-1)),
    merge: union,
    result: (s) => {
      let acc = spec.createAccumulator();
      for (const [, args] of Object.values((s as unknown as UserDistinctState).tuples))
        acc = spec.accumulate(
          acc,
          ...(args.map((a, i) =>
            a === null ? null : (codecs[i] as ReturnType<typeof codec>).dec(a),
          ) as never[]),
        );
      return spec.getValue(acc);
    },
    type: fn.result,
  };
}

/** Whether values of `type` live in the accumulator in another form than their own (see codec). */
function keptAsText(type: LogicalType): boolean {
  return type.kind === 'DECIMAL' || isPreciseTimestamp(type) || type.kind === 'BIGINT';
}

/** DECIMAL values live in the accumulator as text (JSON has no bigint). */
function codec(type: LogicalType): {
  enc: (v: unknown) => number | string | boolean;
  dec: (v: unknown) => unknown;
} {
  // DECIMAL and TIMESTAMP(p > 3) values are bigints.
  if (type.kind === 'DECIMAL' || isPreciseTimestamp(type))
    return { enc: (v) => String(v), dec: (v) => BigInt(v as string) };
  if (type.kind === 'BIGINT')
    return { enc: (v) => longToJson(v as Long), dec: (v) => longFromJson(v as number | string) };
  return { enc: (v) => v as number | string | boolean, dec: (v) => v };
}

/**
 * The value COUNT([DISTINCT] a, b, ...) counts: the arguments as one text (each encoded as
 * state encodes it, so equal tuples give equal text), NULL when any of them is NULL, as
 * Flink counts only rows whose arguments are all set.
 */
function countedTuple(
  call: AggregateCallAst,
  scope: Scope,
): { fn: (row: unknown[]) => unknown; type: LogicalType } {
  const parts = call.args.map((a) => {
    const { fn, type } = compileScalar(a as Expr, scope);
    return { fn, enc: (isNested(type) ? nestedCodec(call, type, codec) : codec(type)).enc };
  });
  return {
    fn: (row) => {
      const values: unknown[] = [];
      for (const p of parts) {
        const v = p.fn(row);
        if (v === null) return null;
        values.push(p.enc(v));
      }
      return JSON.stringify(values);
    },
    type: T.string(true),
  };
}

function isNested(type: LogicalType): boolean {
  return (
    type.kind === 'ROW' || type.kind === 'ARRAY' || type.kind === 'MAP' || type.kind === 'MULTISET'
  );
}

function distinctKey(v: unknown): string {
  return `${typeof v}:${String(v)}`;
}

/**
 * The FILTER conditions of a query's aggregate calls, each distinct condition compiled once and
 * evaluated once per row: Nexmark q15-q17 repeat each price rank's condition over several
 * calls. The aggregation evaluates them (`evaluate`) before it adds or retracts the row.
 */
class FilterConditions {
  private readonly tests: ((row: Row) => boolean)[] = [];
  /** The conditions, in the order of {@link holds}. */
  readonly exprs: Expr[] = [];
  private readonly byText = new Map<string, number>();
  /** Whether each condition holds for the row being added or retracted. */
  readonly holds: boolean[] = [];

  constructor(private readonly scope: Scope) {}

  /** The position of `filter`'s value in {@link holds}. */
  indexOf(filter: Expr): number {
    const text = normalizedKey(filter, this.scope);
    let at = this.byText.get(text);
    if (at === undefined) {
      at = this.tests.length;
      this.tests.push(compilePredicate(filter, this.scope, 'FILTER condition'));
      this.exprs.push(filter);
      this.holds.push(false);
      this.byText.set(text, at);
    }
    return at;
  }

  get size(): number {
    return this.tests.length;
  }

  evaluate(row: Row): void {
    const { tests, holds } = this;
    for (let i = 0; i < tests.length; i++) holds[i] = (tests[i] as (row: Row) => boolean)(row);
  }
}

function compileAggregate(
  call: AggregateCallAst,
  scope: Scope,
  filters: FilterConditions,
  retracting: Retracting,
): AggregateSpec {
  const at = call.filter === undefined ? -1 : filters.indexOf(call.filter);
  const { holds } = filters;
  const guard = (add: AggregateSpec['add']): AggregateSpec['add'] =>
    at < 0 ? add : (s, row) => (holds[at] ? add(s, row) : s);
  const user = userAggregate(call.name);
  if (user !== undefined) return userAggregateSpec(user, call, scope, guard);
  if (MORE_AGGREGATE_FUNCTIONS.has(call.name))
    return compileMoreAggregate(call, scope, guard, codec);
  if (JSON_AGGREGATES.has(call.name)) return compileJsonAggregate(call, scope, guard);
  if (call.name === 'COUNT' && (call.star || call.args.length === 0)) {
    if (call.distinct) sqlError('COUNT(DISTINCT *) is not valid', call.at);
    return {
      init: () => 0,
      add: guard((s) => (s as number) + 1),
      retract: guard((s) => (s as number) - 1),
      merge: (a, b) => (a as number) + (b as number),
      result: (s) => s,
      type: T.bigint(false),
    };
  }
  if (call.args.length !== 1 && !(call.name === 'COUNT' && call.args.length > 1))
    sqlError(`${call.name} takes one argument, got ${call.args.length}`, call.at);
  if (call.name === SINGLE_VALUE)
    return singleValue(call, compileScalar(call.args[0] as Expr, scope));
  const single = call.args.length === 1 ? compileScalar(call.args[0] as Expr, scope) : undefined;
  // A ROW, ARRAY or MAP is counted by its encoded contents: as a JS value it has no key of its own.
  const arg =
    single !== undefined && !(call.name === 'COUNT' && isNested(single.type))
      ? single
      : countedTuple(call, scope);
  const fn = arg.fn;
  const argType = arg.type;
  if (retracting && !isNested(argType)) {
    // Over a changelog: the distinct values with their counts, as Flink's retracting accumulators.
    const fold =
      call.distinct && (call.name === 'SUM' || call.name === 'AVG')
        ? (call.name === 'SUM' ? sumSpec : avgSpec)(
            (r) => r[0],
            argType,
            (add) => add,
            call.at,
          )
        : undefined;
    const spec = retractingAggregate(
      call,
      fn,
      guard,
      codec(argType),
      distinctKey,
      fold,
      retracting === 'signed',
    );
    if (spec !== undefined)
      return {
        ...spec,
        type:
          fold?.type ?? (call.name === 'COUNT' ? T.bigint(false) : withNullability(argType, true)),
      };
  }
  if (call.name === 'COUNT') {
    if (call.distinct) {
      return {
        init: (): DistinctState => newSeen(0),
        add: guard((s, row) => {
          const v = fn(row);
          if (v === null) return s;
          const d = ownSeen<number>(s);
          const key = distinctKey(v);
          if (maskOf(d, key) === 0) {
            setMask(d, key, 1);
            d.n++;
          }
          return d;
        }),
        merge: (a, b) => {
          const d: DistinctState = newSeen(0);
          for (const from of [a, b]) for (const [key] of seenEntries(from)) setMask(d, key, 1);
          d.n = seenCount(d);
          return d;
        },
        mergeInto: (a, b) => {
          const d = ownSeen<number>(a);
          for (const [key] of seenEntries(b)) {
            if (maskOf(d, key) === 0) {
              setMask(d, key, 1);
              d.n++;
            }
          }
          return d;
        },
        result: (s) => (s as DistinctState).n,
        type: T.bigint(false),
      };
    }
    return {
      init: () => 0,
      add: guard((s, row) => (fn(row) === null ? s : (s as number) + 1)),
      retract: guard((s, row) => (fn(row) === null ? s : (s as number) - 1)),
      merge: (a, b) => (a as number) + (b as number),
      result: (s) => s,
      type: T.bigint(false),
    };
  }
  const { enc, dec } = codec(argType);
  switch (call.name) {
    case 'MIN':
    case 'MAX': {
      if (isNested(argType))
        sqlError(`${call.name} of ${formatType(argType)} is not supported`, call.at);
      const better =
        call.name === 'MIN'
          ? (a: unknown, b: unknown) => (a as number) < (b as number)
          : (a: unknown, b: unknown) => (a as number) > (b as number);
      const pick = (a: AccState, b: AccState): AccState =>
        a === null ? b : b === null ? a : better(dec(b), dec(a)) ? b : a;
      return {
        init: () => null,
        add: guard((s, row) => {
          const v = fn(row);
          if (v === null) return s;
          return s === null || better(v, dec(s)) ? enc(v) : s;
        }),
        merge: pick,
        result: (s) => (s === null ? null : dec(s)),
        type: withNullability(argType, true),
      };
    }
    case 'SUM':
    case 'AVG': {
      const spec = call.name === 'SUM' ? sumSpec : avgSpec;
      if (!call.distinct) return spec(fn, argType, guard, call.at, retracting === 'signed');
      // DISTINCT: the distinct values, summed or averaged when the result is asked for.
      const base = spec(
        (r) => r[0],
        argType,
        (add) => add,
        call.at,
      );
      return distinctValues(fn, argType, guard, base);
    }
    default:
      return sqlError(`unknown aggregate ${call.name}`, call.at);
  }
}

/** A [sum, count] pair (or null) that no other accumulator holds. */
function copyPair(s: AccState): AccState {
  return s === null ? null : [...(s as [number | string, number])];
}

/**
 * A value added to (or taken from) a running sum in its JSON-safe form: DECIMAL as text, BIGINT
 * as a number or beyond 2^53 its digits, other numbers as numbers.
 */
function runningSum(
  argType: LogicalType,
): (sum: number | string, v: unknown, sign: 1 | -1) => number | string {
  if (argType.kind === 'DECIMAL')
    return (sum, v, sign) => String(BigInt(sum as string) + BigInt(sign) * (v as bigint));
  if (argType.kind === 'BIGINT')
    return (sum, v, sign) =>
      longToJson(
        sign > 0
          ? longAdd(longFromJson(sum), v as Long)
          : longSubtract(longFromJson(sum), v as Long),
      );
  return (sum, v, sign) => (sum as number) + sign * (v as number);
}

/**
 * Flink's SUM of INT, SMALLINT, TINYINT or FLOAT is of the argument's type, its running sum
 * Java's addition in that width: it wraps (`2147483647 + 1` is `-2147483648`), or rounds to
 * 32 bits, in add, retract and merge alike. (AVG's sum is a BIGINT or DOUBLE in Flink.)
 */
function wrappingSum(
  argType: LogicalType,
  plus: (sum: number | string, v: unknown, sign: 1 | -1) => number | string,
): (sum: number | string, v: unknown, sign: 1 | -1) => number | string {
  switch (argType.kind) {
    case 'INTEGER':
      return (sum, v, sign) => (plus(sum, v, sign) as number) | 0;
    case 'SMALLINT':
      return (sum, v, sign) => ((plus(sum, v, sign) as number) << 16) >> 16;
    case 'TINYINT':
      return (sum, v, sign) => ((plus(sum, v, sign) as number) << 24) >> 24;
    // Flink adds FLOATs in float: each step rounds to 32 bits.
    case 'FLOAT':
      return (sum, v, sign) => Math.fround(plus(sum, v, sign) as number);
    default:
      return plus;
  }
}

function sumSpec(
  fn: (row: Row) => unknown,
  argType: LogicalType,
  guard: Guard,
  at: SourcePosition,
  signed = false,
): AggregateSpec {
  if (!isNumeric(argType)) sqlError(`SUM needs a numeric argument, got ${formatType(argType)}`, at);
  // [sum, number of non-NULL values]: the count tells when retractions leave no value (NULL).
  const isDecimal = argType.kind === 'DECIMAL';
  const isLong = argType.kind === 'BIGINT';
  const plus = wrappingSum(argType, runningSum(argType));
  // The [sum, count] pair is updated in place (no array per row); merge copies, so no two
  // accumulators share one.
  const step =
    (sign: 1 | -1) =>
    (s: AccState, row: Row): AccState => {
      const v = fn(row);
      if (v === null || (s === null && sign < 0 && !signed)) return s;
      if (s === null) return [plus(isDecimal ? '0' : 0, v, sign), sign];
      const pair = s as [number | string, number];
      // Signed (a window's slice or partial): no values left is not no sum, since a partial's
      // retractions and rows may cancel in count but not in sum until merged with the rest.
      if (pair[1] + sign === 0 && !signed) return null;
      pair[0] = plus(pair[0], v, sign);
      pair[1] += sign;
      return pair;
    };
  return {
    init: () => null,
    add: guard(step(1)),
    retract: guard(step(-1)),
    merge: (a, b) => {
      if (a === null || b === null) return copyPair(a ?? b);
      const [sb, nb] = b as [number | string, number];
      const [sa, na] = a as [number | string, number];
      // Signed: a slice's retractions cancel another's rows.
      if (na + nb === 0 && !signed) return null;
      return [
        plus(sa, isDecimal ? BigInt(sb as string) : isLong ? longFromJson(sb) : sb, 1),
        na + nb,
      ];
    },
    result: (s) => {
      if (s === null || (s as [number | string, number])[1] === 0) return null;
      const sum = (s as [number | string, number])[0];
      return isDecimal ? fitPrecision(BigInt(sum as string), 38) : isLong ? longFromJson(sum) : sum;
    },
    type: isDecimal ? T.decimal(38, argType.scale, true) : withNullability(argType, true),
  };
}

function avgSpec(
  fn: (row: Row) => unknown,
  argType: LogicalType,
  guard: Guard,
  at: SourcePosition,
  signed = false,
): AggregateSpec {
  if (!isNumeric(argType)) sqlError(`AVG needs a numeric argument, got ${formatType(argType)}`, at);
  const isDecimal = argType.kind === 'DECIMAL';
  const isLong = argType.kind === 'BIGINT';
  const type = isDecimal
    ? T.decimal(38, Math.max(argType.scale, 6), true)
    : withNullability(argType, true);
  const add = runningSum(argType);
  return {
    init: () => null,
    // In place, as SUM's.
    add: guard((s, row) => {
      const v = fn(row);
      if (v === null) return s;
      if (s === null) return [add(isDecimal ? '0' : 0, v, 1), 1];
      const pair = s as [number | string, number];
      pair[0] = add(pair[0], v, 1);
      pair[1]++;
      return pair;
    }),
    retract: guard((s, row) => {
      const v = fn(row);
      if (v === null || (s === null && !signed)) return s;
      if (s === null) return [add(isDecimal ? '0' : 0, v, -1), -1];
      const pair = s as [number | string, number];
      if (pair[1] === 1 && !signed) return null;
      pair[0] = add(pair[0], v, -1);
      pair[1]--;
      return pair;
    }),
    merge: (a, b) => {
      if (a === null || b === null) return copyPair(a ?? b);
      const [sa, na] = a as [number | string, number];
      const [sb, nb] = b as [number | string, number];
      if (na + nb === 0 && !signed) return null;
      return [
        add(sa, isDecimal ? BigInt(sb as string) : isLong ? longFromJson(sb) : sb, 1),
        na + nb,
      ];
    },
    result: (s) => {
      if (s === null) return null;
      const [sum, n] = s as [number | string, number];
      // Signed: a window's rows may all be retracted, leaving a count of 0.
      if (n === 0) return null;
      if (isDecimal) {
        const scale = (type as { scale: number }).scale;
        return fitPrecision(
          divideHalfUp(
            rescale(BigInt(sum as string), (argType as { scale: number }).scale, scale),
            BigInt(n),
          ),
          38,
        );
      }
      // Flink's AVG of an integer type is that integer type (the quotient truncated).
      if (isLong) return longDivide(longFromJson(sum), n);
      if (isInteger(argType)) return Math.trunc((sum as number) / n);
      // Flink sums a FLOAT AVG in DOUBLE and casts the quotient back to FLOAT.
      return argType.kind === 'FLOAT' ? Math.fround((sum as number) / n) : (sum as number) / n;
    },
    type,
  };
}

/**
 * An aggregate over the distinct non-NULL values of `fn` (SUM and AVG DISTINCT): the values
 * are kept by their text, and `base` folds them when the result is asked for.
 */
function distinctValues(
  fn: (row: Row) => unknown,
  argType: LogicalType,
  guard: Guard,
  base: AggregateSpec,
): AggregateSpec {
  const { enc, dec } = codec(argType);
  return {
    init: (): DistinctValues => ({ values: {} }),
    add: guard((s, row) => {
      const v = fn(row);
      if (v === null) return s;
      const d = s as DistinctValues;
      d.values[distinctKey(v)] ??= enc(v);
      return d;
    }),
    merge: (a, b) => ({
      values: Object.assign({}, (a as DistinctValues).values, (b as DistinctValues).values),
    }),
    mergeInto: (a, b) => {
      Object.assign((a as DistinctValues).values, (b as DistinctValues).values);
      return a;
    },
    result: (s) => {
      let acc = base.init();
      for (const v of Object.values((s as DistinctValues).values)) acc = base.add(acc, [dec(v)]);
      return base.result(acc);
    },
    type: base.type,
  };
}

/**
 * A value's key in a shared distinct state: a small non-negative integer is its own key (no
 * string built or hashed); any other value its typed text. The two cannot collide: typed text
 * always holds a colon.
 */
function sharedDistinctKey(v: unknown): string | number {
  return typeof v === 'number' && v >= 0 && v < 4_294_967_295 && Number.isInteger(v)
    ? v
    : distinctKey(v);
}

/** Calls sharing one state: more than this many filters are split over several. */
const MAX_SHARED = 30;

/**
 * The COUNT(DISTINCT x) calls of `calls` (at `indices`) over the same x, as one state: a row's
 * value is looked up once, not once per call. The result is each call's count, in order.
 */
function sharedCountDistinct(
  calls: readonly AggregateCallAst[],
  scope: Scope,
  conditions: FilterConditions,
): AggregateSpec & { readonly result: (state: AccState) => number[] } {
  const first = calls[0] as AggregateCallAst;
  const fn = compileScalar(first.args[0] as Expr, scope).fn;
  const filters = calls.map((c) => (c.filter === undefined ? -1 : conditions.indexOf(c.filter)));
  const { holds } = conditions;
  const k = calls.length;
  const all = 2 ** k - 1;
  const fold = (d: SharedDistinctState, from: AccState): SharedDistinctState => {
    for (const [key, mask] of seenEntries(from)) {
      const had = maskOf(d, key);
      const added = mask & all & ~had;
      if (added === 0) continue;
      setMask(d, key, had | added);
      for (let i = 0; i < k; i++) if ((added & (1 << i)) !== 0) (d.n[i] as number)++;
    }
    return d;
  };
  const addDistinct = (s: AccState, v: unknown, mask: number): SharedDistinctState => {
    const d = ownSeen<number[]>(s);
    // An id within the dense array's range: one read, and a write if it is new.
    const slot = denseSlot(d, v);
    if (slot >= 0) {
      const dense = d.dense as number[];
      const had = dense[slot] as number;
      const added = mask & ~had;
      if (added === 0) return d;
      dense[slot] = had | mask;
      for (let i = 0; i < k; i++) if ((added & (1 << i)) !== 0) (d.n[i] as number)++;
      return d;
    }
    const key = sharedDistinctKey(v);
    const had = maskOf(d, key);
    const added = mask & ~had;
    if (added === 0) return d;
    setMask(d, key, had | mask);
    for (let i = 0; i < k; i++) if ((added & (1 << i)) !== 0) (d.n[i] as number)++;
    return d;
  };
  return {
    init: (): SharedDistinctState => newSeen(new Array<number>(k).fill(0)),
    add: (s, row) => {
      let mask = 0;
      for (let i = 0; i < k; i++) {
        const filter = filters[i] as number;
        if (filter < 0 || holds[filter] === true) mask |= 1 << i;
      }
      if (mask === 0) return s;
      const v = fn(row);
      return v === null ? s : addDistinct(s, v, mask);
    },
    addDistinct,
    merge: (a, b) => {
      const d: SharedDistinctState = newSeen(new Array<number>(k).fill(0));
      fold(d, a);
      fold(d, b);
      return d;
    },
    mergeInto: (a, b) => fold(ownSeen<number[]>(a), b),
    result: (s) => (s as SharedDistinctState).n,
    type: T.bigint(false),
  };
}

/**
 * The state slots of a query's aggregate calls: COUNT(DISTINCT x) calls over the same x share
 * one slot (whatever their FILTERs); every other call has its own. `of[i]` is call i's slot
 * and, for a shared slot, its position in the slot's result.
 */
function aggregateSlots(
  calls: readonly AggregateCallAst[],
  scope: Scope,
  filters: FilterConditions,
  retracting: Retracting,
): { specs: AggregateSpec[]; of: { slot: number; at: number | undefined }[] } {
  const byArgument = new Map<string, number[]>();
  calls.forEach((c, i) => {
    // Over a changelog each COUNT(DISTINCT) keeps its own value counts, so it can retract.
    if (retracting) return;
    if (c.name !== 'COUNT' || !c.distinct || c.args.length !== 1 || userAggregate(c.name)) return;
    const key = normalizedKey(c.args[0] as Expr, scope);
    byArgument.set(key, [...(byArgument.get(key) ?? []), i]);
  });
  const specs: AggregateSpec[] = [];
  const of: { slot: number; at: number | undefined }[] = new Array(calls.length);
  const shared = new Set<number>();
  for (const indices of byArgument.values()) {
    for (let from = 0; from < indices.length; from += MAX_SHARED) {
      const part = indices.slice(from, from + MAX_SHARED);
      if (part.length < 2) continue;
      const slot = specs.length;
      specs.push(
        sharedCountDistinct(
          part.map((i) => calls[i] as AggregateCallAst),
          scope,
          filters,
        ),
      );
      part.forEach((call, at) => {
        of[call] = { slot, at };
        shared.add(call);
      });
    }
  }
  calls.forEach((c, i) => {
    if (shared.has(i)) return;
    of[i] = { slot: specs.length, at: undefined };
    specs.push(compileAggregate(c, scope, filters, retracting));
  });
  return { specs, of };
}

interface Accumulator {
  /** The grouping key values of the first row (JSON-safe). */
  k: unknown[] | null;
  s: AccState[];
}

/**
 * Whether the input is a changelog. `'signed'`: a window's, whose slices are accumulated apart,
 * so one may see a retraction without its row; SUM and AVG then count below zero, as Flink's
 * retracting SUM and AVG do, and the merge of the slices cancels out.
 */
export type Retracting = boolean | 'signed';

/** With `retract` when every aggregate of the query can take a row back out (COUNT, SUM, AVG). */
type RowAggregateFunction = AggregateFunction<Row, Accumulator, Row> & {
  retract?: (row: Row, acc: Accumulator) => Accumulator;
};

/**
 * One AggregateFunction computing all of a query's aggregates, returning rows
 * `[...keys, ...aggregates]`.
 */
export function rowAggregate(
  keyFns: readonly ((row: Row) => unknown)[],
  keyTypes: readonly LogicalType[],
  calls: readonly AggregateCallAst[],
  scope: Scope,
  /** The input is a changelog: MIN, MAX and COUNT(DISTINCT) keep value counts to retract. */
  retracting: Retracting = false,
  /** Insert-only input folded by one generated function (fused-accumulate.ts); off to compare. */
  fuse = true,
): {
  fn: RowAggregateFunction;
  types: LogicalType[];
  mergeable: boolean;
  /** Merges a partial into a group's own accumulator, updating it in place where it can. */
  mergeInto: (a: Accumulator, b: Accumulator) => Accumulator;
  /**
   * Makes `getResult` with three more slots at the end, for a window's start, end and time: the
   * window aggregation writes them without growing the row. Undefined without generated code;
   * made only where a window aggregation asks for it.
   */
  resultWithWindowRoom: (() => (acc: Accumulator) => Row) | undefined;
} {
  const filters = new FilterConditions(scope);
  const { specs, of } = aggregateSlots(calls, scope, filters, retracting);
  const evaluate = filters.size === 0 ? undefined : (row: Row) => filters.evaluate(row);
  const shared = of.filter((o) => o.at !== undefined).length;
  const keyCodecs = keyTypes.map(codec);
  const n = specs.length;
  const results = (acc: Accumulator): unknown[] => {
    const slots = specs.map((s, i) => s.result(acc.s[i] as AccState));
    return of.map(({ slot, at }) =>
      at === undefined ? slots[slot] : (slots[slot] as unknown[])[at],
    );
  };
  /** Records the group's key values from its first row. */
  const keep = (row: Row, acc: Accumulator): void => {
    if (acc.k === null)
      acc.k = keyFns.map((f, i) => {
        const v = f(row);
        return v === null ? null : (keyCodecs[i] as ReturnType<typeof codec>).enc(v);
      });
  };
  // Over a changelog the accumulators count values to retract them: the closures keep them.
  const generated = retracting === false && fuse;
  const fused = !generated
    ? undefined
    : fusedAdd({
        calls,
        of,
        specs,
        filters: filters.exprs,
        holds: filters.holds,
        filterOf: (call) => (call.filter === undefined ? -1 : filters.indexOf(call.filter)),
        scope,
        keep,
      });
  const made = generated ? fusedCreateAndMerge({ calls, of, specs }) : undefined;
  const resultInput = {
    calls,
    of,
    specs,
    keyDecoders: keyTypes.map((t) => (keptAsText(t) ? codec(t).dec : undefined)),
  };
  const fn: RowAggregateFunction = {
    ...(shared === 0
      ? {}
      : {
          explain: `shared distinct state: ${shared} COUNT(DISTINCT) calls, one state per argument`,
        }),
    createAccumulator: made?.create ?? (() => ({ k: null, s: specs.map((s) => s.init()) })),
    add:
      fused ??
      ((row, acc) => {
        keep(row, acc);
        evaluate?.(row);
        for (let i = 0; i < n; i++)
          acc.s[i] = (specs[i] as AggregateSpec).add(acc.s[i] as AccState, row);
        return acc;
      }),
    getResult: !generated
      ? (acc) => {
          const keys = (acc.k ?? keyFns.map(() => null)).map((v, i) =>
            v === null ? null : (keyCodecs[i] as ReturnType<typeof codec>).dec(v),
          );
          return [...keys, ...results(acc)];
        }
      : fusedResult(resultInput),
    ...(specs.every((s) => s.retract !== undefined)
      ? {
          retract(row: Row, acc: Accumulator): Accumulator {
            // A window's first change may be a retraction (its insert came before the window
            // or was late): the result row still names its group.
            keep(row, acc);
            evaluate?.(row);
            for (let i = 0; i < n; i++) {
              const spec = specs[i] as AggregateSpec;
              acc.s[i] = (spec.retract as NonNullable<AggregateSpec['retract']>)(
                acc.s[i] as AccState,
                row,
              );
            }
            return acc;
          },
        }
      : {}),
    merge:
      made?.merge ??
      ((a, b) => ({
        k: a.k ?? b.k,
        s: specs.map((s, i) => s.merge(a.s[i] as AccState, b.s[i] as AccState)),
      })),
  };
  return {
    fn,
    types: [...keyTypes, ...of.map(({ slot }) => (specs[slot] as AggregateSpec).type)],
    mergeable: specs.every((s) => s.mergeable !== false),
    resultWithWindowRoom: generated ? () => fusedResult(resultInput, WINDOW_COLUMNS) : undefined,
    mergeInto:
      made?.mergeInto ??
      ((a, b) => {
        a.k ??= b.k;
        for (let i = 0; i < n; i++) {
          const spec = specs[i] as AggregateSpec;
          a.s[i] = (spec.mergeInto ?? spec.merge)(a.s[i] as AccState, b.s[i] as AccState);
        }
        return a;
      }),
  };
}

/** A window TVF's columns after an aggregation's: window_start, window_end, window_time. */
const WINDOW_COLUMNS = 3;

/**
 * SINGLE_VALUE: the one row's value, failing the job when a second row is held at once, as
 * Flink's SingleValueAggFunction fails ("a scalar subquery gave more than one row"). Over a
 * changelog the row may be retracted and another take its place.
 */
function singleValue(
  call: AggregateCallAst,
  arg: { readonly fn: (row: Row) => unknown; readonly type: LogicalType },
): AggregateSpec {
  // ROW, ARRAY and MAP values as ARRAY_AGG keeps them (a MAP as its entries).
  const { enc, dec } = nestedCodec(call, arg.type, codec);
  // JSON data, as every accumulator (checkpointed as it is): the rows held and the value.
  type Single = { readonly n: number; readonly v: unknown };
  const of = (s: AccState) => s as unknown as Single;
  const state = (x: Single) => x as unknown as AccState;
  const tooMany = (): never =>
    sqlError('a scalar subquery gave more than one row (it must give at most one)', call.at);
  return {
    init: () => state({ n: 0, v: null }),
    add: (s, row) => {
      if (of(s).n >= 1) tooMany();
      const v = arg.fn(row);
      return state({ n: 1, v: v === null ? null : enc(v) });
    },
    retract: (s) => {
      const { n, v } = of(s);
      return state(n <= 1 ? { n: 0, v: null } : { n: n - 1, v });
    },
    merge: (a, b) => {
      if (of(a).n + of(b).n > 1) tooMany();
      return of(a).n > 0 ? a : b;
    },
    result: (s) => {
      const { v } = of(s);
      return v === null ? null : dec(v);
    },
    type: withNullability(arg.type, true),
  };
}
