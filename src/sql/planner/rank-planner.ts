/**
 * `ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) AS rn` in a subquery whose enclosing
 * WHERE keeps `rn <= N` (or `rn < N`, `rn = 1`): Flink's Top-N and deduplication. Ordered by
 * the rowtime alone with N = 1 it is a deduplication (keep the first row by event time for
 * ASC, the last for DESC); otherwise a Top-N per partition with rank numbers. Both emit a
 * retract changelog. Planned onto the DataStream API's `deduplicate` and `topN`.
 *
 * Partitioned by `window_start` and `window_end` (of a window TVF or a window aggregation),
 * they are Flink's window Top-N and window deduplication instead (`window-rank-planner.ts`).
 */
import type { ChangelogStream } from '../../api/streams.js';
import type { StateTtlConfig } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { CodeGen } from '../expressions/code-gen.js';
import { compareNullsLow } from '../expressions/functions/value-order.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, OverWindow, Select, SelectItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { type LogicalType, T } from '../types/logical-type.js';
import {
  changesOf,
  isUpdating,
  projectedKey,
  retracting,
  updatingRelation,
} from './changelog-relation.js';
import { withEventTime } from './event-time.js';
import { groupKey, refuseMultiset, selectList } from './grouping.js';
import { conjuncts } from './join-planner.js';
import { onWindowClock, windowClock } from './local-time-windows.js';
import type { Relation } from './relation.js';
import { retractRank } from './retract-rank.js';
import { pickWithValue, prefixAndValue } from './row-builders.js';
import { OUTPUT_ROW_SERIALIZER, ROW_SERIALIZER } from './row-serializer.js';
import { ttlOption } from './state-ttl.js';
import { planWindowRank, windowOfPartition } from './window-rank-planner.js';

/** A SELECT over a ranked subquery, taken apart. */
export interface RankPattern {
  /** The subquery without its ROW_NUMBER item. */
  readonly inner: Select;
  readonly alias: string | undefined;
  readonly rankName: string;
  readonly window: OverWindow;
  /** The first rank kept (1 unless the WHERE bounds the row number from below). */
  readonly start: number;
  /** The last rank kept: rows kept per partition. */
  readonly limit: number;
  /**
   * `rn <= col`: the last rank kept is a column of the subquery (Flink's VariableRankRange),
   * read per partition from its first row; `limit` is then unused.
   */
  readonly endColumn?: Expr & { readonly kind: 'column' };
  /** The enclosing WHERE without the bounds on the row number. */
  readonly where: Expr | undefined;
  readonly at: SourcePosition;
}

const RANKINGS = new Set(['ROW_NUMBER', 'RANK', 'DENSE_RANK']);

function rankingCall(item: SelectItem): string | undefined {
  return item.kind === 'expr' &&
    item.expr.kind === 'call' &&
    RANKINGS.has(item.expr.name) &&
    item.expr.overWindow !== undefined
    ? item.expr.name
    : undefined;
}

/** A whole number literal's value, or undefined. */
function wholeNumber(e: Expr): number | undefined {
  if (e.kind !== 'number') return undefined;
  const n = Number(e.text);
  return Number.isInteger(n) ? n : undefined;
}

/** `<` as `>` and so on: the comparison with its two sides swapped. */
const FLIPPED: Readonly<Record<string, string>> = {
  '<=': '>=',
  '<': '>',
  '>=': '<=',
  '>': '<',
  '=': '=',
};

/** Bounds on the row number: [lowest, highest], either undefined where none is set. */
type Bounds = [number | undefined, number | undefined];

/**
 * The ranks a condition on the row number `name` keeps: `rn <= N`, `rn < N`, `rn = N`,
 * `rn >= N`, `rn > N` (either side), `rn BETWEEN a AND b`; or the column of `rn <= col`
 * (the last rank read from the rows). Undefined for any other condition.
 */
