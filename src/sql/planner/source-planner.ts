/**
 * A catalog table as a relation: the connector's physical rows, then the computed columns,
 * then event time: each row's timestamp is its rowtime column and the watermark is the
 * largest value of the WATERMARK expression seen (Flink's periodic watermark).
 */
import type { StreamEnvironment } from '../../api/stream-environment.js';
import type { Change } from '../../core/changelog.js';
import type { Json } from '../../core/snapshot.js';
import type { WatermarkGenerator, WatermarkOutput } from '../../core/watermarks.js';
import { WatermarkStrategy } from '../../core/watermarks.js';
import type { CatalogTable } from '../catalog/catalog.js';
import type { ChangelogSource, RecordScan, Row, SqlConnector } from '../connectors/connector.js';
import { sourceChangeCheck, sourceRowCheck } from '../connectors/not-null-columns.js';
import { connectorOf } from '../connectors/registry.js';
import { CodeGen } from '../expressions/code-gen.js';
import {
  compile,
  compileAppend,
  compileProjection,
  compileScalar,
} from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import type { Expr } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import { formatType, isTimestamp } from '../types/logical-type.js';
import { positional } from './calc.js';
import { updatingRelation } from './changelog-relation.js';
import { RecordScanPlan, recordExpression } from './record-scan.js';
import type { Relation } from './relation.js';
import { columnPositions, primaryKeyOf } from './row-key.js';
import { SourceRelation } from './source-reads.js';

/** The watermark of `WATERMARK FOR col AS expr`: the largest `expr` over the rows seen. */
class ExpressionWatermarks<T> implements WatermarkGenerator<T> {
  private max = Number.NEGATIVE_INFINITY;
  /** `expr` gets the record and its event time (the rowtime column's value). */
  constructor(private readonly expr: (value: T, rowtime: number) => unknown) {}
  onEvent(value: T, rowtime: number): void {
    const w = this.expr(value, rowtime);
    if (typeof w === 'number' && w > this.max) this.max = w;
  }
  onPeriodicEmit(output: WatermarkOutput): void {
    if (this.max !== Number.NEGATIVE_INFINITY) output.emitWatermark(this.max);
  }
  snapshot(): Json {
    return Number.isFinite(this.max) ? this.max : null;
  }
  restore(state: Json): void {
    if (typeof state === 'number') this.max = state;
  }
}

/** Environments a statement is planned in only to check it, never run (see {@link checkingOnly}). */
const CHECKING = new WeakSet<StreamEnvironment>();

/**
 * Marks `env` as one a statement is planned in only to be checked or explained (CREATE VIEW
 * plans its query once, so that a wrong view fails there; EXPLAIN plans into a scratch job): a
 * table made from a DataStream reads an empty stand-in there, since its stream lives in the
 * job's own environment.
 */
export function checkingOnly<E extends StreamEnvironment>(env: E): E {
  CHECKING.add(env);
  return env;
}

/** The rows of a table made from a DataStream, in that stream's own environment only. */
const DATASTREAM_CONNECTOR: SqlConnector = {
  name: 'datastream',
  options: [],
  source: (t, env) => {
    const bound = t.dataStream;
    if (bound !== undefined && bound.env !== env && CHECKING.has(env))
      return env.fromArray<Row>([]).name(`DataStream of table ${t.name}`);
    if (bound === undefined || bound.env !== env)
      sqlError(
        `table '${t.name}' comes from a DataStream of another job; it can only be read in that job`,
        t.at,
      );
    return bound.stream;
  },
};

export function tableColumns(table: CatalogTable): ScopeColumn[] {
  return table.columns.map((c) => ({
    name: c.name,
    type: c.type,
    qualifier: table.name,
    rowtime: table.watermark?.column === c.name,
    proctime: c.computed?.kind === 'call' && c.computed.name === 'PROCTIME',
  }));
}

/**
 * The function giving a row of the connector's stored columns the table's computed ones, or
 * undefined when it has none. It may append to the row it gets (a fresh row of the connector).
 */
