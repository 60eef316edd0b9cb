/**
 * Plans a query onto the DataStream API, so a SQL query becomes the same logical graph (and
 * the same operators) a hand-written job does: WHERE is a filter, the SELECT list one compiled
 * projection, a window TVF grouped by its window a keyed window aggregation.
 */

import type { StreamEnvironment } from '../../api/stream-environment.js';
import type { DataStream } from '../../api/streams.js';
import type { AggregateFunction, Collector } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { StateTtlConfig } from '../../core/state.js';
import type { WindowResult } from '../../core/window-result.js';
import type { Window } from '../../core/windows.js';
import {
  cumulativeWindowsOf,
  type WindowAssigner,
  Windows,
  windowStart,
} from '../../core/windows.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Row } from '../connectors/connector.js';
import { castTo } from '../expressions/cast.js';
import { CodeGen } from '../expressions/code-gen.js';
import {
  compile,
  compilePredicate,
  compileProjection,
  compileScalar,
} from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import { sessionTimeZone } from '../expressions/session-time-zone.js';
import { userTableFunction } from '../functions/user-functions.js';
import type {
  ColumnAliases,
  Expr,
  FromItem,
  OrderItem,
  Query,
  Select,
  SelectItem,
  TableOption,
} from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { commonType, formatType, type LogicalType, T } from '../types/logical-type.js';
import type { TimeZone } from '../types/time-zone.js';
import type { AggPhaseStrategy } from './aggregate-phase.js';
import { rowAggregate } from './aggregates.js';
import {
  type Calc,
  CalcRelation,
  FusingRelation,
  inline,
  inliningCopiesRandom,
  positional,
} from './calc.js';
import { distinctAsGroupBy, planChangelogCalc, unionAllChanges } from './changelog-calc.js';
import { noteChangelogRole } from './changelog-plan.js';
import { changesOf, isUpdating, updatingRelation, withColumns } from './changelog-relation.js';
import { watermarkColumns } from './current-watermark.js';
import type { DistinctSplit } from './distinct-split.js';
import { withEventTime } from './event-time.js';
import { contains, mapChildren, normalizedKey, passedThrough } from './expr-tools.js';
import { planGroupAggregate } from './group-aggregate-planner.js';
import {
  AggregateCalls,
  compileKeys,
  groupKey,
  isAggregateCall,
  selectList,
  selectsLeadingColumns,
} from './grouping.js';
import { expandGroupingSets, usesGroupingSets } from './grouping-sets.js';
import { aggregatePerGroup } from './groups-in-window.js';
import { planJoin } from './join-planner.js';
import { isLateralJoin, planLateralJoin } from './lateral-planner.js';
import { localWindowTime, onWindowClock, wallClockOf } from './local-time-windows.js';
import { asOfAttribute, isLookupJoin, planLookupJoin } from './lookup-join-planner.js';
import { planMatchRecognize } from './match-recognize-planner.js';
import type { MiniBatch } from './mini-batch.js';
import { isOverAggregate, planOver } from './over-planner.js';
import { planRank, rankPattern } from './rank-planner.js';
import type { Relation, WindowProperties, WindowTvf } from './relation.js';
import { oneRow, withScalarSubqueries } from './scalar-subquery.js';
import { planSemiJoins, subqueryTests } from './semi-join-planner.js';
import { sessionTvfRows } from './session-tvf.js';
import { planSetOperation } from './set-operation-planner.js';
import { planSortLimit } from './sort-limit-planner.js';
import { planSource } from './source-planner.js';
import { SourceRelation } from './source-reads.js';
import type { SubPlans } from './sub-plans.js';
import { hintKey, withHintOptions } from './table-hints.js';
import { planTemporalJoin } from './temporal-join-planner.js';
import { isUnnestJoin, planUnnestJoin } from './unnest-planner.js';
import { NO_ROWS, refuseUnretractable, signedAggregate, signedRows } from './window-changes.js';
import { WindowDistinctRelation } from './window-distinct.js';
import { emitTrigger, type WindowEmit, windowChanges } from './window-emit.js';

/** A WITH query and the WITH queries its body can name: those before it, and outer ones. */
export interface CteDefinition {
  readonly query: Query;
  readonly ctes: ReadonlyMap<string, CteDefinition>;
}

export interface PlanContext {
  readonly env: StreamEnvironment;
  readonly catalog: Catalog;
  /** WITH queries in scope, innermost last. */
  readonly ctes: ReadonlyMap<string, CteDefinition>;
  /** Views and WITH queries already planned for this statement, read again rather than re-planned (none when absent). */
  readonly subPlans?: SubPlans;
  /** One source per table per job: every reference to a table reads the same stream. */
  readonly sources: Map<string, Relation>;
  /** `table.exec.state.ttl`: how long the relational operators keep idle state. */
  readonly stateTtl?: StateTtlConfig;
  /** `table.exec.source.idle-timeout` in ms: sources idle after it without records. */
  readonly sourceIdleTimeoutMs?: number;
  /**
   * `table.exec.mini-batch.*`: unwindowed GROUP BY emits once per bundle of rows. Read when
   * a GROUP BY is planned, so the options may be set one by one before.
   */
  readonly miniBatch?: () => MiniBatch | undefined;
  /** `table.optimizer.agg-phase-strategy`, read when a GROUP BY is planned. */
  readonly aggPhaseStrategy?: () => AggPhaseStrategy;
  /** `table.optimizer.distinct-agg.split.*`, read when a GROUP BY is planned. */
  readonly distinctSplit?: () => DistinctSplit | undefined;
  /** `table.exec.non-temporal-sort.enabled`, read when an ORDER BY is planned. */
  readonly nonTemporalSort?: () => boolean;
  /** The views being expanded, outermost first: a view that reads itself is refused. */
  readonly expanding?: readonly string[];
  /** `table.exec.emit.*`: how a window aggregation emits updates, read when one is planned. */
  readonly windowEmit?: (
    window: {
      readonly legacy: boolean;
      readonly session: boolean;
      readonly processingTime: boolean;
    },
    at: SourcePosition,
  ) => WindowEmit | undefined;
}

const WINDOW_COLUMNS = ['window_start', 'window_end', 'window_time'] as const;

/** The same columns under another table alias. */
function requalify(relation: Relation, qualifier: string | undefined): Relation {
  if (qualifier === undefined) return relation;
  return withColumnsOf(
    relation,
    relation.columns.map((c) => ({ ...c, qualifier })),
  );
}

/** `relation` with `columns` (as many, renamed or requalified) in place of its own. */
function withColumnsOf(relation: Relation, columns: readonly ScopeColumn[]): Relation {
  if (relation.changes !== undefined) return withColumns(relation, columns);
  if (
    relation instanceof CalcRelation ||
    relation instanceof SourceRelation ||
    relation instanceof WindowDistinctRelation
  )
    return relation.withColumns(columns);
  if (relation.window !== undefined) return tvfRelation(relation.window, columns);
  const { windowed, windowEndsAt } = relation;
  return {
    stream: relation.stream,
    columns,
    ...(windowed === undefined ? {} : { windowed }),
    ...(windowEndsAt === undefined ? {} : { windowEndsAt }),
  };
}

/**
 * `relation` with its columns renamed in order by `alias(column, ...)`: as in Flink, the list
 * names every column, each once.
 */
function renamed(
  relation: Relation,
  item: { readonly alias: string | undefined; readonly columns?: ColumnAliases },
  what: string,
): Relation {
  if (item.columns === undefined) return relation;
  const { names, at } = item.columns;
  if (names.length !== relation.columns.length)
    sqlError(
      `the column alias list ${item.alias}(${names.join(', ')}) names ${names.length} column${names.length === 1 ? '' : 's'}, but ${what} has ${relation.columns.length} (${relation.columns.map((c) => c.name).join(', ')})`,
      at,
    );
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) sqlError(`duplicate name '${name}' in the column alias list`, at);
    seen.add(name);
  }
  const columns = relation.columns.map((c, i) => ({ ...c, name: names[i] as string }));
  return withColumnsOf(relation, columns);
}