function bounds(e: Expr, name: string): Bounds | (Expr & { kind: 'column' }) | undefined {
  const isRank = (x: Expr) => x.kind === 'column' && x.path[x.path.length - 1] === name;
  if (e.kind === 'between' && !e.negated && isRank(e.arg)) {
    const low = wholeNumber(e.low);
    const high = wholeNumber(e.high);
    return low === undefined || high === undefined ? undefined : [low, high];
  }
  if (e.kind !== 'binary' || !(e.op in FLIPPED)) return undefined;
  const rankLeft = isRank(e.left);
  if (!rankLeft && !isRank(e.right)) return undefined;
  const op = rankLeft ? e.op : (FLIPPED[e.op] as string);
  const other = rankLeft ? e.right : e.left;
  if (other.kind === 'column' && !isRank(other)) {
    // Flink reads `rn < col` and `rn = col` as `rn <= col` too (RankUtil takes any column
    // bound from above as the last rank): refused rather than answered so.
    if (op === '<=') return other;
    if (op === '<' || op === '=')
      sqlError(
        `a rank bound from a column is supported as ${name} <= ${other.path.join('.')} only, got '${op}'`,
        e.at,
      );
    return undefined;
  }
  const n = wholeNumber(other);
  if (n === undefined) return undefined;
  switch (op) {
    case '<=':
      return [undefined, n];
    case '<':
      return [undefined, n - 1];
    case '=':
      return [n, n];
    case '>=':
      return [n, undefined];
    case '>':
      return [n + 1, undefined];
    default:
      return undefined;
  }
}

/** The rank pattern of `select`, if its FROM is a subquery with a ROW_NUMBER() OVER item. */
export function rankPattern(select: Select): RankPattern | undefined {
  const from = select.from;
  // An alias list renames the rank column; such a query is not taken for a Top-N.
  if (from?.kind !== 'subquery' || from.query.kind !== 'select' || from.columns !== undefined)
    return undefined;
  const inner = from.query;
  const item = inner.items.find((i) => rankingCall(i) !== undefined);
  if (item === undefined || item.kind !== 'expr' || item.expr.kind !== 'call') return undefined;
  const window = item.expr.overWindow as OverWindow;
  const at = item.expr.at;
  const fn = item.expr.name;
  if (item.alias === undefined)
    return sqlError(`${fn}() OVER (...) needs a name (AS rownum) to be bounded`, at);
  if (item.expr.args.length > 0) sqlError(`${fn}() takes no arguments`, at);
  if (window.orderBy.length === 0)
    sqlError(`${fn}() OVER (...) needs an ORDER BY in Weir SQL (as in Flink)`, at);
  if (window.frame !== undefined)
    sqlError(`${fn}() OVER (...) takes no frame clause, got '${window.frame}'`, at);
  const rankName = item.alias;
  const parts = conjuncts(select.where);
  let start: number | undefined;
  let end: number | undefined;
  let endColumn: (Expr & { kind: 'column' }) | undefined;
  let bounded = 0;
  const rest: Expr[] = [];
  for (const part of parts) {
    const b = bounds(part, rankName);
    if (b === undefined) {
      rest.push(part);
      continue;
    }
    bounded++;
    if (!Array.isArray(b)) {
      endColumn = b;
      continue;
    }
    if (b[0] !== undefined) start = Math.max(start ?? b[0], b[0]);
    if (b[1] !== undefined) end = Math.min(end ?? b[1], b[1]);
  }
  if (endColumn !== undefined) {
    // As Flink's VariableRankRange: the column is the only bound (ranks 1 to its value).
    if (bounded > 1)
      sqlError(
        `a Top-N whose last rank is a column (${rankName} <= ${endColumn.path.join('.')}) takes no other bound on ${rankName}`,
        endColumn.at,
      );
    if (fn !== 'ROW_NUMBER') sqlError(`${fn}() on streaming table is not supported currently`, at);
    return {
      inner: { ...inner, items: inner.items.filter((i) => i !== item) },
      alias: from.alias,
      rankName,
      window,
      start: 1,
      limit: Number.MAX_SAFE_INTEGER,
      endColumn,
      where: andAll(rest),
      at,
    };
  }
  if (end === undefined) {
    return sqlError(
      `${fn}() is supported as Top-N or deduplication only: the enclosing query needs WHERE ${rankName} <= N (or ${rankName} = 1, ${rankName} BETWEEN a AND b)`,
      at,
    );
  }
  // Flink plans these as a streaming Rank, which runs ROW_NUMBER() only.
  if (fn !== 'ROW_NUMBER') sqlError(`${fn}() on streaming table is not supported currently`, at);
  const first = Math.max(start ?? 1, 1);
  if (end < first)
    sqlError(
      `the Top-N keeps no rank: ${rankName} from ${first} to ${end}; the bound must be at least ${first}`,
      at,
    );
  return {
    inner: { ...inner, items: inner.items.filter((i) => i !== item) },
    alias: from.alias,
    rankName,
    window,
    start: first,
    limit: end,
    where: andAll(rest),
    at,
  };
}

/** The conjunction of `parts`, undefined for none. */
function andAll(parts: readonly Expr[]): Expr | undefined {
  return parts.reduce<Expr | undefined>(
    (l, r) => (l === undefined ? r : { kind: 'binary', op: 'AND', left: l, right: r, at: r.at }),
    undefined,
  );
}

