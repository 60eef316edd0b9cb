/**
 * Weir SQL's window Top-N and window join against the plans the same queries had before
 * they were window operators (an unwindowed Top-N partitioned by the window columns, and a
 * regular join on them: the same final rows, as a changelog, with state kept forever), on
 * the same Nexmark bids, into a discarding sink, at parallelism 1:
 *
 *   npx tsx bench/sql-window-operators.ts [events=200000] [rounds=3]
 *
 * The unwindowed plans are reached by renaming window_start and window_end, which the planner
 * recognises by name. Rounds alternate the two plans so that a busy machine slows both
 * alike; CPU seconds (user + system of this process) within a round are the figure to read.
 */

import { DiscardingSink } from '../src/connectors/collection/sink/collect-sink.js';
import type { NexmarkConfig } from '../src/connectors/nexmark/index.js';
import type { Change } from '../src/core/changelog.js';
import { StreamEnvironment, TableEnvironment } from '../src/index.js';
import type { Row } from '../src/sql/connectors/connector.js';
import { nexmarkSourceSql } from './nexmark/sql-texts.js';

const events = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 3);
const config: Partial<NexmarkConfig> = { maxEvents: events, eventsPerSecond: 10_000, seed: 1 };

const TVF = "TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))";
/** The window columns as the planner recognises them, or renamed (the unwindowed plan). */
const windowed = (s: string, start: string, end: string) =>
  s.replaceAll('$start', start).replaceAll('$end', end);
const WINDOWS = 'window_start AS ws, window_end AS we';

const QUERIES: Record<string, (window: boolean) => string> = {
  'top-3 per window': (w) =>
    windowed(
      `SELECT auction, price, $start, rn FROM (
         SELECT *, ROW_NUMBER() OVER (PARTITION BY $start, $end ORDER BY price DESC) AS rn
         FROM (SELECT auction, price, ${w ? 'window_start, window_end' : WINDOWS} FROM ${TVF}))
       WHERE rn <= 3`,
      w ? 'window_start' : 'ws',
      w ? 'window_end' : 'we',
    ),
  'inner join per window': (w) =>
    windowed(
      `SELECT L.auction, L.price, R.price FROM
         (SELECT auction, bidder, price, ${w ? 'window_start, window_end' : WINDOWS} FROM ${TVF}
          WHERE MOD(price, 2) = 0) L
       JOIN
         (SELECT auction, bidder, price, ${w ? 'window_start, window_end' : WINDOWS} FROM ${TVF}
          WHERE MOD(price, 2) = 1) R
       ON L.auction = R.auction AND L.$start = R.$start AND L.$end = R.$end`,
      w ? 'window_start' : 'ws',
      w ? 'window_end' : 'we',
    ),
};

async function cpuSeconds(sql: string): Promise<{ cpu: number; wall: number }> {
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const env = new StreamEnvironment({ parallelism: 1 });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(nexmarkSourceSql(config));
  tEnv.sqlQuery(sql).toChangelogStream().sinkTo(new DiscardingSink<Change<Row>>());
  await env.execute('window operators bench');
  const used = process.cpuUsage(cpu0);
  return { cpu: (used.user + used.system) / 1e6, wall: (performance.now() - start) / 1000 };
}

console.log(
  `${events} events, parallelism 1, load average ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  '| query | round | window operator CPU s (wall s) | unwindowed plan CPU s (wall s) | window / unwindowed CPU |',
);
console.log('|---|---|---|---|---|');
for (const [name, query] of Object.entries(QUERIES)) {
  for (let round = 1; round <= rounds; round++) {
    const w = await cpuSeconds(query(true));
    const u = await cpuSeconds(query(false));
    console.log(
      `| ${name} | ${round} | ${w.cpu.toFixed(2)} (${w.wall.toFixed(2)}) | ${u.cpu.toFixed(2)} (${u.wall.toFixed(2)}) | ${(w.cpu / u.cpu).toFixed(2)} |`,
    );
  }
}