/** Plans a query into a relation whose rows are complete (window columns computed). */
export function planQuery(query: Query, ctx: PlanContext): Relation {
  switch (query.kind) {
    case 'select':
      return planSelect(withScalarSubqueries(query), ctx);
    case 'with': {
      const ctes = new Map(ctx.ctes);
      for (const cte of query.ctes) ctes.set(cte.name, { query: cte.query, ctes: new Map(ctes) });
      return planQuery(query.body, { ...ctx, ctes });
    }
    case 'set-operation': {
      const left = materialize(planQuery(query.left, ctx));
      const right = materialize(planQuery(query.right, ctx));
      if (query.op !== 'UNION')
        return planSetOperation(query.op, query.all, left, right, query.at, ctx.stateTtl);
      const union = unionAll(left, right, query.at);
      return query.all ? union : distinctRows(union, query.at, ctx);
    }
    case 'values':
      return planValues(query, ctx);
    case 'ordered': {
      const hidden = sortedByHiddenColumns(query);
      if (hidden !== undefined) return planQuery(hidden, ctx);
      return planSortLimit(
        materialize(planQuery(query.query, ctx)),
        query.orderBy,
        query.limit,
        query.offset,
        query.at,
        ctx.stateTtl,
        ctx.nonTemporalSort?.() ?? false,
      );
    }
  }
}

/**
 * `SELECT a FROM t ORDER BY rowtime`: SQL lets ORDER BY name a column of FROM the SELECT list
 * leaves out (Flink's TemporalSortITCase sorts so). Rewritten as the SELECT with the sort keys
 * as hidden columns, sorted, under a projection that drops them; undefined when every ORDER BY
 * key is an output column, or when the SELECT's output names are not all known here (`*`, an
 * unnamed expression, DISTINCT or GROUP BY, where keys outside the list mean nothing).
 */
function sortedByHiddenColumns(query: Extract<Query, { kind: 'ordered' }>): Query | undefined {
  const select = query.query;
  if (select.kind !== 'select' || select.distinct || select.groupBy.length > 0) return undefined;
  const names: string[] = [];
  for (const item of select.items) {
    if (item.kind !== 'expr') return undefined;
    const name = item.alias ?? (item.expr.kind === 'column' ? item.expr.path.at(-1) : undefined);
    if (name === undefined) return undefined;
    names.push(name);
  }
  const extra: SelectItem[] = [];
  const orderBy = query.orderBy.map((o): OrderItem => {
    if (
      o.expr.kind === 'column' &&
      o.expr.path.length === 1 &&
      names.includes(o.expr.path[0] as string)
    )
      return o;
    const alias = `$sort${extra.length}`;
    extra.push({ kind: 'expr', expr: o.expr, alias });
    return { ...o, expr: { kind: 'column', path: [alias], at: o.expr.at } };
  });
  if (extra.length === 0) return undefined;
  const at = query.at;
  return {
    kind: 'select',
    distinct: false,
    items: names.map((name) => ({
      kind: 'expr',
      expr: { kind: 'column', path: ['$sorted', name], at },
      alias: name,
    })),
    from: {
      kind: 'subquery',
      query: { ...query, query: { ...select, items: [...select.items, ...extra] }, orderBy },
      alias: '$sorted',
      at,
    },
    where: undefined,
    groupBy: [],
    having: undefined,
    at,
  };
}

function unionAll(left: Relation, right: Relation, at: SourcePosition): Relation {
  if (isUpdating(left) || isUpdating(right)) return unionAllChanges(left, right, at);
  if (left.columns.length !== right.columns.length) {
    sqlError(`UNION ALL of ${left.columns.length} and ${right.columns.length} columns`, at);
  }
  const types = left.columns.map((c, i) => {
    const r = right.columns[i] as ScopeColumn;
    const t = commonType([c.type, r.type]);
    if (t === undefined)
      return sqlError(
        `UNION ALL column ${i + 1}: ${formatType(c.type)} and ${formatType(r.type)} have no common type`,
        at,
      );
    return t;
  });
  const conform = (rel: Relation): DataStream<Row> => {
    if (rel.columns.every((c, i) => formatType(c.type) === formatType(types[i] as LogicalType)))
      return rel.stream;
    const g = new CodeGen();
    const codes = rel.columns.map(
      (c, i) =>
        castTo(g, { code: `r[${i}]`, type: c.type }, types[i] as LogicalType, false, at).code,
    );
    return rel.stream.map(g.function<(r: Row) => Row>(`return [${codes.join(', ')}];`));
  };
  const columns = left.columns.map((c, i) => ({
    name: c.name,
    type: types[i] as LogicalType,
    qualifier: undefined,
    rowtime: c.rowtime && (right.columns[i] as ScopeColumn).rowtime,
    // Each side's rows carry their own event time: a column either side re-stamps by stays so.
    ...(c.restamp === true || right.columns[i]?.restamp === true ? { restamp: true } : {}),
  }));
  return { stream: conform(left).union(conform(right)), columns };
}

/** UNION's rows: a GROUP BY of every column of UNION ALL's, as Flink plans it. */
function distinctRows(union: Relation, at: SourcePosition, ctx: PlanContext): Relation {
  const items = union.columns.map((c, i) => ({
    kind: 'expr' as const,
    expr: positional(i, [], at),
    alias: c.name,
  }));
  const select: Select = {
    kind: 'select',
    distinct: false,
    items,
    from: undefined,
    where: undefined,
    groupBy: items.map((item) => item.expr),
    having: undefined,
    at,
  };
  return planAggregation(select, union, ctx);
}

function planValues(query: Extract<Query, { kind: 'values' }>, ctx: PlanContext): Relation {
  const empty = new Scope([]);
  const width = query.rows[0]?.length ?? 0;
  const compiled = query.rows.map((row) => {
    if (row.length !== width) sqlError('VALUES rows differ in their number of columns', query.at);
    return row.map((e) => compileScalar(e, empty));
  });
  const types = Array.from({ length: width }, (_, i) => {
    const t = commonType(compiled.map((r) => (r[i] as { type: LogicalType }).type));
    if (t === undefined) return sqlError(`VALUES column ${i + 1} has no common type`, query.at);
    return t.kind === 'NULL' ? T.int() : t;
  });
  const rows = query.rows.map((row) => {
    const g = new CodeGen();
    const codes = row.map(
      (e, i) =>
        castTo(g, compile(e, { scope: empty, g }), types[i] as LogicalType, false, e.at).code,
    );
    return g.function<(r: Row) => Row>(`return [${codes.join(', ')}];`)([]);
  });
  const columns = types.map((type, i) => ({
    name: `EXPR$${i}`,
    type,
    qualifier: undefined,
    rowtime: false,
  }));
  return { stream: ctx.env.fromArray(rows, 'values'), columns };
}

/** A named table, view or WITH query. */
function planNamed(
  name: string,
  at: SourcePosition,
  ctx: PlanContext,
  options?: readonly TableOption[],
): Relation {
  const cte = ctx.ctes.get(name);
  if (cte !== undefined) {
    if (options !== undefined)
      sqlError(`'${name}' is a WITH query: OPTIONS hints apply to tables only`, at);
    const plan = () => planQuery(cte.query, { ...ctx, ctes: cte.ctes });
    return requalify(ctx.subPlans?.of(cte, name, plan) ?? plan(), name);
  }
  const object = withHintOptions(ctx.catalog.get(name, at), name, options, at);
  if (object.kind === 'view') {
    const expanding = [...(ctx.expanding ?? []), object.name];
    if (ctx.expanding?.includes(object.name))
      sqlError(`view '${name}' reads itself: ${expanding.join(' -> ')}`, at);
    const plan = () => planQuery(object.query, { ...ctx, ctes: new Map(), expanding });
    return requalify(ctx.subPlans?.of(object, name, plan) ?? plan(), name);
  }
  // By the object's key (`t` may name another table after a USE), and a hint's options.
  const key = `${object.name}${hintKey(options)}`;
  let source = ctx.sources.get(key);
  if (source === undefined) {
    source = planSource(object, ctx.env, ctx.sourceIdleTimeoutMs);
    ctx.sources.set(key, source);
  }
  return source;
}

/** The PRIMARY KEY of a catalog table (a versioned table); undefined for views and WITH queries. */
function versionedKey(
  name: string,
  at: SourcePosition,
  ctx: PlanContext,
): readonly string[] | undefined {
  if (ctx.ctes.has(name)) return undefined;
  const object = ctx.catalog.get(name, at);
  return object.kind === 'table' ? object.primaryKey : undefined;
}

