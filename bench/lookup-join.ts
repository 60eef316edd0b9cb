/**
 * Lookup join throughput (records/s), parallelism 1:
 *
 * - against the in-memory table with a simulated latency of 1 ms per lookup
 *   call, at capacity 1, 10 and 100 (keys spread over 100,000 rows, no cache);
 * - against PostgreSQL (scripts/postgres.sh; a 100,000-row table), without a
 *   cache and with one, for keys drawn from 10,000 customers.
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/lookup-join.js [--scale 1]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PostgresLookupTable } from '../src/connectors/postgres/index.js';
import {
  DiscardingSink,
  InMemoryLookupTable,
  type LookupJoinOptions,
  type LookupTable,
  StreamEnvironment,
} from '../src/index.js';

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    url: {
      type: 'string',
      default: process.env.WEIR_PG_URL ?? 'postgres://weir:weir@127.0.0.1:54329/weir',
    },
  },
});
const SCALE = Number(args.scale);
const URL = args.url!;
const SCHEMA = 'weir_bench_lookup';
const ROWS = 100_000;

interface Order {
  readonly id: number;
  readonly customer: number;
}

async function sql(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

/** Runs `count` orders (customer uniform in [0, customers)) through a lookup join; records/s. */
async function run<V>(
  table: LookupTable<number, V>,
  count: number,
  customers: number,
  options: Omit<LookupJoinOptions<Order, number, V, number>, 'key' | 'select' | 'join'>,
): Promise<Measured> {
  const env = new StreamEnvironment({ batchSize: 1024 });
  const sink = new DiscardingSink<number>();
  env
    .fromGenerator({
      count,
      seed: 42,
      generate: (id, random) => ({ id, customer: random.int(customers) }),
    })
    .lookupJoin(table, {
      ...options,
      key: (o) => o.customer,
      join: 'left',
      select: (o) => o.id,
    })
    .sinkTo(sink);
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const result = await env.execute('lookup bench');
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  if (sink.count !== count) throw new Error(`expected ${count} results, got ${sink.count}`);
  return {
    rate: Math.round((count / ms) * 1000),
    cpuRate: Math.round((count / cpuMs) * 1000),
    lookups: result.metric('weir_lookup_requests_total'),
    hits: result.metric('weir_lookup_cache_hits_total'),
  };
}

/** Records per second of wall-clock time and of this process's CPU time. */
interface Measured {
  readonly rate: number;
  readonly cpuRate: number;
  readonly lookups: number;
  readonly hits: number;
}

function report(name: string, count: number, r: Measured) {
  console.log(
    `${name.padEnd(44)} ${String(count).padStart(8)} records ${String(r.rate).padStart(9)} records/s ${String(r.cpuRate).padStart(9)} per CPU-s  ${String(r.lookups).padStart(7)} lookup calls  ${String(r.hits).padStart(7)} cache hits`,
  );
}

async function main(): Promise<void> {
  const rows = Array.from({ length: ROWS }, (_, c) => [c, { name: `customer ${c}` }] as const);
  const memory = new InMemoryLookupTable(rows, { latencyMs: 1 });
  for (const capacity of [1, 10, 100]) {
    const count = Math.round(capacity * 2_000 * SCALE);
    report(
      `in-memory, 1 ms per call, capacity ${capacity}`,
      count,
      await run(memory, count, ROWS, { capacity }),
    );
  }
  const count = Math.round(20_000 * SCALE);
  report(
    'in-memory, 1 ms per call, capacity 100, batch 1',
    count,
    await run(memory, count, ROWS, { capacity: 100, maxBatchSize: 1 }),
  );

  await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await sql(`CREATE SCHEMA ${SCHEMA}`);
  await sql(
    `CREATE TABLE ${SCHEMA}.customers (id integer PRIMARY KEY, name text NOT NULL, tier integer NOT NULL)`,
  );
  await sql(
    `INSERT INTO ${SCHEMA}.customers SELECT g, 'customer ' || g, g % 5 FROM generate_series(0, ${ROWS - 1}) g`,
  );
  await sql(`ANALYZE ${SCHEMA}.customers`);
  try {
    const table = () =>
      new PostgresLookupTable<number>({
        connection: URL,
        table: `${SCHEMA}.customers`,
        keyColumn: 'id',
        columns: ['name', 'tier'],
      });
    const pgCount = Math.round(200_000 * SCALE);
    for (const capacity of [10, 100]) {
      report(
        `postgres, no cache, capacity ${capacity}`,
        pgCount,
        await run(table(), pgCount, 10_000, { capacity }),
      );
    }
    report(
      'postgres, cache (60 s, 10,000 keys), capacity 100',
      pgCount,
      await run(table(), pgCount, 10_000, {
        capacity: 100,
        cache: { ttlMs: 60_000, maxSize: 10_000 },
      }),
    );
  } finally {
    await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  }
}

await main();
