/**
 * Unwindowed GROUP BY (Flink's GroupAggregate): an updating aggregation whose result rows
 * change as input arrives. Planned onto the DataStream API's updating aggregation, so its
 * output is a retract changelog (`+I`, `-U`/`+U` per update, `-D` when a group empties),
 * as Flink emits it. Over a changelog input the aggregation takes retracted rows back out.
 */
import type { ChangelogStream } from '../../api/streams.js';
import type { GroupResult } from '../../core/changelog.js';
import type { Key } from '../../core/key-groups.js';
import type { StateSerializer, StateTtlConfig } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { compilePredicate, compileProjection } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, Select } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';
import { type AggPhaseStrategy, decideAggregatePhases } from './aggregate-phase.js';
import type { AggregateCallAst } from './aggregate-spec.js';
import { rowAggregate } from './aggregates.js';
import { isUpdating, projectedKey, updatingRelation } from './changelog-relation.js';
import { type DistinctSplit, planDistinctSplit } from './distinct-split.js';
import { contains, mapChildren, normalizedKey } from './expr-tools.js';
import {
  AggregateCalls,
  compileKeys,
  groupKey,
  isAggregateCall,
  selectList,
  selectsLeadingColumns,
} from './grouping.js';
import type { MiniBatch } from './mini-batch.js';
import type { Relation } from './relation.js';
import { holdsValueCounts, VALUE_COUNTS_FORMAT } from './retracting-aggregates.js';
import { ROW_SERIALIZER } from './row-serializer.js';
import { ttlOption } from './state-ttl.js';

