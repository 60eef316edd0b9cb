/**
 * Flink's distinct-aggregate split (`table.optimizer.distinct-agg.split.enabled`, Flink's
 * SplitAggregateRule) for unwindowed GROUP BY: a group's distinct values are spread over
 * `bucket-num` buckets by `MOD(HASH_CODE(arg), bucket-num)`, a partial aggregate grouped by
 * the keys and the bucket computes each aggregate per bucket, and a final aggregate grouped by
 * the keys combines the buckets (a COUNT(DISTINCT) is the SUM of the buckets' counts, since a
 * value always falls into the same bucket). A hot key's distinct state is then spread over
 * many groups, and so over the subtasks.
 *
 * With distinct calls over several arguments, each row is expanded once per argument (Flink's
 * Expand): copy `$e = i` is bucketed by argument i and feeds only the distinct calls over it,
 * copy 0 also the calls without DISTINCT, so each of them still sees every row once.
 */
import type { Collector } from '../../core/functions.js';
import type { Row } from '../connectors/connector.js';
import { compilePredicate, compileScalar } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import { userAggregate } from '../functions/user-functions.js';
import type { Expr, Select, SelectItem } from '../parser/ast.js';
import { plainCall } from '../parser/calls.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { T } from '../types/logical-type.js';
import { isUpdating } from './changelog-relation.js';
import { contains, mapChildren, normalizedKey } from './expr-tools.js';
import { isAggregateCall, selectList } from './grouping.js';
import type { Relation } from './relation.js';

export const DISTINCT_SPLIT_ENABLED = 'table.optimizer.distinct-agg.split.enabled';
export const DISTINCT_SPLIT_BUCKETS = 'table.optimizer.distinct-agg.split.bucket-num';

/** The options this module reads. */
export const DISTINCT_SPLIT_OPTIONS: ReadonlySet<string> = new Set([
  DISTINCT_SPLIT_ENABLED,
  DISTINCT_SPLIT_BUCKETS,
]);

/** The split's setting: how many buckets a group's distinct values are spread over. */
export interface DistinctSplit {
  readonly buckets: number;
}

/** The split the options set (Flink's defaults: off, 1024 buckets), or undefined when off. */
export function distinctSplitOf(
  options: ReadonlyMap<string, string>,
  at?: SourcePosition,
): DistinctSplit | undefined {
  const enabled = (options.get(DISTINCT_SPLIT_ENABLED) ?? 'false').trim().toLowerCase();
  if (enabled !== 'true' && enabled !== 'false')
    sqlError(`'${DISTINCT_SPLIT_ENABLED}' is '${enabled}'; it must be 'true' or 'false'`, at);
  const text = (options.get(DISTINCT_SPLIT_BUCKETS) ?? '1024').trim();
  const buckets = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(buckets) || buckets < 1)
    sqlError(`'${DISTINCT_SPLIT_BUCKETS}' is '${text}'; it must be a positive whole number`, at);
  return enabled === 'true' ? { buckets } : undefined;
}

/** Checks one SET value of a split option. */
export function checkDistinctSplitOption(key: string, value: string, at?: SourcePosition): void {
  distinctSplitOf(new Map([[key, value]]), at);
}

/** Aggregates the split can combine across buckets (Flink's also take AVG, as SUM and COUNT). */
const SPLITTABLE = new Set(['COUNT', 'SUM', 'MIN', 'MAX']);

type Call = Expr & { kind: 'call' };

/** Why the GROUP BY cannot be split, or undefined when it can. */
function notSplittable(calls: readonly Call[], from: Relation): string | undefined {
  if (!calls.some((c) => c.distinct)) return 'no DISTINCT aggregate';
  if (isUpdating(from)) return 'the input is a changelog';
  const other = calls.find((c) => !SPLITTABLE.has(c.name) || userAggregate(c.name) !== undefined);
  if (other !== undefined) return `${other.name} is not split`;
  if (calls.some((c) => c.distinct && c.args.length !== 1))
    return 'a DISTINCT call has not one argument';
  return undefined;
}

/**
 * A string hash of a value's typed text (the same on every process, unlike object identity),
 * as Flink's HASH_CODE: only which bucket equal values share matters.
 */
