/**
 * What the window and the updating aggregation planners share: recognising aggregate calls,
 * expanding the SELECT list, comparing expressions by the columns they resolve to, and the
 * key of a row's group.
 */
import type { Key } from '../../core/key-groups.js';
import { rowText } from '../../runtime/operators/changelog/same-row.js';
import type { Row } from '../connectors/connector.js';
import { compileScalar } from '../expressions/compile.js';
import { AGGREGATE_FUNCTIONS } from '../expressions/functions.js';
import type { Scope, ScopeColumn } from '../expressions/scope.js';
import { userAggregate } from '../functions/user-functions.js';
import type { Expr, Select, SelectItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { formatType, type LogicalType } from '../types/logical-type.js';
import type { AggregateCallAst } from './aggregate-spec.js';
import { contains, normalizedKey } from './expr-tools.js';

const NULL_KEY = '\u0000null';

export function isAggregateCall(e: Expr): boolean {
  return (
    e.kind === 'call' &&
    (AGGREGATE_FUNCTIONS.has(e.name) || userAggregate(e.name) !== undefined) &&
    !e.over
  );
}

/**
 * Refuses a MULTISET where values are keyed or ordered (GROUP BY, PARTITION BY, ORDER BY):
 * equal MULTISETs need not hold their elements in one order, so their contents' text is no
 * key, and they have no order (Flink's TypeCheckUtils.isComparable excludes them).
 */
export function refuseMultiset(type: LogicalType, at: SourcePosition, where: string): void {
  if (type.kind === 'MULTISET')
    sqlError(`a MULTISET (${formatType(type)}) cannot be used in ${where}`, at);
}

/** Compiles GROUP BY or PARTITION BY keys, refusing a MULTISET among them. */
export function compileKeys(
  keys: readonly Expr[],
  scope: Scope,
  where: string,
): ReturnType<typeof compileScalar>[] {
  return keys.map((k) => {
    const key = compileScalar(k, scope);
    refuseMultiset(key.type, k.at, where);
    return key;
  });
}

function outputName(item: Extract<SelectItem, { kind: 'expr' }>, index: number): string {
  if (item.alias !== undefined) return item.alias;
  if (item.expr.kind === 'column') return item.expr.path[item.expr.path.length - 1] as string;
  return `EXPR$${index}`;
}

/** The SELECT list with `*` expanded, as expressions with output names. */
export function selectList(
  select: Select,
  columns: readonly ScopeColumn[],
): { expr: Expr; name: string }[] {
  const out: { expr: Expr; name: string }[] = [];
  select.items.forEach((item, i) => {
    if (item.kind === 'star') {
      const matching = columns.filter(
        (c) =>
          (item.qualifier === undefined || c.qualifier === item.qualifier) &&
          !c.name.startsWith('$'),
      );
      if (matching.length === 0) sqlError(`no columns match ${item.qualifier ?? ''}.*`, item.at);
      for (const c of matching) {
        out.push({
          expr: {
            kind: 'column',
            path: c.qualifier === undefined ? [c.name] : [c.qualifier, c.name],
            at: item.at,
          },
          name: c.name,
        });
      }
    } else out.push({ expr: item.expr, name: outputName(item, i) });
  });
  return out;
}

/**
 * Whether the SELECT list is the first of `columns` (by their names), in order: the row that
 * holds them then serves as it is, or cut to them, instead of a projection copying it.
 */
export function selectsLeadingColumns(
  items: readonly { readonly expr: Expr }[],
  columns: readonly { readonly name: string }[],
): boolean {
  return items.every(
    ({ expr }, i) =>
      expr.kind === 'column' && expr.path.length === 1 && expr.path[0] === columns[i]?.name,
  );
}

/** The key of a row's group: the value itself for one key, a string for several. */
export function groupKey(fns: readonly ((row: Row) => unknown)[]): (row: Row) => Key {
  if (fns.length === 0) return () => 0;
  if (fns.length === 1) {
    const f = fns[0] as (row: Row) => unknown;
    return (row) => {
      const v = f(row);
      if (v === null) return NULL_KEY;
      // An ARRAY, MAP, ROW or BYTES value keys by its contents (keys must be primitive).
      return typeof v === 'object' ? `\u0000${rowText(v)}` : (v as Key);
    };
  }
  // join() writes one flat string; `key +=` would make a rope (a V8 cons string) of every key
  // longer than 12 characters, which each lookup in keyed state must walk to hash and compare,
  // and which the state keeps as its tree of parts. The parts array is reused: the function
  // runs synchronously and join() copies.
  const parts = new Array<string>(fns.length);
  const joined = (values: readonly unknown[]): string => {
    for (let i = 0; i < values.length; i++) parts[i] = keyPart(values[i]);
    return parts.join('');
  };
  return internedKeys(fns, joined);
}

/** Keys an interning table holds before it starts again (so it stays bounded). */
const MAX_INTERNED_KEYS = 1 << 16;

/**
 * The key of several primitive columns, the same string object each time a group comes again:
 * found through one Map per column by the values themselves, it costs no string built per row,
 * and its hash, which V8 keeps in the string, is computed once for every lookup by it (in the
 * exchange, the mini-batch bundle and keyed state). A row with an ARRAY, MAP, ROW or BYTES key
 * column is keyed by `joined` as it comes, and so is every row once a full table saw fewer
 * repeated groups than new ones.
 */
function internedKeys(
  fns: readonly ((row: Row) => unknown)[],
  joined: (values: readonly unknown[]) => string,
): (row: Row) => string {
  const n = fns.length;
  const values = new Array<unknown>(n);
  let root = new Map<unknown, unknown>();
  let count = 0;
  let hits = 0;
  let interning = true;
  return (row) => {
    let primitive = interning;
    for (let i = 0; i < n; i++) {
      const v = (fns[i] as (row: Row) => unknown)(row);
      values[i] = v;
      if (typeof v === 'object' && v !== null) primitive = false;
    }
    if (!primitive) return joined(values);
    // From the last column: GROUP BY lists tend to end with the coarser columns (a day, a
    // channel), so the first levels hold few Maps.
    let level = root;
    for (let i = n - 1; i > 0; i--) {
      let next = level.get(values[i]) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(values[i], next);
      }
      level = next;
    }
    const last = values[0];
    let key = level.get(last) as string | undefined;
    if (key !== undefined) {
      hits++;
      return key;
    }
    key = joined(values);
    if (++count > MAX_INTERNED_KEYS) {
      // Groups that seldom come again within the table's size are keyed as they come.
      interning = hits >= count;
      root = new Map();
      count = 0;
      hits = 0;
    } else level.set(last, key);
    return key;
  };
}