export function planGroupAggregate(
  select: Select,
  from: Relation,
  stateTtl?: StateTtlConfig,
  miniBatch?: MiniBatch,
  strategy: AggPhaseStrategy = 'AUTO',
  split?: DistinctSplit,
  /** Which aggregate of a distinct split this is, for EXPLAIN (Flink's partialFinalType). */
  splitRole?: 'PARTIAL' | 'FINAL',
): Relation {
  if (split !== undefined) {
    const planned = planDistinctSplit(select, from, split, (s, f, role) =>
      planGroupAggregate(s, f, stateTtl, miniBatch, strategy, undefined, role),
    );
    if (planned !== undefined) return planned;
  }
  const scope = new Scope(from.columns);
  const where =
    select.where === undefined
      ? undefined
      : compilePredicate(select.where, scope, 'WHERE condition');
  for (const g of select.groupBy) {
    if (contains(g, isAggregateCall)) sqlError('aggregates are not allowed in GROUP BY', g.at);
  }
  const keys = select.groupBy;
  const keyIndex = new Map(keys.map((k, i) => [normalizedKey(k, scope), i]));
  const keyFns = compileKeys(keys, scope, 'GROUP BY');
  const aggregateCalls = new AggregateCalls(scope);
  const calls = aggregateCalls.calls;
  const rewrite = (e: Expr): Expr => {
    if (isAggregateCall(e) && e.kind === 'call') return aggregateCalls.columnFor(e);
    const k = keyIndex.get(normalizedKey(e, scope));
    if (k !== undefined) return { kind: 'column', path: [`$g${k}`], at: e.at };
    if (e.kind === 'column') {
      return sqlError(
        `column '${e.path.join('.')}' must appear in GROUP BY or be used in an aggregate`,
        e.at,
      );
    }
    return mapChildren(e, rewrite);
  };
  const items = selectList(select, from.columns).map((item) => ({
    name: item.name,
    expr: rewrite(item.expr),
  }));
  const having = select.having === undefined ? undefined : rewrite(select.having);
  const updatingInput = isUpdating(from) && from.changes !== undefined;
  const {
    fn: rowFn,
    types,
    mergeable,
    mergeInto,
  } = rowAggregate(
    keyFns.map((k) => k.fn),
    keyFns.map((k) => k.type),
    calls,
    scope,
    updatingInput,
  );
  const keyOf = groupKey(keyFns.map((k) => k.fn));
  const keyName = keys.length === 0 ? 'group (global)' : 'group key';
  let groups: ChangelogStream<GroupResult<Key, Row>>;
  const phases = decideAggregatePhases({
    strategy,
    miniBatch: miniBatch !== undefined,
    mergeable,
    updatingInput,
    // A distinct split's partial groups by a bucket of the distinct value: it keeps two phases.
    distinct: splitRole === undefined && calls.some((c) => c.distinct),
  });
  // With mini-batch on, EXPLAIN says why an aggregation stays one-phase.
  const notes = [
    ...(splitRole === undefined ? [] : [`partialFinalType=[${splitRole}]`]),
    ...(miniBatch === undefined || phases.twoPhase ? [] : [`one-phase: ${phases.reason}`]),
  ];
  // The global half of a two-phase aggregation owns each group's accumulator: partials are
  // merged into it in place.
  const merged = phases.twoPhase ? { ...rowFn, merge: mergeInto } : rowFn;
  const aggregate =
    notes.length === 0
      ? merged
      : {
          ...merged,
          explain: [(rowFn as { explain?: string }).explain, ...notes]
            .filter((e) => e !== undefined)
            .join(', '),
        };
  const options = {
    ...ttlOption(stateTtl),
    ...(miniBatch === undefined ? {} : { miniBatch }),
    ...(phases.twoPhase ? { localAggregation: true } : {}),
  };
  if (updatingInput && from.changes !== undefined) {
    const input = where === undefined ? from.changes : from.changes.filterRows(where);
    // MIN, MAX, COUNT, SUM and AVG (DISTINCT) retract through value counts; with one that cannot
    // retract (FIRST_VALUE, LISTAGG, ...) the operator keeps the group's rows, MAP values and all.
    groups = input.groupBy(keyOf, keyName).updatingAggregate(aggregate, {
      ...options,
      rowSerializer: ROW_SERIALIZER,
      ...(calls.some(holdsValueCounts)
        ? { accumulatorSerializer: valueCountsSerializer(calls) }
        : {}),
    });
  } else {
    const input = where === undefined ? from.stream : from.stream.filter(where).name('where');
    groups = input.keyBy(keyOf, keyName).updatingAggregate(aggregate, options);
  }
  const aggColumns: ScopeColumn[] = [
    ...keys.map((_, i) => column(`$g${i}`, types[i] as LogicalType)),
    ...calls.map((_, i) => column(`$a${i}`, types[keys.length + i] as LogicalType)),
  ];
  const aggScope = new Scope(aggColumns);
  if (having !== undefined) {
    const test = compilePredicate(having, aggScope, 'HAVING condition');
    groups = groups.filterRows((r) => test(r.value));
  }
  const { fn, types: outTypes } = compileProjection(
    items.map((i) => i.expr),
    aggScope,
  );
  const columns = items.map((item, i) => column(item.name, outTypes[i] as LogicalType));
  // The group keys identify a result row, where the SELECT list passes them on.
  const sources = items.map(({ expr }) => {
    if (expr.kind !== 'column' || expr.path.length !== 1) return undefined;
    const k = aggColumns.findIndex((c) => c.name === expr.path[0]);
    return k >= 0 && k < keys.length ? k : undefined;
  });
  // A SELECT list of the keys then the aggregates, in order (Nexmark q16, q17): the result row
  // as the aggregation made it (a fresh array per change), not a copy of it.
  const asMade = items.length === aggColumns.length && selectsLeadingColumns(items, aggColumns);
  return updatingRelation(
    groups.mapRows(asMade ? (r) => r.value : (r) => fn(r.value)),
    columns,
    'GROUP BY',
    projectedKey(
      keys.map((_, i) => i),
      sources,
    ),
  );
}

function column(name: string, type: LogicalType): ScopeColumn {
  return { name, type, qualifier: undefined, rowtime: false };
}

/**
 * The accumulators of a GROUP BY over a changelog with value counts: JSON as before, under an
 * id of their own, so a savepoint of the former format (every row of each group kept beside
 * accumulators written as `json`) is refused on restore naming both, not misread. SUM and AVG
 * DISTINCT kept rows before they kept value counts: with one of them the id is another again.
 */
function valueCountsSerializer(calls: readonly AggregateCallAst[]): StateSerializer<never> {
  const sums = calls.some((c) => c.distinct && (c.name === 'SUM' || c.name === 'AVG'));
  return {
    id: sums ? `${VALUE_COUNTS_FORMAT}.distinct-sums` : VALUE_COUNTS_FORMAT,
    version: 1,
    toJson: (acc) => acc,
    fromJson: (json) => json as never,
  };
}
