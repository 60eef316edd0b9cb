/**
 * Flink's ARRAY and MAP functions (ARRAY_CONTAINS ... ARRAY_SORT, MAP_KEYS ... MAP_UNION,
 * ELEMENT) and the ROW constructor. Elements compare as values (value-order.ts); a NULL
 * collection gives NULL, while NULL elements are values like any other.
 */
import { type SourcePosition, sqlError } from '../../sql-error.js';
import {
  commonType,
  formatType,
  isCharacterString,
  isTimestamp,
  type LogicalType,
  T,
  withNullability,
} from '../../types/logical-type.js';
import { castTo } from '../cast.js';
import { type CodeGen, type Compiled, nullSafe } from '../code-gen.js';
import {
  anyNullable,
  arity,
  type FunctionCompiler,
  functionFailed,
  helperCall,
  requireInteger,
  requireString,
} from './arguments.js';
import { compareValues, sameValue } from './value-order.js';

type ArrayType = Extract<LogicalType, { kind: 'ARRAY' }>;
type MapType = Extract<LogicalType, { kind: 'MAP' }>;

function arrayArg(name: string, c: Compiled, at: SourcePosition): ArrayType {
  if (c.type.kind !== 'ARRAY')
    return sqlError(`${name} needs an ARRAY, got ${formatType(c.type)}`, at);
  return c.type;
}

function mapArg(name: string, c: Compiled, at: SourcePosition): MapType {
  if (c.type.kind !== 'MAP') return sqlError(`${name} needs a MAP, got ${formatType(c.type)}`, at);
  return c.type;
}

/** A value cast to an array's element type, or an error naming both. */
function asElement(
  name: string,
  c: Compiled,
  element: LogicalType,
  g: CodeGen,
  at: SourcePosition,
): Compiled {
  const common = commonType([c.type, element]);
  if (common === undefined)
    return sqlError(
      `${name}: ${formatType(c.type)} is not comparable with the elements (${formatType(element)})`,
      at,
    );
  // A timestamp meets the elements at their precision: milliseconds and nanoseconds are held
  // differently (a number and a bigint), so a value of another precision never equalled one.
  const target = isTimestamp(element) && isTimestamp(c.type) ? element : common;
  return castTo(g, c, withNullability(target, true), false, at);
}

function arrayOf(element: LogicalType, nullable: boolean): LogicalType {
  return { kind: 'ARRAY', nullable, element };
}

/**
 * ARRAY_SORT, ARRAY_MAX and ARRAY_MIN refuse elements of a ROW, ARRAY or MAP type, as Flink
 * does; ARRAY_MAX and ARRAY_MIN refuse BOOLEAN elements too (Flink's MAX/MIN of an array).
 */
function requireOrdered(
  name: string,
  a: ArrayType,
  at: SourcePosition,
  allowBoolean: boolean,
): void {
  const kind = a.element.kind;
  if (kind === 'ROW' || kind === 'ARRAY' || kind === 'MAP' || (!allowBoolean && kind === 'BOOLEAN'))
    sqlError(`${name} needs an ARRAY of comparable elements, got ${formatType(a)}`, at);
}

export function arrayContains(a: readonly unknown[], v: unknown): boolean {
  return a.some((x) => (x === null ? v === null : v !== null && sameValue(x, v)));
}

export function arrayPosition(a: readonly unknown[], v: unknown): number {
  return a.findIndex((x) => (x === null ? v === null : v !== null && sameValue(x, v))) + 1;
}

export function arrayDistinct(a: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const x of a) if (!arrayContains(out, x)) out.push(x);
  return out;
}

export function arrayRemove(a: readonly unknown[], v: unknown): unknown[] {
  return a.filter((x) => !(x === null ? v === null : v !== null && sameValue(x, v)));
}

/**
 * ARRAY_SLICE: 1-based and inclusive, negative offsets counting from the end; a start before
 * the first element is the first, and an end of 0 is the first element too (Flink's
 * `ARRAY_SLICE(a, 1, 0)` is `[a[1]]`).
 */
export function arraySlice(
  a: readonly unknown[],
  start: number,
  end: number = a.length,
): unknown[] {
  const n = a.length;
  const from = Math.max(1, start < 0 ? start + n + 1 : start);
  const to = end === 0 ? 1 : Math.min(n, end < 0 ? end + n + 1 : end);
  return to < from ? [] : a.slice(from - 1, to);
}

