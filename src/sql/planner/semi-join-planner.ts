/**
 * `EXISTS`, `NOT EXISTS`, `IN` and `NOT IN` subqueries among the AND-ed conditions of a WHERE,
 * planned as Flink plans them: a semi join (EXISTS, IN) or an anti join (NOT EXISTS, NOT IN)
 * of the query's rows with the subquery's, keyed by the equalities of the correlation and the
 * IN columns, with the other correlated conditions checked on each pair. `NOT IN` is
 * null-aware, as SQL's three-valued logic has it: a NULL on either side of an IN column
 * matches (so it excludes) every row, which Flink plans as a join condition
 * `l = r OR l IS NULL OR r IS NULL` rather than a key; such columns are keys only when neither
 * side can be NULL. The runtime operator is `SemiAntiJoinFunction`. A correlation that equates
 * `window_start` and `window_end` of two insert-only windowed inputs is a window semi/anti join
 * instead (`planWindowSemiJoin`): per window, emitted once when the window ends.
 */
import type { ChangelogStream, DataStream } from '../../api/streams.js';
import type { Change } from '../../core/changelog.js';
import type { Key } from '../../core/key-groups.js';
import type { StateTtlConfig } from '../../core/state.js';
import { SemiAntiJoinFunction } from '../../runtime/operators/changelog/semi-anti-join.js';
import type { Row } from '../connectors/connector.js';
import { compilePredicate, compileScalar } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, FromItem, Query, Select } from '../parser/ast.js';
import { type SourcePosition, SqlError, sqlError } from '../sql-error.js';
import {
  commonType,
  formatType,
  type LogicalType,
  withNullability,
} from '../types/logical-type.js';
import { positional } from './calc.js';
import { noteChangelogRole } from './changelog-plan.js';
import { changesOf, isUpdating, retracting, updatingRelation } from './changelog-relation.js';
import { contains, mapChildren } from './expr-tools.js';
import { isAggregateCall, selectList } from './grouping.js';
import { and, conjuncts, filtered, joinKey } from './join-planner.js';
import { keyEquality } from './key-equality.js';
import type { Relation } from './relation.js';
import { ROW_SERIALIZER } from './row-serializer.js';
import { planWindowSemiJoin, windowJoinColumns } from './window-join-planner.js';

export type SubqueryTest = Extract<Expr, { kind: 'subquery-test' }>;

/** How the query planner plans what a subquery reads (its FROM, or the whole query). */
export interface SemiJoinPlanning {
  /** A FROM item's rows, window columns computed. */
  readonly planFrom: (item: FromItem) => Relation;
  readonly planQuery: (query: Query) => Relation;
  readonly stateTtl: StateTtlConfig | undefined;
}

/** `NOT EXISTS (...)`, `NOT (x IN (...))`: the test with its negation folded in. */
function asTest(e: Expr): SubqueryTest | undefined {
  if (e.kind === 'subquery-test') return e;
  if (e.kind === 'unary' && e.op === 'NOT') {
    const inner = asTest(e.arg);
    return inner === undefined ? undefined : { ...inner, negated: !inner.negated };
  }
  return undefined;
}

/** A WHERE condition's subquery tests (AND-ed at its top) and the rest of it. */
export function subqueryTests(where: Expr | undefined): {
  readonly tests: SubqueryTest[];
  readonly rest: Expr | undefined;
} {
  const tests: SubqueryTest[] = [];
  const rest: Expr[] = [];
  for (const part of conjuncts(where)) {
    const test = asTest(part);
    if (test === undefined) rest.push(part);
    else tests.push(test);
  }
  return { tests, rest: where === undefined ? undefined : and(rest, where.at) };
}

/** `relation` with only the rows that pass each test, one semi or anti join per test. */
export function planSemiJoins(
  relation: Relation,
  tests: readonly SubqueryTest[],
  planning: SemiJoinPlanning,
): Relation {
  let out = relation;
  for (const test of tests) out = planSemiJoin(out, test, planning);
  return out;
}

/** A subquery's rows and the join conditions it adds, over the left's columns then its own. */
interface Subquery {
  readonly right: Relation;
  /** Conditions over the left columns (`#0` ...) followed by the right's. */
  readonly conditions: readonly Expr[];
  /** The IN columns' pairs: (left value, right value) in the same positional terms. */
  readonly pairs: readonly (readonly [Expr, Expr])[];
}

