/** Helpers of the PostgreSQL connector tests (server: scripts/postgres.sh, started by vitest's global setup). */
import pg from 'pg';
import { dropReplicationSlot } from '../../src/connectors/postgres/index.js';
import type { JobClient, StreamEnvironment } from '../../src/index.js';

export const PG_URL = process.env.WEIR_PG_URL ?? 'postgres://weir:weir@127.0.0.1:54329/weir';

export async function client(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: PG_URL });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/** Runs SQL on a short-lived session. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
): Promise<R[]> {
  const c = await client();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** A fresh schema (dropped with everything in it first). */
export async function freshSchema(schema: string): Promise<void> {
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await sql(`CREATE SCHEMA ${schema}`);
}

/** Drops slots (and their publications) once their jobs are gone: the server has few slots to spare. */
export async function dropSlots(slots: readonly string[]): Promise<void> {
  for (const slot of slots) await dropReplicationSlot(PG_URL, slot, `${slot}_publication`);
}

/** Drops the slots and publications a test file created, and its schema. */
export async function cleanup(schema: string, slots: readonly string[]): Promise<void> {
  await dropSlots(slots);
  const stray = await sql<{ gid: string }>(
    "SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'weir:' || $1 || '.%'",
    [schema],
  );
  for (const { gid } of stray) await sql(`ROLLBACK PREPARED '${gid}'`);
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** Resolves when `predicate` holds (polling), or rejects after `timeoutMs`. */
export async function until(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts a job; the caller cancels it. Rejections of the job surface through `failed`. */
export function start(
  env: StreamEnvironment,
  name: string,
  restoreFrom?: string,
): JobClient & { failed: () => unknown } {
  const job = env.executeAsync(name, restoreFrom === undefined ? {} : { restoreFrom });
  let failure: unknown;
  job.result.catch((e: unknown) => {
    failure = e;
  });
  return Object.assign(job, { failed: () => failure });
}

/** Runs `body` with the job running, and cancels the job afterwards whatever happens. */
export async function running<T>(
  env: StreamEnvironment,
  name: string,
  body: (job: JobClient & { failed: () => unknown }) => Promise<T>,
  restoreFrom?: string,
): Promise<T> {
  const job = start(env, name, restoreFrom);
  try {
    return await body(job);
  } finally {
    await job.cancel().catch(() => {});
  }
}
