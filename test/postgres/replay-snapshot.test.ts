/**
 * `replay()` of the CDC source against the real server: a consistent
 * snapshot of two tables equal to a plain SELECT, in key order, in batches
 * of exactly `batchSize`, identical across runs, equal to the streaming
 * source's own initial snapshot, and leaving every replication slot and
 * publication as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChangeEvent,
  type ChangeRecord,
  type PostgresCdcOptions,
  postgresCdc,
} from '../../src/connectors/postgres/index.js';
import { systemClock } from '../../src/core/clock.js';
import { isReplayableSource } from '../../src/core/replay.js';
import type { Source } from '../../src/core/source.js';
import { CollectSink, StreamEnvironment } from '../../src/index.js';
import { MetricRegistry } from '../../src/metrics/registry.js';
import { cleanup, dropSlots, freshSchema, PG_URL, running, sql, until } from './helpers.js';

const SCHEMA = 'weir_pg_replay';
const PROD_SLOT = 'weir_replay_prod';
const UNUSED_SLOT = 'weir_replay_unused';
const STREAM_SLOT = 'weir_replay_stream';
const SLOTS = [PROD_SLOT, UNUSED_SLOT, STREAM_SLOT];
const ORDERS = 1234;
const CUSTOMERS = 57;

beforeAll(async () => {
  await dropSlots(SLOTS); // left by an interrupted run
  await freshSchema(SCHEMA);
  await sql(`CREATE TABLE ${SCHEMA}.orders (id int PRIMARY KEY, customer text NOT NULL,
    amount numeric(12,2), placed timestamptz, payload jsonb, data bytea, day date)`);
  // A composite key whose order differs from insertion order.
  await sql(
    `CREATE TABLE ${SCHEMA}.customers (region text, id int, name text, PRIMARY KEY (region, id))`,
  );
  // Inserted in a scrambled order, so key order is not the heap's order.
  await sql(`INSERT INTO ${SCHEMA}.orders
    SELECT i, 'c' || (i % 37), (i * 7.25)::numeric(12,2),
      timestamptz '2024-02-29 10:00:00+00' + i * interval '1.000123 second',
      jsonb_build_object('n', i, 'tags', jsonb_build_array('a', i % 3)),
      CASE WHEN i % 5 = 0 THEN NULL ELSE decode(lpad(to_hex(i), 6, '0'), 'hex') END,
      date '2024-01-01' + (i % 400)
    FROM (SELECT (g * 7919) % ${ORDERS} + 1 AS i FROM generate_series(0, ${ORDERS - 1}) g) s`);
  await sql(`INSERT INTO ${SCHEMA}.customers
    SELECT CASE WHEN g % 2 = 0 THEN 'north' ELSE 'east' END, ${CUSTOMERS} - g, 'name ' || g
    FROM generate_series(0, ${CUSTOMERS - 1}) g`);
  // The production slot a streaming job reads: a replay must leave it alone.
  await sql(`SELECT pg_create_logical_replication_slot('${PROD_SLOT}', 'pgoutput')`);
}, 60_000);
afterAll(async () => cleanup(SCHEMA, SLOTS), 60_000);

const options = (slotName: string): PostgresCdcOptions => ({
  connection: PG_URL,
  tables: [`${SCHEMA}.orders`, `${SCHEMA}.customers`],
  slotName,
});

function readerContext(batchSize: number) {
  return {
    subtaskIndex: 0,
    parallelism: 1,
    batchSize,
    clock: systemClock,
    metrics: new MetricRegistry().group({ operator: 'replay' }),
    operatorId: 'replay',
    restoredPosition: undefined,
  };
}

/** Reads a bounded source to its end through one reader: its batches and their timestamps. */
async function readAll<T>(
  source: Source<T>,
  batchSize: number,
): Promise<{ batches: T[][]; timestamps: number[] }> {
  const reader = source.createReader(readerContext(batchSize));
  await reader.open();
  const batches: T[][] = [];
  const timestamps: number[] = [];
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      const result = reader.poll();
      if (result === 'end') return { batches, timestamps };
      if (result === 'wait') {
        if (Date.now() > deadline) throw new Error('the replay did not end in time');
        await reader.available();
        continue;
      }
      batches.push(result.values);
      timestamps.push(...result.timestamps);
    }
  } finally {
    await reader.close();
  }
}

