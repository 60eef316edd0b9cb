/**
 * `CROSS JOIN UNNEST(expr)` (or `FROM t, UNNEST(expr)`) and `LEFT JOIN UNNEST(expr) ON TRUE`,
 * as Flink writes them: each row of the left side with each element of an ARRAY (one column)
 * or each entry of a MAP (key and value columns) computed from it; `WITH ORDINALITY` adds the
 * element's position, from 1. A LEFT join pads a row whose collection is NULL or empty. One
 * `flatMap` over the left rows, insert-only, keeping the left side's time attributes; over a
 * changing left side, Flink's correlate over a changelog (lateral-planner.ts).
 */
import type { Collector } from '../../core/functions.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, FromItem } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { formatType, type LogicalType, T, withNullability } from '../types/logical-type.js';
import {
  checkCorrelatedJoin,
  correlatedJoinCondition,
  correlatedRelation,
} from './lateral-planner.js';
import type { Relation } from './relation.js';

type JoinItem = Extract<FromItem, { kind: 'join' }>;
type UnnestItem = Extract<FromItem, { kind: 'unnest' }>;

export function isUnnestJoin(item: JoinItem): item is JoinItem & { right: UnnestItem } {
  return item.right.kind === 'unnest';
}

/** The columns one element gives: Flink names them f0 (ARRAY) or f0, f1 (MAP) without an alias list. */
function elementColumns(type: LogicalType): LogicalType[] {
  if (type.kind === 'ARRAY') {
    // Elements of a ROW type spread into the ROW's fields, as Flink does.
    return type.element.kind === 'ROW'
      ? type.element.fields.map((f) => withNullability(f.type, true))
      : [type.element];
  }
  if (type.kind === 'MAP') return [type.key, type.value];
  return [];
}

/** The elements (each as the values of its columns) of an ARRAY or MAP value. */
function elementsOf(value: unknown, kind: 'ARRAY' | 'ARRAY_OF_ROWS' | 'MAP'): Row[] {
  if (kind === 'ARRAY') return (value as unknown[]).map((v) => [v]);
  if (kind === 'ARRAY_OF_ROWS')
    return (value as (Row | null)[]).map((v) => (v === null ? [] : [...v]));
  if (value instanceof Map) return [...value.entries()];
  return Object.entries(value as Record<string, unknown>);
}

/**
 * A MULTISET unnests as an ARRAY of its elements, each as many times as it counts (Flink's
 * UNNEST of a MULTISET, e.g. of a COLLECT result).
 */
function elementsAsArray(arg: ReturnType<typeof compileScalar>): ReturnType<typeof compileScalar> {
  const { type, fn } = arg;
  if (type.kind !== 'MULTISET') return arg;
  return {
    type: { kind: 'ARRAY', nullable: type.nullable, element: type.element },
    fn: (row) => {
      const value = fn(row) as Map<unknown, number> | null;
      if (value === null) return null;
      const elements: unknown[] = [];
      for (const [element, n] of value) for (let i = 0; i < n; i++) elements.push(element);
      return elements;
    },
  };
}

/** `where` is the SELECT's WHERE for a comma join, which this join then applies. */
export function planUnnestJoin(
  item: JoinItem & { right: UnnestItem },
  left: Relation,
  where: Expr | undefined,
): Relation {
  const unnest = item.right;
  const outer = checkCorrelatedJoin(item, 'UNNEST', 'UNNEST');
  const arg = elementsAsArray(compileScalar(unnest.arg, new Scope(left.columns)));
  const types = elementColumns(arg.type);
  if (types.length === 0)
    sqlError(`UNNEST needs an ARRAY or a MAP, got ${formatType(arg.type)}`, unnest.arg.at);
  if (unnest.ordinality) types.push(T.int('INTEGER', false));
  const names = unnest.columns ?? defaultNames(arg.type, unnest.ordinality);
  if (names.length !== types.length)
    sqlError(
      `UNNEST gives ${types.length} columns, but ${names.length} names are given`,
      unnest.at,
    );
  const qualifier = unnest.alias;
  const columns: ScopeColumn[] = types.map((type, i) => ({
    name: names[i] as string,
    type,
    qualifier,
    rowtime: false,
  }));
  const scope = new Scope([...left.columns, ...columns]);
  const condition = correlatedJoinCondition(item, where, scope);
  const kind =
    arg.type.kind === 'MAP'
      ? 'MAP'
      : arg.type.kind === 'ARRAY' && arg.type.element.kind === 'ROW'
        ? 'ARRAY_OF_ROWS'
        : 'ARRAY';
  const width = types.length;
  const nulls: Row = new Array<unknown>(width).fill(null);
  const { ordinality } = unnest;
  const evaluate = arg.fn;
  const joinRows = (row: Row, out: Collector<Row>): void => {
    const value = evaluate(row);
    let any = false;
    if (value !== null) {
      let position = 0;
      for (const element of elementsOf(value, kind)) {
        position++;
        const joined = [...row, ...element];
        // A NULL element of an ARRAY of ROWs: every field NULL.
        while (joined.length < row.length + width - (ordinality ? 1 : 0)) joined.push(null);
        if (ordinality) joined.push(position);
        if (condition !== undefined && !condition(joined)) continue;
        any = true;
        out.collect(joined);
      }
    }
    if (outer && !any) out.collect([...row, ...nulls]);
  };
  return correlatedRelation(left, joinRows, 'UNNEST', scope.columns);
}

/** Flink's names without an alias list: the ROW's field names, or f0 (and f1 for a MAP). */
function defaultNames(type: LogicalType, ordinality: boolean): string[] {
  const names =
    type.kind === 'ARRAY' && type.element.kind === 'ROW'
      ? type.element.fields.map((f) => f.name)
      : type.kind === 'MAP'
        ? ['f0', 'f1']
        : ['f0'];
  return ordinality ? [...names, 'ordinality'] : names;
}
