/**
 * Event-time temporal joins: `FROM o [LEFT] JOIN v FOR SYSTEM_TIME AS OF o.rowtime ON o.k = v.pk`
 * against a versioned table (a table with a PRIMARY KEY and a WATERMARK, whose rows change:
 * `upsert-kafka`, `postgres-cdc`, `debezium-json`), or a versioned view (the last row per key
 * by event time of an append-only table, Flink's deduplication view). Planned onto the
 * DataStream API's temporal join: each left row waits until the watermark passes its rowtime, then joins the version of
 * its key valid at that time; versions older than the one valid at the watermark are dropped.
 * The ON condition must equate the whole primary key with left-side expressions (`=`, or
 * `IS NOT DISTINCT FROM`, where a NULL matches the NULL-keyed version); further conditions
 * drop the joined row (INNER) or pad it with NULLs (LEFT), as Flink's join condition does. A
 * changing left side joins change by change, each keeping its kind (Flink's temporal join
 * emits the probe row's RowKind).
 */
import type { Change } from '../../core/changelog.js';
import type { Json } from '../../core/snapshot.js';
import type { StateSerializer } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';
import { compilePredicate, compileScalar } from '../expressions/compile.js';
import { Scope } from '../expressions/scope.js';
import type { Expr, FromItem } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import { formatType, withNullability } from '../types/logical-type.js';
import { collectDefined } from './calc.js';
import { noteChangelogRole } from './changelog-plan.js';
import { changesOf, isUpdating, retracting, updatingRelation } from './changelog-relation.js';
import { withEventTime } from './event-time.js';
import { contains } from './expr-tools.js';
import { and, conjuncts } from './join-planner.js';
import { keyEquality } from './key-equality.js';
import type { Relation } from './relation.js';
import { columnPositions, rowKeyOf, valuesKey } from './row-key.js';
import { ROW_SERIALIZER } from './row-serializer.js';

type JoinItem = Extract<FromItem, { kind: 'join' }>;
type TableItem = Extract<FromItem, { kind: 'table' }>;

/**
 * Plans `item`, whose right side is `FOR SYSTEM_TIME AS OF`; `planFrom` plans an input,
 * `primaryKey` gives the PRIMARY KEY of a catalog table (undefined for a view or a table
 * without one).
 */