function arrayExtreme(sign: 1 | -1) {
  return (a: readonly unknown[]): unknown => {
    let best: unknown = null;
    for (const x of a)
      if (x !== null && (best === null || compareValues(x, best) * sign > 0)) best = x;
    return best;
  };
}

export function arrayJoin(
  a: readonly (string | null)[],
  delimiter: string,
  nullText?: string,
): string {
  const parts: string[] = [];
  for (const x of a) {
    if (x !== null) parts.push(x);
    else if (nullText !== undefined) parts.push(nullText);
  }
  return parts.join(delimiter);
}

/** ARRAY_SORT: ascending with NULLs first by default; descending puts them last unless told. */
export function arraySort(
  a: readonly unknown[],
  ascending = true,
  nullsFirst: boolean = ascending,
): unknown[] {
  const values = a
    .filter((x) => x !== null)
    .sort((x, y) => compareValues(x, y) * (ascending ? 1 : -1));
  const nulls = a.filter((x) => x === null);
  return nullsFirst ? [...nulls, ...values] : [...values, ...nulls];
}

/** ARRAY_FLATTEN: the inner arrays' elements in order; a NULL inner array adds none. */
export function arrayFlatten(a: readonly (readonly unknown[] | null)[]): unknown[] {
  const out: unknown[] = [];
  for (const inner of a) if (inner !== null) out.push(...inner);
  return out;
}

function element(a: readonly unknown[]): unknown {
  if (a.length > 1)
    functionFailed('ELEMENT', `the array has ${a.length} elements, not at most one`);
  return a.length === 0 ? null : a[0];
}

function concat(...arrays: (readonly unknown[])[]): unknown[] {
  return arrays.flat(1);
}

function union(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  return arrayDistinct([...a, ...b]);
}

/** ARRAY_EXCEPT: the distinct elements of `a` that `b` lacks, in `a`'s order. */
export function arrayExcept(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  return arrayDistinct(a).filter((x) => !arrayContains(b, x));
}

/** ARRAY_INTERSECT: the distinct elements of `a` that `b` has too, in `a`'s order. */
export function arrayIntersect(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  return arrayDistinct(a).filter((x) => arrayContains(b, x));
}

export function mapFromArrays(
  keys: readonly unknown[],
  values: readonly unknown[],
): Map<unknown, unknown> {
  if (keys.length !== values.length)
    functionFailed(
      'MAP_FROM_ARRAYS',
      `${keys.length} keys and ${values.length} values: the arrays must have one length`,
    );
  return new Map(keys.map((k, i) => [k, values[i]]));
}

function mapUnion(...maps: Map<unknown, unknown>[]): Map<unknown, unknown> {
  const out = new Map<unknown, unknown>();
  for (const m of maps) for (const [k, v] of m) out.set(k, v);
  return out;
}

/** A function of arrays and values where `type` gives the result from the argument types. */
function collectionFunction(
  name: string,
  min: number,
  max: number,
  prepare: (
    args: Compiled[],
    g: CodeGen,
    at: SourcePosition,
  ) => { args: Compiled[]; type: LogicalType },
  helper: (...args: never[]) => unknown,
  strict = true,
): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, min, max, at);
    const p = prepare(args, g, at);
    const first = p.args[0] as Compiled;
    // Strict functions give NULL for any NULL argument; the others only for a NULL collection.
    const guarded = strict ? p.args : [first];
    const code = nullSafe(g, guarded, (vars) =>
      helperCall(
        g,
        helper,
        strict ? vars : [vars[0] as string, ...p.args.slice(1).map((a) => a.code)],
      ),
    );
    return { code, type: withNullability(p.type, p.type.nullable || anyNullable(guarded)) };
  };
}

/** (array, value) functions: the value cast to the element type; NULL only for a NULL array. */
function arrayAndValue(
  name: string,
  result: (a: ArrayType) => LogicalType,
  helper: (...args: never[]) => unknown,
): FunctionCompiler {
  return collectionFunction(
    name,
    2,
    2,
    (args, g, at) => {
      const a = arrayArg(name, args[0] as Compiled, at);
      return {
        args: [args[0] as Compiled, asElement(name, args[1] as Compiled, a.element, g, at)],
        type: result(a),
      };
    },
    helper,
    false,
  );
}

function singleArray(
  name: string,
  result: (a: ArrayType, at: SourcePosition) => LogicalType,
  helper: (...args: never[]) => unknown,
): FunctionCompiler {
  return collectionFunction(
    name,
    1,
    1,
    (args, _g, at) => ({ args, type: result(arrayArg(name, args[0] as Compiled, at), at) }),
    helper,
  );
}

