/**
 * PostgreSQL restarts under running jobs cost a pause, not the job: a
 * private server (never the shared one) is shut down for a while, then
 * crashed (immediate shutdown), under a CDC pipeline and under each sink,
 * while writers keep changing the data. The connectors retry within their
 * outage budget; the job keeps running without anyone restarting it, and
 * its output equals an oracle computed from the source of truth.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectSink } from '../../src/connectors/collection/sink/collect-sink.js';
import {
  type ChangeRecord,
  dropReplicationSlot,
  PostgresLookupTable,
  PostgresTransactionalSink,
  PostgresUpsertSink,
  postgresCdc,
  RECONNECTS_METRIC,
  type Row,
} from '../../src/connectors/postgres/index.js';
import {
  type Collector,
  GeneratorSource,
  type JobClient,
  type Sink,
  StreamEnvironment,
} from '../../src/index.js';
import { DeterministicRandom } from '../../src/util/random.js';
import { until } from './helpers.js';
import { PrivatePostgres } from './private-server.js';

const server = new PrivatePostgres(Number(process.env.WEIR_PG_OUTAGE_PORT ?? 54339));
const URL = server.url;
const SCHEMA = 'weir_pg_outage';
const SLOT = 'weir_outage';
/** How long the server stays down after the fast shutdown. */
const OUTAGE_MS = Number(process.env.WEIR_PG_OUTAGE_MS ?? 10_000);
/** How long it stays down after the crash. */
const CRASH_DOWN_MS = 3_000;
let dir: string;

async function connectTo(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: URL });
  c.on('error', () => {});
  await c.connect();
  return c;
}

async function sql<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
  const c = await connectTo();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  await server.up();
  await dropReplicationSlot(URL, SLOT, `${SLOT}_publication`);
  for (const { gid } of await sql<{ gid: string }>('SELECT gid FROM pg_prepared_xacts'))
    await sql(`ROLLBACK PREPARED '${gid}'`);
  await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await sql(`CREATE SCHEMA ${SCHEMA}`);
  // Counts every row write to a sink table: exactly once means one write per row.
  await sql(
    `CREATE TABLE ${SCHEMA}.writes (tab text, id int, n int NOT NULL, PRIMARY KEY (tab, id))`,
  );
  await sql(`CREATE FUNCTION ${SCHEMA}.count_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${SCHEMA}.writes VALUES (TG_TABLE_NAME, NEW.id, 1)
        ON CONFLICT (tab, id) DO UPDATE SET n = writes.n + 1;
      RETURN NEW;
    END $$`);
  dir = await mkdtemp(join(tmpdir(), 'weir-pg-outage-'));
}, 180_000);

