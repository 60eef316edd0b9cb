/**
 * The snapshot hands over to streaming without losing or doubling a change,
 * while inserts, updates and deletes run concurrently with the snapshot.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CollectSink } from '../../src/connectors/collection/sink/collect-sink.js';
import {
  type ChangeEvent,
  type ChangeRecord,
  postgresCdc,
} from '../../src/connectors/postgres/index.js';
import { StreamEnvironment } from '../../src/index.js';
import { DeterministicRandom } from '../../src/util/random.js';
import { cleanup, client, freshSchema, PG_URL, running, sql, until } from './helpers.js';

const SCHEMA = 'weir_pg_handoff';
const SLOT = 'weir_handoff';
const ROWS = 50_000;

beforeAll(async () => {
  await freshSchema(SCHEMA);
  await sql(
    `CREATE TABLE ${SCHEMA}.accounts (id int PRIMARY KEY, version int NOT NULL, v text NOT NULL)`,
  );
  await sql(`CREATE TABLE ${SCHEMA}.marker (id int PRIMARY KEY)`);
  await sql(
    `INSERT INTO ${SCHEMA}.accounts SELECT g, 0, 'v' || g FROM generate_series(0, ${ROWS - 1}) g`,
  );
});
afterAll(async () => cleanup(SCHEMA, [SLOT]));

/** A writer: small transactions of random updates (version + 1), deletes and inserts until stopped. */
async function writer(seed: number, stop: () => boolean): Promise<number> {
  const c = await client();
  const random = new DeterministicRandom(seed);
  let next = ROWS + seed * 1_000_000;
  let transactions = 0;
  try {
    while (!stop()) {
      await c.query('BEGIN');
      const statements = 1 + random.int(4);
      for (let s = 0; s < statements; s++) {
        const r = random.int(10);
        const id = random.int(ROWS + 2000);
        if (r < 6)
          await c.query(
            `UPDATE ${SCHEMA}.accounts SET version = version + 1, v = $2 WHERE id = $1`,
            [id, `u${seed}`],
          );
        else if (r < 8) await c.query(`DELETE FROM ${SCHEMA}.accounts WHERE id = $1`, [id]);
        else await c.query(`INSERT INTO ${SCHEMA}.accounts VALUES ($1, 0, 'new')`, [next++]);
      }
      await c.query('COMMIT');
      transactions++;
    }
  } finally {
    await c.end();
  }
  return transactions;
}

it('hands over from the snapshot to the stream with every change exactly once', async () => {
  let stopped = false;
  const writers = [1, 2, 3].map((seed) => writer(seed, () => stopped));
  await new Promise((r) => setTimeout(r, 300)); // changes before the slot exists
  const env = new StreamEnvironment({ batchSize: 256 });
  const sink = new CollectSink<ChangeRecord>();
  env
    .fromSource(
      postgresCdc({
        connection: PG_URL,
        tables: [`${SCHEMA}.accounts`, `${SCHEMA}.marker`],
        slotName: SLOT,
        snapshotFetchSize: 500,
      }),
    )
    .sinkTo(sink);
  await running(env, 'handoff', async (job) => {
    // Changes during the snapshot, and after it.
    await until(
      () =>
        sink.values.some((r) => r.value?.source.snapshot === 'last') || job.failed() !== undefined,
      30_000,
      'snapshot',
    );
    await new Promise((r) => setTimeout(r, 300));
    stopped = true;
    const transactions = await Promise.all(writers);
    expect(transactions.every((n) => n > 10)).toBe(true);
    await sql(`INSERT INTO ${SCHEMA}.marker VALUES (1)`);
    await until(
      () => sink.values.some((r) => r.topic.endsWith('.marker')) || job.failed() !== undefined,
      30_000,
      'marker',
    );
    expect(job.failed()).toBeUndefined();
  });

  const events = sink.values
    .filter((r) => r.topic.endsWith('.accounts') && r.value !== null)
    .map((r) => r.value as ChangeEvent);
  const reads = events.filter((e) => e.op === 'r');
  const streamed = events.filter((e) => e.op !== 'r');
  // All reads come first; exactly the last is marked 'last'.
  expect(events.findIndex((e) => e.op !== 'r')).toBe(reads.length);
  expect(reads.filter((e) => e.source.snapshot === 'last')).toEqual([reads[reads.length - 1]]);
  // The snapshot saw changes made before it, and the stream those made during and after it.
  expect(reads.some((e) => (e.after!.version as number) > 0)).toBe(true);
  expect(reads.some((e) => (e.after!.id as number) >= ROWS)).toBe(true);
  expect(streamed.length).toBeGreaterThan(50);

  // Every row's history is consistent: each update exactly one version after
  // the previous image, no change before the row was seen, none twice.
  const state = new Map<number, { version: number; v: string }>();
  for (const e of events) {
    const id = (e.after ?? e.before)!.id as number;
    const known = state.get(id);
    if (e.op === 'r' || e.op === 'c') {
      expect(known, `row ${id} created or read twice`).toBeUndefined();
      expect(e.op === 'r' || e.after!.version === 0).toBe(true);
      state.set(id, { version: e.after!.version as number, v: e.after!.v as string });
    } else if (e.op === 'u') {
      expect(known, `update of row ${id} that was never seen`).toBeDefined();
      expect(e.after!.version, `row ${id} skipped or repeated a version`).toBe(known!.version + 1);
      state.set(id, { version: e.after!.version as number, v: e.after!.v as string });
    } else if (e.op === 'd') {
      expect(known, `delete of row ${id} that was never seen`).toBeDefined();
      state.delete(id);
    }
  }
  const table = await sql<{ id: number; version: number; v: string }>(
    `SELECT id, version, v FROM ${SCHEMA}.accounts ORDER BY id`,
  );
  expect(state.size).toBe(table.length);
  for (const row of table)
    expect(state.get(row.id), `row ${row.id}`).toEqual({ version: row.version, v: row.v });
});
