/**
 * Runs SQL queries in one job and gives each query's final rows (its changelog applied), as
 * sorted JSON texts, with the job's plan: what the oracle tests of GROUP BY plans compare.
 */
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, type StreamEnvironment, type TableEnvironment } from '../../src/index.js';

export async function finalRows(
  env: StreamEnvironment,
  tEnv: TableEnvironment,
  queries: readonly string[],
): Promise<{ rows: string[][]; plan: string }> {
  const sinks = queries.map((sql) => {
    const table = tEnv.sqlQuery(sql);
    const sink = new CollectSink<Change<unknown[]>>();
    table.toChangelogStream().sinkTo(sink);
    return { table, sink };
  });
  const plan = env.explain();
  await env.execute('final rows');
  const rows = sinks.map(({ table, sink }) =>
    materialize(sink.values, (row) => JSON.stringify(table.toJson(row))).sort(),
  );
  return { rows, plan };
}