/** `item` as the right side of a CROSS JOIN whose left side is one row of no columns (`VALUES ()`). */
function joinedToOneRow<R extends FromItem>(item: R) {
  const left = oneRow(item.at);
  const join = {
    kind: 'join',
    type: 'CROSS',
    left,
    right: item,
    on: undefined,
    at: item.at,
  } as const;
  return { join, left };
}

/**
 * `where`: the WHERE clause, the condition of a comma join (`FROM a, b`). `names`: every name
 * the enclosing SELECT's column references use, when they are all it reads; the inputs of its
 * regular joins then keep only columns so named (Flink prunes a join's inputs likewise).
 * `filterAfter`: the WHERE clause applied to a join's rows, from which a regular join learns
 * when a row can no longer pass it with any later row (join-retention.ts).
 */
/**
 * The WHERE that also filters the rows of `input`, a side of join `join` (so that a join inside
 * it can filter its own sides by it): every side of an inner or comma join, the kept side of a
 * LEFT or RIGHT join; not a side whose rows may be padded, where it would drop rows to pad.
 */
function whereThrough(
  join: FromItem & { kind: 'join' },
  input: FromItem,
  where: Expr | undefined,
  filterAfter: Expr | undefined,
): Expr | undefined {
  if (join.type === 'CROSS') return where;
  const kept =
    join.type === 'INNER' ||
    (join.type === 'LEFT' && input === join.left) ||
    (join.type === 'RIGHT' && input === join.right);
  return kept ? filterAfter : undefined;
}

function planFrom(
  item: FromItem,
  ctx: PlanContext,
  where?: Expr,
  names?: ReadonlySet<string>,
  filterAfter?: Expr,
): Relation {
  switch (item.kind) {
    case 'table':
      if (item.asOf !== undefined)
        return sqlError(
          'FOR SYSTEM_TIME AS OF is the right side of a JOIN: a temporal join (AS OF the left rowtime) or a lookup join (AS OF its PROCTIME())',
          item.at,
        );
      {
        const table = requalify(
          renamed(planNamed(item.name, item.at, ctx, item.options), item, `table '${item.name}'`),
          // `db.t` (or `catalog.db.t`) is qualified as `t`, as in Flink.
          item.alias ?? (item.name.split('.').pop() as string),
        );
        return names === undefined ? table : pruned(table, names, item.at);
      }
    case 'subquery':
      return requalify(renamed(planQuery(item.query, ctx), item, 'the query'), item.alias);
    case 'table-function':
      if (!WINDOW_TVFS.has(item.name) && userTableFunction(item.name) !== undefined) {
        // `FROM TABLE(fn('a,b')) AS T(s)`: a user table function's rows, as LATERAL TABLE alone.
        const { columns, ...call } = item;
        return planFrom({ ...call, kind: 'lateral', columns }, ctx, where, names);
      }
      if (item.columns !== undefined)
        sqlError(`a column list after TABLE(${item.name}(...)) is not supported`, item.at);
      return requalify(planWindowTvf(item, ctx, names), item.alias);
    case 'lateral': {
      // `FROM LATERAL TABLE(fn('a,b'))` alone: joined to one row of no columns (Calcite's VALUES ()).
      const { join, left } = joinedToOneRow(item);
      return planLateralJoin(join, materialize(planFrom(left, ctx)), where);
    }
    case 'unnest': {
      // `FROM UNNEST(ARRAY[1, 2, 3])` alone, as Flink runs it (UnnestITCase's
      // testUnnestWithValuesStream): the elements of an argument that reads no column, joined
      // to one row of no columns, as a LATERAL TABLE alone is above.
      const { join, left } = joinedToOneRow(item);
      return planUnnestJoin(join, materialize(planFrom(left, ctx)), where);
    }
    case 'join':
      if (isUnnestJoin(item))
        return planUnnestJoin(item, materialize(planFrom(item.left, ctx)), where);
      if (isLateralJoin(item))
        return planLateralJoin(item, materialize(planFrom(item.left, ctx)), where);
      if (isLookupJoin(item)) {
        // AS OF a processing-time attribute looks the table up; AS OF the rowtime joins versions.
        const planned = materialize(planFrom(item.left, ctx));
        if (asOfAttribute(item.right.asOf as Expr, planned) === 'rowtime')
          return planTemporalJoin(
            item,
            (input) => (input === item.left ? planned : materialize(planFrom(input, ctx))),
            (name, at) => versionedKey(name, at, ctx),
          );
        const dim = withHintOptions(
          ctx.catalog.get(item.right.name, item.right.at),
          item.right.name,
          item.right.options,
          item.right.at,
        );
        if (dim.kind === 'view')
          return sqlError(
            `Processing-time temporal join is not supported yet: '${item.right.name}' is a view, and FOR SYSTEM_TIME AS OF a PROCTIME() column looks up a table`,
            item.right.at,
          );
        // The left keeps only the columns the SELECT names, as a regular join's inputs do. Its
        // AS OF column is not among them: the table is looked up as each row is processed, so
        // the PROCTIME() value is never read, and it is not computed for every row.
        const left =
          names === undefined ? planned : pruned(planned, names, item.left.at, 'drop-proctime');
        return planLookupJoin(item, planned, left, dim);
      }
      return planJoin(
        item,
        (input) => {
          const relation = materialize(
            planFrom(input, ctx, undefined, names, whereThrough(item, input, where, filterAfter)),
          );
          return names === undefined ? relation : pruned(relation, names, input.at);
        },
        where,
        ctx.stateTtl,
        filterAfter,
      );
    case 'match-recognize':
      return requalify(planMatchRecognize(item, planFrom(item.input, ctx)), item.alias);
  }
}

function intervalMs(e: Expr | undefined, what: string, at: SourcePosition): number {
  if (e === undefined) return sqlError(`missing ${what}`, at);
  const c = compileScalar(e, new Scope([]));
  if (c.type.kind !== 'INTERVAL_DAY_TIME')
    sqlError(
      `${what} must be an INTERVAL such as INTERVAL '10' SECOND, got ${formatType(c.type)}`,
      e.at,
    );
  const ms = c.fn([]) as number;
  if (!(ms > 0) && what !== 'offset') sqlError(`${what} must be positive`, e.at);
  return ms;
}

/**
 * The session zone whose wall clock windows over a TIMESTAMP_LTZ time attribute align to
 * (undefined: UTC, or a TIMESTAMP attribute, whose windows are never shifted). Processing time
 * (PROCTIME() is a TIMESTAMP_LTZ) is shifted too, as Flink does; sessions of processing time,
 * which have no alignment, only show their bounds on that wall clock (`sessionBoundsInZone`).
 */
function windowTimeZone(timeType: LogicalType): TimeZone | undefined {
  const zone = sessionTimeZone();
  if (timeType.kind !== 'TIMESTAMP_LTZ' || zone.isUtc) return undefined;
  return zone;
}

