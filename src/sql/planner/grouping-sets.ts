/**
 * GROUP BY GROUPING SETS, ROLLUP and CUBE, planned as Flink plans them: an Expand step copies
 * each input row once per grouping set, with the keys outside the set NULL and the set's
 * number in a column `$e`, and the ordinary aggregation then groups by the keys and `$e`.
 * GROUPING() and GROUPING_ID() read the set back from `$e`, and GROUP_ID() how many earlier
 * sets have the same keys (a grouping set listed twice gives its groups twice, 0 then 1). Over a changelog each change is
 * copied with its kind, so a retraction takes its row out of every set's group.
 */
import type { Collector } from '../../core/functions.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, Select, SelectItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { type LogicalType, T } from '../types/logical-type.js';
import { contains, mapChildren, normalizedKey } from './expr-tools.js';
import { isAggregateCall } from './grouping.js';
import { correlatedRelation } from './lateral-planner.js';
import type { Relation } from './relation.js';

const GROUPING_FUNCTIONS = new Set(['GROUPING', 'GROUPING_ID', 'GROUP_ID']);
const LEGACY_WINDOWS = new Set(['TUMBLE', 'HOP', 'SESSION']);

function isGroupingCall(e: Expr): e is Expr & { kind: 'call' } {
  return e.kind === 'call' && GROUPING_FUNCTIONS.has(e.name) && !e.over;
}

/** Whether the query needs this step: grouping sets, or GROUPING()/GROUPING_ID() calls. */
export function usesGroupingSets(select: Select): boolean {
  if (select.groupingSets !== undefined) return true;
  const exprs = [
    ...select.items.flatMap((i) => (i.kind === 'expr' ? [i.expr] : [])),
    ...(select.having === undefined ? [] : [select.having]),
  ];
  return exprs.some((e) => contains(e, isGroupingCall));
}

const column = (name: string, at: SourcePosition): Expr => ({ kind: 'column', path: [name], at });
const number = (n: number, at: SourcePosition): Expr => ({ kind: 'number', text: String(n), at });

/**
 * The query over the expanded input: GROUP BY the keys and `$e`, the SELECT list and HAVING
 * reading keys through `$k<i>` (NULL outside their set) and GROUPING() through `$e`. A single
 * grouping set is a plain GROUP BY (no Expand), as in Flink.
 */
