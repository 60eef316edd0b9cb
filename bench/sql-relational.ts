/**
 * Weir SQL's relational Nexmark texts (joins, updating aggregations, Top-N, deduplication)
 * against the hand-written DataStream queries of bench/nexmark/queries, on the same events,
 * both into a discarding sink, at parallelism 1:
 *
 *   npx tsx bench/sql-relational.ts [events=200000] [rounds=2] [q3,q4,...]
 *
 * Rounds alternate SQL and hand-written runs so that a busy machine slows both alike; the
 * ratio within a round is the figure to read.
 */

import { DiscardingSink } from '../src/connectors/collection/sink/collect-sink.js';
import type { NexmarkConfig } from '../src/connectors/nexmark/index.js';
import type { Change } from '../src/core/changelog.js';
import { StreamEnvironment, TableEnvironment } from '../src/index.js';
import type { Row } from '../src/sql/connectors/connector.js';
import { nexmarkQuery } from './nexmark/queries/index.js';
import { nexmarkQuerySql, nexmarkSourceSql } from './nexmark/sql-texts.js';
import { runOnWeir } from './nexmark/weir-job.js';

const events = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 2);
const queries = (process.argv[4] ?? 'q3,q4,q9,q15,q17,q18,q19,q20').split(',');
const config: Partial<NexmarkConfig> = { maxEvents: events, eventsPerSecond: 10_000, seed: 1 };

async function sqlSeconds(name: string): Promise<number> {
  const start = performance.now();
  const env = new StreamEnvironment({ parallelism: 1 });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(nexmarkSourceSql(config));
  tEnv
    .sqlQuery(nexmarkQuerySql(name))
    .toChangelogStream()
    .sinkTo(new DiscardingSink<Change<Row>>());
  await env.execute(`sql ${name}`);
  return (performance.now() - start) / 1000;
}

async function handWrittenSeconds(name: string): Promise<number> {
  const start = performance.now();
  await runOnWeir(nexmarkQuery(name), { config }, new DiscardingSink<unknown>());
  return (performance.now() - start) / 1000;
}

console.log(`${events} events, parallelism 1`);
console.log('| query | round | Weir SQL (s) | hand-written (s) | SQL / hand-written |');
console.log('|---|---|---|---|---|');
for (const name of queries) {
  for (let round = 1; round <= rounds; round++) {
    const sql = await sqlSeconds(name);
    const hand = await handWrittenSeconds(name);
    console.log(
      `| ${name} | ${round} | ${sql.toFixed(2)} | ${hand.toFixed(2)} | ${(sql / hand).toFixed(2)} |`,
    );
  }
}