function planWindowTvf(
  item: Extract<FromItem, { kind: 'table-function' }>,
  ctx: PlanContext,
  names?: ReadonlySet<string>,
): Relation {
  const { name, args, at } = item;
  if (!WINDOW_TVFS.has(name)) {
    return sqlError(
      `unknown table function ${name} (the window TVFs, or a function made with defineTableFunction)`,
      at,
    );
  }
  const [tableArg, descriptor, ...rest] = args;
  if (tableArg?.kind !== 'table-arg')
    return sqlError(`${name} needs TABLE <name> as its first argument`, tableArg?.at ?? at);
  if (descriptor?.kind !== 'descriptor' || descriptor.columns.length !== 1) {
    return sqlError(
      `${name} needs DESCRIPTOR(<time column>) as its second argument`,
      descriptor?.at ?? at,
    );
  }
  let input = planNamed(tableArg.name, tableArg.at, ctx);
  if (input.window !== undefined) input = materialize(input);
  // The table keeps only the columns the SELECT over the window names (and its time attributes).
  if (names !== undefined) input = pruned(input, names, tableArg.at);
  const timeColumn = descriptor.columns[0] as string;
  const time = input.columns.find((c) => c.name === timeColumn);
  if (time === undefined)
    return sqlError(`column '${timeColumn}' not found in ${tableArg.name}`, descriptor.at);
  if (!time.rowtime && time.proctime !== true) {
    return sqlError(
      `'${timeColumn}' is not a time attribute: declare a WATERMARK for it (event time) or compute it as PROCTIME() (processing time)`,
      descriptor.at,
    );
  }
  // The rows carry this column's time (an interval join's rows carry one of its rowtimes).
  if (time.rowtime) input = withEventTime(input, input.columns.indexOf(time));
  const processingTime = !time.rowtime;
  const localTimeZone = windowTimeZone(time.type);
  let window: WindowTvf;
  if (name === 'TUMBLE') {
    if (rest.length > 2) sqlError('TUMBLE takes a size and an optional offset', at);
    window = {
      kind: 'TUMBLE',
      size: intervalMs(rest[0], 'size', at),
      slide: 0,
      offset: rest[1] === undefined ? 0 : intervalMs(rest[1], 'offset', at),
      input,
    };
    window = { ...window, slide: window.size };
  } else if (name === 'HOP') {
    if (rest.length > 3) sqlError('HOP takes a slide, a size and an optional offset', at);
    const slide = intervalMs(rest[0], 'slide', at);
    const size = intervalMs(rest[1], 'size', at);
    if (size % slide !== 0)
      sqlError(`HOP size (${size} ms) must be a multiple of its slide (${slide} ms)`, at);
    window = {
      kind: 'HOP',
      size,
      slide,
      offset: rest[2] === undefined ? 0 : intervalMs(rest[2], 'offset', at),
      input,
    };
  } else if (name === 'CUMULATE') {
    if (rest.length > 3) sqlError('CUMULATE takes a step, a max size and an optional offset', at);
    const step = intervalMs(rest[0], 'step', at);
    const size = intervalMs(rest[1], 'max size', at);
    if (size % step !== 0)
      sqlError(`CUMULATE max size (${size} ms) must be a multiple of its step (${step} ms)`, at);
    window = {
      kind: 'CUMULATE',
      size,
      slide: step,
      offset: rest[2] === undefined ? 0 : intervalMs(rest[2], 'offset', at),
      input,
    };
  } else {
    if (rest.length !== 1) sqlError('SESSION takes a gap', at);
    const partitionBy = tableArg.partitionBy;
    for (const column of partitionBy ?? []) {
      if (!input.columns.some((c) => c.name === column))
        sqlError(`PARTITION BY column '${column}' not found in ${tableArg.name}`, tableArg.at);
    }
    window = {
      kind: 'SESSION',
      size: intervalMs(rest[0], 'gap', at),
      slide: 0,
      offset: 0,
      input,
      ...(partitionBy === undefined ? {} : { partitionBy }),
    };
  }
  if (name !== 'SESSION' && tableArg.partitionBy !== undefined)
    sqlError(`${name} takes no PARTITION BY (only SESSION does)`, tableArg.at);
  // The window assigners take an offset within one period (the slide of a HOP, the size else).
  const period = window.kind === 'HOP' ? window.slide : window.size;
  if (!Number.isInteger(window.offset) || Math.abs(window.offset) >= period)
    sqlError(
      `${name} offset (${window.offset} ms) must be a whole number of ms smaller than ${period} ms`,
      at,
    );
  if (processingTime) window = { ...window, processingTime };
  if (localTimeZone !== undefined) window = { ...window, localTimeZone };
  const ts = T.timestamp(3, false);
  const zoned = localTimeZone === undefined ? {} : { windowZone: localTimeZone };
  const columns = [
    ...input.columns,
    { name: 'window_start', type: ts, qualifier: undefined, rowtime: false, ...zoned },
    { name: 'window_end', type: ts, qualifier: undefined, rowtime: false, ...zoned },
    windowTimeColumn(processingTime, time.type),
  ];
  // The input's time attribute stops being one: window_time takes its place.
  return tvfRelation(
    window,
    columns.map((c, i) =>
      i < input.columns.length ? { ...c, rowtime: false, proctime: false } : c,
    ),
  );
}

/**
 * A window TVF not yet applied. Its rows are read only when something other than a window
 * aggregation takes it, so a changelog input is refused only then (by its `stream`).
 */
function tvfRelation(window: WindowTvf, columns: readonly ScopeColumn[]): Relation {
  return {
    get stream(): DataStream<Row> {
      return window.input.stream;
    },
    columns,
    window,
  };
}

/** Computes a window TVF's three columns for each row (one row per window it falls in). */
function materialize(relation: Relation): Relation {
  const w = relation.window;
  if (w === undefined) return relation;
  // A processing-time window of a row without aggregation is the one its PROCTIME() value falls in.
  const timeIndex = w.input.columns.findIndex((c) =>
    w.processingTime === true ? c.proctime === true : c.rowtime,
  );
  const n = w.input.columns.length;
  // On a session zone's wall clock (TIMESTAMP_LTZ rowtime), or the time as it is.
  const zone = w.localTimeZone;
  const timeOf =
    zone === undefined
      ? (row: Row) => row[timeIndex] as number
      : (row: Row) => zone.toLocal(row[timeIndex] as number);
  const windowTime =
    zone === undefined ? (end: number) => end - 1 : (end: number) => localWindowTime(zone, end);
  let stream: DataStream<Row>;
  if (w.kind === 'TUMBLE') {
    const { size, offset } = w;
    stream = w.input.stream.map((row) => {
      const start = windowStart(timeOf(row), offset, size);
      const out = row.slice(0, n);
      out.push(start, start + size, windowTime(start + size));
      return out;
    });
  } else if (w.kind === 'HOP') {
    const { size, slide, offset } = w;
    const emitWindows = (row: Row, collector: Collector<Row>): void => {
      const t = timeOf(row);
      for (let start = windowStart(t, offset, slide); start > t - size; start -= slide) {
        const out = row.slice(0, n);
        out.push(start, start + size, windowTime(start + size));
        collector.collect(out);
      }
    };
    stream = w.input.stream.flatMap(emitWindows);
  } else if (w.kind === 'CUMULATE') {
    const { size, slide, offset } = w;
    const emitCumulative = (row: Row, collector: Collector<Row>): void => {
      for (const win of cumulativeWindowsOf(timeOf(row), size, slide, offset)) {
        const out = row.slice(0, n);
        out.push(win.start, win.end, windowTime(win.end));
        collector.collect(out);
      }
    };
    stream = w.input.stream.flatMap(emitCumulative);
  } else {
    stream = sessionTvfRows(w);
  }
  return { stream, columns: relation.columns };
}