export function planTemporalJoin(
  item: JoinItem,
  planFrom: (item: FromItem) => Relation,
  primaryKey: (name: string, at: SourcePosition) => readonly string[] | undefined,
): Relation {
  const versioned = item.right as TableItem;
  const asOf = versioned.asOf as Expr;
  const name = versioned.alias ?? versioned.name;
  if (item.type !== 'INNER' && item.type !== 'LEFT')
    sqlError(
      `a temporal join (FOR SYSTEM_TIME AS OF) is an INNER or LEFT JOIN, not ${item.type}`,
      item.at,
    );
  const left = planFrom(item.left);
  const right = planFrom({ ...versioned, asOf: undefined });
  // A table's declared key, or a versioned view's: the key of the last row per key by event
  // time (ROW_NUMBER() OVER (PARTITION BY k ORDER BY rowtime DESC) = 1), as Flink derives it.
  const key =
    primaryKey(versioned.name, versioned.at) ??
    (right.changes === undefined ? undefined : right.upsertKey?.map((i) => right.columns[i]!.name));
  if (key === undefined || key.length === 0)
    sqlError(
      `FOR SYSTEM_TIME AS OF needs a versioned table: '${versioned.name}' has no PRIMARY KEY (...) NOT ENFORCED, nor is it a view keeping the last row per key by event time (ROW_NUMBER() OVER (PARTITION BY key ORDER BY rowtime DESC) = 1)`,
      versioned.at,
    );
  if (!right.columns.some((c) => c.rowtime))
    sqlError(
      `FOR SYSTEM_TIME AS OF needs a versioned table: '${versioned.name}' has no event-time attribute (declare a WATERMARK)`,
      versioned.at,
    );
  const leftScope = new Scope(left.columns);
  const time = asOf.kind === 'column' ? leftScope.resolve(asOf.path, asOf.at) : undefined;
  if (time === undefined || time.fields.length > 0 || !time.column.rowtime)
    sqlError(
      "FOR SYSTEM_TIME AS OF must name the left side's event-time attribute (a column with a WATERMARK, e.g. o.order_time); processing-time lookup joins are planned elsewhere",
      asOf.at,
    );

  const leftWidth = left.columns.length;
  const scope = new Scope([...left.columns, ...right.columns]);
  const pkPositions = columnPositions(key, right.columns, `PRIMARY KEY of '${versioned.name}':`);
  const probeKeys = new Map<number, Expr>();
  /** Key columns equated by `IS NOT DISTINCT FROM`: a NULL probe finds the NULL-keyed version. */
  const nullSafe = new Set<number>();
  const leftOnly: Expr[] = [];
  const residual: Expr[] = [];
  const onRight = (e: Expr): number | undefined => {
    if (e.kind !== 'column') return undefined;
    const r = scope.resolve(e.path, e.at);
    return r.index >= leftWidth && r.fields.length === 0 ? r.index - leftWidth : undefined;
  };
  const onlyLeft = (e: Expr): boolean =>
    !contains(e, (x) => x.kind === 'column' && scope.resolve(x.path, x.at).index >= leftWidth);
  for (const part of conjuncts(item.on)) {
    compilePredicate(part, scope, 'join condition');
    const equality = keyEquality(part);
    if (equality !== undefined) {
      const [a, b] = equality.operands;
      const [column, other] = onRight(b) !== undefined ? [b, a] : [a, b];
      const at = onRight(column);
      // A key column equated twice keys the join by its first equality; the others filter.
      if (at !== undefined && pkPositions.includes(at) && !probeKeys.has(at) && onlyLeft(other)) {
        probeKeys.set(at, other);
        if (equality.nullSafe) nullSafe.add(at);
        continue;
      }
    }
    if (onlyLeft(part)) leftOnly.push(part);
    else residual.push(part);
  }
  const missing = pkPositions.filter((p) => !probeKeys.has(p));
  if (missing.length > 0)
    sqlError(
      `a temporal join's condition must equate the whole primary key (${key.join(', ')}) of '${versioned.name}' with the left side; missing: ${missing.map((p) => right.columns[p]?.name).join(', ')}`,
      item.on?.at ?? item.at,
    );
  const probeFns = pkPositions.map((p) => {
    const probe = compileScalar(probeKeys.get(p) as Expr, leftScope);
    const column = right.columns[p] as (typeof right.columns)[number];
    const scale = (t: typeof probe.type) => (t.kind === 'DECIMAL' ? t.scale : -1);
    if (scale(probe.type) !== scale(column.type))
      sqlError(
        `temporal join key of type ${formatType(probe.type)} against ${formatType(column.type)} is not supported yet; CAST it to the key's type`,
        (probeKeys.get(p) as Expr).at,
      );
    return probe.fn;
  });
  // A left row with a NULL key matches no version (SQL's NULL = NULL is not true), unless the
  // key is NULL-safe: then it is the NULL-keyed version's key (a versioned view's key may be
  // NULL; a PRIMARY KEY is not), as Flink's temporal join keys both sides by the same values.
  const noMatch = '\u0000no key';
  const strict = pkPositions.map((p) => !nullSafe.has(p));
  const probeKey = (row: Row) => {
    const values = probeFns.map((f) => f(row));
    for (let i = 0; i < values.length; i++)
      if (values[i] === null && strict[i] === true) return noMatch;
    return valuesKey(values);
  };
  // An update's -U holds the old row at its old rowtime: the +U that follows starts the new
  // version, so the versions are the table's +I, +U and -D changes.
  const changes = changesOf(right).filter((c) => c.kind !== '-U');
  noteChangelogRole(changes, { kind: 'drop-update-before' });
  const versions = changes.materialize(rowKeyOf(pkPositions), { serializer: ROW_SERIALIZER });
  const type = item.type === 'LEFT' ? 'left' : 'inner';
  const nulls: Row = new Array<unknown>(right.columns.length).fill(null);
  // Left-only conditions of an INNER join drop left rows before they wait; every other
  // condition is checked on the joined row, which a LEFT join pads when it fails.
  const before = type === 'inner' ? leftOnly : [];
  const after = type === 'inner' ? residual : [...leftOnly, ...residual];
  const keep =
    before.length === 0
      ? undefined
      : compilePredicate(and(before, item.at) as Expr, leftScope, 'join condition');
  const check =
    after.length === 0
      ? undefined
      : compilePredicate(and(after, item.at) as Expr, scope, 'join condition');
  /** The joined row of a left row and its version (null: none), or undefined when dropped. */
  const joined = (l: Row, version: Row | null): Row | undefined => {
    const row = [...l, ...(version ?? nulls)];
    if (version === null || check === undefined || check(row)) return row;
    return type === 'left' ? [...l, ...nulls] : undefined;
  };
  const rightColumns = right.columns.map((c) => ({
    ...c,
    type: type === 'left' ? withNullability(c.type, true) : c.type,
    rowtime: false,
  }));
  const label = `temporal join ${name}`;

  if (isUpdating(left)) {
    // Each change waits for the watermark to pass its rowtime and joins as an insert would,
    // keeping its kind; an upsert input is normalized first, so that its deletes hold rows.
    if (left.columns[time.index]?.restamp === true)
      sqlError(
        'a temporal join of a changing input by a rowtime its rows do not carry is not supported by Weir SQL yet',
        asOf.at,
      );
    let probes = retracting(changesOf(left));
    if (keep !== undefined) probes = probes.filterRows(keep);
    const rows = probes
      .temporalJoin(versions, {
        probeKey: (c: Change<Row>) => probeKey(c.value),
        type,
        probeSerializer: changeSerializer(ROW_SERIALIZER),
      })
      .flatMap(
        collectDefined(([c, version]: readonly [Change<Row>, Row | null]) => {
          const row = joined(c.value, version);
          return row === undefined ? undefined : { kind: c.kind, value: row };
        }),
      )
      .name(label)
      .asChangelog('retract');
    return updatingRelation(rows, [...left.columns, ...rightColumns], label);
  }
  // The left rows wait for the watermark to pass the time they carry: that of the AS OF column.
  const probing = withEventTime(left, time.index);
  let probes = probing.stream;
  if (keep !== undefined) probes = probes.filter(keep).name('temporal join input filter');
  const rows = probes
    .temporalJoin(versions, { probeKey, type, probeSerializer: ROW_SERIALIZER })
    .flatMap(collectDefined(([l, version]: readonly [Row, Row | null]) => joined(l, version)))
    .name(label);
  // The left rowtime stays the event-time attribute: rows leave with their own time.
  return { stream: rows, columns: [...probing.columns, ...rightColumns] };
}

/** A change checkpointed as its kind and its row in `row`'s encoding. */
function changeSerializer(row: StateSerializer<Row>): StateSerializer<Change<Row>> {
  return {
    id: `weir.change(${row.id})`,
    version: row.version,
    toJson: (c) => ({ kind: c.kind, row: row.toJson(c.value) }),
    fromJson: (json, written) => {
      const c = json as { kind: Change<Row>['kind']; row: Json };
      return { kind: c.kind, value: row.fromJson(c.row, written) };
    },
  };
}
