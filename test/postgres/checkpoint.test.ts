/**
 * Checkpoints and the slot: positions inside large transactions, the slot
 * confirmed only once a checkpoint completed, replay from a restored
 * position, and the slot lag metric while Weir is stopped and after.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CollectSink } from '../../src/connectors/collection/sink/collect-sink.js';
import {
  type ChangeRecord,
  PostgresTransactionalSink,
  postgresCdc,
  replicationSlotLag,
  SLOT_LAG_METRIC,
  SLOT_RETAINED_METRIC,
} from '../../src/connectors/postgres/index.js';
import { StreamEnvironment } from '../../src/index.js';
import { cleanup, dropSlots, freshSchema, PG_URL, running, sql, until } from './helpers.js';

const SCHEMA = 'weir_pg_checkpoint';
const SLOTS = ['weir_chk_midtx', 'weir_chk_confirm', 'weir_chk_lag', 'weir_chk_idle'];
let dir: string;

beforeAll(async () => {
  await freshSchema(SCHEMA);
  dir = await mkdtemp(join(tmpdir(), 'weir-pg-chk-'));
});
afterEach(async () => dropSlots(SLOTS));
afterAll(async () => {
  await cleanup(SCHEMA, SLOTS);
  await rm(dir, { recursive: true, force: true });
});

/** Polls bound: they end as soon as their condition holds, so they may be generous for a busy machine. */
const POLL_MS = 60_000;

async function confirmedLsn(slot: string): Promise<bigint> {
  const [row] = await sql<{ lsn: string | null }>(
    "SELECT pg_wal_lsn_diff(confirmed_flush_lsn, '0/0')::int8::text AS lsn FROM pg_replication_slots WHERE slot_name = $1",
    [slot],
  );
  if (row?.lsn == null) throw new Error(`slot '${slot}' has no confirmed position yet`);
  return BigInt(row.lsn);
}

/**
 * The source streams from `slot`. A new logical slot is active while it is still being created,
 * and its confirmed position stays NULL until it has waited out the transactions running then
 * (other tests' transactions, on a busy server): both must hold.
 */
async function streaming(slot: string): Promise<void> {
  await until(
    async () =>
      (
        await sql(
          'SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active AND confirmed_flush_lsn IS NOT NULL',
          [slot],
        )
      ).length > 0,
    POLL_MS,
    'streaming',
  );
}