function planSelect(query: Select, ctx: PlanContext): Relation {
  let select = query;
  if (select.from === undefined) {
    // `SELECT 1 + 1`: over one row of no columns, as Flink's (Calcite's) `VALUES ()`.
    const star = select.items.find((i) => i.kind !== 'expr');
    if (star !== undefined) sqlError('SELECT * needs a FROM clause', star.at);
    return planSelect({ ...select, from: oneRow(select.at) }, ctx);
  }
  // EXISTS / IN subqueries among the WHERE's AND-ed conditions: semi and anti joins (below).
  const fromItem = select.from;
  const { tests, rest } = subqueryTests(select.where);
  if (tests.length > 0) select = { ...select, where: rest };
  const rank = rankPattern(select);
  if (rank !== undefined && tests.length > 0)
    sqlError(
      'EXISTS or IN (subquery) beside a ROW_NUMBER() filter is not supported by Weir SQL yet',
      (tests[0] as { at: SourcePosition }).at,
    );
  const commaJoin = fromItem.kind === 'join' && fromItem.type === 'CROSS';
  const ranked =
    rank === undefined
      ? undefined
      : planRank(rank, (inner) => planSelect(inner, ctx), ctx.stateTtl, {
          ...select,
          where: rank.where,
        });
  // The Top-N or deduplication writes the SELECT's rows itself.
  if (ranked?.projected === true) return ranked.relation;
  let from =
    ranked !== undefined
      ? ranked.relation
      : planFrom(
          fromItem,
          ctx,
          commaJoin ? select.where : undefined,
          // The subqueries may read any column of the FROM: nothing is pruned for them. A
          // GROUP BY over a table reads only the columns it names: the others are not read
          // from the source (Nexmark q15-q17 read 3-5 of the bid's 7 columns).
          tests.length === 0 &&
            (fromItem.kind === 'join' ||
              fromItem.kind === 'table-function' ||
              (fromItem.kind === 'table' && select.groupBy.length > 0))
            ? namesRead(select)
            : undefined,
          commaJoin ? undefined : select.where,
        );
  if (rank !== undefined) select = { ...select, where: rank.where };
  if (commaJoin) select = { ...select, where: undefined };
  if (tests.length > 0)
    from = planSemiJoins(materialize(from), tests, {
      planFrom: (item) => materialize(planFrom(item, ctx)),
      planQuery: (q) => planQuery(q, ctx),
      stateTtl: ctx.stateTtl,
    });
  if (select.distinct) select = distinctAsGroupBy(select, from);
  const aggregated =
    select.groupBy.length > 0 ||
    select.having !== undefined ||
    select.items.some((item) => item.kind === 'expr' && contains(item.expr, isAggregateCall));
  if (aggregated) {
    // CURRENT_WATERMARK read per row before the aggregation, as a column of its input.
    ({ select, from } = watermarkColumns(select, from));
    if (usesGroupingSets(select)) ({ select, from } = expandGroupingSets(select, from));
    const legacy = from.window === undefined ? legacyGroupWindow(select, from) : undefined;
    return legacy === undefined
      ? planAggregation(select, from, ctx)
      : planAggregation(legacy.select, legacy.from, ctx);
  }
  if (from.window !== undefined) from = materialize(from);
  if (select.items.some((item) => item.kind === 'expr' && contains(item.expr, isOverAggregate))) {
    ({ select, from } = planOver(select, from, ctx.stateTtl));
  }
  if (isUpdating(from)) return planChangelogCalc(select, from);
  const scope = new Scope(from.columns);
  if (select.where !== undefined && contains(select.where, isAggregateCall)) {
    sqlError('aggregates are not allowed in WHERE', select.where.at);
  }
  // Checked over the query's own columns first, so that errors name what the user wrote.
  if (select.where !== undefined) compilePredicate(select.where, scope, 'WHERE condition', true);
  const items = selectList(select, from.columns);
  const { types } = compileProjection(
    items.map((i) => i.expr),
    scope,
    true,
  );
  const columns = items.map((item, i): ScopeColumn => {
    const r = item.expr.kind === 'column' ? scope.resolve(item.expr.path, item.expr.at) : undefined;
    return {
      name: item.name,
      type: types[i] as LogicalType,
      qualifier: undefined,
      rowtime: r?.column.rowtime === true && r.fields.length === 0,
      ...(r?.column.restamp === true && r.fields.length === 0 ? { restamp: true } : {}),
      proctime:
        (item.expr.kind === 'call' && item.expr.name === 'PROCTIME') ||
        (r?.column.proctime === true && r.fields.length === 0),
      ...(r?.column.windowZone !== undefined && r.fields.length === 0
        ? { windowZone: r.column.windowZone }
        : {}),
    };
  });
  // Folded into the filter and projection below, if the input is one.
  const fold = (base: Calc): Calc | undefined => {
    const read = [
      ...(select.where === undefined ? [] : [select.where]),
      ...items.map((i) => i.expr),
    ];
    if (inliningCopiesRandom(read, scope, base)) return undefined;
    const where = select.where === undefined ? undefined : inline(select.where, scope, base);
    const project = items.map((item) => inline(item.expr, scope, base));
    if (
      (select.where !== undefined && where === undefined) ||
      project.some((p) => p === undefined)
    ) {
      return undefined;
    }
    return {
      input: base.input,
      inputColumns: base.inputColumns,
      where: where === undefined ? base.where : [...base.where, where],
      project: project as Expr[],
    };
  };
  const plain = (): Calc => ({
    input: from instanceof SourceRelation || from instanceof FusingRelation ? from : from.stream,
    inputColumns: from.columns,
    where: [],
    project: from.columns.map((_, i) => positional(i, [], select.at)),
  });
  const calc =
    (from instanceof CalcRelation ? fold(from.calc) : undefined) ?? (fold(plain()) as Calc);
  return new CalcRelation(
    calc,
    columns,
    {},
    keptWindow(from.windowed, items, scope),
    keptWindowEnds(from.windowEndsAt, items, scope),
  );
}

/** The window-end columns (see `Relation.windowEndsAt`) a SELECT list passes through as they are. */
function keptWindowEnds(
  windowEndsAt: readonly number[] | undefined,
  items: readonly { readonly expr: Expr }[],
  scope: Scope,
): number[] | undefined {
  if (windowEndsAt === undefined) return undefined;
  const inputAt = passedThrough(items, scope);
  const kept = items.flatMap((_, i) => {
    const at = inputAt[i];
    return at !== undefined && windowEndsAt.includes(at) ? [i] : [];
  });
  return kept.length === 0 ? undefined : kept;
}

/**
 * The window properties of a projection's output: kept when the SELECT list passes both
 * window columns through as they are (a filter keeps them too: it drops rows, not windows).
 */
function keptWindow(
  windowed: WindowProperties | undefined,
  items: readonly { readonly expr: Expr }[],
  scope: Scope,
): WindowProperties | undefined {
  if (windowed === undefined) return undefined;
  const inputAt = passedThrough(items, scope);
  const startAt = inputAt.indexOf(windowed.startAt);
  const endAt = inputAt.indexOf(windowed.endAt);
  return startAt < 0 || endAt < 0 ? undefined : { ...windowed, startAt, endAt };
}

/**
 * Every name in the column references of `select` (qualifiers and ROW fields too), or undefined
 * when it may read columns it does not name: `*`, OVER windows, table functions and other
 * FROM items than tables, subqueries and joins of them.
 */
function namesRead(select: Select): ReadonlySet<string> | undefined {
  if (select.windows !== undefined && select.windows.size > 0) return undefined;
  const names = new Set<string>();
  let complete = true;
  const visit = (e: Expr): Expr => {
    if (e.kind === 'column') for (const name of e.path) names.add(name);
    else if (e.kind === 'descriptor' || e.kind === 'table-arg' || (e.kind === 'call' && e.over))
      complete = false;
    return mapChildren(e, visit);
  };
  const visitFrom = (item: FromItem): void => {
    if (item.kind === 'join') {
      if (item.on !== undefined) visit(item.on);
      visitFrom(item.left);
      visitFrom(item.right);
    } else if (item.kind === 'table-function') {
      // A window TVF reads its DESCRIPTOR's column and a SESSION's PARTITION BY columns too.
      for (const arg of item.args) {
        if (arg.kind === 'descriptor') for (const c of arg.columns) names.add(c);
        else if (arg.kind === 'table-arg') for (const c of arg.partitionBy ?? []) names.add(c);
        else visit(arg);
      }
    } else if (item.kind !== 'table' && item.kind !== 'subquery') complete = false;
    // A table's AS OF is not a read: a lookup join's names a PROCTIME() column whose value it
    // never reads, a temporal join's the rowtime, which pruning keeps anyway.
  };
  for (const item of select.items) {
    if (item.kind === 'star') return undefined;
    visit(item.expr);
  }
  for (const e of [select.where, select.having, ...select.groupBy]) if (e !== undefined) visit(e);
  if (select.from !== undefined) visitFrom(select.from);
  return complete ? names : undefined;
}

/**
 * A filter and projection (or a source table) keeping only the columns whose name is in
 * `names`, and its time attributes (with `drop-proctime`, the rowtime only); any other relation
 * as it is.
 */
function pruned(
  relation: Relation,
  names: ReadonlySet<string>,
  at: SourcePosition,
  proctime: 'keep-proctime' | 'drop-proctime' = 'keep-proctime',
): Relation {
  if (!(relation instanceof CalcRelation || relation instanceof SourceRelation)) return relation;
  // Window properties name column positions; pruning would move them.
  if (
    relation instanceof CalcRelation &&
    (relation.windowed !== undefined || relation.windowEndsAt !== undefined)
  )
    return relation;
  const keep = relation.columns.flatMap((c, i) =>
    names.has(c.name) || c.rowtime || (c.proctime === true && proctime === 'keep-proctime')
      ? [i]
      : [],
  );
  if (keep.length === relation.columns.length || keep.length === 0) return relation;
  const columns = keep.map((i) => relation.columns[i] as ScopeColumn);
  if (relation instanceof CalcRelation) {
    const { calc } = relation;
    return new CalcRelation(
      { ...calc, project: keep.map((i) => calc.project[i] as Expr) },
      columns,
    );
  }
  const calc: Calc = {
    input: relation,
    inputColumns: relation.columns,
    where: [],
    project: keep.map((i) => positional(i, [], at)),
  };
  return new CalcRelation(calc, columns);
}

