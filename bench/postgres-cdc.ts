/**
 * PostgreSQL connector throughput against the test server (scripts/postgres.sh):
 *
 * - CDC: events/s streamed from one bulk UPDATE of N rows (one transaction),
 *   measured from the UPDATE's start to the last event in the sink, and from
 *   the first event to the last (the source's own rate); plus the initial
 *   snapshot of the same N rows.
 * - Sinks: rows/s of the upsert sink (fresh inserts, then updates of the same
 *   keys) and of the exactly-once transactional sink (1 s checkpoints).
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/postgres-cdc.js [--rows 1000000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  dropReplicationSlot,
  PostgresTransactionalSink,
  PostgresUpsertSink,
  postgresCdc,
} from '../src/connectors/postgres/index.js';
import { DiscardingSink, StreamEnvironment } from '../src/index.js';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    url: {
      type: 'string',
      default: process.env.WEIR_PG_URL ?? 'postgres://weir:weir@127.0.0.1:54329/weir',
    },
  },
});
const ROWS = Number(args.rows);
const URL = args.url!;
const SCHEMA = 'weir_bench_pg';
const SLOT = 'weir_bench_cdc';

async function sql(text: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: URL });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 600_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wait(5);
  }
}

async function setup(): Promise<void> {
  await dropReplicationSlot(URL, SLOT, `${SLOT}_publication`);
  await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await sql(`CREATE SCHEMA ${SCHEMA}`);
  await sql(
    `CREATE TABLE ${SCHEMA}.cdc_rows (id int PRIMARY KEY, v int NOT NULL, pad text NOT NULL)`,
  );
  await sql(
    `INSERT INTO ${SCHEMA}.cdc_rows SELECT g, 0, md5(g::text) FROM generate_series(1, ${ROWS}) g`,
  );
  await sql(`VACUUM ANALYZE ${SCHEMA}.cdc_rows`);
}

/** A sink that counts records and notes when the first and last arrived. */
class TimingSink extends DiscardingSink<unknown> {
  first = 0;
  last = 0;
  override createWriter() {
    const inner = super.createWriter();
    return {
      write: (batch: Parameters<typeof inner.write>[0]) => {
        if (this.first === 0) this.first = performance.now();
        inner.write(batch);
        this.last = performance.now();
      },
      close: () => inner.close(),
    };
  }
}

async function cdcSnapshot(): Promise<Record<string, number>> {
  const env = new StreamEnvironment({ batchSize: 1024 });
  const sink = new TimingSink();
  env
    .fromSource(
      postgresCdc({
        connection: URL,
        tables: [`${SCHEMA}.cdc_rows`],
        slotName: SLOT,
        slotLagIntervalMs: 0,
      }),
    )
    .sinkTo(sink);
  const t0 = performance.now();
  const job = env.executeAsync('bench snapshot');
  await until(() => sink.count >= ROWS, 'the snapshot');
  await job.cancel();
  return { snapshotEventsPerSec: rate(ROWS, sink.last - t0) };
}

async function cdcUpdate(): Promise<Record<string, number>> {
  const env = new StreamEnvironment({ batchSize: 1024 });
  const sink = new TimingSink();
  // Streams from the slot the snapshot run created (its position: after the snapshot).
  env
    .fromSource(
      postgresCdc({
        connection: URL,
        tables: [`${SCHEMA}.cdc_rows`],
        slotName: SLOT,
        snapshot: 'never',
        slotLagIntervalMs: 0,
      }),
    )
    .sinkTo(sink);
  const job = env.executeAsync('bench update');
  await until(
    async () =>
      (await sql(`SELECT 1 FROM pg_replication_slots WHERE slot_name = '${SLOT}' AND active`)).rows
        .length > 0,
    'streaming',
  );
  const rss0 = process.memoryUsage().rss;
  let peakRss = rss0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const t0 = performance.now();
  await sql(`UPDATE ${SCHEMA}.cdc_rows SET v = v + 1`);
  const committed = performance.now();
  await until(() => sink.count >= ROWS, 'the update events');
  clearInterval(sampler);
  await job.cancel();
  return {
    updateMs: Math.round(committed - t0),
    updateEventsPerSecEndToEnd: rate(ROWS, sink.last - t0),
    updateEventsPerSecFirstToLast: rate(ROWS, sink.last - sink.first),
    updateFirstEventAfterCommitMs: Math.round(sink.first - committed),
    peakRssMb: Math.round(peakRss / 1024 / 1024),
  };
}

interface Row {
  id: number;
  v: number;
  pad: string;
}

async function sinkRun(kind: 'upsert' | 'transactional', round: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-bench-pg-'));
  try {
    const env = new StreamEnvironment({
      batchSize: 1024,
      ...(kind === 'transactional' ? { checkpointing: { directory: dir, intervalMs: 1000 } } : {}),
    });
    const table = `${SCHEMA}.sink_rows`;
    env
      .fromGenerator<Row>({
        count: ROWS,
        generate: (i) => ({ id: i, v: round, pad: 'abcdefghijklmnopqrstuvwxyz012345' }),
      })
      .sinkTo(
        kind === 'upsert'
          ? new PostgresUpsertSink<Row>({ connection: URL, table })
          : new PostgresTransactionalSink<Row>({ connection: URL, table }),
      );
    const t0 = performance.now();
    await env.execute(`bench ${kind}`);
    const ms = performance.now() - t0;
    const [row] = (await sql(`SELECT count(*)::int AS n, min(v) AS v FROM ${table}`)).rows as {
      n: number;
      v: number;
    }[];
    if (row!.n !== ROWS || row!.v !== round)
      throw new Error(`sink wrote ${row!.n} rows of round ${row!.v}`);
    return rate(ROWS, ms);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function sinks(): Promise<Record<string, number>> {
  await sql(
    `CREATE TABLE ${SCHEMA}.sink_rows (id int PRIMARY KEY, v int NOT NULL, pad text NOT NULL)`,
  );
  const upsertInsert = await sinkRun('upsert', 1);
  const upsertUpdate = await sinkRun('upsert', 2);
  await sql(`TRUNCATE ${SCHEMA}.sink_rows`);
  const transactionalInsert = await sinkRun('transactional', 3);
  const transactionalUpdate = await sinkRun('transactional', 4);
  return {
    upsertInsertRowsPerSec: upsertInsert,
    upsertUpdateRowsPerSec: upsertUpdate,
    transactionalInsertRowsPerSec: transactionalInsert,
    transactionalUpdateRowsPerSec: transactionalUpdate,
  };
}

await setup();
const results = {
  rows: ROWS,
  ...(await cdcSnapshot()),
  ...(await cdcUpdate()),
  ...(await sinks()),
};
console.log(JSON.stringify(results, null, 2));
await dropReplicationSlot(URL, SLOT, `${SLOT}_publication`);
await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
