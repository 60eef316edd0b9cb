/**
 * A catalog table as a relation: the connector's physical rows, then the computed columns,
 * then event time: each row's timestamp is its rowtime column and the watermark is the
 * largest value of the WATERMARK expression seen (Flink's periodic watermark).
 */
import type { StreamEnvironment } from '../../api/stream-environment.js';
import type { Json } from '../../core/snapshot.js';
import type { WatermarkGenerator, WatermarkOutput } from '../../core/watermarks.js';
import { WatermarkStrategy } from '../../core/watermarks.js';
import type { CatalogTable } from '../catalog/catalog.js';
import type { Row, SqlConnector } from '../connectors/connector.js';
import { connectorOf } from '../connectors/registry.js';
import {
  compileAppend,
  compileFill,
  compileProjection,
  compileScalar,
} from '../expressions/compile.js';
import { Scope, type ScopeColumn } from '../expressions/scope.js';
import { sqlError } from '../sql-error.js';
import { formatType, isTimestamp } from '../types/logical-type.js';
import type { Relation } from './relation.js';

/** The watermark of `WATERMARK FOR col AS expr`: the largest `expr` over the rows seen. */
class ExpressionWatermarks implements WatermarkGenerator<Row> {
  private max = Number.NEGATIVE_INFINITY;
  constructor(private readonly expr: (row: Row) => unknown) {}
  onEvent(value: Row): void {
    const w = this.expr(value);
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

/** The rows of a table made from a DataStream, in that stream's own environment only. */
const DATASTREAM_CONNECTOR: SqlConnector = {
  name: 'datastream',
  options: [],
  source: (t, env) => {
    const bound = t.dataStream;
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

export function planSource(table: CatalogTable, env: StreamEnvironment): Relation {
  const connector = table.dataStream === undefined ? connectorOf(table) : DATASTREAM_CONNECTOR;
  if (connector.source === undefined)
    sqlError(
      `connector '${connector.name}' can only be written to (INSERT INTO), not read`,
      table.at,
    );
  const columns = tableColumns(table);
  const physical = table.columns.filter((c) => c.computed === undefined).length;
  let computed: ((row: Row) => Row) | undefined;
  if (physical < columns.length) {
    // Computed columns see the physical ones (Flink allows no computed column in another's expression).
    const scope = new Scope(columns.slice(0, physical));
    const trailing = table.columns.slice(physical).every((c) => c.computed !== undefined);
    // The connector's rows are fresh and this function is their only reader: computed columns
    // after the stored ones are appended to each row (or written into its slots) rather than
    // copied into a new one.
    const exprs = () =>
      table.columns.slice(physical).map((c) => c.computed as NonNullable<typeof c.computed>);
    computed = (
      !trailing
        ? compileProjection(
            table.columns.map(
              (c) => c.computed ?? { kind: 'column' as const, path: [c.name], at: table.at },
            ),
            scope,
          )
        : connector.slotsForComputed === true
          ? compileFill(exprs(), scope, physical)
          : compileAppend(exprs(), scope)
    ).fn;
  }
  // A connector with slots for the computed columns fills them in its own conversion step.
  const fused = computed !== undefined && connector.slotsForComputed === true;
  let stream = connector.source(table, env, fused ? computed : undefined);
  if (computed !== undefined && !fused)
    stream = stream.map(computed).name(`${table.name}: computed columns`);
  if (table.watermark !== undefined) {
    const { column, expr } = table.watermark;
    const index = columns.findIndex((c) => c.name === column);
    const rowtime = columns[index];
    if (rowtime === undefined) sqlError(`WATERMARK FOR '${column}': no such column`, table.at);
    if (!isTimestamp(rowtime.type))
      sqlError(
        `the rowtime column '${column}' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), got ${formatType(rowtime.type)}`,
        table.at,
      );
    const watermark = compileScalar(expr, new Scope(columns));
    if (!isTimestamp(watermark.type))
      sqlError(
        `the WATERMARK expression must give a TIMESTAMP, got ${formatType(watermark.type)}`,
        expr.at,
      );
    const strategy = WatermarkStrategy.forGenerator<Row>(
      () => new ExpressionWatermarks(watermark.fn),
    ).withTimestampAssigner((row) => row[index] as number);
    stream = stream.assignTimestampsAndWatermarks(strategy);
  }
  return { stream, columns };
}
