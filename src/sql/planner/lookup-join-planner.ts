/**
 * Lookup joins: `JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON d.key = ...`, where
 * `proc_time` is a processing-time attribute of the left side. Each left row looks up the row
 * of its key in the table as it is when the row is processed (Flink's lookup join), through
 * the DataStream API's `lookupJoin` and the connector's lookup table (`jdbc`, `filesystem`).
 * The first equality between a column of the table and an expression of the left side is
 * the lookup key; every other condition is checked on the joined row. The output is
 * insert-only and keeps the left side's time attributes.
 */

import type { DataStream } from '../../api/streams.js';
import { AsyncRetry } from '../../core/async-io.js';
import type { Collector } from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { CatalogTable } from '../catalog/catalog.js';
import type { Row } from '../connectors/connector.js';
import { connectorOf } from '../connectors/registry.js';
import { coerce } from '../expressions/cast.js';
import { CodeGen } from '../expressions/code-gen.js';
import { compile, compilePredicate } from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr, FromItem } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import {
  formatType,
  isCharacterString,
  isInteger,
  type LogicalType,
  withNullability,
} from '../types/logical-type.js';
import { isUpdating } from './changelog-relation.js';
import { contains } from './expr-tools.js';
import { conjuncts } from './join-planner.js';
import { keyEquality } from './key-equality.js';
import type { Relation } from './relation.js';
import { valuesKey } from './row-key.js';
import { computedColumnsOf } from './source-planner.js';
import { type JoinedRow, TwoRowJoinRelation, twoRowPredicate } from './two-row-join.js';

type JoinItem = Extract<FromItem, { kind: 'join' }>;
type TableItem = Extract<FromItem, { kind: 'table' }>;

/** Flink's delay between lookup retries is a second per attempt; a fixed second here. */
const RETRY_DELAY_MS = 1_000;

/** Whether `item` is a lookup join: its right side is a table `FOR SYSTEM_TIME AS OF`. */
export function isLookupJoin(item: JoinItem): item is JoinItem & { right: TableItem } {
  return item.right.kind === 'table' && item.right.asOf !== undefined;
}

/**
 * `planned` is the left side as planned, `left` the same with only the columns the query reads
 * (without the AS OF column when nothing else reads it).
 */
