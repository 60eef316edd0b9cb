/**
 * Runs a Nexmark query's SQL text (the Flink peer's source.sql and queries/q*.sql, verbatim) on
 * Weir SQL over the generated events, and measures how long planning took.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { type Sink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { flinkPeerDir } from './flink-peer.js';

/** Where the peer's harness splices in the generator options. */
const OPTIONS_MARK = ['$', '{OPTIONS}'].join('');

function resources(): string {
  return join(flinkPeerDir(), 'src', 'main', 'resources', 'weir-nexmark');
}

/** source.sql with the generator options in its WITH clause, as the peer's harness writes it. */
function sourceSql(config: Partial<NexmarkConfig>): string {
  let options = '';
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    options += `,\n  '${key === 'maxEvents' ? 'events' : key}' = '${value}'`;
  }
  return readFileSync(join(resources(), 'source.sql'), 'utf8').replace(OPTIONS_MARK, options);
}

/** Plans query `name` into `sink`, runs it, and returns the planning time (parse to physical plan). */
export async function runSqlOnWeir(
  name: string,
  config: Partial<NexmarkConfig>,
  parallelism: number,
  sink: Sink<unknown>,
): Promise<{ planningMs: number }> {
  const query = readFileSync(join(resources(), 'queries', `${name}.sql`), 'utf8');
  const started = performance.now();
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(sourceSql(config));
  tEnv.sqlQuery(query).toDataStream().sinkTo(sink);
  // The physical plan too, as the job builds it when it starts.
  env.explain();
  const planningMs = performance.now() - started;
  await env.execute(`nexmark sql ${name}`);
  return { planningMs };
}
