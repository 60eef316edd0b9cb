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
import type { Ranked } from '../../core/ranking.js';
import type { StateTtlConfig } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import type { ScopeColumn } from '../expressions/scope.js';
import type { Expr, OverWindow, Select, SelectItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { T } from '../types/logical-type.js';
import { requireInsertOnly, updatingRelation } from './changelog-relation.js';
import { groupKey } from './grouping.js';
import { conjuncts } from './join-planner.js';
import type { Relation } from './relation.js';
import { ROW_SERIALIZER } from './row-serializer.js';
import { ttlOption } from './state-ttl.js';
import { planWindowRank, windowOfPartition } from './window-rank-planner.js';

/** A SELECT over a ranked subquery, taken apart. */
export interface RankPattern {
  /** The subquery without its ROW_NUMBER item. */
  readonly inner: Select;
  readonly alias: string | undefined;
  readonly rankName: string;
  readonly window: OverWindow;
  /** Rows kept per partition. */
  readonly limit: number;
  /** The enclosing WHERE without the bound on the row number. */
  readonly where: Expr | undefined;
  readonly at: SourcePosition;
}

function isRowNumber(item: SelectItem): boolean {
  return (
    item.kind === 'expr' &&
    item.expr.kind === 'call' &&
    item.expr.name === 'ROW_NUMBER' &&
    item.expr.overWindow !== undefined
  );
}

/** The bound `rn <= N`, `rn < N` or `rn = 1` on the row number `name`, as N; undefined otherwise. */
function bound(e: Expr, name: string): number | undefined {
  if (e.kind !== 'binary' || e.left.kind !== 'column' || e.right.kind !== 'number')
    return undefined;
  if (e.left.path[e.left.path.length - 1] !== name) return undefined;
  const n = Number(e.right.text);
  if (!Number.isInteger(n)) return undefined;
  if (e.op === '<=') return n;
  if (e.op === '<') return n - 1;
  if (e.op === '=' && n === 1) return 1;
  return undefined;
}

/** The rank pattern of `select`, if its FROM is a subquery with a ROW_NUMBER() OVER item. */
export function rankPattern(select: Select): RankPattern | undefined {
  const from = select.from;
  if (from?.kind !== 'subquery' || from.query.kind !== 'select') return undefined;
  const inner = from.query;
  const item = inner.items.find(isRowNumber);
  if (item === undefined || item.kind !== 'expr' || item.expr.kind !== 'call') return undefined;
  const window = item.expr.overWindow as OverWindow;
  const at = item.expr.at;
  if (item.alias === undefined)
    return sqlError('ROW_NUMBER() OVER (...) needs a name (AS rownum) to be bounded', at);
  if (item.expr.args.length > 0) sqlError('ROW_NUMBER() takes no arguments', at);
  if (window.orderBy.length === 0)
    sqlError('ROW_NUMBER() OVER (...) needs an ORDER BY in Weir SQL (as in Flink)', at);
  if (window.frame !== undefined)
    sqlError(`ROW_NUMBER() OVER (...) takes no frame clause, got '${window.frame}'`, at);
  const rankName = item.alias;
  const parts = conjuncts(select.where);
  const index = parts.findIndex((p) => bound(p, rankName) !== undefined);
  if (index < 0) {
    return sqlError(
      `ROW_NUMBER() is supported as Top-N or deduplication only: the enclosing query needs WHERE ${rankName} <= N (or ${rankName} = 1)`,
      at,
    );
  }
  const limit = bound(parts[index] as Expr, rankName) as number;
  if (limit < 1)
    sqlError(`the Top-N bound must be at least 1, got ${limit}`, (parts[index] as Expr).at);
  const rest = parts.filter((_, i) => i !== index);
  return {
    inner: { ...inner, items: inner.items.filter((i) => i !== item) },
    alias: from.alias,
    rankName,
    window,
    limit,
    where: rest.reduce<Expr | undefined>(
      (l, r) => (l === undefined ? r : { kind: 'binary', op: 'AND', left: l, right: r, at: r.at }),
      undefined,
    ),
    at,
  };
}

/** Nulls rank lowest, as in Flink (first for ASC, last for DESC). */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/** The ORDER BY of a ranking as a comparator of rows whose order values start at `orderAt`. */
function rankOrder(
  window: OverWindow,
  orderAt: number,
): { readonly compare: (a: Row, b: Row) => number; readonly n: number } {
  const directions = window.orderBy.map((o) => (o.descending ? -1 : 1));
  const n = directions.length;
  const compare = (a: Row, b: Row): number => {
    for (let i = 0; i < n; i++) {
      const c = compareValues(a[orderAt + i], b[orderAt + i]);
      if (c !== 0) return c * (directions[i] as number);
    }
    return 0;
  };
  return { compare, n };
}

/**
 * A column a window deduplication orders by: a TIMESTAMP, such as the TVF input's time
 * column (which, as in Flink, is a plain TIMESTAMP after the window TVF).
 */
function isTimestamp(column: ScopeColumn): boolean {
  return column.type.kind === 'TIMESTAMP' || column.type.kind === 'TIMESTAMP_LTZ';
}

/**
 * Plans the pattern; `planSelect` plans the subquery (with the partition and order
 * expressions as hidden columns). The result's columns are the subquery's and the row number.
 */
export function planRank(
  p: RankPattern,
  planSelect: (s: Select) => Relation,
  stateTtl?: StateTtlConfig,
): Relation {
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
  requireInsertOnly(rel, 'ROW_NUMBER() OVER (...)', p.at);
  const width = rel.columns.length - window.partitionBy.length - window.orderBy.length;
  const partitionAt = width;
  const orderAt = width + window.partitionBy.length;
  const visible: ScopeColumn[] = rel.columns
    .slice(0, width)
    .map((c) => ({ ...c, qualifier: p.alias, rowtime: false }));
  const keyOf = groupKey(window.partitionBy.map((_, i) => (row: Row) => row[partitionAt + i]));
  const keyed = rel.stream.keyBy(keyOf, 'partition key');
  const first = window.orderBy[0];
  const orderColumn = rel.columns[orderAt] as ScopeColumn;
  const columns = [
    ...visible,
    { name: p.rankName, type: T.bigint(false), qualifier: p.alias, rowtime: false },
  ];
  const order = rankOrder(window, orderAt);
  const windowed = windowOfPartition(window, partitionAt);
  if (windowed !== undefined) {
    const rows = planWindowRank(keyed, windowed, {
      limit: p.limit,
      width,
      compare: order.compare,
      // Flink's window deduplication: the first or last row of a window by a time column.
      dedupTime: p.limit === 1 && order.n === 1 && isTimestamp(orderColumn) ? orderAt : undefined,
      descending: first?.descending === true,
    });
    return { stream: rows, columns };
  }
  let changes: ChangelogStream<Row>;
  if (p.limit === 1 && window.orderBy.length === 1 && first !== undefined && orderColumn.rowtime) {
    // Deduplication: the row with the smallest (ASC) or largest (DESC) event time per key.
    const deduplicated = keyed.deduplicate({
      keep: first.descending ? 'last' : 'first',
      order: 'event-time',
      serializer: ROW_SERIALIZER,
      ...ttlOption(stateTtl),
    });
    changes = deduplicated.asChangelog('retract').mapRows((row) => [...row.slice(0, width), 1]);
  } else {
    changes = keyed
      .topN({
        n: p.limit,
        compare: order.compare,
        rankNumber: true,
        serializer: ROW_SERIALIZER,
        ...ttlOption(stateTtl),
      })
      .asChangelog('retract')
      .mapRows((r: Ranked<Row>) => [...r.row.slice(0, width), r.rank]);
  }
  // Flink's upsert key of a ranking: the partition key, with the row number unless it is 1.
  const partition =
    partitionPositions(p.inner.items, window.partitionBy) ??
    partitionByName(visible, window.partitionBy);
  const key =
    partition === undefined ? undefined : p.limit === 1 ? partition : [...partition, width];
  return updatingRelation(changes, columns, 'ROW_NUMBER() OVER (...)', key);
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