export function planLookupJoin(
  item: JoinItem & { right: TableItem },
  planned: Relation,
  left: Relation,
  table: CatalogTable,
): Relation {
  const dimItem = item.right;
  if (item.type !== 'INNER' && item.type !== 'LEFT')
    sqlError(
      `a lookup join (FOR SYSTEM_TIME AS OF) must be an INNER or LEFT JOIN, not ${item.type}`,
      item.at,
    );
  if (isUpdating(left))
    sqlError('a lookup join over a changing input is not supported by Weir SQL yet', item.at);
  const leftScope = new Scope(left.columns);
  checkAsOf(dimItem.asOf as Expr, new Scope(planned.columns), dimItem.name);
  const stored = table.columns.filter((c) => c.computed === undefined);
  const connector = connectorOf(table);
  // Flink plans AS OF PROCTIME() against a table it cannot look up as a processing-time
  // temporal join of its versions, which it refuses so.
  if (connector.lookup === undefined && connector.lookupRows === undefined)
    return sqlError(
      `Processing-time temporal join is not supported yet: connector '${connector.name}' of '${table.name}' cannot be looked up (FOR SYSTEM_TIME AS OF a PROCTIME() column); 'jdbc' and 'filesystem' tables can`,
      dimItem.at,
    );
  // A table read by several columns at once may have computed columns: they are computed on
  // the rows looked up (a copy: the table's rows may be cached and shared).
  const computed = connector.lookupRows === undefined ? undefined : computedColumnsOf(table);
  if (stored.length !== table.columns.length && computed === undefined)
    sqlError(
      `table '${table.name}' has computed columns; a lookup join reads only tables without them yet`,
      dimItem.at,
    );
  const qualifier = dimItem.alias ?? dimItem.name;
  const outer = item.type === 'LEFT';
  const dimColumns: ScopeColumn[] = (computed === undefined ? stored : table.columns).map((c) => ({
    name: c.name,
    type: outer ? withNullability(c.type, true) : c.type,
    qualifier,
    rowtime: false,
  }));
  const leftWidth = left.columns.length;
  const scope = new Scope([...left.columns, ...dimColumns]);
  const sideOf = (e: Expr) => ({
    left: contains(e, (x) => x.kind === 'column' && scope.resolve(x.path, x.at).index < leftWidth),
    dim: contains(e, (x) => x.kind === 'column' && scope.resolve(x.path, x.at).index >= leftWidth),
  });
  /** The table's stored column that `e` is, bare (no ROW field), or undefined. */
  const dimColumnOf = (e: Expr): number | undefined => {
    if (e.kind !== 'column') return undefined;
    const r = scope.resolve(e.path, e.at);
    if (r.index < leftWidth || r.fields.length > 0) return undefined;
    return table.columns[r.index - leftWidth]?.computed === undefined
      ? r.index - leftWidth
      : undefined;
  };
  // Lookup keys: `column = expression` with no column of the table in the expression (one of
  // the left side, or a constant). A table read by several columns takes every such pair, as
  // Flink does; one read by a single column takes the first, and checks the others.
  const many = connector.lookupRows !== undefined;
  const keys: { column: number; expr: Expr }[] = [];
  const residual: Expr[] = [];
  for (const written of conjuncts(item.on)) {
    compilePredicate(written, scope, 'join condition');
    const part = asFlinkLooksUp(written, sideOf);
    if ((many || keys.length === 0) && part.kind === 'binary' && part.op === '=') {
      const pairs: [Expr, Expr][] = [
        [part.left, part.right],
        [part.right, part.left],
      ];
      const found = pairs.find(([d, l]) => dimColumnOf(d) !== undefined && !sideOf(l).dim);
      const column = found === undefined ? undefined : (dimColumnOf(found[0]) as number);
      if (found !== undefined && !keys.some((k) => k.column === column)) {
        keys.push({ column: column as number, expr: found[1] });
        continue;
      }
    }
    residual.push(part);
  }
  if (keys.length === 0)
    return sqlError(
      `a lookup join needs an equality between a column of '${table.name}' and an expression of the other side`,
      item.on?.at ?? item.at,
    );
  const keyFns = keys.map((key) => {
    const keyColumn = table.columns[key.column] as (typeof table.columns)[number];
    const keyType = keyColumn.type;
    if (!isInteger(keyType) && !isCharacterString(keyType) && keyType.kind !== 'BOOLEAN')
      sqlError(
        `lookup key '${keyColumn.name}' is ${formatType(keyType)}; Weir looks rows up by integer, string or BOOLEAN columns`,
        key.expr.at,
      );
    return lookupKey(key.expr, leftScope, keyType);
  });
  const keyNames = keys.map(
    (k) => (table.columns[k.column] as (typeof table.columns)[number]).name,
  );
  const nulls: Row = new Array<unknown>(dimColumns.length).fill(null);
  // An outer join checks the other conditions on the two rows, before any joined row is built;
  // so does a join of several rows per key, on each of them.
  const matches =
    (outer || many) && residual.length > 0
      ? twoRowPredicate(residual, scope, leftWidth)
      : undefined;
  const retry = <R>(maxRetries: number | undefined) =>
    maxRetries === undefined || maxRetries === 0
      ? {}
      : {
          retry: AsyncRetry.fixedDelay<R>({
            maxAttempts: maxRetries + 1,
            delayMs: RETRY_DELAY_MS,
          }),
        };
  let join: (rows: JoinedRow) => DataStream<Row>;
  if (connector.lookupRows !== undefined) {
    const source = connector.lookupRows(table, keyNames);
    // Any NULL in the key looks nothing up (Flink skips a lookup with a NULL key).
    const key = (l: Row): Key | null => {
      const values = keyFns.map((f) => f(l));
      return values.includes(null) ? null : valuesKey(values);
    };
    const common = {
      key,
      ...(source.cache === undefined ? {} : { cache: source.cache }),
      ...retry<Row[]>(source.maxRetries),
    };
    const fill = computed;
    join = (rows) => {
      /** The joined rows of a left row with its key's rows that meet the other conditions. */
      const joined = (l: Row, found: readonly Row[] | null, out: Row[]): Row[] => {
        for (const row of found ?? []) {
          const d = fill === undefined ? row : fill([...row]);
          if (matches === undefined || matches(l, d)) out.push(rows(l, d));
        }
        if (outer && out.length === 0) out.push(rows(l, nulls));
        return out;
      };
      return left.stream
        .lookupJoin(source.table, {
          ...common,
          join: 'left',
          select: (l: Row, found: readonly Row[] | null): Row[] => joined(l, found, []),
        })
        .flatMap(spread)
        .name(`lookup join ${table.name}: rows`);
    };
  } else {
    const source = (connector.lookup as NonNullable<typeof connector.lookup>)(
      table,
      keyNames[0] as string,
    );
    const common = {
      key: keyFns[0] as (row: Row) => Key | null,
      ...(source.cache === undefined ? {} : { cache: source.cache }),
      ...retry<Row>(source.maxRetries),
    };
    /** The join whose output rows `rows` writes from the left row and the table's row. */
    join = (rows) => {
      if (!outer) return left.stream.lookupJoin(source.table, { ...common, select: rows });
      return left.stream.lookupJoin(source.table, {
        ...common,
        join: 'left',
        // A row whose match fails the other conditions is padded, as an outer join does.
        select: (l: Row, d: Row | null): Row =>
          d === null || (matches !== undefined && !matches(l, d)) ? rows(l, nulls) : rows(l, d),
      });
    };
  }
  const relation = new TwoRowJoinRelation(scope.columns, join, leftWidth);
  if (outer || many || residual.length === 0) return relation;
  return {
    stream: relation.stream.filter(compileConjunction(residual, scope)).name('join condition'),
    columns: scope.columns,
  };
}

