/**
 * The job module of bench/sql-aggregation-phases.ts (every worker loads it):
 *   -- skew <events> <plan>       GROUP BY over generated rows, 90% of them of one key
 *   -- q15|q16 <events> <plan>    the Nexmark SQL text over generated events
 * where <plan> is `one-phase`, `two-phase` or `split` (two-phase with the distinct split).
 * Mini-batch is on in every plan (2 s / 50,000 rows, the Flink peer's options). Results go
 * to a sink with uid `results` that only counts them.
 */
import { defineJob, TableEnvironment } from '../../src/index.js';
import { BlackholeSink } from '../nexmark/blackhole-sink.js';
import { nexmarkQuerySql, nexmarkSourceSql } from '../nexmark/sql-texts.js';

const SKEW_QUERY = 'SELECT k, COUNT(*), SUM(v), MAX(v) FROM t GROUP BY k';

export default defineJob((env, { args }) => {
  const [workload, eventsText, plan] = args;
  const events = Number(eventsText);
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(`SET 'table.exec.mini-batch.enabled' = 'true';
    SET 'table.exec.mini-batch.allow-latency' = '2 s';
    SET 'table.exec.mini-batch.size' = '50000';
    SET 'table.optimizer.agg-phase-strategy' = '${plan === 'one-phase' ? 'ONE_PHASE' : 'AUTO'}';
    SET 'table.optimizer.distinct-agg.split.enabled' = '${plan === 'split'}';`);
  let query: string;
  if (workload === 'skew') {
    tEnv.fromDataStream(
      't',
      env.fromGenerator({
        count: events,
        seed: 3,
        generate: (i, random) => [random.next() < 0.9 ? 0 : 1 + (i % 10_000), i % 1000],
      }),
      {
        columns: [
          { name: 'k', type: 'INT' },
          { name: 'v', type: 'BIGINT' },
        ],
      },
    );
    query = SKEW_QUERY;
  } else {
    tEnv.executeSql(nexmarkSourceSql({ maxEvents: events, eventsPerSecond: 10_000, seed: 1 }));
    query = nexmarkQuerySql(workload as string);
  }
  tEnv.sqlQuery(query).toChangelogStream().sinkTo(new BlackholeSink()).uid('results');
});