/**
 * The ORDER BY of a ranking as a comparator of rows whose order values start at `orderAt` (of
 * types `types`), NULL lowest: generated once per query, with values of one plain type (numbers,
 * bigints, strings, booleans) compared inline and BINARY, ROW, ARRAY and MAP values by
 * `compareNullsLow`. A Top-N compares each row against its partition's ranks.
 */
export function rankOrder(
  window: OverWindow,
  orderAt: number,
  types: readonly LogicalType[],
): { readonly compare: (a: Row, b: Row) => number; readonly n: number } {
  const g = new CodeGen();
  const general = g.constant(compareNullsLow);
  const steps = window.orderBy.map((o, i) => {
    const dir = o.descending ? -1 : 1;
    const at = orderAt + i;
    const t = types[i] as LogicalType;
    if (NOT_PLAIN_ORDER.has(t.kind))
      return `c0 = ${general}(a[${at}], b[${at}]); if (c0 !== 0) return c0 * ${dir};`;
    // Values of one type that `<` orders as compareValues does; neither less nor greater is equal.
    return `x = a[${at}]; y = b[${at}]; if (x !== y) { if (x === null) return ${-dir}; if (y === null) return ${dir}; if (x < y) return ${-dir}; if (x > y) return ${dir}; }`;
  });
  const compare = g.function<(a: Row, b: Row) => number>(
    `let x, y, c0; ${steps.join(' ')} return 0;`,
    'a, b',
  );
  return { compare, n: window.orderBy.length };
}

/** Types whose values `<` and `>` do not order as compareValues does (bytes, nested values). */
const NOT_PLAIN_ORDER = new Set<LogicalType['kind']>([
  'BINARY',
  'VARBINARY',
  'ROW',
  'ARRAY',
  'MAP',
  'MULTISET',
]);

/**
 * A column a window deduplication orders by: a TIMESTAMP, such as the TVF input's time
 * column (which, as in Flink, is a plain TIMESTAMP after the window TVF).
 */
function isTimestamp(column: ScopeColumn): boolean {
  return column.type.kind === 'TIMESTAMP' || column.type.kind === 'TIMESTAMP_LTZ';
}

/**
 * The positions the enclosing SELECT picks among the ranking's columns, and its columns, when
 * it does nothing else (no WHERE left, no computed item, no grouping): the Top-N or
 * deduplication then writes those rows itself, with no projection after it.
 */
function picked(
  outer: Select,
  columns: readonly ScopeColumn[],
): { readonly positions: number[]; readonly columns: ScopeColumn[] } | undefined {
  if (
    outer.where !== undefined ||
    outer.distinct ||
    outer.groupBy.length > 0 ||
    outer.having !== undefined
  )
    return undefined;
  const scope = new Scope(columns);
  const positions: number[] = [];
  const out: ScopeColumn[] = [];
  for (const item of selectList(outer, columns)) {
    if (item.expr.kind !== 'column') return undefined;
    const r = scope.resolve(item.expr.path, item.expr.at);
    if (r.fields.length > 0) return undefined;
    positions.push(r.index);
    // As a projection over changing rows names its columns (changelog-calc.ts).
    const rowtime = columns[r.index]?.rowtime === true;
    out.push({ name: item.name, type: r.type, qualifier: undefined, rowtime });
  }
  return { positions, columns: out };
}

/**
 * Plans the pattern; `planSelect` plans the subquery (with the partition and order
 * expressions as hidden columns). The result's columns are the subquery's and the row number;
 * or, when `projected`, those the enclosing SELECT `outer` (without the bounds) picks.
 */