/** What the subquery's rows are read through: its FROM and WHERE, or the whole query. */
function simpleSelect(query: Query): Select | undefined {
  if (query.kind !== 'select' || query.from === undefined) return undefined;
  const aggregated =
    query.groupBy.length > 0 ||
    query.having !== undefined ||
    query.items.some((i) => i.kind === 'expr' && contains(i.expr, isAggregateCall));
  return aggregated ? undefined : query;
}

function describeTest(test: SubqueryTest): string {
  const not = test.negated ? 'NOT ' : '';
  return test.test === 'EXISTS' ? `${not}EXISTS (subquery)` : `${not}IN (subquery)`;
}

/**
 * A subquery over its FROM, whose WHERE may name the outer query's columns (correlation). Its
 * columns are found in its own FROM first, then in the outer query's (SQL's scoping). The
 * conditions on its own columns filter its rows; those naming outer columns join.
 */
function correlated(
  left: Relation,
  select: Select,
  test: SubqueryTest,
  planning: SemiJoinPlanning,
): Subquery {
  let right = planning.planFrom(select.from as FromItem);
  const inner = new Scope(right.columns);
  const outer = new Scope(left.columns);
  const width = left.columns.length;
  let outerRead = false;
  // Column references as positions over the left columns followed by the subquery's.
  const bind = (e: Expr): Expr => {
    if (e.kind === 'subquery-test') return e;
    if (e.kind !== 'column') return mapChildren(e, bind);
    let index: number;
    let fields: number;
    try {
      const r = inner.resolve(e.path, e.at);
      index = width + r.index;
      fields = r.fields.length;
    } catch (innerError) {
      if (!(innerError instanceof SqlError)) throw innerError;
      let r: ReturnType<Scope['resolve']>;
      try {
        r = outer.resolve(e.path, e.at);
      } catch {
        throw innerError;
      }
      index = r.index;
      fields = r.fields.length;
      outerRead = true;
    }
    return positional(index, e.path.slice(e.path.length - fields), e.at);
  };
  const own: Expr[] = [];
  const nested: SubqueryTest[] = [];
  const conditions: Expr[] = [];
  for (const part of conjuncts(select.where)) {
    const test = asTest(part);
    if (test !== undefined) {
      nested.push(test);
      continue;
    }
    outerRead = false;
    const bound = bind(part);
    if (outerRead) conditions.push(bound);
    else own.push(part);
  }
  const condition = and(own, select.at);
  if (condition !== undefined)
    right = filtered(right, [condition], condition.at, 'WHERE condition', 'where');
  if (nested.length > 0) right = planSemiJoins(right, nested, planning);
  if (test.test === 'EXISTS') return { right, conditions, pairs: [] };
  const items = selectList(select, right.columns);
  const pairs = inPairs(test, items.length).map(
    (i) =>
      [
        shiftedLeft(test.values[i] as Expr, outer),
        bind((items[i] as { expr: Expr }).expr),
      ] as const,
  );
  return { right, conditions, pairs };
}

/** The positions of the IN columns, refused when the counts differ. */
function inPairs(test: SubqueryTest, columns: number): number[] {
  if (test.values.length !== columns)
    sqlError(
      `${describeTest(test)} compares ${test.values.length} value${test.values.length === 1 ? '' : 's'} with a query of ${columns} column${columns === 1 ? '' : 's'}`,
      test.at,
    );
  return test.values.map((_, i) => i);
}

/** An expression over the left columns, as positions (checked there). */
function shiftedLeft(e: Expr, scope: Scope): Expr {
  if (e.kind !== 'column') return mapChildren(e, (c) => shiftedLeft(c, scope));
  const r = scope.resolve(e.path, e.at);
  return positional(r.index, e.path.slice(e.path.length - r.fields.length), e.at);
}

/** `e` with each position moved by `by`. */
function shifted(e: Expr, by: number): Expr {
  if (e.kind !== 'column') return mapChildren(e, (c) => shifted(c, by));
  const [first, ...fields] = e.path;
  return positional(Number((first as string).slice(1)) + by, fields, e.at);
}