describe('checkpoints', () => {
  it('restores exactly once from checkpoints taken inside a large transaction', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.big (id int PRIMARY KEY)`);
    await sql(`CREATE TABLE ${SCHEMA}.counts (k int PRIMARY KEY, n int NOT NULL)`);
    const checkpoints = join(dir, 'midtx');
    const build = (failAt?: number) => {
      const env = new StreamEnvironment({
        batchSize: 64,
        checkpointing: { directory: checkpoints, intervalMs: 1 },
      });
      let seen = 0;
      env
        .fromSource(
          postgresCdc({ connection: PG_URL, tables: [`${SCHEMA}.big`], slotName: SLOTS[0]! }),
        )
        .uid('cdc')
        .map((r: ChangeRecord) => {
          if (failAt !== undefined && ++seen === failAt) throw new Error('injected failure');
          return { k: (r.key!.id as number) % 7, n: 1 };
        })
        .keyBy((r) => r.k)
        .reduce((a, b) => ({ k: a.k, n: a.n + b.n }))
        .uid('count')
        .sinkTo(new PostgresTransactionalSink({ connection: PG_URL, table: `${SCHEMA}.counts` }))
        .uid('sink');
      return env;
    };
    const first = build(2500);
    const failed = first.execute('midtx');
    // The table is empty: the snapshot ends at once; then one transaction of 5000 rows.
    await streaming(SLOTS[0]!);
    await sql(`INSERT INTO ${SCHEMA}.big SELECT g FROM generate_series(1, 5000) g`);
    await expect(failed).rejects.toThrow(/injected failure/);
    // The checkpoint restored from sits inside the transaction.
    const latest = (await import('node:fs/promises')).readdir(checkpoints);
    const chk = (await latest)
      .filter((f) => f.startsWith('chk-'))
      .sort()
      .pop()!;
    const metadata = JSON.parse(
      await readFile(join(checkpoints, chk, '_metadata.json'), 'utf8'),
    ) as {
      operators: { uid: string; sourcePositions?: { tx: unknown }[] }[];
    };
    expect(metadata.operators.find((o) => o.uid === 'cdc')!.sourcePositions![0]!.tx).not.toBeNull();

    await running(
      build(),
      'midtx-restored',
      async (job) => {
        const total = async () =>
          Number(
            (
              await sql<{ n: string }>(
                `SELECT coalesce(sum(n), 0)::text AS n FROM ${SCHEMA}.counts`,
              )
            )[0]!.n,
          );
        await until(
          async () => (await total()) >= 5000 || job.failed() !== undefined,
          30_000,
          'all rows counted',
        );
        expect(job.failed()).toBeUndefined();
        await new Promise((r) => setTimeout(r, 200)); // more checkpoints: nothing more arrives
        expect(await total()).toBe(5000);
      },
      'latest',
    );
    const counts = await sql<{ k: number; n: number }>(
      `SELECT k, n FROM ${SCHEMA}.counts ORDER BY k`,
    );
    expect(counts).toEqual(
      Array.from({ length: 7 }, (_, k) => ({
        k,
        n: Array.from({ length: 5000 }, (_, i) => i + 1).filter((id) => id % 7 === k).length,
      })),
    );
  });

  it('confirms the slot only when a checkpoint completes, and a restore replays from its position', async () => {
    const slot = SLOTS[1]!;
    await sql(`CREATE TABLE ${SCHEMA}.events (id int PRIMARY KEY)`);
    const source = () =>
      postgresCdc({ connection: PG_URL, tables: [`${SCHEMA}.events`], slotName: slot });
    const env = new StreamEnvironment();
    const sink = new CollectSink<ChangeRecord>();
    env.fromSource(source()).uid('cdc').sinkTo(sink);
    const savepoints = join(dir, 'savepoints');
    let savepoint = '';
    await running(env, 'confirm', async (job) => {
      await streaming(slot);
      const initial = await confirmedLsn(slot);
      for (let i = 1; i <= 10; i++) await sql(`INSERT INTO ${SCHEMA}.events VALUES (${i})`);
      await until(() => sink.values.length >= 10 || job.failed() !== undefined, POLL_MS, 'events');
      await new Promise((r) => setTimeout(r, 300)); // status updates go out meanwhile
      expect(await confirmedLsn(slot)).toBe(initial); // read, but no checkpoint yet
      const lastLsn = BigInt(sink.values[9]!.value!.source.lsn!);
      savepoint = await job.triggerSavepoint(savepoints);
      await until(async () => (await confirmedLsn(slot)) > lastLsn, POLL_MS, 'confirmation');
      for (let i = 11; i <= 15; i++) await sql(`INSERT INTO ${SCHEMA}.events VALUES (${i})`);
      await until(
        () => sink.values.length >= 15 || job.failed() !== undefined,
        POLL_MS,
        'more events',
      );
    });
    const again = new StreamEnvironment();
    const replay = new CollectSink<ChangeRecord>();
    again.fromSource(source()).uid('cdc').sinkTo(replay);
    await running(
      again,
      'replay',
      async (job) => {
        await until(
          () => replay.values.length >= 5 || job.failed() !== undefined,
          POLL_MS,
          'replay',
        );
        await sql(`INSERT INTO ${SCHEMA}.events VALUES (16)`);
        await until(
          () => replay.values.length >= 6 || job.failed() !== undefined,
          POLL_MS,
          'new event',
        );
      },
      savepoint,
    );
    expect(replay.values.map((r) => r.key!.id)).toEqual([11, 12, 13, 14, 15, 16]);
  });

  it('reports slot lag: it rises while Weir is stopped and falls once it has caught up', async () => {
    const slot = SLOTS[2]!;
    await sql(`CREATE TABLE ${SCHEMA}.wal (id int PRIMARY KEY, pad text)`);
    const checkpoints = join(dir, 'lag');
    const warnings: string[] = [];
    const build = () => {
      const env = new StreamEnvironment({
        checkpointing: { directory: checkpoints, intervalMs: 100 },
      });
      env
        .fromSource(
          postgresCdc({
            connection: PG_URL,
            tables: [`${SCHEMA}.wal`],
            slotName: slot,
            slotLagIntervalMs: 50,
            slotLagWarningBytes: 2 * 1024 * 1024,
            onWarning: (w) => warnings.push(w),
          }),
        )
        .uid('cdc')
        .sinkTo(new CollectSink());
      return env;
    };
    const MB = 1024 * 1024;
    await running(build(), 'lag-1', async (job) => {
      await until(
        () =>
          job.metrics.total('weir_checkpoints_completed_total') >= 2 || job.failed() !== undefined,
        POLL_MS,
        'checkpoints',
      );
      await until(() => job.metrics.total(SLOT_LAG_METRIC) < MB, POLL_MS, 'small lag');
    });
    // Stopped: the server keeps the WAL for the slot.
    await sql(
      `INSERT INTO ${SCHEMA}.wal SELECT g, repeat('x', 200) FROM generate_series(1, 30000) g`,
    );
    const stopped = await replicationSlotLag(PG_URL, slot);
    expect(stopped!.active).toBe(false);
    expect(stopped!.lagBytes).toBeGreaterThan(4 * MB);
    expect(stopped!.retainedBytes).toBeGreaterThan(4 * MB);
    await running(
      build(),
      'lag-2',
      async (job) => {
        const present = () => job.metrics.snapshot().some((m) => m.name === SLOT_LAG_METRIC);
        await until(() => present() || job.failed() !== undefined, POLL_MS, 'the lag gauge');
        const readings: number[] = [];
        await until(
          () => {
            readings.push(job.metrics.total(SLOT_LAG_METRIC));
            return (
              (readings.length > 1 && readings[readings.length - 1]! < MB) ||
              job.failed() !== undefined
            );
          },
          30_000,
          'lag to fall',
        );
        expect(job.failed()).toBeUndefined();
        expect(Math.max(...readings)).toBeGreaterThan(4 * MB);
        expect(job.metrics.total(SLOT_RETAINED_METRIC)).toBeGreaterThan(0);
      },
      'latest',
    );
    expect(warnings.some((w) => w.includes(`slot '${slot}' retains`))).toBe(true);
  });

  it('keeps an idle slot from retaining WAL: keepalive positions are confirmed, with an optional heartbeat', async () => {
    const slot = SLOTS[3]!;
    await sql(`CREATE TABLE ${SCHEMA}.captured (id int PRIMARY KEY)`);
    await sql(`CREATE TABLE ${SCHEMA}.other (id int PRIMARY KEY, pad text)`);
    const env = new StreamEnvironment({
      checkpointing: { directory: join(dir, 'idle'), intervalMs: 100 },
    });
    env
      .fromSource(
        postgresCdc({
          connection: PG_URL,
          tables: [`${SCHEMA}.captured`],
          slotName: slot,
          slotLagIntervalMs: 50,
          heartbeatIntervalMs: 100,
        }),
      )
      .sinkTo(new CollectSink());
    const MB = 1024 * 1024;
    await running(env, 'idle', async (job) => {
      await streaming(slot);
      const before = await confirmedLsn(slot);
      // Only a table the source does not capture changes.
      await sql(
        `INSERT INTO ${SCHEMA}.other SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g`,
      );
      await until(
        async () =>
          (await replicationSlotLag(PG_URL, slot))!.lagBytes < MB || job.failed() !== undefined,
        POLL_MS,
        'the idle slot to be confirmed',
      );
      expect(job.failed()).toBeUndefined();
      expect(await confirmedLsn(slot)).toBeGreaterThan(before + BigInt(4 * MB));
    });
  });
});