export function expandGroupingSets(
  select: Select,
  from: Relation,
): { select: Select; from: Relation } {
  const scope = new Scope(from.columns);
  const window = from.window;
  const inputWidth = window === undefined ? from.columns.length : window.input.columns.length;
  const isWindowColumn = (e: Expr): boolean => {
    if (e.kind !== 'column' || window === undefined) return false;
    return scope.resolve(e.path, e.at).index >= inputWidth;
  };
  const sets = select.groupingSets ?? [select.groupBy];
  // The keys: every distinct expression of the sets, window columns apart (in every set).
  const keys: Expr[] = [];
  const keyIndex = new Map<string, number>();
  const windowKeys = new Map<string, Expr>();
  const setKeys = sets.map((set) => {
    const out = new Set<number>();
    for (const e of set) {
      if (contains(e, isAggregateCall)) sqlError('aggregates are not allowed in GROUP BY', e.at);
      if (e.kind === 'call' && LEGACY_WINDOWS.has(e.name) && select.groupingSets !== undefined)
        sqlError(
          `GROUPING SETS with a ${e.name} group window is not supported by Weir SQL yet`,
          e.at,
        );
      const key = normalizedKey(e, scope);
      if (isWindowColumn(e)) {
        windowKeys.set(key, e);
        continue;
      }
      let i = keyIndex.get(key);
      if (i === undefined) {
        i = keys.length;
        keys.push(e);
        keyIndex.set(key, i);
      }
      out.add(i);
    }
    return out;
  });
  if (windowKeys.size > 0) {
    for (const set of sets) {
      const named = new Set(set.filter(isWindowColumn).map((e) => normalizedKey(e, scope)));
      if (named.size !== windowKeys.size)
        sqlError(
          'window_start and window_end must be in every grouping set of a window aggregation',
          set[0]?.at ?? select.at,
        );
    }
  }
  if (from.windowed !== undefined && select.groupingSets !== undefined && sets.length > 1)
    sqlError(
      'GROUPING SETS over the results of a window aggregation are not supported by Weir SQL yet',
      select.at,
    );
  const expand = sets.length > 1;
  // GROUPING(a, b): bit per argument (the first the highest), 1 where the set leaves it out.
  const groupingValue = (call: Expr & { kind: 'call' }, s: number): number =>
    call.args.reduce((acc, arg) => {
      const key = normalizedKey(arg, scope);
      const i = keyIndex.get(key);
      if (i === undefined && !windowKeys.has(key))
        sqlError(`the arguments of ${call.name} must be GROUP BY expressions`, arg.at);
      const out = i !== undefined && !(setKeys[s] as Set<number>).has(i) ? 1 : 0;
      return acc * 2 + out;
    }, 0);
  // GROUP_ID(): the sets before this one with the same keys.
  const setText = setKeys.map((k) => [...k].sort((a, b) => a - b).join(','));
  const groupId = (s: number): number => setText.slice(0, s).filter((t) => t === setText[s]).length;
  const groupingExpr = (call: Expr & { kind: 'call' }): Expr => {
    if (call.name === 'GROUP_ID') {
      if (call.args.length > 0) sqlError('GROUP_ID takes no arguments', call.at);
    } else if (call.args.length === 0)
      sqlError(`${call.name} needs at least one argument`, call.at);
    const values = sets.map((_, s) =>
      call.name === 'GROUP_ID' ? groupId(s) : groupingValue(call, s),
    );
    const value: Expr =
      !expand || values.every((v) => v === values[0])
        ? number(values[0] as number, call.at)
        : {
            kind: 'case',
            operand: column('$e', call.at),
            whens: values.map((v, s) => ({ when: number(s, call.at), result: number(v, call.at) })),
            otherwise: undefined,
            at: call.at,
          };
    return { kind: 'cast', arg: value, type: T.int('BIGINT', false), tryCast: false, at: call.at };
  };
  // Outside aggregate calls, a key reads its (possibly NULL) copy; inside, the input's value.
  const rewrite = (e: Expr): Expr => {
    if (isGroupingCall(e)) return groupingExpr(e);
    if (isAggregateCall(e)) return e;
    if (expand) {
      const k = keyIndex.get(normalizedKey(e, scope));
      if (k !== undefined) return column(`$k${k}`, e.at);
    }
    return mapChildren(e, rewrite);
  };
  // A key column selected without an alias keeps its own name, not its copy's (`$k0`): a view
  // or query over the result reads it by that name.
  const items = select.items.map((item): SelectItem => {
    if (item.kind !== 'expr') return item;
    const expr = rewrite(item.expr);
    const alias =
      item.alias ??
      (item.expr.kind === 'column' && expr !== item.expr
        ? (item.expr.path[item.expr.path.length - 1] as string)
        : undefined);
    return { ...item, expr, alias };
  });
  const having = select.having === undefined ? undefined : rewrite(select.having);
  if (!expand) {
    const { groupingSets: _, ...plain } = select;
    return {
      select: { ...plain, groupBy: [...windowKeys.values(), ...keys], items, having },
      from,
    };
  }
  const expanded = expandRelation(
    window === undefined ? from : window.input,
    keys,
    setKeys,
    new Scope(from.columns.slice(0, inputWidth)),
  );
  const groupBy = [
    ...windowKeys.values(),
    ...keys.map((k, i) => column(`$k${i}`, k.at)),
    column('$e', select.at),
  ];
  const { groupingSets: _, ...rest } = select;
  const newSelect: Select = { ...rest, groupBy, items, having };
  if (window === undefined) return { select: newSelect, from: expanded };
  return {
    select: newSelect,
    from: {
      ...from,
      columns: [...expanded.columns, ...from.columns.slice(inputWidth)],
      window: { ...window, input: expanded },
    },
  };
}

/** The Expand step: each row once per set, `$k<i>` NULL where set `s` leaves key `i` out. */
function expandRelation(
  input: Relation,
  keys: readonly Expr[],
  sets: readonly Set<number>[],
  scope: Scope,
): Relation {
  const compiled = keys.map((k) => compileScalar(k, scope));
  const fns = compiled.map((c) => c.fn);
  const expandRow = (row: Row, out: Collector<Row>): void => {
    const values = fns.map((f) => f(row));
    sets.forEach((set, s) => {
      out.collect([...row, ...values.map((v, i) => (set.has(i) ? v : null)), s]);
    });
  };
  const columns: ScopeColumn[] = [
    ...input.columns,
    ...compiled.map((c, i) => ({
      name: `$k${i}`,
      type: sets.every((s) => s.has(i)) ? c.type : nullable(c.type),
      qualifier: undefined,
      rowtime: false,
    })),
    { name: '$e', type: T.int('INTEGER', false), qualifier: undefined, rowtime: false },
  ];
  const describe = (e: Expr): string => (e.kind === 'column' ? e.path.join('.') : 'an expression');
  const name = `Expand $e of ${sets.length} grouping sets: ${sets
    .map((set) => `{${[...set].map((i) => describe(keys[i] as Expr)).join(', ')}}`)
    .join(', ')}`;
  return correlatedRelation(input, expandRow, name, columns);
}

function nullable(type: LogicalType): LogicalType {
  return type.nullable ? type : ({ ...type, nullable: true } as LogicalType);
}