const LEGACY_WINDOWS = new Set(['TUMBLE', 'HOP', 'SESSION']);
const WINDOW_TVFS = new Set(['TUMBLE', 'HOP', 'CUMULATE', 'SESSION']);
const LEGACY_AUXILIARY: Readonly<Record<string, string>> = {
  START: '$window_start',
  END: '$window_end',
  ROWTIME: '$window_time',
  PROCTIME: '$window_time',
};

/**
 * `window_time`: an event-time attribute, or a processing-time one for processing-time windows;
 * a TIMESTAMP_LTZ when the windows' time attribute is one (as in Flink), a TIMESTAMP otherwise.
 */
function windowTimeColumn(processingTime: boolean, timeType: LogicalType): ScopeColumn {
  return {
    name: 'window_time',
    type:
      timeType.kind === 'TIMESTAMP_LTZ'
        ? { kind: 'TIMESTAMP_LTZ', nullable: false, precision: 3 }
        : T.timestamp(3, false),
    qualifier: undefined,
    rowtime: !processingTime,
    proctime: processingTime,
  };
}

/**
 * Flink's older group windows, `GROUP BY key, SESSION(rowtime, gap)` with `SESSION_START(...)`
 * and `SESSION_END(...)` in the SELECT list (as Nexmark q11 uses), rewritten as the window TVF
 * they mean: the same window operator plans both.
 */
function legacyGroupWindow(
  select: Select,
  from: Relation,
): { select: Select; from: Relation } | undefined {
  const windowCalls = select.groupBy.filter((g) => g.kind === 'call' && LEGACY_WINDOWS.has(g.name));
  const call = windowCalls[0];
  if (call === undefined || call.kind !== 'call') return undefined;
  if (windowCalls.length > 1) sqlError('only one group window per GROUP BY', call.at);
  const [time, ...intervals] = call.args;
  if (time?.kind !== 'column')
    return sqlError(`${call.name} needs the rowtime column as its first argument`, call.at);
  const resolved = new Scope(from.columns).resolve(time.path, time.at);
  if (
    (!resolved.column.rowtime && resolved.column.proctime !== true) ||
    resolved.fields.length > 0
  ) {
    return sqlError(
      `'${time.path.join('.')}' is not a time attribute (a WATERMARK column or a PROCTIME() column)`,
      time.at,
    );
  }
  const processingTime = !resolved.column.rowtime;
  const localTimeZone = windowTimeZone(resolved.type);
  // The rows carry this column's time (an interval join's rows carry one of its rowtimes).
  const input = processingTime ? from : withEventTime(from, resolved.index);
  let window: WindowTvf;
  if (call.name === 'TUMBLE') {
    const size = intervalMs(intervals[0], 'size', call.at);
    window = { kind: 'TUMBLE', size, slide: size, offset: 0, input };
  } else if (call.name === 'HOP') {
    window = {
      kind: 'HOP',
      slide: intervalMs(intervals[0], 'slide', call.at),
      size: intervalMs(intervals[1], 'size', call.at),
      offset: 0,
      input,
    };
  } else {
    window = {
      kind: 'SESSION',
      size: intervalMs(intervals[0], 'gap', call.at),
      slide: 0,
      offset: 0,
      input,
      sessionsPerGroup: true,
    };
  }
  window = { ...window, legacy: true };
  if (processingTime) window = { ...window, processingTime };
  if (localTimeZone !== undefined) window = { ...window, localTimeZone };
  const ts = T.timestamp(3, false);
  const columns = [
    ...input.columns.map((c) => ({ ...c, rowtime: false, proctime: false })),
    { name: '$window_start', type: ts, qualifier: undefined, rowtime: false },
    { name: '$window_end', type: ts, qualifier: undefined, rowtime: false },
    { ...windowTimeColumn(processingTime, resolved.type), name: '$window_time' },
  ];
  const auxiliary = (e: Expr): Expr => {
    if (e.kind === 'call') {
      const cut = e.name.lastIndexOf('_');
      const column = LEGACY_AUXILIARY[e.name.slice(cut + 1)];
      if (cut > 0 && column !== undefined && LEGACY_WINDOWS.has(e.name.slice(0, cut))) {
        if (e.name.slice(0, cut) !== call.name)
          sqlError(`${e.name} does not match the GROUP BY window ${call.name}`, e.at);
        return { kind: 'column', path: [column], at: e.at };
      }
    }
    return mapChildren(e, auxiliary);
  };
  const at = call.at;
  const groupBy = select.groupBy.flatMap((g): Expr[] =>
    g === call
      ? [
          { kind: 'column', path: ['$window_start'], at },
          { kind: 'column', path: ['$window_end'], at },
        ]
      : [g],
  );
  const items = select.items.map((item) =>
    item.kind === 'expr' ? { ...item, expr: auxiliary(item.expr) } : item,
  );
  return {
    select: {
      ...select,
      groupBy,
      items,
      having: select.having === undefined ? undefined : auxiliary(select.having),
    },
    from: tvfRelation(window, columns),
  };
}