export function planRank(
  p: RankPattern,
  planSelect: (s: Select) => Relation,
  stateTtl: StateTtlConfig | undefined,
  outer: Select,
): { readonly relation: Relation; readonly projected: boolean } {
  const { window } = p;
  const hidden = (prefix: string, e: Expr, i: number): SelectItem => ({
    kind: 'expr',
    expr: e,
    alias: `$rank_${prefix}${i}`,
  });
  const rel = planSelect({
    ...p.inner,
    items: [
      ...p.inner.items,
      ...window.partitionBy.map((e, i) => hidden('p', e, i)),
      ...window.orderBy.map((o, i) => hidden('o', o.expr, i)),
    ],
  });
  const width = rel.columns.length - window.partitionBy.length - window.orderBy.length;
  const partitionAt = width;
  const orderAt = width + window.partitionBy.length;
  const visible: ScopeColumn[] = rel.columns
    .slice(0, width)
    .map((c) => ({ ...c, qualifier: p.alias, rowtime: false }));
  window.partitionBy.forEach((e, i) => {
    refuseMultiset((rel.columns[partitionAt + i] as ScopeColumn).type, e.at, 'PARTITION BY');
  });
  window.orderBy.forEach((o, i) => {
    refuseMultiset((rel.columns[orderAt + i] as ScopeColumn).type, o.expr.at, 'ORDER BY');
  });
  const keyOf = groupKey(window.partitionBy.map((_, i) => (row: Row) => row[partitionAt + i]));
  const first = window.orderBy[0];
  const orderColumn = rel.columns[orderAt] as ScopeColumn;
  const columns = [
    ...visible,
    { name: p.rankName, type: T.bigint(false), qualifier: p.alias, rowtime: false },
  ];
  const order = rankOrder(
    window,
    orderAt,
    window.orderBy.map((_, i) => (rel.columns[orderAt + i] as ScopeColumn).type),
  );
  let changes: ChangelogStream<Row>;
  const endAt = p.endColumn === undefined ? undefined : rankEndPosition(p.endColumn, visible);
  // Rows that may be retracted (every row of a partition is kept), a range below the top, or
  // a last rank read from the rows.
  const retract = isUpdating(rel) || p.start > 1 || endAt !== undefined;
  const windowed = retract ? undefined : windowOfPartition(window, partitionAt);
  if (windowed !== undefined) {
    // Windows of a local wall clock fire when the watermark passes their end as an instant.
    const rows = onWindowClock(windowClock(rel.columns, windowed), [rel.stream], (input) =>
      planWindowRank(input.keyBy(keyOf, 'partition key'), windowed, {
        limit: p.limit,
        width,
        compare: order.compare,
        // Flink's window deduplication: the first or last row of a window by a time column.
        dedupTime: p.limit === 1 && order.n === 1 && isTimestamp(orderColumn) ? orderAt : undefined,
        descending: first?.descending === true,
      }),
    );
    return { relation: { stream: rows, columns }, projected: false };
  }
  // Ordered by a processing-time attribute (a PROCTIME() column, or PROCTIME() itself): rows
  // rank by arrival, as Flink's processing-time deduplication keeps them.
  const byArrival =
    orderColumn.proctime === true ||
    (first?.expr.kind === 'call' && first.expr.name === 'PROCTIME' && first.expr.args.length === 0);
  // The first or last row per key by event time or arrival: a deduplication.
  const dedupBy =
    !retract && p.limit === 1 && window.orderBy.length === 1 && (orderColumn.rowtime || byArrival)
      ? first
      : undefined;
  if (dedupBy !== undefined && !byArrival) keepTimeAttribute(columns, p.inner.items, dedupBy.expr);
  // The enclosing SELECT's columns written by the operator's own row builder.
  const pick = picked(outer, columns);
  // Without the row number in the output, as Flink's Top-N then: a row entering the range is
  // `+I` and one leaving it `-D`, rather than an update of each rank whose row shifted.
  const rankNumber = pick === undefined || pick.positions.includes(width);
  if (dedupBy === undefined && (retract || !rankNumber)) {
    const ranks =
      endAt === undefined
        ? `ranks ${p.start} to ${p.limit}`
        : `ranks 1 to ${visible[endAt]?.name ?? ''}`;
    changes = retractRank(
      retracting(changesOf(rel)),
      keyOf,
      {
        compare: order.compare,
        start: p.start,
        end: p.limit,
        ...(endAt === undefined ? {} : { endAt }),
        width,
        rankNumber,
        ...(pick === undefined ? {} : { positions: pick.positions }),
        insertOnly: !isUpdating(rel),
        ttl: stateTtl,
      },
      isUpdating(rel) ? undefined : `top-n (${ranks})`,
    );
  } else {
    // A deduplication by event time reads the time the rows carry: that of its ORDER BY column.
    const ordered = dedupBy !== undefined && !byArrival ? withEventTime(rel, orderAt) : rel;
    const keyed = ordered.stream.keyBy(keyOf, 'partition key');
    const ranked =
      pick === undefined ? prefixAndValue(width) : pickWithValue(width, pick.positions);
    if (dedupBy !== undefined && byArrival && dedupBy.descending !== true) {
      // Each key's first row by arrival, never replaced: insert-only, as Flink's.
      const rows = keyed
        .deduplicate({ keep: 'first', order: 'arrival', ...ttlOption(stateTtl) })
        .map((row: Row) => ranked(row, 1) as Row)
        .name('deduplicate (first row)');
      if (pick === undefined) return { relation: { stream: rows, columns }, projected: false };
      return { relation: { stream: rows, columns: pick.columns }, projected: true };
    }
    if (dedupBy !== undefined) {
      // Deduplication: the row with the smallest (ASC) or largest (DESC) event time per key,
      // or the last to arrive (DESC by a processing-time attribute).
      // Its state keeps the output row (q18's seven columns), not the input row with the
      // partition and order columns again: a third less per key, and no second row per change.
      const deduplicated = keyed.deduplicate({
        keep: dedupBy.descending ? 'last' : 'first',
        order: byArrival ? 'arrival' : 'event-time',
        row: (row: Row) => ranked(row, 1),
        serializer: OUTPUT_ROW_SERIALIZER,
        ...ttlOption(stateTtl),
      });
      changes = deduplicated.asChangelog('retract');
    } else {
      changes = keyed
        .topN({
          n: p.limit,
          compare: order.compare,
          rankNumber: true,
          ranked,
          serializer: ROW_SERIALIZER,
          ...ttlOption(stateTtl),
        })
        .asChangelog('retract');
    }
  }
  // Flink's upsert key of a ranking: the partition key, with the row number unless it is 1.
  const partition =
    partitionPositions(p.inner.items, window.partitionBy) ??
    partitionByName(visible, window.partitionBy);
  const key =
    partition === undefined ? undefined : p.start === p.limit ? partition : [...partition, width];
  if (pick === undefined)
    return {
      relation: updatingRelation(changes, columns, 'ROW_NUMBER() OVER (...)', key),
      projected: false,
    };
  // Named as the projection it stands for, whose changes they are.
  const relation = updatingRelation(
    changes,
    pick.columns,
    'SELECT',
    projectedKey(key, pick.positions),
  );
  return { relation, projected: true };
}