export function computedColumnsOf(
  table: CatalogTable,
  columns: readonly ScopeColumn[] = tableColumns(table),
): ((row: Row) => Row) | undefined {
  const physical = table.columns.filter((c) => c.computed === undefined).length;
  if (physical === columns.length) return undefined;
  // Computed columns see the stored ones, in the connector's row (Flink allows no computed
  // column in another's expression), wherever the DDL declares them.
  const scope = new Scope(columns.filter((_, i) => table.columns[i]?.computed === undefined));
  const trailing = table.columns.slice(physical).every((c) => c.computed !== undefined);
  // The connector's rows are fresh and this function is their only reader: computed columns
  // after the stored ones are appended to each row rather than copied into a new one.
  return (
    trailing
      ? compileAppend(
          table.columns.slice(physical).map((c) => c.computed as NonNullable<typeof c.computed>),
          scope,
        )
      : compileProjection(
          table.columns.map(
            (c) => c.computed ?? { kind: 'column' as const, path: [c.name], at: table.at },
          ),
          scope,
        )
  ).fn;
}

/** `idleTimeoutMs`: `table.exec.source.idle-timeout`, after which a source without records is idle. */
export function planSource(
  table: CatalogTable,
  env: StreamEnvironment,
  idleTimeoutMs?: number,
): Relation {
  const connector = table.dataStream === undefined ? connectorOf(table) : DATASTREAM_CONNECTOR;
  if (
    connector.source === undefined &&
    connector.changelogSource === undefined &&
    connector.scan === undefined
  )
    sqlError(
      `connector '${connector.name}' can only be written to (INSERT INTO), not read`,
      table.at,
    );
  const columns = tableColumns(table);
  const rowtime = rowtimeOf(table, columns);
  if (connector.scan !== undefined) return planScan(table, connector.scan(table, env), columns);
  const computed = computedColumnsOf(table, columns);
  const changes = connector.changelogSource?.(table, env);
  if (changes !== undefined) {
    const check = connector.checksNotNull === true ? undefined : sourceChangeCheck(table);
    const checked =
      check === undefined
        ? changes
        : { ...changes, changes: changes.changes.map(check).name(`${table.name}: NOT NULL`) };
    return planChangelogSource(table, checked, columns, computed, rowtime, idleTimeoutMs);
  }
  if (connector.source === undefined)
    return sqlError(`connector '${connector.name}' has no source`, table.at);
  // NOT NULL columns (a PRIMARY KEY's) checked before any expression reads them.
  const check = connector.checksNotNull === true ? undefined : sourceRowCheck(table);
  const timed =
    rowtime === undefined
      ? undefined
      : WatermarkStrategy.forGenerator<Row>(
          () => new ExpressionWatermarks(rowtime.watermark),
        ).withTimestampAssigner((row) => row[rowtime.index] as number);
  const strategy = idleTimeoutMs === undefined ? timed : timed?.withIdleness(idleTimeoutMs);
  if (strategy !== undefined && connector.sourceWithEventTime !== undefined) {
    const finish =
      check === undefined || computed === undefined
        ? (check ?? computed)
        : (row: Row) => computed(check(row));
    return { stream: connector.sourceWithEventTime(table, env, finish, strategy), columns };
  }
  let stream = connector.source(table, env);
  if (check !== undefined) stream = stream.map(check).name(`${table.name}: NOT NULL`);
  if (computed !== undefined) stream = stream.map(computed).name(`${table.name}: computed columns`);
  if (strategy !== undefined) stream = stream.assignTimestampsAndWatermarks(strategy);
  return { stream, columns };
}

/**
 * A table read from its connector's records (see record-scan.ts): event time and watermarks
 * are computed from every record, then each reader converts the records itself.
 */
function planScan(table: CatalogTable, scan: RecordScan, columns: ScopeColumn[]): Relation {
  let records = scan.records;
  if (table.watermark !== undefined) {
    const index = columns.findIndex((c) => c.name === table.watermark?.column);
    const rowtime = recordExpression(table, scan, columns, positional(index, [], table.at));
    const { expr } = table.watermark;
    // `rowtime - INTERVAL ...` needs only the event time just assigned, not the record again.
    const ofRowtime = rowtimeFunction(expr, columns, index);
    const watermark =
      ofRowtime === undefined ? recordExpression(table, scan, columns, expr) : undefined;
    const strategy = WatermarkStrategy.forGenerator<unknown>(
      () =>
        new ExpressionWatermarks(
          ofRowtime === undefined
            ? (record: unknown) => watermark?.(record)
            : (_: unknown, time: number) => ofRowtime(time),
        ),
    ).withTimestampAssigner((record) => rowtime(record) as number);
    records = records.assignTimestampsAndWatermarks(strategy);
  }
  return new SourceRelation(new RecordScanPlan(table, scan, columns, records), columns);
}

