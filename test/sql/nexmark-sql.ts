/** Runs the Nexmark SQL texts of the Flink peer, verbatim, on Weir SQL. */
import { nexmarkQueryPartsForWeir, nexmarkSourceSql } from '../../bench/nexmark/sql-texts.js';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, StreamEnvironment, type Table, TableEnvironment } from '../../src/index.js';

export { nexmarkQuerySql, nexmarkSourceSql } from '../../bench/nexmark/sql-texts.js';

/**
 * Runs query `name` over the events of `config`; its final rows as JSON arrays (as the peer
 * writes them): an updating query's changes applied to a multiset, as the peer's harness does.
 */
export async function collectSqlOnWeir(
  name: string,
  config: Partial<NexmarkConfig>,
  parallelism: number,
): Promise<string[]> {
  return (await collectSqlsOnWeir([name], config, parallelism)).get(name) as string[];
}

/** Like {@link collectSqlOnWeir} for several queries, run as one job over one source. */
export async function collectSqlsOnWeir(
  names: readonly string[],
  config: Partial<NexmarkConfig>,
  parallelism: number,
): Promise<Map<string, string[]>> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(nexmarkSourceSql(config));
  const collected: { name: string; table: Table; sink: CollectSink<Change<unknown[]>> }[] = [];
  for (const name of names) {
    // A query file may set up views, tables and functions before its SELECT (q12, q13, q14).
    const { setup, query } = nexmarkQueryPartsForWeir(name);
    await tEnv.loadFunctionModules(setup);
    if (setup !== '') tEnv.executeSql(setup);
    const table = tEnv.sqlQuery(query);
    const sink = new CollectSink<Change<unknown[]>>();
    table.toChangelogStream().sinkTo(sink);
    collected.push({ name, table, sink });
  }
  await env.execute(`nexmark sql ${names.join(' ')}`);
  return new Map(
    collected.map(({ name, table, sink }) => [
      name,
      materialize(sink.values, (row) => JSON.stringify(table.toJson(row))),
    ]),
  );
}

/**
 * Runs `queries` (over the Nexmark table of `config` and its views) as one job at parallelism
 * 1; each query's rows as JSON texts, in the order they came.
 */
export async function nexmarkQueryRows(
  config: Partial<NexmarkConfig>,
  queries: readonly string[],
): Promise<string[][]> {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 1 }));
  tEnv.executeSql(nexmarkSourceSql(config));
  const sinks = queries.map((sql) => {
    const table = tEnv.sqlQuery(sql);
    const sink = new CollectSink<unknown[]>();
    table.toDataStream().sinkTo(sink);
    return { table, sink };
  });
  await tEnv.env.execute('nexmark queries');
  return sinks.map(({ table, sink }) =>
    sink.values.map((row) => JSON.stringify(table.toJson(row))),
  );
}