/** The positions an expression reads, as left (below `width`) or right. */
function sidesOf(e: Expr, width: number): { left: boolean; right: boolean } {
  const at = (x: Expr) => (x.kind === 'column' ? Number((x.path[0] as string).slice(1)) : -1);
  return {
    left: contains(e, (x) => x.kind === 'column' && at(x) < width),
    right: contains(e, (x) => x.kind === 'column' && at(x) >= width),
  };
}

/** A subquery that is planned whole (aggregations, set operations, VALUES): uncorrelated. */
function whole(left: Relation, test: SubqueryTest, planning: SemiJoinPlanning): Subquery {
  let right: Relation;
  try {
    right = planning.planQuery(test.query);
  } catch (e) {
    // A column of the outer query read inside an aggregation or set operation.
    if (e instanceof SqlError && e.message.includes('not found'))
      return sqlError(
        `${describeTest(test)} correlated with the outer query through a GROUP BY, aggregate, set operation or ORDER BY ... LIMIT is not supported by Weir SQL yet (${e.message})`,
        test.at,
      );
    throw e;
  }
  if (test.test === 'EXISTS') return { right, conditions: [], pairs: [] };
  const outer = new Scope(left.columns);
  const width = left.columns.length;
  const pairs = inPairs(test, right.columns.length).map(
    (i) =>
      [shiftedLeft(test.values[i] as Expr, outer), positional(width + i, [], test.at)] as const,
  );
  return { right, conditions: [], pairs };
}

const isNull = (arg: Expr, at: SourcePosition): Expr => ({
  kind: 'is',
  arg,
  test: 'NULL',
  negated: false,
  at,
});

/** `a = b`, both cast to their common type when their types differ (the key compares values). */
function equated(a: Expr, b: Expr, scope: Scope, at: SourcePosition): [Expr, Expr] {
  const ta = compileScalar(a, scope).type;
  const tb = compileScalar(b, scope).type;
  if (formatType(withNullability(ta, true)) === formatType(withNullability(tb, true)))
    return [a, b];
  const common = commonType([ta, tb]);
  if (common === undefined)
    return sqlError(`cannot compare ${formatType(ta)} with ${formatType(tb)}`, at);
  const type: LogicalType = withNullability(common, true);
  return [
    { kind: 'cast', arg: a, type, tryCast: false, at },
    { kind: 'cast', arg: b, type, tryCast: false, at },
  ];
}

/** The name a key or condition shows in EXPLAIN: its columns' names where it is one. */
function shown(e: Expr, columns: readonly ScopeColumn[]): string {
  if (e.kind === 'column') {
    const c = columns[Number((e.path[0] as string).slice(1))];
    const name =
      c === undefined ? '?' : c.qualifier === undefined ? c.name : `${c.qualifier}.${c.name}`;
    return [name, ...e.path.slice(1)].join('.');
  }
  if (e.kind === 'cast') return shown(e.arg, columns);
  return 'expr';
}