function planAggregation(
  select: Select,
  from: Relation,
  ctx: Pick<
    PlanContext,
    'stateTtl' | 'miniBatch' | 'aggPhaseStrategy' | 'distinctSplit' | 'windowEmit'
  >,
): Relation {
  const window = from.window;
  if (window === undefined) {
    const attached = attachedWindows(select, from);
    return attached === undefined
      ? planGroupAggregate(
          select,
          from,
          ctx.stateTtl,
          ctx.miniBatch?.(),
          ctx.aggPhaseStrategy?.(),
          ctx.distinctSplit?.(),
        )
      : planAggregation(select, attached, ctx);
  }
  const inputColumns = window.input.columns;
  const n = inputColumns.length;
  const fullScope = new Scope(from.columns);
  const inputScope = new Scope(from.columns.slice(0, n));
  // Over a changelog the rows carry a sign at `n` (see window-changes.ts).
  const updating = isUpdating(window.input);
  const timeAt = inputColumns.findIndex((c) => c.rowtime);
  let input = updating
    ? signedRows(
        changesOf(window.input),
        n,
        window.processingTime === true ? undefined : timeAt,
        inputColumns[timeAt]?.name ?? 'rowtime',
      )
    : window.input.stream;
  const zone = window.localTimeZone;
  // Event time on the zone's wall clock goes through the window operator as local event time;
  // processing time through the assigner's clock (see windowAssigner).
  const eventZone = window.processingTime === true ? undefined : zone;
  if (select.where !== undefined) {
    if (
      contains(
        select.where,
        (e) => e.kind === 'column' && fullScope.resolve(e.path, e.at).index >= n,
      )
    ) {
      sqlError(
        'WHERE on window columns before a window aggregation is not supported by Weir SQL yet',
        select.where.at,
      );
    }
    input = input
      .filter(compilePredicate(select.where, inputScope, 'WHERE condition'))
      .name('where');
  }
  // Grouping: the window columns and the keys.
  const windowSeen = new Set<string>();
  const keys: Expr[] = [];
  for (const g of select.groupBy) {
    if (g.kind === 'column') {
      const r = fullScope.resolve(g.path, g.at);
      if (r.index >= n) {
        windowSeen.add(WINDOW_COLUMNS[r.index - n] as string);
        continue;
      }
    }
    if (contains(g, isAggregateCall)) sqlError('aggregates are not allowed in GROUP BY', g.at);
    keys.push(g);
  }
  if (
    window.attached !== true &&
    (!windowSeen.has('window_start') || !windowSeen.has('window_end'))
  ) {
    return sqlError(
      'a window aggregation must GROUP BY both window_start and window_end',
      select.at,
    );
  }
  const keyIndex = new Map(keys.map((k, i) => [normalizedKey(k, inputScope), i]));
  const keyFns = compileKeys(keys, inputScope, 'GROUP BY');
  const aggregateCalls = new AggregateCalls(fullScope);
  const calls = aggregateCalls.calls;
  const rewrite = (e: Expr): Expr => {
    if (isAggregateCall(e) && e.kind === 'call') return aggregateCalls.columnFor(e);
    if (e.kind === 'column') {
      const r = fullScope.resolve(e.path, e.at);
      if (r.index >= n)
        return {
          kind: 'column',
          path: [WINDOW_COLUMNS[r.index - n] as string, ...e.path.slice(1)],
          at: e.at,
        };
    }
    const k = keyIndex.get(normalizedKey(e, fullScope));
    if (k !== undefined) return { kind: 'column', path: [`$g${k}`], at: e.at };
    if (e.kind === 'column') {
      return sqlError(
        `column '${e.path.join('.')}' must appear in GROUP BY or be used in an aggregate`,
        e.at,
      );
    }
    return mapChildren(e, rewrite);
  };
  const items = selectList(select, from.columns.slice(n)).map((item) => ({
    name: item.name,
    expr: rewrite(item.expr),
  }));
  const having = select.having === undefined ? undefined : rewrite(select.having);
  if (updating) refuseUnretractable(calls, inputScope);
  const {
    fn: rowFn,
    types,
    mergeInto,
    resultWithWindowRoom,
  } = rowAggregate(
    keyFns.map((k) => k.fn),
    keyFns.map((k) => k.type),
    calls,
    inputScope,
    updating && 'signed',
  );
  // The window operators merge into an accumulator they own (a fresh one, or the state the
  // merge replaces) and never change the other: slices are shared by windows.
  const aggregate: AggregateFunction<Row, unknown, Row> = updating
    ? signedAggregate(rowFn, n)
    : { ...rowFn, merge: mergeInto };
  const ts = T.timestamp(3, false);
  const aggColumns: ScopeColumn[] = [
    ...keys.map((_, i) => ({
      name: `$g${i}`,
      type: types[i] as LogicalType,
      qualifier: undefined,
      rowtime: false,
    })),
    ...calls.map((_, i) => ({
      name: `$a${i}`,
      type: types[keys.length + i] as LogicalType,
      qualifier: undefined,
      rowtime: false,
    })),
    { name: 'window_start', type: ts, qualifier: undefined, rowtime: false },
    { name: 'window_end', type: ts, qualifier: undefined, rowtime: false },
    windowTimeColumn(window.processingTime === true, (from.columns[n + 2] as ScopeColumn).type),
  ];
  const keyOf = groupKey(keyFns.map((k) => k.fn));
  const assigner = windowAssigner(window);
  const withWindow =
    zone === undefined
      ? (row: Row, w: Window): Row => {
          row.push(w.start, w.end, w.end - 1);
          return row;
        }
      : window.processingTime === true && window.kind === 'SESSION'
        ? sessionBoundsInZone(zone)
        : (row: Row, w: Window): Row => {
            row.push(w.start, w.end, localWindowTime(zone, w.end));
            return row;
          };
  // A SESSION TVF forms sessions per PARTITION BY value (over all rows without it), as Flink
  // does; GROUP BY keys other than those columns split each session's rows.
  const sessionKey = sessionPartition(window, keys, inputScope);
  const emitGroupRows = (r: WindowResult<Key, Row[]>, out: Collector<Row>): void => {
    for (const row of r.value) if (row !== NO_ROWS) out.collect(withWindow(row, r.window));
  };
  // A window of a changelog whose rows cancel out emits nothing.
  const emitRow = (r: WindowResult<Key, Row>, out: Collector<Row>): void => {
    if (r.value !== NO_ROWS) out.collect(withWindow(r.value, r.window));
  };
  // Over insert-only rows, on UTC event time: each result row is made with room for the
  // window's columns, written in place (a push would grow, so copy, every row).
  const roomy =
    !updating && zone === undefined && resultWithWindowRoom !== undefined
      ? {
          aggregate: { ...aggregate, getResult: resultWithWindowRoom() },
          emit: (r: WindowResult<Key, Row>, out: Collector<Row>): void => {
            const row = r.value;
            const at = row.length - WINDOW_COLUMNS.length;
            row[at] = r.window.start;
            row[at + 1] = r.window.end;
            row[at + 2] = r.window.end - 1;
            out.collect(row);
          },
        }
      : undefined;
  const aggScope = new Scope(aggColumns);
  const havingTest =
    having === undefined ? undefined : compilePredicate(having, aggScope, 'HAVING condition');
  const { fn, types: outTypes } = compileProjection(
    items.map((i) => i.expr),
    aggScope,
  );
  const columns = items.map((item, i) => ({
    name: item.name,
    type: outTypes[i] as LogicalType,
    qualifier: undefined,
    ...(zone !== undefined &&
    item.expr.kind === 'column' &&
    (item.expr.path[0] === 'window_start' || item.expr.path[0] === 'window_end')
      ? { windowZone: zone }
      : {}),
    ...(window.processingTime === true
      ? {
          rowtime: false,
          proctime: item.expr.kind === 'column' && item.expr.path[0] === 'window_time',
        }
      : { rowtime: item.expr.kind === 'column' && item.expr.path[0] === 'window_time' }),
  }));
  // The SELECT list's first columns, in order (Nexmark q5's `auction, COUNT(*), window_start,
  // window_end`): each window row is its own (made when the window fired), so it is cut to
  // them in place rather than copied.
  const width = items.length;
  const selectFromOwnRow = selectsLeadingColumns(items, aggColumns)
    ? (row: Row): Row => {
        row.length = width;
        return row;
      }
    : fn;
  const aggregated = (): DataStream<Row> => {
    // Windows on a session zone's wall clock: the window operator runs on local event time.
    const stream = onWindowClock(eventZone, [input], (rows) =>
      sessionKey !== undefined
        ? rows
            .keyBy(sessionKey.keyOf, sessionKey.label)
            .window(assigner)
            .aggregate(aggregatePerGroup(keyOf, aggregate))
            .flatMap(emitGroupRows)
            .name('window columns')
        : rows
            .keyBy(keyOf, keys.length === 0 ? 'window (global)' : 'group key')
            .window(assigner)
            .aggregate(roomy?.aggregate ?? aggregate)
            .flatMap(roomy?.emit ?? emitRow)
            .name('window columns'),
    );
    const kept = havingTest === undefined ? stream : stream.filter(havingTest).name('having');
    return kept.map(selectFromOwnRow).name('select');
  };
  const emit =
    window.attached === true
      ? undefined
      : ctx.windowEmit?.(
          {
            legacy: window.legacy === true,
            session: window.kind === 'SESSION',
            processingTime: window.processingTime === true,
          },
          select.at,
        );
  if (emit !== undefined) {
    const processingTime = window.processingTime === true;
    const changed = onWindowClock(eventZone, [input], (rows) =>
      windowChanges(
        rows
          .keyBy(keyOf, keys.length === 0 ? 'window (global)' : 'group key')
          .window(assigner)
          .allowedLateness(emit.allowLatenessMs)
          .trigger(emitTrigger(emit, processingTime))
          .aggregate(aggregate),
        (r) => (r.value === NO_ROWS ? undefined : withWindow([...r.value], r.window)),
        emit,
        processingTime,
      ),
    );
    noteChangelogRole(changed, { kind: 'retracting', updates: true });
    let changes = changed.asChangelog<Row>('retract');
    if (havingTest !== undefined) changes = changes.filterRows(havingTest);
    // Updated rows are no longer time attributes (Flink's window results with updates).
    return updatingRelation(
      changes.mapRows(fn),
      columns.map((c) => ({ ...c, rowtime: false, proctime: false })),
      'a window aggregation with emit updates',
    );
  }
  // Local windows do not end at a fixed spacing of UTC event time.
  if (zone !== undefined) return { stream: aggregated(), columns };
  const windowed = resultWindows(window, items, (name) => {
    if (window.attached !== true) return name;
    // The input's own window columns are GROUP BY keys here.
    const at = (window.input.windowed as WindowProperties)[
      name === 'window_start' ? 'startAt' : 'endAt'
    ];
    const k = keys.findIndex(
      (key) => key.kind === 'column' && inputScope.resolve(key.path, key.at).index === at,
    );
    return k < 0 ? undefined : `$g${k}`;
  });
  // Each row leaves when the watermark passes its window's end (event time, no time zone).
  const ends =
    window.processingTime === true || window.attached === true
      ? []
      : items.flatMap(({ expr }, i) =>
          expr.kind === 'column' &&
          expr.path.length === 1 &&
          (expr.path[0] === 'window_end' || expr.path[0] === 'window_time')
            ? [i]
            : [],
        );
  const windowEndsAt = ends.length === 0 ? {} : { windowEndsAt: ends };
  if (windowed === undefined) return { stream: aggregated(), columns, ...windowEndsAt };
  const keyAt =
    !updating &&
    sessionKey === undefined &&
    calls.length === 0 &&
    having === undefined &&
    window.kind !== 'SESSION' &&
    window.processingTime !== true &&
    window.attached !== true
      ? groupingColumns(items, keys.length)
      : undefined;
  if (keyAt === undefined) return { stream: aggregated(), columns, windowed, ...windowEndsAt };
  // Each input row with its window, as the aggregation's row of its group, through the SELECT.
  // The SELECT list is group keys and window columns (groupingColumns): each output column
  // straight from the input row or its window, with no aggregation row in between.
  const outputs = items.map(({ expr }): ((row: Row, start: number, end: number) => unknown) => {
    const name = (expr as { path: readonly string[] }).path[0] as string;
    if (name === 'window_start') return (_, start) => start;
    if (name === 'window_end') return (_, __, end) => end;
    if (name === 'window_time') return (_, __, end) => end - 1;
    return (keyFns[Number(name.slice(2))] as (typeof keyFns)[number]).fn;
  });
  const groupRow = (row: Row, start: number, end: number): Row => {
    const out = new Array<unknown>(outputs.length);
    for (let i = 0; i < outputs.length; i++)
      out[i] = (outputs[i] as (typeof outputs)[number])(row, start, end);
    return out;
  };
  const rows = (): DataStream<Row> => {
    if (window.kind === 'TUMBLE') {
      // One window per row: no row with window columns in between.
      const { size, offset } = window;
      return input
        .map((row) => {
          const start = windowStart(row[timeAt] as number, offset, size);
          return groupRow(row, start, start + size);
        })
        .name('window rows');
    }
    const windows = materialize({
      ...from,
      window: { ...window, input: { stream: input, columns: inputColumns } },
    });
    return windows.stream
      .map((row) => groupRow(row, row[n] as number, row[n + 1] as number))
      .name('window rows');
  };
  return new WindowDistinctRelation(columns, windowed, {
    aggregated,
    rows,
    distinctKey: groupKey(keyAt.map((at) => (row: Row) => row[at])),
  });
}