/**
 * Where the column bounding the row number is among the subquery's columns; refused unless it
 * is an integer column, as Flink's rank end fetcher requires.
 */
function rankEndPosition(column: Expr & { kind: 'column' }, visible: readonly ScopeColumn[]) {
  const r = new Scope(visible).resolve(column.path, column.at);
  const kind = r.type.kind;
  if (r.fields.length > 0 || !['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT'].includes(kind))
    sqlError(
      `the last rank of a Top-N must be an integer column, got ${column.path.join('.')} of type ${kind}`,
      column.at,
    );
  return r.index;
}

/**
 * Flink's versioned view: the first or last row per key by event time keeps its time
 * attribute (the ORDER BY column, where the subquery selects it), so the deduplication can be
 * the versioned side of a temporal join, its changes stamped with their rows' event times.
 */
function keepTimeAttribute(
  columns: ScopeColumn[],
  items: readonly SelectItem[],
  order: Expr,
): void {
  const at = partitionPositions(items, [order])?.[0] ?? partitionByName(columns, [order])?.[0];
  const column = at === undefined ? undefined : columns[at];
  if (at !== undefined && column !== undefined) columns[at] = { ...column, rowtime: true };
}

/**
 * Where each PARTITION BY column is among the subquery's columns by its name, when exactly one
 * has it (after a `*`, which passes every column on unchanged).
 */
function partitionByName(
  columns: readonly ScopeColumn[],
  partitionBy: readonly Expr[],
): number[] | undefined {
  const positions: number[] = [];
  for (const e of partitionBy) {
    const name = e.kind === 'column' ? e.path[e.path.length - 1] : undefined;
    const at = columns.findIndex((c) => c.name === name);
    if (name === undefined || at < 0 || columns.findLastIndex((c) => c.name === name) !== at)
      return undefined;
    positions.push(at);
  }
  return positions;
}

/**
 * Where the subquery's SELECT list passes on each PARTITION BY column unchanged, if it does
 * (undefined after a `*`, whose columns are not known here, or for a computed partition).
 */
function partitionPositions(
  items: readonly SelectItem[],
  partitionBy: readonly Expr[],
): number[] | undefined {
  if (items.some((i) => i.kind !== 'expr')) return undefined;
  const positions: number[] = [];
  for (const e of partitionBy) {
    if (e.kind !== 'column') return undefined;
    const at = items.findIndex(
      (i) =>
        i.kind === 'expr' && i.expr.kind === 'column' && i.expr.path.join('.') === e.path.join('.'),
    );
    if (at < 0) return undefined;
    positions.push(at);
  }
  return positions;
}
