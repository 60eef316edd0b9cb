/**
 * Reconciling a CDC job against the source of truth: a job keeps per-customer
 * totals of an orders table in PostgreSQL while the table changes (inserts,
 * updates, deletes); `weir reconcile` recomputes them from a consistent
 * snapshot of the orders and finds no divergence; a total edited by hand is
 * named, with the column that differs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobModule } from '../../src/api/job-module/run-job-module.js';
import { reconcileJob } from '../../src/replay/reconcile.js';
import { cleanup, freshSchema, PG_URL, sql, until } from './helpers.js';

const SCHEMA = 'weir_pg_reconcile_job';
const SLOT = 'weir_reconcile_job';
const JOB = new URL('./fixtures/totals-job.ts', import.meta.url).pathname;
const ARGS = [PG_URL, SCHEMA, SLOT];

beforeAll(async () => {
  await cleanup(SCHEMA, [SLOT]);
  await freshSchema(SCHEMA);
  await sql(
    `CREATE TABLE ${SCHEMA}.orders (id int PRIMARY KEY, customer int NOT NULL, amount numeric(10,2) NOT NULL)`,
  );
  // Deletes and updates must carry the old customer: the whole old row, not only its key.
  await sql(`ALTER TABLE ${SCHEMA}.orders REPLICA IDENTITY FULL`);
  await sql(
    `CREATE TABLE ${SCHEMA}.customer_totals (customer int PRIMARY KEY, total_cents bigint NOT NULL, orders int NOT NULL)`,
  );
  await sql(
    `INSERT INTO ${SCHEMA}.orders SELECT i, i % 23, (i % 97) + 0.25 FROM generate_series(1, 2000) AS i`,
  );
}, 60_000);
afterAll(async () => cleanup(SCHEMA, [SLOT]), 60_000);

/** The totals as a batch query over the orders computes them. */
async function batchTotals(): Promise<string[]> {
  const rows = await sql<{ customer: number; cents: string; orders: string }>(
    `SELECT customer, sum(round(amount * 100))::bigint AS cents, count(*) AS orders
       FROM ${SCHEMA}.orders GROUP BY customer ORDER BY customer`,
  );
  return rows.map((r) => `${r.customer}:${r.cents}:${r.orders}`);
}

async function sinkTotals(): Promise<string[]> {
  const rows = await sql<{ customer: number; total_cents: string; orders: number }>(
    `SELECT customer, total_cents, orders FROM ${SCHEMA}.customer_totals ORDER BY customer`,
  );
  return rows.map((r) => `${r.customer}:${r.total_cents}:${r.orders}`);
}

describe('reconcile a CDC job against a snapshot of its source tables', () => {
  it('agrees while the streaming job keeps up, and names a total edited by hand', async () => {
    const started = await startJobModule(JOB, { args: ARGS });
    try {
      // Changes while the job runs: new orders, amounts changed, every order of customer 5 deleted.
      await sql(
        `INSERT INTO ${SCHEMA}.orders SELECT i, i % 29, 3.50 FROM generate_series(2001, 2600) AS i`,
      );
      await sql(`UPDATE ${SCHEMA}.orders SET amount = amount + 1 WHERE id % 10 = 0`);
      await sql(`DELETE FROM ${SCHEMA}.orders WHERE customer = 5`);
      await sql(`UPDATE ${SCHEMA}.orders SET customer = 7 WHERE id BETWEEN 100 AND 140`);
      const expected = await batchTotals();
      await until(
        async () => (await sinkTotals()).join() === expected.join(),
        120_000,
        'the totals to catch up',
      );
    } finally {
      await started.client.cancel();
    }
    // This job's slots only: other test files create and drop theirs meanwhile.
    const slotsBefore = await sql(
      `SELECT slot_name, confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name LIKE 'weir_reconcile%' ORDER BY 1`,
    );

    const report = await reconcileJob({ module: JOB, args: ARGS });
    expect(report.sink.mode).toBe('upsert');
    expect(report.comparison.expectedRows).toBe((await batchTotals()).length);
    expect(report.comparison.matched).toBe(report.comparison.expectedRows);
    expect(report.divergent).toBe(false);

    await sql(
      `UPDATE ${SCHEMA}.customer_totals SET total_cents = total_cents + 1 WHERE customer = 11`,
    );
    const edited = await reconcileJob({ module: JOB, args: ARGS });
    expect(edited.divergent).toBe(true);
    expect(edited.comparison.differing).toBe(1);
    expect(edited.comparison.missing + edited.comparison.extra).toBe(0);
    const [difference] = edited.comparison.differences;
    expect(difference!.fields).toEqual(['total_cents']);
    expect(difference!.written!.value).toMatchObject({ customer: 11 });
    // Reconciling read a snapshot: the job's replication slot did not move.
    expect(
      await sql(
        `SELECT slot_name, confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name LIKE 'weir_reconcile%' ORDER BY 1`,
      ),
    ).toEqual(slotsBefore);
  }, 300_000);
});