/** The part of a record that depends on the data alone (times, transaction ids and LSNs are the run's). */
function dataOf(r: ChangeRecord<ChangeEvent>) {
  const v = r.value!;
  return {
    topic: r.topic,
    key: r.key,
    op: v.op,
    before: v.before,
    after: v.after,
    schema: v.source.schema,
    table: v.source.table,
    snapshot: v.source.snapshot,
    db: v.source.db,
    name: v.source.name,
  };
}

interface SlotRow {
  slot_name: string;
  active: boolean;
  restart_lsn: string;
  confirmed_flush_lsn: string;
}

async function ourSlots(): Promise<SlotRow[]> {
  return sql<SlotRow>(
    `SELECT slot_name, active, restart_lsn::text, confirmed_flush_lsn::text FROM pg_replication_slots
     WHERE slot_name = ANY($1) ORDER BY slot_name`,
    [SLOTS],
  );
}

async function ourPublications(): Promise<string[]> {
  const rows = await sql<{ pubname: string }>(
    'SELECT pubname FROM pg_publication WHERE pubname LIKE $1 ORDER BY pubname',
    ['weir_replay_%'],
  );
  return rows.map((r) => r.pubname);
}

/** The rows as the source maps them, computed by the server: the oracle. */
async function expectedOrders(): Promise<Record<string, unknown>[]> {
  const rows = await sql<Record<string, unknown>>(`SELECT id, customer, amount::text AS amount,
      to_char(placed AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS placed,
      payload::text AS payload, encode(data, 'hex') AS data, (day - date '1970-01-01') AS day
    FROM ${SCHEMA}.orders ORDER BY id`);
  return rows;
}

function comparableOrder(after: Record<string, unknown>): Record<string, unknown> {
  return {
    ...after,
    data: after.data === null ? null : Buffer.from(after.data as Uint8Array).toString('hex'),
  };
}

