/**
 * Flink's JSON aggregates. `JSON_OBJECTAGG([KEY] k VALUE v [NULL | ABSENT ON NULL])` builds one
 * JSON object of the group's pairs (NULL ON NULL by default; a key seen twice fails the job, as
 * in Flink); `JSON_ARRAYAGG(v [NULL | ABSENT ON NULL])` one JSON array of the values in arrival
 * order (ABSENT ON NULL by default). Values are written as JSON_STRING writes them, and a nested
 * JSON_OBJECT or JSON_ARRAY as JSON. Both retract as Flink's do: the array drops the first equal
 * value, the object its key when the value matches, otherwise it remembers the retraction for
 * a pair still to come. The parser hands the ON NULL mode over as the first argument.
 */
import { WeirError } from '../../core/errors.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import { sqlToJson } from '../expressions/functions/json-functions.js';
import { parseJson, writeJson } from '../expressions/functions/json-text.js';
import type { Scope } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';

import { sqlError } from '../sql-error.js';
import { formatType, isCharacterString, T } from '../types/logical-type.js';
import type { AccState, AggregateCallAst, AggregateSpec, Guard } from './aggregate-spec.js';

/** The JSON text of each value (a string), or null for SQL NULL. */
type ArrayState = (string | null)[];

/** The object's pairs by key, and retracted pairs whose addition has not arrived yet. */
interface ObjectState {
  pairs: Record<string, string | null>;
  retracted: Record<string, string | null>;
}

function modeOf(call: AggregateCallAst): 'NULL' | 'ABSENT' {
  const mode = call.args[0];
  return mode?.kind === 'string' && mode.value === 'ABSENT' ? 'ABSENT' : 'NULL';
}

/** Compiles a value argument to its JSON text (a nested JSON constructor is JSON already). */
function jsonText(e: Expr, scope: Scope): (row: Row) => string | null {
  const c = compileScalar(e, scope);
  if (e.kind === 'call' && (e.name === 'JSON_OBJECT' || e.name === 'JSON_ARRAY')) {
    return (row) => {
      const v = c.fn(row) as string | null;
      return v === null ? null : writeJson(parseJson(v));
    };
  }
  const { type } = c;
  return (row) => {
    const v = c.fn(row);
    return v === null ? null : writeJson(sqlToJson(v, type));
  };
}

function duplicateKey(key: string): never {
  throw new WeirError(
    'USER_FUNCTION_FAILED',
    `JSON_OBJECTAGG: key '${key}' is already present; keys must be unique within a group`,
  );
}

export function compileJsonAggregate(
  call: AggregateCallAst,
  scope: Scope,
  guard: Guard,
): AggregateSpec {
  if (call.star) sqlError(`${call.name}(*) is not valid`, call.at);
  if (call.distinct) sqlError(`${call.name}(DISTINCT ...) is not supported by Flink`, call.at);
  const absent = modeOf(call) === 'ABSENT';
  if (call.name === 'JSON_ARRAYAGG') {
    if (call.args.length !== 2) sqlError('JSON_ARRAYAGG takes one value', call.at);
    return jsonArrayAgg(jsonText(call.args[1] as Expr, scope), absent, guard);
  }
  if (call.args.length !== 3) sqlError('JSON_OBJECTAGG takes one KEY ... VALUE ... pair', call.at);
  const key = compileScalar(call.args[1] as Expr, scope);
  if (!isCharacterString(key.type))
    sqlError(
      `JSON_OBJECTAGG's key must be a character string, got ${formatType(key.type)}`,
      call.at,
    );
  return jsonObjectAgg(
    key.fn as (row: Row) => string | null,
    jsonText(call.args[2] as Expr, scope),
    absent,
    guard,
  );
}

function jsonArrayAgg(
  value: (row: Row) => string | null,
  absent: boolean,
  guard: Guard,
): AggregateSpec {
  const list = (s: AccState) => s as unknown as ArrayState;
  return {
    init: () => [] as unknown as AccState,
    add: guard((s, row) => {
      const v = value(row);
      if (v !== null || !absent) list(s).push(v);
      return s;
    }),
    retract: guard((s, row) => {
      const v = value(row);
      const values = list(s);
      const at = values.indexOf(v);
      if (at >= 0) values.splice(at, 1);
      return s;
    }),
    merge: (a, b) => [...list(a), ...list(b)] as unknown as AccState,
    result: (s) =>
      `[${list(s)
        .map((v) => v ?? 'null')
        .join(',')}]`,
    type: T.string(false),
    mergeable: false,
  };
}

function jsonObjectAgg(
  key: (row: Row) => string | null,
  value: (row: Row) => string | null,
  absent: boolean,
  guard: Guard,
): AggregateSpec {
  const object = (s: AccState) => s as unknown as ObjectState;
  const put = (s: ObjectState, k: string, v: string | null): void => {
    if (Object.hasOwn(s.pairs, k)) duplicateKey(k);
    if (v !== null || !absent) s.pairs[k] = v;
  };
  const keyOf = (row: Row): string => {
    const k = key(row);
    if (k === null) throw new WeirError('USER_FUNCTION_FAILED', 'JSON_OBJECTAGG: a key is NULL');
    return k;
  };
  return {
    init: () => ({ pairs: {}, retracted: {} }) as unknown as AccState,
    add: guard((s, row) => {
      const state = object(s);
      const k = keyOf(row);
      const v = value(row);
      if (Object.hasOwn(state.retracted, k) && state.retracted[k] === v) delete state.retracted[k];
      else put(state, k, v);
      return s;
    }),
    retract: guard((s, row) => {
      const state = object(s);
      const k = keyOf(row);
      const v = value(row);
      if (Object.hasOwn(state.pairs, k) && state.pairs[k] === v) delete state.pairs[k];
      else state.retracted[k] = v;
      return s;
    }),
    merge: (a, b) => {
      const merged: ObjectState = {
        pairs: { ...object(a).pairs },
        retracted: { ...object(a).retracted },
      };
      const other = object(b);
      for (const [k, v] of Object.entries(other.retracted)) {
        if (Object.hasOwn(merged.pairs, k) && merged.pairs[k] === v) delete merged.pairs[k];
        else merged.retracted[k] = v;
      }
      for (const [k, v] of Object.entries(other.pairs)) {
        if (Object.hasOwn(merged.retracted, k) && merged.retracted[k] === v)
          delete merged.retracted[k];
        else put(merged, k, v);
      }
      return merged as unknown as AccState;
    },
    result: (s) => {
      const pairs = Object.entries(object(s).pairs).sort(([a], [b]) =>
        a < b ? -1 : a > b ? 1 : 0,
      );
      return `{${pairs.map(([k, v]) => `${writeJson(k)}:${v ?? 'null'}`).join(',')}}`;
    },
    type: T.string(false),
    mergeable: false,
  };
}
