/** Runs SQL queries over an in-memory table in one job and returns each query's changes. */
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
  options: { readonly parallelism: number; readonly batchSize: number },
): Promise<Change<Row>[][]> {
  const env = new StreamEnvironment(options);
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream(table.name, env.fromArray([...table.rows]), {
    columns: table.columns,
    watermark: table.watermark,
  });
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