describe('CDC source replay', () => {
  it('is a replayable source whose replay is bounded, not parallel, and refuses ranges', () => {
    const source = postgresCdc(options(PROD_SLOT));
    expect(isReplayableSource(source)).toBe(true);
    const replay = source.replay({});
    expect(replay.bounded).toBe(true);
    expect(replay.parallelizable).toBe(false);
    expect(() => source.replay({ from: 0 })).toThrow(/cannot take from/);
    expect(() => source.replay({ to: 10, positions: {} })).toThrow(/cannot take to, positions/);
    expect(() => source.replay({ files: ['a'] })).toThrow(/snapshot of the tables as they are now/);
  });

  it('reads both tables as a plain SELECT does, in key order, in exact batches, without touching slots', async () => {
    const slotsBefore = await ourSlots();
    const publicationsBefore = await ourPublications();
    expect(slotsBefore.map((s) => s.slot_name)).toEqual([PROD_SLOT]);

    const source = postgresCdc(options(PROD_SLOT));
    const first = await readAll(source.replay({}), 100);
    const total = ORDERS + CUSTOMERS;
    expect(first.batches.map((b) => b.length)).toEqual([
      ...Array.from({ length: Math.floor(total / 100) }, () => 100),
      total % 100,
    ]);
    const records = first.batches.flat();

    // Orders first (the configured order), by id; then customers by (region, id).
    const orders = records.slice(0, ORDERS);
    expect(orders.map((r) => comparableOrder(r.value!.after!))).toEqual(await expectedOrders());
    expect(orders.map((r) => r.key)).toEqual(orders.map((r) => ({ id: r.value!.after!.id })));
    const customers = records.slice(ORDERS);
    expect(customers.map((r) => r.value!.after)).toEqual(
      await sql(`SELECT * FROM ${SCHEMA}.customers ORDER BY region, id`),
    );
    expect(customers.map((r) => r.topic)).toEqual(customers.map(() => `weir.${SCHEMA}.customers`));

    // Read records, all stamped with the snapshot's time; the very last one marked.
    expect(new Set(records.map((r) => r.value!.op))).toEqual(new Set(['r']));
    expect(records.map((r) => r.value!.source.snapshot)).toEqual([
      ...records.slice(1).map(() => 'true'),
      'last',
    ]);
    const snapshotTime = records[0]!.value!.source.ts_ms;
    expect(first.timestamps).toEqual(records.map(() => snapshotTime));
    expect(Math.abs(snapshotTime - Date.now())).toBeLessThan(120_000);

    // Another run, through a job this time: the same records.
    const env = new StreamEnvironment({ batchSize: 100 });
    const sink = new CollectSink<ChangeRecord<ChangeEvent>>();
    env.fromSource(postgresCdc(options(UNUSED_SLOT)).replay({})).sinkTo(sink);
    await env.execute('replay');
    expect(sink.values.map(dataOf)).toEqual(records.map(dataOf));

    // No slot created, moved or taken; no publication created.
    expect(await ourSlots()).toEqual(slotsBefore);
    expect(await ourPublications()).toEqual(publicationsBefore);
  }, 120_000);

  it('sees one point in time: a transaction committed during the replay is in neither table', async () => {
    // Small fetches and batches of 1: the tables are read over many round trips after the commit.
    const source = postgresCdc({ ...options(PROD_SLOT), snapshotFetchSize: 10 });
    const reader = source.replay({}).createReader(readerContext(1));
    await reader.open();
    const seen: ChangeRecord<ChangeEvent>[] = [];
    try {
      let moved = false;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const result = reader.poll();
        if (result === 'end') break;
        if (result === 'wait') {
          if (Date.now() > deadline) throw new Error('the replay did not end in time');
          await reader.available();
          continue;
        }
        seen.push(...(result.values as ChangeRecord<ChangeEvent>[]));
        if (!moved) {
          moved = true;
          await sql(`BEGIN; UPDATE ${SCHEMA}.orders SET customer = 'moved' WHERE id = ${ORDERS};
            INSERT INTO ${SCHEMA}.customers VALUES ('west', 1, 'new'); COMMIT`);
        }
      }
    } finally {
      await reader.close();
      await sql(`DELETE FROM ${SCHEMA}.customers WHERE region = 'west'`);
      await sql(`UPDATE ${SCHEMA}.orders SET customer = 'c' || (id % 37) WHERE id = ${ORDERS}`);
    }
    expect(seen.length).toBe(ORDERS + CUSTOMERS);
    expect(seen.some((r) => r.value!.after!.customer === 'moved')).toBe(false);
    expect(seen.some((r) => r.value!.after!.region === 'west')).toBe(false);
  }, 120_000);

  it('orders a table without a primary key by the whole row', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.events (kind text, n int)`);
    await sql(`INSERT INTO ${SCHEMA}.events
      SELECT (ARRAY['b', 'a', 'B', 'é'])[1 + g % 4], (g * 31) % 11 FROM generate_series(0, 39) g`);
    const source = postgresCdc({ ...options(UNUSED_SLOT), tables: [`${SCHEMA}.events`] });
    const { batches } = await readAll(source.replay({}), 7);
    const records = batches.flat();
    expect(records.map((r) => r.key)).toEqual(records.map(() => null));
    expect(records.map((r) => r.value!.after)).toEqual(
      await sql(`SELECT * FROM ${SCHEMA}.events e ORDER BY e::text COLLATE "C"`),
    );
  }, 60_000);

  it('emits what the streaming source emits for its initial snapshot', async () => {
    const replayed = (
      await readAll(postgresCdc(options(UNUSED_SLOT)).replay({}), 64)
    ).batches.flat();
    const env = new StreamEnvironment();
    const sink = new CollectSink<ChangeRecord<ChangeEvent>>();
    env.fromSource(postgresCdc(options(STREAM_SLOT))).sinkTo(sink);
    await running(env, 'stream snapshot', async (job) => {
      await until(
        () => sink.values.length >= ORDERS + CUSTOMERS || job.failed() !== undefined,
        60_000,
        'the initial snapshot',
      );
      expect(job.failed()).toBeUndefined();
    });
    const streamed = sink.values.slice(0, ORDERS + CUSTOMERS);
    // The streaming snapshot reads in heap order: compare as sets, by key.
    const byKey = (rs: ChangeRecord<ChangeEvent>[]) =>
      rs
        .map((r) => ({ k: `${r.topic} ${JSON.stringify(r.key)}`, d: dataOf(r) }))
        .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
        .map((x) => ({ ...x.d, snapshot: undefined }));
    expect(byKey(replayed)).toEqual(byKey(streamed));
    // The same metadata fields, with the same meaning.
    const shape = (r: ChangeRecord<ChangeEvent>) => ({
      record: Object.keys(r).sort(),
      event: Object.keys(r.value!).sort(),
      source: Object.keys(r.value!.source).sort(),
      sequenceForm: /^\[null,"\d+"\]$/.test(r.value!.source.sequence),
      lsnIsNumber: typeof r.value!.source.lsn === 'number',
      txIdIsNumber: typeof r.value!.source.txId === 'number',
    });
    expect(shape(replayed[0]!)).toEqual(shape(streamed[0]!));
  }, 120_000);
});
