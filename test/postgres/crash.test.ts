/**
 * Batch reconciliation under crashes: CDC of `orders` -> per-customer sums
 * (keyed reduce) -> exactly-once PostgreSQL sink, in a child process that is
 * killed with SIGKILL at random moments while writers keep changing the
 * orders. Afterwards the sink table must equal the same aggregation
 * computed by SQL over the orders table.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DeterministicRandom } from '../../src/util/random.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { cleanup, client, freshSchema, PG_URL, sql, until } from './helpers.js';

const SCHEMA = 'weir_pg_crash';
const SLOT = 'weir_crash';
/** Issue #6 asks for at least 10. */
const KILLS = 10;
const FIXTURE = fileURLToPath(new URL('./fixtures/cdc-job.ts', import.meta.url));
const SINK_WORKER = fileURLToPath(
  new URL('../../src/connectors/postgres/sink/transaction-worker.ts', import.meta.url),
);
let checkpoints: string;
/** The fixture as one bundled module: the test starts it a dozen times or more. */
let job: string | undefined;

beforeAll(async () => {
  const bundling = bundledFixture(FIXTURE, [SINK_WORKER]);
  await freshSchema(SCHEMA);
  await sql(
    `CREATE TABLE ${SCHEMA}.orders (id serial PRIMARY KEY, customer int NOT NULL, amount numeric(10,2) NOT NULL)`,
  );
  await sql(`ALTER TABLE ${SCHEMA}.orders REPLICA IDENTITY FULL`);
  await sql(
    `CREATE TABLE ${SCHEMA}.customer_totals (customer int PRIMARY KEY, total_cents bigint NOT NULL, orders int NOT NULL)`,
  );
  await sql(
    `INSERT INTO ${SCHEMA}.orders (customer, amount) SELECT g % 50, round((random() * 100)::numeric, 2) FROM generate_series(1, 5000) g`,
  );
  checkpoints = await mkdtemp(join(tmpdir(), 'weir-pg-crash-'));
  job = await bundling;
});
afterAll(async () => {
  await cleanup(SCHEMA, [SLOT]);
  await rm(checkpoints, { recursive: true, force: true });
  if (job !== undefined) await rm(dirname(job), { recursive: true, force: true });
});

/** Random small transactions on the orders table until stopped. */
async function writer(seed: number, stop: () => boolean): Promise<number> {
  const c = await client();
  const random = new DeterministicRandom(seed);
  let transactions = 0;
  try {
    while (!stop()) {
      await c.query('BEGIN');
      for (let s = 1 + random.int(3); s > 0; s--) {
        const r = random.int(10);
        const [row] = (
          await c.query<{ id: number }>(`SELECT id FROM ${SCHEMA}.orders OFFSET $1 LIMIT 1`, [
            random.int(4000),
          ])
        ).rows;
        if (r < 4 || row === undefined) {
          await c.query(`INSERT INTO ${SCHEMA}.orders (customer, amount) VALUES ($1, $2)`, [
            random.int(60),
            (random.int(100_000) / 100).toFixed(2),
          ]);
        } else if (r < 7) {
          await c.query(`UPDATE ${SCHEMA}.orders SET amount = $2 WHERE id = $1`, [
            row.id,
            (random.int(100_000) / 100).toFixed(2),
          ]);
        } else if (r < 8) {
          await c.query(`UPDATE ${SCHEMA}.orders SET customer = $2 WHERE id = $1`, [
            row.id,
            random.int(60),
          ]);
        } else {
          await c.query(`DELETE FROM ${SCHEMA}.orders WHERE id = $1`, [row.id]);
        }
      }
      await c.query('COMMIT');
      transactions++;
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await c.end();
  }
  return transactions;
}

function startJob(log: string[]): ChildProcess {
  const child = spawn(process.execPath, [job!], {
    env: { ...process.env, WEIR_PG_URL: PG_URL, SCHEMA, SLOT, CHECKPOINTS: checkpoints },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => log.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => log.push(d.toString()));
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const expectedTotals = () =>
  sql<{ customer: number; total_cents: string; orders: number }>(
    `SELECT customer, sum(round(amount * 100))::int8 AS total_cents, count(*)::int AS orders
     FROM ${SCHEMA}.orders GROUP BY customer ORDER BY customer`,
  );
const sinkTotals = () =>
  sql<{ customer: number; total_cents: string; orders: number }>(
    `SELECT customer, total_cents, orders FROM ${SCHEMA}.customer_totals ORDER BY customer`,
  );

it(`sink equals the SQL aggregation after ${KILLS} SIGKILLs at random moments`, async () => {
  const random = new DeterministicRandom(Number(process.env.WEIR_CRASH_SEED ?? 7));
  let stopped = false;
  const writers = [11, 12].map((seed) => writer(seed, () => stopped));
  const log: string[] = [];
  const latest = async () =>
    (await readdir(checkpoints).catch(() => [] as string[]))
      .filter((f) => f.startsWith('chk-'))
      .sort()
      .pop();
  let progressed = 0;
  let kills = 0;
  try {
    // Warm-up: the first run checkpoints (and tsx's compile cache fills). Its
    // time to a first checkpoint scales the kill delays to this machine's speed.
    const started = Date.now();
    const first = startJob(log);
    await until(
      async () => (await latest()) !== undefined || first.exitCode !== null,
      60_000,
      'a first checkpoint',
    );
    const warmUp = Date.now() - started;
    await kill(first);
    // Every other run is killed only after it has restored and completed a
    // checkpoint of its own (waited for, not timed: a busy machine restores
    // slowly); the rest at a random moment, restoring or running.
    for (kills = 0; kills < KILLS; kills++) {
      const before = await latest();
      const child = startJob(log);
      if (kills % 2 === 0) {
        await until(
          async () => (await latest()) !== before || child.exitCode !== null,
          120_000,
          `run ${kills + 1} to restore and complete a checkpoint`,
        );
        expect(child.exitCode, log.join('').slice(-3000)).toBeNull();
        await new Promise((r) => setTimeout(r, Math.round(warmUp * random.next() * 0.5)));
      } else {
        await new Promise((r) => setTimeout(r, Math.round(warmUp * (0.1 + random.next() * 1.5))));
      }
      await kill(child);
      if ((await latest()) !== before) progressed++;
    }
  } finally {
    stopped = true;
    await Promise.all(writers);
  }
  // Runs restored and got as far as completing checkpoints of their own.
  console.log(
    `crash test: ${KILLS} kills, ${progressed} runs completed checkpoints before being killed`,
  );
  expect(kills).toBeGreaterThanOrEqual(KILLS);
  expect(progressed).toBeGreaterThanOrEqual(KILLS / 2);
  const final = startJob(log);
  try {
    const expected = await expectedTotals();
    let last: unknown;
    await until(
      async () => {
        last = await sinkTotals();
        return JSON.stringify(last) === JSON.stringify(expected) || final.exitCode !== null;
      },
      60_000,
      'the sink to reconcile',
    ).catch((e: unknown) => {
      throw new Error(
        `${String(e)}\nexpected ${JSON.stringify(expected).slice(0, 400)}\ngot ${JSON.stringify(last).slice(0, 400)}\n${log.join('').slice(-3000)}`,
      );
    });
    expect(final.exitCode, log.join('').slice(-3000)).toBeNull();
    expect(await sinkTotals()).toEqual(expected);
  } finally {
    await kill(final);
  }
  // Generous: the kill delays scale with the machine's speed, the limit does not.
}, 300_000);
