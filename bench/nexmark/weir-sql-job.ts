/**
 * Runs a Nexmark query's SQL text (the Flink peer's source.sql and queries/q*.sql, verbatim) on
 * Weir SQL over the generated events, and measures how long planning took.
 */
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { type Sink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { nexmarkQueryPartsForWeir, nexmarkSourceSql } from './sql-texts.js';

/** Plans query `name` into `sink`, runs it, and returns the planning time (parse to physical plan). */
export async function runSqlOnWeir(
  name: string,
  config: Partial<NexmarkConfig>,
  parallelism: number,
  sink: Sink<unknown>,
): Promise<{ planningMs: number }> {
  const { setup, query } = nexmarkQueryPartsForWeir(name);
  const started = performance.now();
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(nexmarkSourceSql(config));
  await tEnv.loadFunctionModules(setup);
  if (setup !== '') tEnv.executeSql(setup);
  tEnv.sqlQuery(query).toDataStream().sinkTo(sink);
  // The physical plan too, as the job builds it when it starts.
  env.explain();
  const planningMs = performance.now() - started;
  await env.execute(`nexmark sql ${name}`);
  return { planningMs };
}