/**
 * One column's part of a key of several: tagged by kind (`1` and `'1'` differ), NULL apart,
 * ended by \u0001. A string holding \u0000 or \u0001 is written as JSON (which escapes them) under
 * a tag of its own, so that no two rows' keys can meet; every other string as it is.
 */
function keyPart(v: unknown): string {
  if (v === null) return '\u0000\u0001';
  // By contents: String() of an array would join `['a,b']` and `['a', 'b']` into one key.
  if (typeof v === 'object') return `o${rowText(v)}\u0001`;
  if (typeof v !== 'string') return `v${String(v)}\u0001`;
  return v.includes('\u0000') || v.includes('\u0001')
    ? `e${JSON.stringify(v)}\u0001`
    : `s${v}\u0001`;
}

/**
 * The distinct aggregate calls of one query, each read back by the rewritten SELECT, HAVING
 * and ORDER BY through the column `$a<i>` of the aggregation's result.
 */
export class AggregateCalls {
  readonly calls: AggregateCallAst[] = [];
  private readonly index = new Map<string, number>();

  constructor(private readonly scope: Scope) {}

  /** The column that reads the result of `call`, registering the call the first time. */
  columnFor(call: Expr & { kind: 'call' }): Expr {
    if (call.args.some((a) => contains(a, isAggregateCall)))
      sqlError('aggregates cannot be nested', call.at);
    const key = normalizedKey(call, this.scope);
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.calls.length;
      this.calls.push(call as AggregateCallAst);
      this.index.set(key, i);
    }
    return { kind: 'column', path: [`$a${i}`], at: call.at };
  }
}
