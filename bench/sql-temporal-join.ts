/**
 * Weir SQL's event-time temporal join (`FOR SYSTEM_TIME AS OF`) against the same join written
 * with the DataStream API (`temporalJoin` over `materialize`), on the same in-memory orders
 * and rate changes, both into a discarding sink, at parallelism 1:
 *
 *   npx tsx bench/sql-temporal-join.ts [orders=200000] [rounds=3]
 *
 * The rate changes reach SQL through a connector registered here that hands them over as an
 * upsert changelog, as `upsert-kafka` does, so neither side reads Kafka. Rounds alternate the
 * two; the figures are CPU seconds of the process (user + system), and the ratio within a
 * round is the figure to read on a busy machine.
 */
import type { Change } from '../src/core/changelog.js';
import {
  DiscardingSink,
  StreamEnvironment,
  TableEnvironment,
  WatermarkStrategy,
} from '../src/index.js';
import type { Row, SqlConnector } from '../src/sql/connectors/connector.js';
import { registerSqlConnectors } from '../src/sql/connectors/registry.js';

const orderCount = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 3);
const CURRENCIES = 50;
const T0 = Date.UTC(2026, 0, 1);

/** Orders every 10 ms; a rate change of some currency every 100 ms. */
const orders: Row[] = Array.from({ length: orderCount }, (_, i) => [
  i,
  `C${(i * 7) % CURRENCIES}`,
  (i % 1000) + 1,
  T0 + i * 10,
]);
const changes: Change<Row>[] = Array.from({ length: Math.ceil(orderCount / 10) }, (_, i) => ({
  kind: '+U',
  value: [`C${(i * 13) % CURRENCIES}`, (i % 200) + 1, T0 + i * 100 - 5_000],
}));

const rateChanges: SqlConnector = {
  name: 'bench-rate-changes',
  options: [],
  changelogSource: (_table, env) => ({ changes: env.fromArray(changes, 'rates'), mode: 'upsert' }),
};
registerSqlConnectors([rateChanges]);

function cpuSeconds(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

async function sqlRun(): Promise<number> {
  const start = process.cpuUsage();
  const env = new StreamEnvironment({ parallelism: 1 });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream('orders', env.fromArray(orders, 'orders'), {
    columns: [
      { name: 'id', type: 'INT' },
      { name: 'currency', type: 'STRING' },
      { name: 'amount', type: 'INT' },
      { name: 'order_time', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'order_time', expression: "order_time - INTERVAL '1' SECOND" },
  });
  tEnv.executeSql(`
    CREATE TABLE rates (
      currency STRING, rate INT, update_time TIMESTAMP(3),
      PRIMARY KEY (currency) NOT ENFORCED,
      WATERMARK FOR update_time AS update_time
    ) WITH ('connector' = 'bench-rate-changes');`);
  tEnv
    .sqlQuery(`
      SELECT o.id, o.amount * r.rate AS price
      FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
      ON o.currency = r.currency`)
    .toDataStream()
    .sinkTo(new DiscardingSink<Row>());
  await env.execute('sql temporal join');
  return cpuSeconds(start);
}

async function handWrittenRun(): Promise<number> {
  const start = process.cpuUsage();
  const env = new StreamEnvironment({ parallelism: 1 });
  const rates = env
    .fromArray(changes, 'rates')
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps<Change<Row>>().withTimestampAssigner(
        (c) => c.value[2] as number,
      ),
    )
    .asChangelog('upsert', (row: Row) => row[0] as string)
    .materialize((row) => row[0] as string);
  env
    .fromArray(orders, 'orders')
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forBoundedOutOfOrderness<Row>(1_000).withTimestampAssigner(
        (row) => row[3] as number,
      ),
    )
    .temporalJoin(rates, { probeKey: (row) => row[1] as string })
    .map(([o, r]): Row => [o[0], (o[2] as number) * (r[1] as number)])
    .sinkTo(new DiscardingSink<Row>());
  await env.execute('hand-written temporal join');
  return cpuSeconds(start);
}

console.log(`${orderCount} orders, ${changes.length} rate changes, parallelism 1 (CPU seconds)`);
console.log('| round | Weir SQL | hand-written | SQL / hand-written |');
console.log('|---|---|---|---|');
for (let round = 1; round <= rounds; round++) {
  const sql = await sqlRun();
  const hand = await handWrittenRun();
  console.log(`| ${round} | ${sql.toFixed(2)} | ${hand.toFixed(2)} | ${(sql / hand).toFixed(2)} |`);
}
