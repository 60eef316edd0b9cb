/**
 * Runs the MATCH_RECOGNIZE cases on Weir SQL (over an in-memory table with the case's
 * watermark) and on Flink SQL through the peer's RowsQueryRunner, each giving rows as JSON.
 */
import { writeFileSync } from 'node:fs';
import type { Json } from '../../../src/core/snapshot.js';
import {
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkStrategy,
} from '../../../src/core/watermarks.js';
import { CollectSink, StreamEnvironment } from '../../../src/index.js';
import { Catalog, type CatalogTable } from '../../../src/sql/catalog/catalog.js';
import type { Row } from '../../../src/sql/connectors/connector.js';
import { compileScalar } from '../../../src/sql/expressions/compile.js';
import { Scope } from '../../../src/sql/expressions/scope.js';
import { parseExpression, parseScript } from '../../../src/sql/parser/parser.js';
import { planQuery } from '../../../src/sql/planner/query-planner.js';
import { type LogicalType, T } from '../../../src/sql/types/logical-type.js';
import { toJsonValue } from '../../../src/sql/types/values.js';
import { runFlinkSqlRunner } from '../flink-sql-runner.js';
import type { ColumnType, MatchCase, RowsTable } from './cases.js';

/** A case's outcome: its rows as JSON text (sorted), or that it was refused. */
export type CaseResult = { readonly rows: string[] } | { readonly error: string };

const TYPES: Record<ColumnType, LogicalType> = {
  STRING: T.string(),
  INT: T.int('INTEGER'),
  BIGINT: T.bigint(),
  DOUBLE: T.double(),
  BOOLEAN: T.boolean(),
  'TIMESTAMP(3)': T.timestamp(3),
};

/** The largest WATERMARK value seen, emitted periodically (as Flink's generated watermarks). */
class MaxWatermark implements WatermarkGenerator<Row> {
  private max = Number.NEGATIVE_INFINITY;
  constructor(
    private readonly expr: (row: Row) => unknown,
    private readonly eager: boolean,
  ) {}
  onEvent(row: Row, _timestamp: number, output: WatermarkOutput): void {
    const w = this.expr(row);
    if (typeof w === 'number' && w > this.max) {
      this.max = w;
      if (this.eager) output.emitWatermark(w);
    }
  }
  onPeriodicEmit(output: WatermarkOutput): void {
    if (Number.isFinite(this.max)) output.emitWatermark(this.max);
  }
  snapshot(): Json {
    return Number.isFinite(this.max) ? this.max : null;
  }
  restore(state: Json): void {
    if (typeof state === 'number') this.max = state;
  }
}

function catalogTable(table: RowsTable): CatalogTable {
  const at = { line: 1, column: 1 };
  const rowtime = table.watermark.trim().split(/\s+/)[0] as string;
  return {
    kind: 'table',
    name: table.name,
    columns: table.columns.map(([name, type]) => ({
      name,
      type: TYPES[type],
      computed: undefined,
    })),
    watermark: { column: rowtime, expr: parseExpression(table.watermark) },
    primaryKey: undefined,
    options: new Map(),
    connector: 'rows',
    at,
  };
}

const sorted = (rows: string[]): string[] => [...rows].sort();

/**
 * Runs a case on Weir SQL at `parallelism`. With `eagerWatermarks` the watermark follows every
 * row at once (so rows behind it are late), otherwise it is emitted periodically as Flink's.
 */
export async function runOnWeir(
  c: MatchCase,
  parallelism: number,
  options: { readonly eagerWatermarks?: boolean } = {},
): Promise<CaseResult> {
  const env = new StreamEnvironment({ parallelism });
  const table = catalogTable(c.table);
  const catalog = new Catalog();
  catalog.register(table, false, table.at);
  const columns = table.columns.map((col) => ({
    name: col.name,
    type: col.type,
    qualifier: table.name,
    rowtime: col.name === table.watermark?.column,
  }));
  const rowtime = columns.findIndex((col) => col.rowtime);
  const watermark = compileScalar(table.watermark?.expr as never, new Scope(columns)).fn;
  const stream = env
    .fromArray(c.table.rows.map((r) => [...r]) as Row[], c.table.name)
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forGenerator<Row>(
        () => new MaxWatermark(watermark, options.eagerWatermarks === true),
      ).withTimestampAssigner((row) => row[rowtime] as number),
    );
  const statement = parseScript(c.sql)[0];
  if (statement?.kind !== 'query') throw new Error(`${c.name}: not a query`);
  let relation: ReturnType<typeof planQuery>;
  try {
    relation = planQuery(statement.query, {
      env,
      catalog,
      ctes: new Map(),
      sources: new Map([[c.table.name, { stream, columns }]]),
    });
  } catch (e) {
    return { error: (e as Error).message };
  }
  const sink = new CollectSink<Row>();
  relation.stream.sinkTo(sink);
  await env.execute(`match-recognize ${c.name}`);
  const types = relation.columns.map((col) => col.type);
  return {
    rows: sorted(
      sink.values.map((row) =>
        JSON.stringify(row.map((v, i) => toJsonValue(v, types[i] as LogicalType))),
      ),
    ),
  };
}

/** Flink's rows for `cases`, in order, from one run of the peer's RowsQueryRunner. */
export async function runOnFlink(
  cases: readonly MatchCase[],
  timeoutMs: number,
): Promise<Map<string, CaseResult>> {
  return parseFlinkLines(await runFlinkSqlRunner('weir.sql.RowsQueryRunner', cases, timeoutMs));
}

/** The runner's output (or a golden file) by case name. */
export function parseFlinkLines(text: string): Map<string, CaseResult> {
  const results = new Map<string, CaseResult>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const parsed = JSON.parse(line) as { name: string; rows?: unknown[][]; error?: string };
    results.set(
      parsed.name,
      parsed.rows === undefined
        ? { error: parsed.error ?? 'error' }
        : { rows: sorted(parsed.rows.map((r) => JSON.stringify(r))) },
    );
  }
  return results;
}

/** Runs `cases` on the Flink peer and writes its answers to `file`, one JSON line per case. */
export async function recordFlinkGoldens(cases: readonly MatchCase[], file: string): Promise<void> {
  const results = await runOnFlink(cases, 20 * 60_000);
  const lines = cases.map((c) => {
    const r = results.get(c.name);
    if (r === undefined) throw new Error(`no result for ${c.name}`);
    return JSON.stringify(
      'error' in r
        ? { name: c.name, error: r.error }
        : { name: c.name, rows: r.rows.map((row) => JSON.parse(row) as unknown) },
    );
  });
  writeFileSync(file, `${lines.join('\n')}\n`);
  console.log(`${lines.length} cases -> ${file}`);
}
