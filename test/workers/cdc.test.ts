/**
 * CDC from PostgreSQL run both ways (one thread at parallelism 1, two workers at parallelism 2):
 * snapshot and streamed changes of a table, summed per customer, leave the same totals table,
 * which is also what plain loops over the final orders give.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobModule } from '../../src/index.js';
import { cleanup, dropSlots, freshSchema, PG_URL, sql, until } from '../postgres/helpers.js';
import { fixture } from './harness.js';

const SCHEMA = 'weir_workers_cdc';
const SLOTS = ['weir_workers_cdc_0', 'weir_workers_cdc_1'];

beforeAll(() => freshSchema(SCHEMA));
afterAll(() => cleanup(SCHEMA, SLOTS));

/** The totals table as `customer cents orders` lines. */
async function totals(table: string): Promise<string[]> {
  const rows = await sql<{ r: string }>(
    `SELECT customer || ' ' || cents || ' ' || orders AS r FROM ${table} WHERE orders <> 0 ORDER BY customer`,
  );
  return rows.map((row) => row.r);
}

describe('worker mode with CDC from PostgreSQL', () => {
  it('keyed sums of a table snapshot and its streamed changes', async () => {
    const results: string[][] = [];
    for (const [i, options] of [{ parallelism: 1 }, { parallelism: 2, workers: 2 }].entries()) {
      const orders = `${SCHEMA}.orders${i}`;
      const table = `${SCHEMA}.totals${i}`;
      await sql(
        `CREATE TABLE ${orders} (id int PRIMARY KEY, customer int NOT NULL, cents int NOT NULL)`,
      );
      await sql(`ALTER TABLE ${orders} REPLICA IDENTITY FULL`);
      await sql(
        `CREATE TABLE ${table} (customer int PRIMARY KEY, cents bigint NOT NULL, orders int NOT NULL)`,
      );
      // Snapshot: 300 orders of 12 customers.
      await sql(
        `INSERT INTO ${orders} SELECT g, g % 12, (g * 37) % 1000 FROM generate_series(1, 300) g`,
      );
      const slot = SLOTS[i]!;
      const job = await startJobModule(fixture('cdc.ts'), {
        ...options,
        args: [PG_URL, orders, slot, table],
      });
      try {
        await until(
          async () =>
            (
              await sql('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [
                slot,
              ])
            ).length > 0,
          20_000,
          'the replication slot',
        );
        // Streamed: inserts, updates moving orders between customers, deletes.
        await sql(
          `INSERT INTO ${orders} SELECT g, g % 12, (g * 53) % 1000 FROM generate_series(301, 450) g`,
        );
        await sql(
          `UPDATE ${orders} SET customer = (customer + 5) % 12, cents = cents + 1 WHERE id % 5 = 0`,
        );
        await sql(`DELETE FROM ${orders} WHERE id % 9 = 0`);
        // Plain loops over the final table: what the totals must reach.
        const expected = (
          await sql<{ r: string }>(
            `SELECT customer || ' ' || sum(cents) || ' ' || count(*) AS r FROM ${orders} GROUP BY customer ORDER BY customer`,
          )
        ).map((row) => row.r);
        let got: string[] = [];
        await until(
          async () => {
            got = await totals(table);
            return JSON.stringify(got) === JSON.stringify(expected);
          },
          20_000,
          'the totals',
        ).catch(() => {});
        expect(got).toEqual(expected);
        results.push(got);
      } finally {
        await job.client.cancel().catch(() => {});
        await dropSlots([slot]);
      }
    }
    expect(results[0]!.length).toBe(12);
    expect(results[1]).toEqual(results[0]);
  });
});
