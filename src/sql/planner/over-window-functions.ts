/**
 * LAG, ROW_NUMBER, RANK and DENSE_RANK in a streaming OVER window, as Flink runs them: as
 * aggregates over the frame from UNBOUNDED PRECEDING to the current row, computed beside the
 * window's other aggregates. They take no frame clause (Calcite's rule); ROW_NUMBER runs over
 * ROWS (each row its own number), the others over RANGE, so rows of one rowtime (peers) share
 * their LAG (Flink's LagAggFunction reads the buffer after the last peer), their RANK and
 * their DENSE_RANK. In processing time every row is its own peer. LEAD is refused, as Flink
 * refuses it in streaming: it would wait for rows to come.
 */
import type { Json } from '../../core/snapshot.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import type { Scope } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { formatType, type LogicalType, T, withNullability } from '../types/logical-type.js';
import { SQL_VALUE_SERIALIZER } from './row-serializer.js';
import type { OverAggregator } from './sorted-over.js';

type CallExpr = Extract<Expr, { kind: 'call' }>;

const WINDOW_FUNCTIONS: ReadonlySet<string> = new Set([
  'LAG',
  'LEAD',
  'ROW_NUMBER',
  'RANK',
  'DENSE_RANK',
]);

/** A window function (not an aggregate) called with OVER. */
export function isWindowFunction(e: Expr): boolean {
  return e.kind === 'call' && e.over && WINDOW_FUNCTIONS.has(e.name);
}

/** One window function's state (JSON data, as an OVER accumulator is) and result. */
interface WindowFunction {
  readonly type: LogicalType;
  init(): Json;
  add(acc: Json, row: Row): Json;
  result(acc: Json): unknown;
}

/** The frame of an OVER window; `preceding` is a row count (ROWS) or milliseconds (RANGE). */
export interface OverFrame {
  readonly mode: 'ROWS' | 'RANGE';
  readonly preceding: number;
}

/**
 * The frame a window function runs over: it takes none of its own (Calcite refuses one, so
 * Flink does), ROW_NUMBER counts rows, the others see their peers. LEAD is refused here.
 */

export function windowFunctionFrame(call: CallExpr, frameText: string | undefined): OverFrame {
  if (call.name === 'LEAD')
    sqlError(
      'LEAD Function is not supported in stream mode. (Flink refuses it: a streaming OVER emits a row before the rows after it arrive)',
      call.at,
    );
  if (frameText !== undefined)
    sqlError(
      `ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions (as Flink says for ${call.name}: it runs from UNBOUNDED PRECEDING to the current row and takes no frame; got '${frameText}')`,
      call.at,
    );
  return {
    mode: call.name === 'ROW_NUMBER' ? 'ROWS' : 'RANGE',
    preceding: Number.POSITIVE_INFINITY,
  };
}

const encode = (v: unknown): Json => SQL_VALUE_SERIALIZER.toJson(v);
const decode = (j: Json): unknown => SQL_VALUE_SERIALIZER.fromJson(j, SQL_VALUE_SERIALIZER.version);

/** CHAR and VARCHAR mix in a LAG (a CHAR value with a VARCHAR default: a STRING, as Calcite types it). */
const chars = (t: LogicalType): boolean => t.kind === 'CHAR' || t.kind === 'VARCHAR';

/** LAG's offset: a literal, as the buffer's length is fixed when the function is planned. */
function lagOffset(e: Expr): number {
  if (e.kind === 'number' && /^\d+$/.test(e.text)) return Number(e.text);
  return sqlError(
    'LAG: the offset must be a non-negative integer literal (Flink: Offset should be positive)',
    e.at,
  );
}

