/**
 * Runs the differential suite's queries on Weir SQL (each its own job over the suite's tables
 * as DataStreams with their watermarks, in the case's session time zone) and on Flink SQL (the peer's DifferentialRunner, every
 * query in one JVM), each answer the final rows after applying the query's changelog.
 */
import { materialize } from '../../../bench/nexmark/weir-job.js';
import type { Change } from '../../../src/core/changelog.js';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../../src/index.js';
import { parseDecimal } from '../../../src/sql/types/decimal.js';
import { parseJsonExact } from '../../helpers/exact-json.js';
import { runFlinkSqlRunner } from '../flink-sql-runner.js';
import { type Answer, normalRows, type SuiteCase } from './suite.js';
import type { Cell, ColumnType, SuiteTable } from './tables.js';

/** A JSON cell as Weir holds it in a row (DECIMAL(10, 2) as its unscaled bigint). */
function weirValue(cell: Cell, type: ColumnType): unknown {
  if (cell === null || !type.startsWith('DECIMAL')) return cell;
  const unscaled = parseDecimal(String(cell), 2);
  if (unscaled === undefined) throw new Error(`not a DECIMAL(10, 2): ${cell}`);
  return unscaled;
}

function register(env: StreamEnvironment, tEnv: TableEnvironment, table: SuiteTable): void {
  const rows = table.rows.map((r) =>
    r.map((cell, i) => weirValue(cell, (table.columns[i] as readonly [string, ColumnType])[1])),
  );
  const [column] = table.watermark.trim().split(/\s+/);
  tEnv.fromDataStream(table.name, env.fromArray(rows, table.name), {
    columns: table.columns.map(([name, type]) => ({ name, type })),
    watermark: { column: column as string, expression: table.watermark },
  });
}

/** Runs one query on Weir SQL at `parallelism`; a refusal or a failed job is an error answer. */
export async function runOnWeir(
  c: SuiteCase,
  tables: readonly SuiteTable[],
  parallelism: number,
): Promise<Answer> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  for (const table of tables) register(env, tEnv, table);
  let table: ReturnType<TableEnvironment['sqlQuery']>;
  try {
    if (c.zone !== undefined) tEnv.executeSql(`SET 'table.local-time-zone' = '${c.zone}'`);
    table = tEnv.sqlQuery(c.sql);
  } catch (e) {
    return { error: (e as Error).message };
  }
  const sink = new CollectSink<Change<Row>>();
  table.toChangelogStream().sinkTo(sink);
  try {
    await env.execute(`sql differential ${c.name}`);
  } catch (e) {
    return { error: `run time: ${(e as Error).message}` };
  }
  const rows = materialize(sink.values, (row) => JSON.stringify(table.toJson(row)));
  return {
    updating: sink.values.some((change) => change.kind !== '+I'),
    rows: normalRows(rows.map((r) => JSON.parse(r) as unknown[])),
  };
}

/** Flink SQL's answers by case name, from one run of the peer's DifferentialRunner. */
export async function runOnFlink(
  cases: readonly SuiteCase[],
  tables: readonly SuiteTable[],
  timeoutMs: number,
): Promise<Map<string, Answer>> {
  const output = await runFlinkSqlRunner(
    'weir.sql.DifferentialRunner',
    { tables, cases },
    timeoutMs,
  );
  const answers = new Map<string, Answer>();
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    // Flink writes longs beyond 2^53 as exact digits; they are kept as strings, as Weir's toJson gives them.
    const parsed = parseJsonExact(line) as FlinkLine;
    answers.set(parsed.name, flinkAnswer(parsed));
  }
  return answers;
}

/** One line of the runner's output (and of the golden file, which adds the case's hash). */
export interface FlinkLine {
  readonly name: string;
  readonly hash?: string;
  readonly updating?: boolean;
  readonly rows?: unknown[][];
  readonly error?: string;
}

export function flinkAnswer(line: FlinkLine): Answer {
  return line.rows === undefined
    ? { error: line.error ?? 'error' }
    : { updating: line.updating === true, rows: normalRows(line.rows) };
}