afterAll(async () => {
  try {
    for (const slot of [SLOT, `${SLOT}_budget`])
      await dropReplicationSlot(URL, slot, `${slot}_publication`).catch(() => {});
    await sql(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  } finally {
    await server.down();
  }
}, 180_000);

/** What a job exposes to the outage runs. */
type Job = JobClient & { failed(): unknown };

function start(env: StreamEnvironment, name: string): Job {
  const job = env.executeAsync(name);
  let failure: unknown;
  job.result.catch((e: unknown) => {
    failure = e;
  });
  return Object.assign(job, { failed: () => failure });
}

/** Resolves once `progress` has grown past its present value (the job is moving). */
async function moves(job: Job, progress: () => Promise<number>, what: string): Promise<void> {
  const from = await progress();
  await until(
    async () => job.failed() !== undefined || (await progress()) > from,
    120_000,
    `${what} (stuck at ${from})`,
  );
  expect(job.failed()).toBeUndefined();
}

/** A completed checkpoint newer than `after` (epoch ms). */
async function checkpointAfter(job: Job, after: number, what: string): Promise<void> {
  await until(
    () => job.failed() !== undefined || (job.monitor.lastCheckpoint()?.completedAt ?? 0) > after,
    120_000,
    what,
  );
  expect(job.failed()).toBeUndefined();
}

interface OutageReport {
  reconnects: number;
  restarts: number;
  /** From the end of each outage until the job made progress again (ms). */
  resumedAfterMs: number[];
}

/**
 * A fast shutdown for OUTAGE_MS, then a crash for CRASH_DOWN_MS, each
 * while the job runs and after it has made progress; after each the job
 * must make progress and complete a checkpoint again by itself.
 */
type OutageKind = 'fast shutdown' | 'crash';

async function outages(
  job: Job,
  progress: () => Promise<number>,
  kinds: readonly OutageKind[] = ['fast shutdown', 'crash'],
): Promise<OutageReport> {
  const resumedAfterMs: number[] = [];
  for (const kind of kinds) {
    await moves(job, progress, `progress before the ${kind}`);
    if (kind === 'fast shutdown') await server.down();
    else await server.crash();
    // The length of the outage is the point of the test, not a wait for something.
    await sleep(kind === 'fast shutdown' ? OUTAGE_MS : CRASH_DOWN_MS);
    await server.up();
    const back = Date.now();
    await moves(job, progress, `progress after the ${kind}`);
    resumedAfterMs.push(Date.now() - back);
    await checkpointAfter(job, back, `a checkpoint after the ${kind}`);
  }
  return {
    reconnects: job.metrics.total(RECONNECTS_METRIC),
    restarts: job.monitor.restarts(),
    resumedAfterMs,
  };
}

function environment(name: string): StreamEnvironment {
  return new StreamEnvironment({
    batchSize: 128,
    checkpointing: { directory: join(dir, name), intervalMs: 1000 },
    // As `weir run` does: should a task fail after all, the job restores and runs on.
    restartStrategy: { kind: 'exponential-delay', initialBackoffMs: 500, maxBackoffMs: 5000 },
  });
}

/** Small random transactions on the orders table until stopped, riding out the server's outages. */
async function writer(table: string, seed: number, stop: () => boolean): Promise<number> {
  const random = new DeterministicRandom(seed);
  let c: pg.Client | undefined;
  let committed = 0;
  while (!stop()) {
    try {
      c ??= await connectTo();
      await c.query('BEGIN');
      for (let s = 1 + random.int(3); s > 0; s--) {
        const r = random.int(10);
        const [row] = (
          await c.query<{ id: number }>(
            `SELECT id FROM ${SCHEMA}.${table} ORDER BY id OFFSET $1 LIMIT 1`,
            [random.int(400)],
          )
        ).rows;
        if (r < 4 || row === undefined) {
          await c.query(`INSERT INTO ${SCHEMA}.${table} (customer, amount) VALUES ($1, $2)`, [
            random.int(40),
            random.int(10_000),
          ]);
        } else if (r < 7) {
          await c.query(`UPDATE ${SCHEMA}.${table} SET amount = $2 WHERE id = $1`, [
            row.id,
            random.int(10_000),
          ]);
        } else if (r < 8) {
          await c.query(`UPDATE ${SCHEMA}.${table} SET customer = $2 WHERE id = $1`, [
            row.id,
            random.int(40),
          ]);
        } else {
          await c.query(`DELETE FROM ${SCHEMA}.${table} WHERE id = $1`, [row.id]);
        }
      }
      await c.query('COMMIT');
      committed++;
      await sleep(5);
    } catch {
      // The server is away: whether the last COMMIT happened does not
      // matter, since the oracle is computed from the table afterwards.
      await c?.end().catch(() => {});
      c = undefined;
      await sleep(100);
    }
  }
  await c?.end().catch(() => {});
  return committed;
}

interface Total {
  customer: number;
  amount: number;
  orders: number;
}

const delta = (row: Row, sign: 1 | -1): Total => ({
  customer: row.customer as number,
  amount: sign * (row.amount as number),
  orders: sign,
});

/** A change as per-customer deltas: minus the old row, plus the new one. */
function deltas(r: ChangeRecord, out: Collector<Total>): void {
  const e = r.value;
  if (e === null) return;
  if (e.before !== null && (e.op === 'u' || e.op === 'd')) out.collect(delta(e.before, -1));
  if (e.after !== null) out.collect(delta(e.after, 1));
}

describe('PostgreSQL restarts', () => {
  /**
   * CDC of `table` -> per-customer totals (keyed reduce) -> a collecting
   * sink, through the outages `kinds` while two writers change the table;
   * then the last total of each customer must equal SQL over the table.
   */
  async function cdcUnderOutages(
    table: string,
    slot: string,
    maxOutageMs: number,
    kinds: readonly OutageKind[],
  ): Promise<{ report: OutageReport; warnings: string[] }> {
    await sql(
      `CREATE TABLE ${SCHEMA}.${table} (id serial PRIMARY KEY, customer int NOT NULL, amount int NOT NULL)`,
    );
    await sql(`ALTER TABLE ${SCHEMA}.${table} REPLICA IDENTITY FULL`);
    await sql(
      `INSERT INTO ${SCHEMA}.${table} (customer, amount) SELECT g % 40, g FROM generate_series(1, 500) g`,
    );
    const warnings: string[] = [];
    const sink = new CollectSink<Total>();
    const env = environment(table);
    env
      .fromSource(
        postgresCdc({
          connection: URL,
          tables: [`${SCHEMA}.${table}`],
          slotName: slot,
          slotLagIntervalMs: 1000,
          reconnect: { maxOutageMs },
          onWarning: (w) => warnings.push(w),
        }),
      )
      .uid('cdc')
      .flatMap(deltas)
      .uid('deltas')
      .keyBy((d) => d.customer)
      .reduce((a, b) => ({
        customer: a.customer,
        amount: a.amount + b.amount,
        orders: a.orders + b.orders,
      }))
      .uid('totals')
      .sinkTo(sink as Sink<Total>)
      .uid('collect');
    const job = start(env, `${table}-outage`);
    let stopped = false;
    const writers: Promise<number>[] = [];
    try {
      await checkpointAfter(job, 0, 'a first checkpoint');
      writers.push(
        writer(table, 1, () => stopped),
        writer(table, 2, () => stopped),
      );
      const report = await outages(job, async () => sink.values.length, kinds);
      stopped = true;
      const transactions = await Promise.all(writers);
      const expected = await sql<{ customer: number; amount: string; orders: number }>(
        `SELECT customer, sum(amount)::int8::text AS amount, count(*)::int AS orders
         FROM ${SCHEMA}.${table} GROUP BY customer ORDER BY customer`,
      );
      const want = expected.map((r) => ({ ...r, amount: Number(r.amount) }));
      const got = () => {
        const last = new Map<number, Total>();
        for (const t of sink.values) last.set(t.customer, t);
        return [...last.values()]
          .filter((t) => t.orders !== 0)
          .sort((a, b) => a.customer - b.customer);
      };
      await until(
        () => job.failed() !== undefined || JSON.stringify(got()) === JSON.stringify(want),
        120_000,
        'the totals to reconcile',
      ).catch(() => {});
      console.log(
        `${table} outage: ${transactions.reduce((a, b) => a + b, 0)} writer transactions, ` +
          `${report.reconnects} reconnects, ${report.restarts} job restarts, ` +
          `progress again ${report.resumedAfterMs.join(' ms, ')} ms after the server was back`,
        process.env.WEIR_TEST_VERBOSE === undefined ? '' : `\n${warnings.join('\n')}`,
      );
      expect(job.failed()).toBeUndefined();
      expect(got()).toEqual(want);
      expect(job.monitor.status).toBe('running');
      return { report, warnings };
    } finally {
      stopped = true;
      await Promise.all(writers);
      await job.cancel().catch(() => {});
      await dropReplicationSlot(URL, slot, `${slot}_publication`).catch(() => {});
    }
  }

  it('under CDC: the source reconnects and resumes from its position; per-customer totals equal SQL over the table', async () => {
    const { report, warnings } = await cdcUnderOutages('orders', SLOT, 120_000, [
      'fast shutdown',
      'crash',
    ]);
    expect(report.reconnects).toBeGreaterThan(0);
    // A pause, not a restart of the job.
    expect(report.restarts).toBe(0);
    expect(warnings.some((w) => /retry 1 in/.test(w))).toBe(true);
    expect(warnings.some((w) => /reconnected to the database after/.test(w))).toBe(true);
  }, 600_000);

  it('under CDC past the outage budget: the task fails, the job restores its last checkpoint by itself, totals still exact', async () => {
    const { report, warnings } = await cdcUnderOutages('budget_orders', `${SLOT}_budget`, 1_000, [
      'fast shutdown',
    ]);
    expect(report.restarts).toBeGreaterThan(0);
    expect(warnings.some((w) => /retry 1 in/.test(w))).toBe(true);
  }, 600_000);

  /** Records 0, 1, 2, ... as rows of `table`, at a steady rate. */
  const rows = () =>
    new GeneratorSource({
      generate: (i) => ({ id: i, k: i % 97, v: i * 3 }),
      ratePerSecond: 500,
    });

  async function sinkUnderOutages(
    table: string,
    sink: Sink<{ id: number; k: number; v: number }>,
    warnings: string[],
  ): Promise<{ rows: number; writes: { id: number; n: number }[] }> {
    await sql(
      `CREATE TABLE ${SCHEMA}.${table} (id int PRIMARY KEY, k int NOT NULL, v bigint NOT NULL)`,
    );
    await sql(
      `CREATE TRIGGER count_write AFTER INSERT OR UPDATE ON ${SCHEMA}.${table} FOR EACH ROW EXECUTE FUNCTION ${SCHEMA}.count_write()`,
    );
    const env = environment(table);
    env.fromSource(rows()).uid('rows').sinkTo(sink).uid('sink');
    const job = start(env, `${table}-outage`);
    const count = async () =>
      Number(
        (await sql<{ n: string }>(`SELECT count(*)::text AS n FROM ${SCHEMA}.${table}`))[0]!.n,
      );
    try {
      await checkpointAfter(job, 0, 'a first checkpoint');
      const report = await outages(job, count);
      await job.stopWithSavepoint(join(dir, `${table}-savepoints`));
      console.log(
        `${table} outage: ${report.reconnects} reconnects, ${report.restarts} job restarts, ` +
          `progress again ${report.resumedAfterMs.join(' ms, ')} ms after the server was back; ` +
          `${warnings.length} warnings`,
        process.env.WEIR_TEST_VERBOSE === undefined ? '' : `\n${warnings.join('\n')}`,
      );
      expect(job.failed()).toBeUndefined();
      expect(report.reconnects).toBeGreaterThan(0);
      expect(report.restarts).toBe(0);
    } finally {
      await job.cancel().catch(() => {});
    }
    // Output: exactly the records 0 .. n-1 the job emitted before the savepoint, each as generated.
    const [shape] = await sql<{ n: number; max: number; wrong: number }>(
      `SELECT count(*)::int AS n, coalesce(max(id), -1)::int AS max,
         count(*) FILTER (WHERE k <> id % 97 OR v <> id * 3)::int AS wrong
       FROM ${SCHEMA}.${table}`,
    );
    expect(shape!.n).toBeGreaterThan(0);
    expect(shape!.max).toBe(shape!.n - 1);
    expect(shape!.wrong).toBe(0);
    expect(await sql('SELECT gid FROM pg_prepared_xacts')).toEqual([]);
    const writes = await sql<{ id: number; n: number }>(
      `SELECT id, n FROM ${SCHEMA}.writes WHERE tab = $1 AND n <> 1 ORDER BY id`,
      [table],
    );
    return { rows: shape!.n, writes };
  }

  it('under the transactional sink: nothing lost, nothing written twice, nothing left prepared', async () => {
    const warnings: string[] = [];
    const { writes } = await sinkUnderOutages(
      'tx_rows',
      new PostgresTransactionalSink({
        connection: URL,
        table: `${SCHEMA}.tx_rows`,
        reconnect: { maxOutageMs: 120_000 },
        onWarning: (w) => warnings.push(w),
      }),
      warnings,
    );
    // Each row written by exactly one committed transaction.
    expect(writes).toEqual([]);
  }, 600_000);

  it('under the upsert sink: no batch lost', async () => {
    const warnings: string[] = [];
    const { writes } = await sinkUnderOutages(
      'upsert_rows',
      new PostgresUpsertSink({
        connection: URL,
        table: `${SCHEMA}.upsert_rows`,
        reconnect: { maxOutageMs: 120_000 },
        onWarning: (w) => warnings.push(w),
      }),
      warnings,
    );
    // At least once: a batch whose COMMIT answer was lost is written again (idempotent).
    console.log(`upsert sink: ${writes.length} rows written more than once`);
  }, 600_000);

  it('under lookup joins: every record is joined, none lost or failed', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.names (id int PRIMARY KEY, name text NOT NULL)`);
    await sql(`INSERT INTO ${SCHEMA}.names SELECT g, 'name ' || g FROM generate_series(0, 96) g`);
    const warnings: string[] = [];
    const sink = new CollectSink<string>();
    const env = environment('lookup');
    env
      .fromSource(rows())
      .uid('rows')
      .lookupJoin(
        new PostgresLookupTable<number, string>({
          connection: URL,
          table: `${SCHEMA}.names`,
          keyColumn: 'id',
          row: (r) => r.name as string,
          reconnect: { maxOutageMs: 120_000 },
          onWarning: (w) => warnings.push(w),
        }),
        // Longer than an outage: the table retries inside the request.
        { key: (r) => r.k, select: (r, name) => `${r.id}:${name}`, timeoutMs: 120_000 },
      )
      .uid('join')
      .sinkTo(sink as Sink<string>)
      .uid('collect');
    const job = start(env, 'lookup-outage');
    try {
      await checkpointAfter(job, 0, 'a first checkpoint');
      const report = await outages(job, async () => sink.values.length);
      await job.stopWithSavepoint(join(dir, 'lookup-savepoints'));
      console.log(
        `lookup outage: ${report.reconnects} reconnects, ${report.restarts} job restarts, ` +
          `progress again ${report.resumedAfterMs.join(' ms, ')} ms after the server was back`,
      );
      expect(job.failed()).toBeUndefined();
      expect(report.reconnects).toBeGreaterThan(0);
      expect(report.restarts).toBe(0);
    } finally {
      await job.cancel().catch(() => {});
    }
    const n = sink.values.length;
    expect(n).toBeGreaterThan(0);
    expect([...sink.values].sort()).toEqual(
      Array.from({ length: n }, (_, i) => `${i}:name ${i % 97}`).sort(),
    );
  }, 600_000);
});