/** ARRAY_APPEND, ARRAY_PREPEND: the array's type, its elements nullable when the value is. */
function arrayWithValue(
  name: string,
  helper: (a: readonly unknown[], v: unknown) => unknown[],
): FunctionCompiler {
  return (args, g, at) => {
    const result = arrayAndValue(name, (a) => withNullability(a, false), helper)(args, g, at, []);
    const t = result.type as ArrayType;
    const nullable = t.element.nullable || (args[1] as Compiled).type.nullable;
    return { ...result, type: { ...t, element: withNullability(t.element, nullable) } };
  };
}

/** Arrays of one element type (ARRAY_CONCAT, ARRAY_UNION): their common array type. */
function sameArrays(
  name: string,
  min: number,
  max: number,
  helper: (...args: never[]) => unknown,
): FunctionCompiler {
  return collectionFunction(
    name,
    min,
    max,
    (args, g, at) => {
      for (const a of args) arrayArg(name, a, at);
      const type = commonType(args.map((a) => a.type));
      if (type === undefined || type.kind !== 'ARRAY')
        return sqlError(
          `${name} needs arrays of one element type, got ${args.map((a) => formatType(a.type)).join(', ')}`,
          at,
        );
      const cast = args.map((a) => castTo(g, a, withNullability(type, a.type.nullable), false, at));
      return { args: cast, type: withNullability(type, false) };
    },
    helper,
  );
}

/** An array and option arguments (each checked by `check`), giving an array of its type. */
function arrayAndOptions(
  name: string,
  min: number,
  max: number,
  check: (c: Compiled, at: SourcePosition) => void,
  helper: (...args: never[]) => unknown,
): FunctionCompiler {
  return collectionFunction(
    name,
    min,
    max,
    (args, _g, at) => {
      const a = arrayArg(name, args[0] as Compiled, at);
      for (const x of args.slice(1)) check(x, at);
      return { args, type: withNullability(a, false) };
    },
    helper,
  );
}

function mapParts(
  name: string,
  part: (m: MapType) => LogicalType,
  helper: (m: Map<unknown, unknown>) => unknown,
): FunctionCompiler {
  return collectionFunction(
    name,
    1,
    1,
    (args, _g, at) => ({ args, type: part(mapArg(name, args[0] as Compiled, at)) }),
    helper,
  );
}

const sortCompiler = arrayAndOptions(
  'ARRAY_SORT',
  1,
  3,
  (x, at) => {
    if (x.type.kind !== 'BOOLEAN' && x.type.kind !== 'NULL')
      sqlError(`ARRAY_SORT's order arguments are BOOLEAN, got ${formatType(x.type)}`, at);
  },
  arraySort,
);

