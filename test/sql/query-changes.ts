/** Runs SQL queries over an in-memory table in one job and returns each query's changes. */
import { materialize } from '../../bench/nexmark/weir-job.js';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';

export interface InMemoryTable<T> {
  readonly name: string;
  /** Rows in arrival order, one source subtask. */
  readonly rows: readonly T[];
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly watermark: { readonly column: string; readonly expression: string };
}

export async function queryChanges<T>(
  table: InMemoryTable<T>,
  queries: readonly string[],
  options: {
    readonly parallelism: number;
    readonly batchSize: number;
    /** Statements (`SET ...`) run before the queries are planned. */
    readonly settings?: string;
  },
): Promise<Change<Row>[][]> {
  const env = new StreamEnvironment({
    parallelism: options.parallelism,
    batchSize: options.batchSize,
  });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream(table.name, env.fromArray([...table.rows]), {
    columns: table.columns,
    watermark: table.watermark,
  });
  if (options.settings !== undefined) tEnv.executeSql(options.settings);
  const sinks = queries.map((q) => {
    const sink = new CollectSink<Change<Row>>();
    tEnv.sqlQuery(q).toChangelogStream().sinkTo(sink);
    return sink;
  });
  await env.execute(`queries over ${table.name}`);
  return sinks.map((s) => s.values);
}

/** Runs `ddl` (a CREATE TABLE over a bounded source) and returns the changes of `query`. */
export async function readBack(ddl: string, query: string): Promise<Change<Row>[]> {
  const env = new StreamEnvironment();
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl);
  const sink = new CollectSink<Change<Row>>();
  tEnv.sqlQuery(query).toChangelogStream().sinkTo(sink);
  await env.execute('read back');
  return sink.values;
}

/**
 * Runs `queries` in one job after the script `setup` (views over VALUES, SET), and returns each
 * query's changelog applied to a table (its rows as sorted JSON texts) and its number of changes.
 */
export async function finalRowsAndChanges(
  setup: string,
  queries: readonly string[],
  options: { readonly parallelism?: number; readonly batchSize?: number },
): Promise<{ rows: string[][]; changes: number[] }> {
  const env = new StreamEnvironment(options);
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(setup);
  const sinks = queries.map((sql) => {
    const table = tEnv.sqlQuery(sql);
    const sink = new CollectSink<Change<unknown[]>>();
    table.toChangelogStream().sinkTo(sink);
    return { table, sink };
  });
  await env.execute('final rows');
  return {
    rows: sinks.map(({ table, sink }) =>
      materialize(sink.values, (row) => JSON.stringify(table.toJson(row))).sort(),
    ),
    changes: sinks.map(({ sink }) => sink.values.length),
  };
}

/** A VIEW `t (k, v)` over VALUES of INT cells, NULL where a cell is null. */
export function valuesView(rows: readonly (readonly [number | null, number | null])[]): string {
  const cell = (c: number | null) => (c === null ? 'CAST(NULL AS INT)' : String(c));
  const values = rows.map(([k, v]) => `(${cell(k)}, ${cell(v)})`).join(', ');
  return `CREATE TEMPORARY VIEW t AS SELECT EXPR$0 AS k, EXPR$1 AS v FROM (VALUES ${values});`;
}

/** {@link finalRowsAndChanges}' rows alone. */
export async function finalRows(
  setup: string,
  queries: readonly string[],
  parallelism: number,
): Promise<string[][]> {
  return (await finalRowsAndChanges(setup, queries, { parallelism })).rows;
}
