/** Runs the Nexmark SQL texts of the Flink peer, verbatim, on Weir SQL. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flinkPeerDir } from '../../bench/nexmark/flink-peer.js';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { CollectSink, StreamEnvironment, TableEnvironment } from '../../src/index.js';

/** Where the harness splices in the generator options. */
const OPTIONS_MARK = ['$', '{OPTIONS}'].join('');

const resources = () => join(flinkPeerDir(), 'src', 'main', 'resources', 'weir-nexmark');

/** The peer's source.sql with the generator options appended to its WITH clause, as its harness does. */
export function nexmarkSourceSql(config: Partial<NexmarkConfig>): string {
  let options = '';
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    options += `,\n  '${key === 'maxEvents' ? 'events' : key}' = '${value}'`;
  }
  return readFileSync(join(resources(), 'source.sql'), 'utf8').replace(OPTIONS_MARK, options);
}

export function nexmarkQuerySql(name: string): string {
  return readFileSync(join(resources(), 'queries', `${name}.sql`), 'utf8');
}

/** Runs query `name` over the events of `config`; its rows as JSON arrays (as the peer writes them). */
export async function collectSqlOnWeir(
  name: string,
  config: Partial<NexmarkConfig>,
  parallelism: number,
): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(nexmarkSourceSql(config));
  const table = tEnv.sqlQuery(nexmarkQuerySql(name));
  const sink = new CollectSink<unknown[]>();
  table.toDataStream().sinkTo(sink);
  await env.execute(`nexmark sql ${name}`);
  return sink.values.map((row) => JSON.stringify(table.toJson(row)));
}