function planSemiJoin(left: Relation, test: SubqueryTest, planning: SemiJoinPlanning): Relation {
  const anti = test.negated;
  const select = simpleSelect(test.query);
  const sub =
    select === undefined ? whole(left, test, planning) : correlated(left, select, test, planning);
  const { right } = sub;
  const width = left.columns.length;
  const scope = new Scope([...left.columns, ...right.columns]);
  const keys: [Expr, Expr][] = [];
  /** Per key: `IS NOT DISTINCT FROM` (NULL matches NULL) rather than `=`. */
  const nullSafe: boolean[] = [];
  const residual: Expr[] = [];
  let nullAware = false;
  for (const [l, r] of sub.pairs) {
    const lType = compileScalar(l, scope).type;
    const rType = compileScalar(r, scope).type;
    // NOT IN: a NULL on either side makes `l <> r` unknown, so the row cannot be kept.
    if (test.test === 'IN' && anti && (lType.nullable || rType.nullable)) {
      const eq: Expr = { kind: 'binary', op: '=', left: l, right: r, at: test.at };
      const either: Expr = {
        kind: 'binary',
        op: 'OR',
        left: isNull(l, test.at),
        right: isNull(r, test.at),
        at: test.at,
      };
      residual.push({ kind: 'binary', op: 'OR', left: eq, right: either, at: test.at });
      nullAware = true;
    } else {
      keys.push(equated(l, r, scope, test.at));
      nullSafe.push(false);
    }
  }
  for (const part of sub.conditions) {
    compilePredicate(part, scope, 'subquery condition');
    const equality = keyEquality(part);
    if (equality !== undefined) {
      const [a, b] = equality.operands;
      const sa = sidesOf(a, width);
      const sb = sidesOf(b, width);
      if (sa.left && !sa.right && sb.right && !sb.left) {
        keys.push(equated(a, b, scope, part.at));
        nullSafe.push(equality.nullSafe);
        continue;
      }
      if (sb.left && !sb.right && sa.right && !sa.left) {
        keys.push(equated(b, a, scope, part.at));
        nullSafe.push(equality.nullSafe);
        continue;
      }
    }
    residual.push(part);
  }
  const leftScope = new Scope(left.columns);
  const rightScope = new Scope(right.columns);
  const leftKeyFns = keys.map(([l]) => compileScalar(l, leftScope).fn);
  const rightKeyFns = keys.map(([, r]) => compileScalar(shifted(r, -width), rightScope).fn);
  // Without a key, every row meets at one key (one subtask), as Flink runs such a join.
  const leftKey = keys.length === 0 ? () => 0 : joinKey(leftKeyFns, 'left', nullSafe);
  const rightKey = keys.length === 0 ? () => 0 : joinKey(rightKeyFns, 'right', nullSafe);
  const condition = and(residual, test.at);
  const pairTest =
    condition === undefined ? undefined : compilePredicate(condition, scope, 'subquery condition');
  const columns = scope.columns;
  const keyText = keys
    .map(
      ([l, r], i) =>
        `${shown(l, columns)} ${nullSafe[i] === true ? 'IS NOT DISTINCT FROM' : '='} ${shown(r, columns)}`,
    )
    .join(', ');
  const what = `${test.negated ? 'NOT ' : ''}${test.test}${nullAware ? ', null-aware' : ''}`;
  const on = keys.length === 0 ? 'no key (one subtask)' : `[${keyText}]`;
  const label = `${anti ? 'ANTI' : 'SEMI'} JOIN (${what}) on ${on}${condition === undefined ? '' : ' + a condition on each pair'}`;
  const windows =
    isUpdating(left) || isUpdating(right)
      ? undefined
      : windowJoinColumns(
          keys.map(([l]) => l),
          keys.map(([, r]) => shifted(r, -width)),
          leftScope,
          rightScope,
          left.windowed,
          right.windowed,
        );
  if (windows !== undefined) {
    // As a window join keys its operator: by the other equalities, else by the window's end.
    const keyed =
      keys.length > 2
        ? (_: unknown, i: number) => !windows.keys.includes(i)
        : (_: unknown, i: number) => i === windows.keys[1];
    return planWindowSemiJoin(left, right, {
      type: anti ? 'anti' : 'semi',
      leftKey: joinKey(leftKeyFns.filter(keyed), 'left', nullSafe.filter(keyed)),
      rightKey: joinKey(rightKeyFns.filter(keyed), 'right', nullSafe.filter(keyed)),
      windows,
      test: pairTest,
      at: test.at,
      label: `WINDOW ${label}`,
    });
  }
  const fn = new SemiAntiJoinFunction<Key, Row, Row>({
    type: anti ? 'anti' : 'semi',
    matches: pairTest === undefined ? undefined : (l, r) => pairTest([...l, ...r]),
    ...(planning.stateTtl === undefined ? {} : { ttl: planning.stateTtl }),
    leftSerializer: ROW_SERIALIZER,
    rightSerializer: ROW_SERIALIZER,
  });
  const leftChanges = retracting(changesOf(left));
  const rightChanges = retracting(changesOf(right));
  const joined: DataStream<Change<Row>> = leftChanges
    .keyBy((c) => leftKey(c.value), 'join key')
    .connect(rightChanges.keyBy((c) => rightKey(c.value), 'join key'))
    .process(fn)
    .name(label);
  noteChangelogRole(joined, { kind: 'semi-join', anti });
  // The left's columns, none an event-time attribute any more (as after a regular join).
  const out = left.columns.map((c) => ({ ...c, rowtime: false }));
  if (!anti && !isUpdating(left) && !isUpdating(right))
    return { stream: joined.map((c) => c.value).name('SEMI JOIN rows'), columns: out };
  const changes: ChangelogStream<Row> = joined.asChangelog<Row>('retract');
  return updatingRelation(changes, out, `${anti ? 'an ANTI' : 'a SEMI'} JOIN`, left.upsertKey);
}