/**
 * `l IS NOT DISTINCT FROM d` between an expression of the left side and one of the table is a
 * key pair for Flink's lookup join, which looks nothing up when a key is NULL (its generated
 * lookup skips NULL arguments: NULL-safe lookup keys are not supported there) and checks the
 * pairs it does not look up by as `=`. So it joins as `l = d` does, which is what it becomes
 * here; any other condition is kept as written.
 */
function asFlinkLooksUp(
  part: Expr,
  sideOf: (e: Expr) => { readonly left: boolean; readonly dim: boolean },
): Expr {
  const equality = keyEquality(part);
  if (equality === undefined || !equality.nullSafe) return part;
  const [left, right] = equality.operands;
  const a = sideOf(left);
  const b = sideOf(right);
  const pair = (a.left && !a.dim && b.dim && !b.left) || (a.dim && !a.left && b.left && !b.dim);
  return pair ? { kind: 'binary', op: '=', left, right, at: part.at } : part;
}

/** Emits each of a left row's joined rows. */
function spread(rows: Row[], out: Collector<Row>): void {
  for (const row of rows) out.collect(row);
}

/**
 * What `asOf` names on `left`: its processing-time attribute (a lookup join), its event-time
 * attribute (a temporal join), or neither (refused, with its position).
 */
export function asOfAttribute(asOf: Expr, left: Relation): 'proctime' | 'rowtime' {
  if (asOf.kind === 'column') {
    const r = new Scope(left.columns).resolve(asOf.path, asOf.at);
    if (r.fields.length === 0 && r.column.proctime === true) return 'proctime';
    if (r.fields.length === 0 && r.column.rowtime) return 'rowtime';
  }
  return sqlError(
    'FOR SYSTEM_TIME AS OF must name a time attribute of the left side: its rowtime (a temporal join) or a PROCTIME() column (a lookup join)',
    asOf.at,
  );
}

/** `FOR SYSTEM_TIME AS OF` must name a processing-time attribute of the left side. */
function checkAsOf(asOf: Expr, leftScope: Scope, table: string): void {
  const r = asOf.kind === 'column' ? leftScope.resolve(asOf.path, asOf.at) : undefined;
  if (r?.fields.length === 0 && r.column.proctime === true) return;
  if (r?.fields.length === 0 && r.column.rowtime)
    sqlError(
      `FOR SYSTEM_TIME AS OF an event-time attribute (a temporal join of '${table}') is not supported by Weir SQL yet; lookup joins take a processing-time attribute (PROCTIME())`,
      asOf.at,
    );
  sqlError(
    `FOR SYSTEM_TIME AS OF must name a processing-time attribute of the left side (a column computed as PROCTIME())`,
    asOf.at,
  );
}

/** The left row's lookup key, converted to the key column's type; NULL matches no row. */
function lookupKey(e: Expr, scope: Scope, type: LogicalType): (row: Row) => Key | null {
  const g = new CodeGen();
  const value = coerce(
    g,
    compile(e, { scope, g }),
    withNullability(type, true),
    e.at,
    'lookup key',
  );
  return g.function<(row: Row) => Key | null>(`return ${value.code};`);
}

function conjunction(parts: readonly Expr[]): Expr {
  return parts.reduce((l, r): Expr => ({ kind: 'binary', op: 'AND', left: l, right: r, at: l.at }));
}

function compileConjunction(parts: readonly Expr[], scope: Scope): (row: Row) => boolean {
  return compilePredicate(conjunction(parts), scope, 'join condition');
}