/**
 * The positions of the GROUP BY keys in a window aggregation's SELECT list when the list is
 * those keys, each once, and window columns (a grouping only: its rows are distinct); else
 * undefined.
 */
function groupingColumns(
  items: readonly { readonly expr: Expr }[],
  keyCount: number,
): number[] | undefined {
  const keyAt = new Array<number>(keyCount).fill(-1);
  for (const [i, { expr }] of items.entries()) {
    if (expr.kind !== 'column' || expr.path.length !== 1) return undefined;
    const name = expr.path[0] as string;
    if ((WINDOW_COLUMNS as readonly string[]).includes(name)) continue;
    const k = /^\$g(\d+)$/.exec(name);
    if (k === null || keyAt[Number(k[1])] !== -1) return undefined;
    keyAt[Number(k[1])] = i;
  }
  return keyAt.includes(-1) ? undefined : keyAt;
}

/**
 * A GROUP BY `window_start`, `window_end` over a window aggregation's results (Flink's window
 * aggregate over window properties): planned as a window aggregation whose windows are the
 * rows' own. Every row of a window carries the timestamp `window_end - 1`, so a tumbling window
 * of the spacing of the window ends holds exactly the rows of one input window, and fires when
 * that window did upstream. Undefined for any other GROUP BY.
 */
function attachedWindows(select: Select, from: Relation): Relation | undefined {
  const windowed = from.windowed;
  if (windowed === undefined || isUpdating(from)) return undefined;
  const scope = new Scope(from.columns);
  const grouped = new Set(
    select.groupBy.flatMap((g) => {
      if (g.kind !== 'column') return [];
      const r = scope.resolve(g.path, g.at);
      return r.fields.length === 0 ? [r.index] : [];
    }),
  );
  if (!grouped.has(windowed.startAt) || !grouped.has(windowed.endAt)) return undefined;
  const ts = T.timestamp(3, false);
  const hidden = (name: string): ScopeColumn => ({
    name,
    type: ts,
    qualifier: undefined,
    rowtime: false,
  });
  const { spacing, offset } = windowed;
  return {
    stream: from.stream,
    columns: [
      ...from.columns,
      hidden('$attached_start'),
      hidden('$attached_end'),
      hidden('$attached_time'),
    ],
    window: { kind: 'TUMBLE', size: spacing, slide: spacing, offset, input: from, attached: true },
  };
}

/**
 * The window properties of a window aggregation's output, when its SELECT list passes both
 * window columns through and its windows end at a fixed spacing. `refOf` names the column a
 * window column is read from in the aggregate's rows (undefined: not grouped by it).
 */
function resultWindows(
  window: WindowTvf,
  items: readonly { readonly expr: Expr }[],
  refOf: (name: 'window_start' | 'window_end') => string | undefined,
): WindowProperties | undefined {
  if (window.processingTime === true || window.kind === 'SESSION') return undefined;
  const spacing = window.kind === 'TUMBLE' ? window.size : window.slide;
  const at = (name: 'window_start' | 'window_end'): number => {
    const ref = refOf(name);
    return ref === undefined
      ? -1
      : items.findIndex(
          (i) => i.expr.kind === 'column' && i.expr.path.length === 1 && i.expr.path[0] === ref,
        );
  };
  const startAt = at('window_start');
  const endAt = at('window_end');
  if (startAt < 0 || endAt < 0) return undefined;
  return { startAt, endAt, spacing, offset: window.offset % spacing };
}

/**
 * How the sessions of a SESSION TVF are keyed when that is not by the GROUP BY keys: by its
 * PARTITION BY columns, or one key for all rows; undefined when the GROUP BY keys are exactly
 * the partition columns (or the window is not a SESSION TVF).
 */
function sessionPartition(
  window: WindowTvf,
  keys: readonly Expr[],
  scope: Scope,
): { keyOf: (row: Row) => Key; label: string } | undefined {
  if (window.kind !== 'SESSION' || window.sessionsPerGroup === true) return undefined;
  const partition = (window.partitionBy ?? []).map(
    (name): Expr => ({ kind: 'column', path: [name], at: { line: 0, column: 0 } }),
  );
  const sorted = (es: readonly Expr[]): string[] => es.map((e) => normalizedKey(e, scope)).sort();
  if (
    keys.length === partition.length &&
    JSON.stringify(sorted(keys)) === JSON.stringify(sorted(partition))
  )
    return undefined;
  return partition.length === 0
    ? { keyOf: () => 0, label: 'window (global)' }
    : { keyOf: groupKey(partition.map((e) => compileScalar(e, scope).fn)), label: 'partition key' };
}

/**
 * The window columns of a processing-time session in a session zone: sessions of arrival
 * instants (a gap is real time, whatever the wall clock does), shown as Flink shows them, with
 * `window_start` and `window_end` the zone's wall clock of their bounds and `window_time` the
 * instant of the last millisecond.
 */
function sessionBoundsInZone(zone: TimeZone): (row: Row, w: Window) => Row {
  return (row, w) => {
    row.push(zone.toLocal(w.start), zone.toLocal(w.end), w.end - 1);
    return row;
  };
}

function windowAssigner(window: WindowTvf): WindowAssigner<Row> {
  const proc = window.processingTime === true;
  const { size, slide, offset } = window;
  const assigner =
    window.kind === 'TUMBLE'
      ? (proc ? Windows.tumblingProcessingTime : Windows.tumbling)(size, offset)
      : window.kind === 'HOP'
        ? (proc ? Windows.slidingProcessingTime : Windows.sliding)(size, slide, offset)
        : window.kind === 'CUMULATE'
          ? (proc ? Windows.cumulativeProcessingTime : Windows.cumulative)(size, slide, offset)
          : (proc ? Windows.sessionProcessingTime : Windows.session)(size);
  // Processing time in a session zone: windows of the zone's wall clock (as Flink shifts it).
  const zone = window.localTimeZone;
  return !proc || zone === undefined || assigner.kind === 'session' || assigner.kind === 'global'
    ? assigner
    : { ...assigner, clock: wallClockOf(zone) };
}
