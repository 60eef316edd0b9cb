/**
 * Runs a Nexmark query's SQL text (the Flink peer's source.sql and queries/q*.sql, verbatim) on
 * Weir SQL over the generated events, and measures how long planning took.
 */
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { type Sink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { nexmarkQueryPartsForWeir, nexmarkSourceSql } from './sql-texts.js';

/**
 * The table options the Flink peer's harness sets (the reference benchmark's configuration),
 * so both engines plan the texts alike. `miniBatch: false` leaves them out.
 */
export function nexmarkTableOptions(miniBatch: boolean): string {
  if (!miniBatch) return '';
  return [
    "SET 'table.exec.mini-batch.enabled' = 'true';",
    "SET 'table.exec.mini-batch.allow-latency' = '2s';",
    "SET 'table.exec.mini-batch.size' = '50000';",
  ].join('\n');
}

/**
 * Plans query `name` into `sink`, runs it, and returns the planning time (parse to physical
 * plan). An updating query (GROUP BY, regular join, Top-N) gives the sink its changes, as
 * Flink's blackhole takes them.
 */
export async function runSqlOnWeir(
  name: string,
  config: Partial<NexmarkConfig>,
  parallelism: number,
  sink: Sink<unknown>,
  miniBatch = true,
): Promise<{ planningMs: number }> {
  const { setup, query } = nexmarkQueryPartsForWeir(name);
  const started = performance.now();
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  const options = nexmarkTableOptions(miniBatch);
  if (options !== '') tEnv.executeSql(options);
  tEnv.executeSql(nexmarkSourceSql(config));
  await tEnv.loadFunctionModules(setup);
  if (setup !== '') tEnv.executeSql(setup);
  const table = tEnv.sqlQuery(query);
  if (table.changelogMode === 'insert-only') table.toDataStream().sinkTo(sink);
  else table.toChangelogStream().sinkTo(sink);
  // The physical plan too, as the job builds it when it starts.
  env.explain();
  const planningMs = performance.now() - started;
  await env.execute(`nexmark sql ${name}`);
  return { planningMs };
}