function hashCode(v: unknown): number {
  if (v === null) return 0;
  const text = `${typeof v}:${String(v)}`;
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

const column = (name: string, at: SourcePosition): Expr => ({ kind: 'column', path: [name], at });
const call = plainCall;

/**
 * The GROUP BY as a partial and a final aggregate when the split applies; undefined when it
 * does not (the caller plans it as one aggregate). `plan` plans one GROUP BY over a relation.
 */
export function planDistinctSplit(
  select: Select,
  from: Relation,
  split: DistinctSplit,
  plan: (select: Select, from: Relation, role: 'PARTIAL' | 'FINAL') => Relation,
): Relation | undefined {
  const scope = new Scope(from.columns);
  const items = selectList(select, from.columns);
  const calls: Call[] = [];
  const collect = (e: Expr): void => {
    contains(e, (x) => {
      if (isAggregateCall(x) && x.kind === 'call') calls.push(x);
      return false;
    });
  };
  for (const item of items) collect(item.expr);
  if (select.having !== undefined) collect(select.having);
  if (notSplittable(calls, from) !== undefined) return undefined;

  // The distinct arguments, each with its copy of the row ($e) and its bucket function.
  const argumentIndex = new Map<string, number>();
  for (const c of calls) {
    if (!c.distinct) continue;
    const key = normalizedKey(c.args[0] as Expr, scope);
    if (!argumentIndex.has(key)) argumentIndex.set(key, argumentIndex.size);
  }
  const argumentExprs = [...argumentIndex.keys()].map((key) => {
    const c = calls.find((x) => x.distinct && normalizedKey(x.args[0] as Expr, scope) === key);
    return (c as Call).args[0] as Expr;
  });
  const argumentFns = argumentExprs.map((e) => compileScalar(e, scope).fn);
  const copies = argumentFns.length;
  const { buckets } = split;
  const where =
    select.where === undefined
      ? undefined
      : compilePredicate(select.where, scope, 'WHERE condition');
  const expandRow = (row: Row, out: Collector<Row>): void => {
    if (where !== undefined && !where(row)) return;
    for (let e = 0; e < copies; e++) {
      const bucket = Math.abs(hashCode((argumentFns[e] as (r: Row) => unknown)(row)) % buckets);
      out.collect([...row, e, bucket]);
    }
  };
  const expanded = from.stream
    .flatMap(expandRow)
    .name(
      `${copies === 1 ? '' : `Expand $e of ${copies}, `}Calc $b = ${argumentExprs
        .map((e) => `MOD(HASH_CODE(${describe(e)}), ${buckets})`)
        .join(' | ')}`,
    );
  const expandedColumns: ScopeColumn[] = [
    ...from.columns,
    { name: '$e', type: T.int('INTEGER', false), qualifier: undefined, rowtime: false },
    { name: '$b', type: T.int('INTEGER', false), qualifier: undefined, rowtime: false },
  ];

  // The partial aggregate: per key, copy and bucket, every call restricted to its copy.
  const at = select.at;
  const partialCalls: Expr[] = [];
  const partialIndex = new Map<string, number>();
  const partialColumn = (c: Call): Expr => {
    const e = c.distinct
      ? (argumentIndex.get(normalizedKey(c.args[0] as Expr, scope)) as number)
      : 0;
    const ofCopy: Expr = {
      kind: 'binary',
      op: '=',
      left: column('$e', c.at),
      right: { kind: 'number', text: String(e), at: c.at },
      at: c.at,
    };
    const filter =
      copies === 1
        ? c.filter
        : c.filter === undefined
          ? ofCopy
          : ({ kind: 'binary', op: 'AND', left: c.filter, right: ofCopy, at: c.at } as Expr);
    const partial: Call = { ...c, filter };
    const key = normalizedKey(partial, new Scope(expandedColumns));
    let i = partialIndex.get(key);
    if (i === undefined) {
      i = partialCalls.length;
      partialCalls.push(partial);
      partialIndex.set(key, i);
    }
    return column(`$p${i}`, c.at);
  };
  const keyIndex = new Map(select.groupBy.map((k, i) => [normalizedKey(k, scope), i]));
  // The final aggregate: each call combines its partials across buckets and copies.
  const finalExpr = (e: Expr): Expr => {
    if (isAggregateCall(e) && e.kind === 'call') {
      const p = partialColumn(e);
      if (e.name === 'COUNT')
        return call(
          'COALESCE',
          [call('SUM', [p], e.at), { kind: 'number', text: '0', at: e.at }],
          e.at,
        );
      return call(e.name, [p], e.at);
    }
    const k = keyIndex.get(normalizedKey(e, scope));
    if (k !== undefined) return column(`$k${k}`, e.at);
    if (e.kind === 'column') return e;
    return mapChildren(e, finalExpr);
  };
  const finalItems: SelectItem[] = items.map((item) => ({
    kind: 'expr',
    expr: finalExpr(item.expr),
    alias: item.name,
  }));
  const having = select.having === undefined ? undefined : finalExpr(select.having);
  const partialSelect: Select = {
    kind: 'select',
    distinct: false,
    items: [
      ...select.groupBy.map((k, i): SelectItem => ({ kind: 'expr', expr: k, alias: `$k${i}` })),
      ...partialCalls.map((c, i): SelectItem => ({ kind: 'expr', expr: c, alias: `$p${i}` })),
    ],
    from: select.from,
    where: undefined,
    groupBy: [...select.groupBy, column('$e', at), column('$b', at)],
    having: undefined,
    at,
  };
  const partial = plan(partialSelect, { stream: expanded, columns: expandedColumns }, 'PARTIAL');
  const finalSelect: Select = {
    kind: 'select',
    distinct: false,
    items: finalItems,
    from: select.from,
    where: undefined,
    groupBy: select.groupBy.map((k, i) => column(`$k${i}`, k.at)),
    having,
    at,
  };
  return plan(finalSelect, partial, 'FINAL');
}

/** A distinct argument in a step's name: its column, as Flink's plan shows it. */
function describe(e: Expr): string {
  return e.kind === 'column' ? e.path.join('.') : 'an expression';
}