export const COLLECTION_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  ARRAY_CONTAINS: arrayAndValue('ARRAY_CONTAINS', () => T.boolean(false), arrayContains),
  // Unlike ARRAY_CONTAINS, a NULL needle gives NULL.
  ARRAY_POSITION: collectionFunction(
    'ARRAY_POSITION',
    2,
    2,
    (args, g, at) => {
      const a = arrayArg('ARRAY_POSITION', args[0] as Compiled, at);
      const needle = asElement('ARRAY_POSITION', args[1] as Compiled, a.element, g, at);
      return {
        args: [args[0] as Compiled, { code: needle.code, type: (args[1] as Compiled).type }],
        type: T.int('INTEGER', false),
      };
    },
    arrayPosition,
  ),
  ARRAY_REMOVE: arrayAndValue('ARRAY_REMOVE', (a) => withNullability(a, false), arrayRemove),
  ARRAY_DISTINCT: singleArray('ARRAY_DISTINCT', (a) => withNullability(a, false), arrayDistinct),
  ARRAY_REVERSE: singleArray(
    'ARRAY_REVERSE',
    (a) => withNullability(a, false),
    (a: readonly unknown[]) => [...a].reverse(),
  ),
  ARRAY_MAX: singleArray(
    'ARRAY_MAX',
    (a, at) => {
      requireOrdered('ARRAY_MAX', a, at, false);
      return withNullability(a.element, true);
    },
    arrayExtreme(1),
  ),
  ARRAY_MIN: singleArray(
    'ARRAY_MIN',
    (a, at) => {
      requireOrdered('ARRAY_MIN', a, at, false);
      return withNullability(a.element, true);
    },
    arrayExtreme(-1),
  ),
  ARRAY_FLATTEN: singleArray(
    'ARRAY_FLATTEN',
    (a, at) => {
      if (a.element.kind !== 'ARRAY')
        return sqlError(`ARRAY_FLATTEN needs an ARRAY of arrays, got ${formatType(a)}`, at);
      return arrayOf(a.element.element, false);
    },
    arrayFlatten,
  ),
  ELEMENT: singleArray('ELEMENT', (a) => withNullability(a.element, true), element),
  ARRAY_SLICE: arrayAndOptions(
    'ARRAY_SLICE',
    2,
    3,
    (x, at) => requireInteger('ARRAY_SLICE', x, at),
    arraySlice,
  ),
  ARRAY_SORT: (args, g, at, raw) => {
    const first = args[0];
    if (first?.type.kind === 'ARRAY') requireOrdered('ARRAY_SORT', first.type, at, true);
    return sortCompiler(args, g, at, raw);
  },
  ARRAY_JOIN: collectionFunction(
    'ARRAY_JOIN',
    2,
    3,
    (args, _g, at) => {
      const a = arrayArg('ARRAY_JOIN', args[0] as Compiled, at);
      if (!isCharacterString(a.element))
        sqlError(`ARRAY_JOIN needs an ARRAY of strings, got ${formatType(a)}`, at);
      for (const x of args.slice(1)) requireString('ARRAY_JOIN', x, at);
      return { args, type: T.string(false) };
    },
    arrayJoin,
  ),
  ARRAY_CONCAT: sameArrays('ARRAY_CONCAT', 1, Infinity, concat),
  ARRAY_UNION: sameArrays('ARRAY_UNION', 2, 2, union),
  ARRAY_EXCEPT: sameArrays('ARRAY_EXCEPT', 2, 2, arrayExcept),
  ARRAY_INTERSECT: sameArrays('ARRAY_INTERSECT', 2, 2, arrayIntersect),
  ARRAY_APPEND: arrayWithValue('ARRAY_APPEND', (a, v) => [...a, v]),
  ARRAY_PREPEND: arrayWithValue('ARRAY_PREPEND', (a, v) => [v, ...a]),
  MAP_KEYS: mapParts(
    'MAP_KEYS',
    (m) => arrayOf(m.key, false),
    (m) => [...m.keys()],
  ),
  MAP_VALUES: mapParts(
    'MAP_VALUES',
    (m) => arrayOf(m.value, false),
    (m) => [...m.values()],
  ),
  MAP_ENTRIES: mapParts(
    'MAP_ENTRIES',
    (m) =>
      arrayOf(
        {
          // Nullable, as Flink types the entries.
          kind: 'ROW',
          nullable: true,
          fields: [
            { name: 'key', type: m.key },
            { name: 'value', type: m.value },
          ],
        },
        false,
      ),
    (m) => [...m.entries()],
  ),
  MAP_FROM_ARRAYS: collectionFunction(
    'MAP_FROM_ARRAYS',
    2,
    2,
    (args, _g, at) => {
      const k = arrayArg('MAP_FROM_ARRAYS', args[0] as Compiled, at);
      const v = arrayArg('MAP_FROM_ARRAYS', args[1] as Compiled, at);
      return { args, type: { kind: 'MAP', nullable: false, key: k.element, value: v.element } };
    },
    mapFromArrays,
  ),
  MAP_UNION: collectionFunction(
    'MAP_UNION',
    1,
    Infinity,
    (args, g, at) => {
      for (const m of args) mapArg('MAP_UNION', m, at);
      const type = commonType(args.map((a) => a.type));
      if (type === undefined || type.kind !== 'MAP')
        return sqlError(
          `MAP_UNION needs maps of one type, got ${args.map((a) => formatType(a.type)).join(', ')}`,
          at,
        );
      return {
        args: args.map((a) => castTo(g, a, withNullability(type, a.type.nullable), false, at)),
        type: withNullability(type, false),
      };
    },
    mapUnion,
  ),
  // ROW(a, b, ...) and (a, b, ...): a row value whose fields are named EXPR$0, EXPR$1, ...
  ROW: (args, _g, at) => {
    arity('ROW', args, 1, Infinity, at);
    return {
      code: `[${args.map((a) => a.code).join(', ')}]`,
      type: {
        kind: 'ROW',
        nullable: false,
        fields: args.map((a, i) => ({
          name: `EXPR$${i}`,
          type: a.type.kind === 'NULL' ? T.string(true) : a.type,
        })),
      },
    };
  },
};