function lag(call: CallExpr, scope: Scope): WindowFunction {
  const [valueArg, offsetArg, defaultArg] = call.args;
  if (valueArg === undefined || call.args.length > 3)
    return sqlError(
      `LAG takes (value [, offset [, default]]), got ${call.args.length} arguments`,
      call.at,
    );
  const offset = offsetArg === undefined ? 1 : lagOffset(offsetArg);
  const value = compileScalar(valueArg, scope);
  const fallback = defaultArg === undefined ? undefined : compileScalar(defaultArg, scope);
  if (fallback !== undefined && fallback.type.kind !== 'NULL') {
    const same =
      (chars(fallback.type) && chars(value.type)) ||
      (fallback.type.kind === value.type.kind &&
        (value.type.kind !== 'DECIMAL' ||
          (fallback.type.kind === 'DECIMAL' && fallback.type.scale === value.type.scale)));
    if (!same)
      sqlError(
        `LAG: Please explicitly cast default value ${formatType(fallback.type)} to ${formatType(value.type)}. (as Flink asks: the default takes the value's type)`,
        defaultArg?.at ?? call.at,
      );
  }
  const base =
    fallback !== undefined && chars(fallback.type) && fallback.type.kind !== value.type.kind
      ? T.string()
      : value.type;
  // NOT NULL only when the value is and a NOT NULL default stands in for missing rows.
  const nullable = value.type.nullable || fallback === undefined || fallback.type.nullable;
  return {
    type: withNullability(base, nullable),
    // [the last offset + 1 values, the default of the last row]
    init: () => [[], null],
    add(acc, row) {
      const [buffer, dflt] = acc as [Json[], Json];
      buffer.push(encode(value.fn(row)));
      if (buffer.length > offset + 1) buffer.splice(0, buffer.length - offset - 1);
      return [buffer, fallback === undefined ? dflt : encode(fallback.fn(row))];
    },
    result(acc) {
      const [buffer, dflt] = acc as [Json[], Json];
      return buffer.length < offset + 1 ? decode(dflt) : decode(buffer[0] as Json);
    },
  };
}

/**
 * ROW_NUMBER, RANK and DENSE_RANK as Flink's rank aggregates: a row count, the rank of the
 * last peer group and the order key it had (peers compare equal; none in processing time).
 */
function ranking(call: CallExpr, orderKey: ((row: Row) => unknown) | undefined): WindowFunction {
  if (call.args.length > 0 || call.star) sqlError(`${call.name}() takes no arguments`, call.at);
  const name = call.name;
  const keyOf = (row: Row): string | null =>
    orderKey === undefined || name === 'ROW_NUMBER' ? null : JSON.stringify(encode(orderKey(row)));
  return {
    type: T.bigint(false),
    // [rows so far, the current rank, the order key of the last row]
    init: () => [0, 0, null],
    add(acc, row) {
      const [n, rank, last] = acc as [number, number, string | null];
      const key = keyOf(row);
      const peer = rank > 0 && key !== null && key === last;
      const next = name === 'ROW_NUMBER' ? n + 1 : peer ? rank : name === 'RANK' ? n + 1 : rank + 1;
      return [n + 1, next, key];
    },
    result: (acc) => (acc as [number, number, string | null])[1],
  };
}

/** The window function of a call; `orderKey` reads a row's rowtime (undefined in processing time). */
function windowFunction(
  call: CallExpr,
  scope: Scope,
  orderKey: ((row: Row) => unknown) | undefined,
): WindowFunction {
  if (call.distinct) sqlError(`${call.name}(DISTINCT ...) is not a window function call`, call.at);
  if (call.filter !== undefined)
    sqlError(`FILTER (WHERE ...) applies only to aggregates, not to ${call.name}`, call.at);
  return call.name === 'LAG' ? lag(call, scope) : ranking(call, orderKey);
}

/**
 * One aggregator for the calls of an OVER window: the aggregates (`aggregates`, made of the
 * calls that are not window functions, in order) and the window functions, results in the
 * calls' order. Its accumulator is `[the aggregates' accumulator, ...the functions' states]`.
 */
export function withWindowFunctions(
  calls: readonly CallExpr[],
  aggregates: { agg: OverAggregator; types: readonly LogicalType[] } | undefined,
  scope: Scope,
  orderKey: ((row: Row) => unknown) | undefined,
): { agg: OverAggregator; types: LogicalType[] } {
  const fns: WindowFunction[] = [];
  let aggregated = 0;
  // Each call's result: [true, function index] or [false, aggregate result index].
  const slots = calls.map((c): readonly [boolean, number] => {
    if (!isWindowFunction(c)) return [false, aggregated++];
    fns.push(windowFunction(c, scope, orderKey));
    return [true, fns.length - 1];
  });
  const types = slots.map(([fn, i]) =>
    fn ? (fns[i] as WindowFunction).type : (aggregates?.types[i] as LogicalType),
  );
  const agg: OverAggregator = {
    createAccumulator: () => [
      aggregates?.agg.createAccumulator() ?? null,
      ...fns.map((f) => f.init()),
    ],
    add(row, acc) {
      const state = acc as unknown[];
      if (aggregates !== undefined) state[0] = aggregates.agg.add(row, state[0]);
      fns.forEach((f, i) => {
        state[i + 1] = f.add(state[i + 1] as Json, row);
      });
      return state;
    },
    getResult(acc) {
      const state = acc as unknown[];
      const base = aggregates === undefined ? [] : aggregates.agg.getResult(state[0]);
      return slots.map(([fn, i]) =>
        fn ? (fns[i] as WindowFunction).result(state[i + 1] as Json) : base[i],
      );
    },
  };
  return { agg, types };
}
