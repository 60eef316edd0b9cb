/** Runs the Nexmark SQL texts of the Flink peer, verbatim, on Weir SQL. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flinkPeerDir } from '../../bench/nexmark/flink-peer.js';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import type { Change } from '../../src/core/changelog.js';
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
  const collected = names.map((name) => {
    const table = tEnv.sqlQuery(nexmarkQuerySql(name));
    const sink = new CollectSink<Change<unknown[]>>();
    table.toChangelogStream().sinkTo(sink);
    return { name, table, sink };
  });
  await env.execute(`nexmark sql ${names.join(' ')}`);
  return new Map(
    collected.map(({ name, table, sink }) => [
      name,
      applyChanges(
        sink.values.map((c) => ({ kind: c.kind, value: JSON.stringify(table.toJson(c.value)) })),
      ),
    ]),
  );
}

/** The rows a changelog leaves; a retraction of a row that is not there is reported as a row `retracted but absent: ...`. */
export function applyChanges(changes: readonly Change<string>[]): string[] {
  const counts = new Map<string, number>();
  const absent: string[] = [];
  for (const { kind, value } of changes) {
    const n = counts.get(value) ?? 0;
    if (kind === '+I' || kind === '+U') counts.set(value, n + 1);
    else if (n === 0) absent.push(`retracted but absent: ${value}`);
    else if (n === 1) counts.delete(value);
    else counts.set(value, n - 1);
  }
  const rows: string[] = [...absent];
  for (const [value, n] of counts) for (let i = 0; i < n; i++) rows.push(value);
  return rows;
}