/** `expr` as a function of the rowtime column's value, when it reads no other column. */
function rowtimeFunction(
  expr: Expr,
  columns: readonly ScopeColumn[],
  index: number,
): ((rowtime: number) => unknown) | undefined {
  let onlyRowtime = true;
  const g = new CodeGen();
  const read = (column: number, field: number | undefined): string => {
    if (column !== index || field !== undefined) onlyRowtime = false;
    return 'r';
  };
  const { code } = compile(expr, { scope: new Scope(columns), g, read });
  return onlyRowtime ? g.function<(rowtime: number) => unknown>(`return ${code};`) : undefined;
}

/** The rowtime column's position and the WATERMARK expression, checked. */
function rowtimeOf(
  table: CatalogTable,
  columns: readonly ScopeColumn[],
): { readonly index: number; readonly watermark: (row: Row) => unknown } | undefined {
  if (table.watermark === undefined) return undefined;
  const { column, expr } = table.watermark;
  const index = columns.findIndex((c) => c.name === column);
  const rowtime = columns[index];
  if (rowtime === undefined) sqlError(`WATERMARK FOR '${column}': no such column`, table.at);
  // As Flink: event time is milliseconds, so a rowtime has a precision of 0 to 3.
  if (!isTimestamp(rowtime.type) || rowtime.type.precision > 3)
    sqlError(
      `the rowtime column '${column}' must be TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p from 0 to 3, got ${formatType(rowtime.type)}`,
      table.at,
    );
  const watermark = compileScalar(expr, new Scope(columns));
  if (!isTimestamp(watermark.type) || watermark.type.precision > 3)
    sqlError(
      `the WATERMARK expression must give a TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p from 0 to 3, got ${formatType(watermark.type)}`,
      expr.at,
    );
  return { index, watermark: watermark.fn };
}

/**
 * A table whose rows change: the connector's changes with the computed columns added to each
 * change's row, event time from the rowtime column (a delete that holds only its key has no
 * rowtime and keeps the time the connector gave it: the Kafka record's timestamp, the commit
 * time), as an upsert changelog keyed by the PRIMARY KEY or a retract changelog.
 */
function planChangelogSource(
  table: CatalogTable,
  source: ChangelogSource,
  columns: ScopeColumn[],
  computed: ((row: Row) => Row) | undefined,
  rowtime: ReturnType<typeof rowtimeOf>,
  idleTimeoutMs: number | undefined,
): Relation {
  let changes = source.changes;
  if (computed !== undefined) {
    const fill = computed;
    changes = changes
      .map((c): Change<Row> => ({ kind: c.kind, value: fill(c.value) }))
      .name(`${table.name}: computed columns`);
  }
  if (rowtime !== undefined) {
    const { index, watermark } = rowtime;
    const strategy = WatermarkStrategy.forGenerator<Change<Row>>(
      () => new ExpressionWatermarks((c: Change<Row>) => watermark(c.value)),
    ).withTimestampAssigner((c, previous) => {
      const t = c.value[index];
      return typeof t === 'number' ? t : previous;
    });
    // `table.exec.source.idle-timeout`: a subtask without changes for that long is idle.
    changes = changes.assignTimestampsAndWatermarks(
      idleTimeoutMs === undefined ? strategy : strategy.withIdleness(idleTimeoutMs),
    );
  }
  const key = primaryKeyOf(table, columns, table.at);
  if (source.mode === 'upsert' && key === undefined)
    sqlError(
      `table '${table.name}' is an upsert changelog and needs a PRIMARY KEY (...) NOT ENFORCED`,
      table.at,
    );
  // A changelog source's PRIMARY KEY identifies its rows (Flink takes it as the upsert key).
  const upsertKey =
    table.primaryKey === undefined || table.primaryKey.length === 0
      ? undefined
      : columnPositions(table.primaryKey, columns, `PRIMARY KEY of '${table.name}':`, table.at);
  return updatingRelation(
    changes.asChangelog(source.mode, key),
    columns,
    `table '${table.name}'`,
    upsertKey,
  );
}
