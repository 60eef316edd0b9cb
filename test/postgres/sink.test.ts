/**
 * The upsert sink and the exactly-once transactional sink against the real
 * server: batching, deletes, idempotence, type round trip from CDC,
 * clear errors, dead letters, prepared transactions and their recovery.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChangeRecord,
  PostgresTransactionalSink,
  PostgresUpsertSink,
  postgresCdc,
  type RejectedRecord,
  type SinkMutation,
} from '../../src/connectors/postgres/index.js';
import type { RecordBatch } from '../../src/core/record-batch.js';
import type { TwoPhaseCommitWriter } from '../../src/core/sink.js';
import { StreamEnvironment } from '../../src/index.js';
import { MetricRegistry } from '../../src/metrics/registry.js';
import { cleanup, dropSlots, freshSchema, PG_URL, running, sql, until } from './helpers.js';

const SCHEMA = 'weir_pg_sink';
const SLOTS = ['weir_sink_mirror'];

beforeAll(async () => {
  await freshSchema(SCHEMA);
});
afterEach(async () => dropSlots(SLOTS));
afterAll(async () => cleanup(SCHEMA, SLOTS));

interface Item {
  id: number;
  name: string;
  qty: number | null;
}

const batch = <T>(values: T[]): RecordBatch<T> => ({
  values,
  timestamps: values.map(() => 0),
  keys: undefined,
});

async function rows(table: string): Promise<unknown[]> {
  return sql(`SELECT * FROM ${SCHEMA}.${table} ORDER BY 1`);
}

describe('upsert sink', () => {
  it('upserts and deletes in batches, and replaying the input leaves the same table', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.items (id int PRIMARY KEY, name text NOT NULL, qty int)`);
    const input: (Item | { id: number; __deleted: true })[] = [];
    for (let i = 0; i < 3000; i++) input.push({ id: i % 1000, name: `n${i}`, qty: i });
    for (let i = 0; i < 1000; i += 3) input.push({ id: i, __deleted: true });
    const run = async () => {
      const env = new StreamEnvironment({ batchSize: 257 });
      env
        .fromArray(input)
        .sinkTo(new PostgresUpsertSink({ connection: PG_URL, table: `${SCHEMA}.items` }));
      return env.execute('upsert');
    };
    const result = await run();
    expect(result.metric('weir_postgres_sink_rows_total')).toBe(input.length);
    const expected: Item[] = [];
    for (let id = 0; id < 1000; id++)
      if (id % 3 !== 0) expected.push({ id, name: `n${2000 + id}`, qty: 2000 + id });
    expect(await rows('items')).toEqual(expected);
    await run(); // at-least-once replay
    expect(await rows('items')).toEqual(expected);
  });

  it('round-trips every mapped type from a CDC source into a mirror table', async () => {
    const columns = `id int PRIMARY KEY, b boolean, i2 smallint, i8 bigint, f8 double precision, n numeric(12,3),
      m money, t text, c char(3), by bytea, d date, tm time, tm3 time(3), ts timestamp, ts3 timestamp(3),
      tstz timestamptz, ttz timetz, iv interval, u uuid, j json, jb jsonb, ai int[], at text[], an numeric(5,2)[],
      bit1 bit(1), bits bit(10), ip inet, pt point, x xml, nul text`;
    await sql(`CREATE TABLE ${SCHEMA}.src (${columns})`);
    await sql(`CREATE TABLE ${SCHEMA}.mirror (${columns})`);
    const row = (
      id: number,
    ) => `(${id}, true, 7, 9007199254740991, 2.25, 1234.5, 12.34, 'héllo "q"', 'ab',
      '\\x0102ff'::bytea, '2024-02-29', '13:45:30.123456', '13:45:30.123', '2024-02-29 12:34:56.789012',
      '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789012+02', '10:15:30.5+01', '3 days 04:05:06',
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"b": [1, 2]}', '{1,2,NULL}', '{"a b","c\\"d",NULL}',
      '{1.5,2.25}', B'1', B'1000000001', '192.168.0.1/24', '(1.5,2)', '<a>1</a>', NULL)`;
    await sql(`INSERT INTO ${SCHEMA}.src VALUES ${row(1)}, ${row(2)}, ${row(3)}`);
    const env = new StreamEnvironment();
    env
      .fromSource(
        postgresCdc({ connection: PG_URL, tables: [`${SCHEMA}.src`], slotName: SLOTS[0]! }),
      )
      .map((r: ChangeRecord) =>
        r.value === null || r.value.op === 't'
          ? r
          : { ...r, value: { ...r.value, source: { ...r.value.source, table: 'mirror' } } },
      )
      .sinkTo(new PostgresUpsertSink({ connection: PG_URL, table: `${SCHEMA}.mirror` }));
    const text = (table: string) =>
      sql<{ r: string }>(`SELECT t::text AS r FROM ${SCHEMA}.${table} t ORDER BY id`);
    await running(env, 'mirror', async (job) => {
      await until(
        async () => (await text('mirror')).length === 3 || job.failed() !== undefined,
        15_000,
        'snapshot',
      );
      await sql(`INSERT INTO ${SCHEMA}.src VALUES ${row(4)}`);
      await sql(
        `UPDATE ${SCHEMA}.src SET t = 'changed', ai = '{9}', tstz = '2000-01-01 00:00:00+00' WHERE id = 2`,
      );
      await sql(`DELETE FROM ${SCHEMA}.src WHERE id = 1`);
      const same = async () =>
        JSON.stringify(await text('src')) === JSON.stringify(await text('mirror'));
      await until(
        async () => (await same()) || job.failed() !== undefined,
        15_000,
        'mirror to catch up',
      );
      expect(job.failed()).toBeUndefined();
    });
    expect((await text('mirror')).length).toBe(3);
  });

  it('fails clearly on a missing table, a type mismatch and a constraint violation', async () => {
    await sql(
      `CREATE TABLE ${SCHEMA}.strict (id int PRIMARY KEY, qty int NOT NULL CHECK (qty >= 0))`,
    );
    const attempt = (table: string, records: unknown[]) => {
      const env = new StreamEnvironment();
      env
        .fromArray(records)
        .sinkTo(new PostgresUpsertSink({ connection: PG_URL, table: `${SCHEMA}.${table}` }));
      return env.execute('errors');
    };
    await expect(attempt('nope', [{ id: 1 }])).rejects.toThrow(
      `table ${SCHEMA}.nope does not exist`,
    );
    await expect(
      attempt('strict', [
        { id: 1, qty: 1 },
        { id: 2, qty: 'many' },
      ]),
    ).rejects.toThrow(
      /rejected record \{"id":2,"qty":"many"\}: invalid input syntax for type integer: "many".*\[column qty\]/,
    );
    await expect(attempt('strict', [{ id: 3, qty: -1 }])).rejects.toThrow(
      /rejected record \{"id":3,"qty":-1\}: .*violates check constraint "strict_qty_check"/,
    );
    await expect(attempt('strict', [{ id: 4, qty: null }])).rejects.toThrow(
      /rejected record \{"id":4,"qty":null\}: .*not-null/,
    );
    await expect(attempt('strict', [{ id: 5, qty: 1, colour: 'red' }])).rejects.toThrow(
      /rejected record .*table weir_pg_sink.strict has no column "colour"/,
    );
    // Nothing of a failed flush is written.
    expect(await rows('strict')).toEqual([]);
  });

  it('sends rows the database rejects to a dead letter and writes the others', async () => {
    await sql(
      `CREATE TABLE ${SCHEMA}.lenient (id int PRIMARY KEY, qty int NOT NULL CHECK (qty >= 0))`,
    );
    const dead: RejectedRecord<{ id: number; qty: unknown }>[] = [];
    const records = Array.from({ length: 100 }, (_, i) => ({
      id: i,
      qty: i % 10 === 3 ? -i : i % 10 === 7 ? 'x' : i,
    }));
    const env = new StreamEnvironment({ batchSize: 30 });
    env.fromArray(records).sinkTo(
      new PostgresUpsertSink({
        connection: PG_URL,
        table: `${SCHEMA}.lenient`,
        onRejected: { deadLetter: (r) => dead.push(r) },
      }),
    );
    const result = await env.execute('dead letter');
    expect(dead.map((d) => d.record.id).sort((a, b) => a - b)).toEqual(
      records.filter((r) => typeof r.qty !== 'number' || r.qty < 0).map((r) => r.id),
    );
    expect(dead.find((d) => d.record.id === 3)?.error).toMatch(/check constraint/);
    expect(dead.find((d) => d.record.id === 7)?.code).toBe('22P02');
    expect(result.metric('weir_postgres_sink_rejected_total')).toBe(20);
    expect((await rows('lenient')).length).toBe(80);
  });
});

describe('transactional sink', () => {
  const context = (subtaskIndex: number, parallelism = 1) => ({
    subtaskIndex,
    parallelism,
    operatorId: 'tx-sink',
    metrics: new MetricRegistry().group({}),
  });

  it('makes a checkpoint visible only when it commits, and recovery commits named and rolls back stray transactions', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.tx (id int PRIMARY KEY, v text)`);
    const sink = new PostgresTransactionalSink<
      { id: number; v: string } | { kind: 'delete'; key: { id: number } }
    >({
      connection: PG_URL,
      table: `${SCHEMA}.tx`,
      toMutation: (r) => ('kind' in r ? (r as SinkMutation) : { kind: 'upsert', row: r }),
    });
    const a = sink.createWriter(context(0)) as TwoPhaseCommitWriter<{ id: number; v: string }>;
    await a.recover([]);
    a.write(
      batch([
        { id: 1, v: 'a' },
        { id: 2, v: 'b' },
      ]),
    );
    await a.blocked?.();
    expect(await rows('tx')).toEqual([]);
    const c1 = a.preCommit(1);
    expect(c1).toMatchObject({ subtask: 0 });
    const gid1 = (c1 as { gid: string }).gid;
    expect(await sql('SELECT gid FROM pg_prepared_xacts WHERE gid = $1', [gid1])).toHaveLength(1);
    expect(await rows('tx')).toEqual([]); // prepared, not visible
    await a.commit([c1]);
    expect(await rows('tx')).toEqual([
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
    ]);
    await a.commit([c1]); // idempotent
    expect(a.preCommit(2)).toBeNull(); // nothing written: no transaction

    // Checkpoint 3 completes but the process dies before committing; 4 is prepared but never completes.
    a.write(batch([{ id: 3, v: 'c' }]));
    const c3 = a.preCommit(3);
    a.write(
      batch([
        { id: 4, v: 'd' },
        { id: 1, v: 'changed' },
      ]),
    );
    a.write(batch([{ kind: 'delete', key: { id: 2 } } as never]));
    const c4 = a.preCommit(4);
    expect(c4).not.toBeNull();
    await a.close(); // leaves both prepared

    const b = sink.createWriter(context(0)) as TwoPhaseCommitWriter<{ id: number; v: string }>;
    await b.recover([c3]);
    expect(await rows('tx')).toEqual([
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
      { id: 3, v: 'c' },
    ]);
    expect(
      await sql("SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'weir:weir_pg_sink.tx:%'"),
    ).toEqual([]);
    await b.close();
  });

  it('closes after a failure even when its writes wait on a transaction prepared for a checkpoint that never completed', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.locked (id int PRIMARY KEY, v text)`);
    const sink = new PostgresTransactionalSink<{ id: number; v: string }>({
      connection: PG_URL,
      table: `${SCHEMA}.locked`,
    });
    const a = sink.createWriter(context(0)) as TwoPhaseCommitWriter<{ id: number; v: string }>;
    await a.recover([]);
    a.write(batch([{ id: 1, v: 'a' }]));
    const c1 = a.preCommit(1); // prepared: holds the row lock on id 1 until resolved
    expect(c1).not.toBeNull();
    a.write(batch([{ id: 1, v: 'b' }])); // the next transaction waits for that lock
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await a.close();
    expect(Date.now() - started).toBeLessThan(5000);

    // The restore rolls the stray transaction back; the waiting session is gone with it.
    const b = sink.createWriter(context(0)) as TwoPhaseCommitWriter<{ id: number; v: string }>;
    await b.recover([]);
    expect(await rows('locked')).toEqual([]);
    expect(
      await sql("SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'weir:weir_pg_sink.locked:%'"),
    ).toEqual([]);
    b.write(batch([{ id: 1, v: 'c' }]));
    await b.commit([b.preCommit(2)]);
    expect(await rows('locked')).toEqual([{ id: 1, v: 'c' }]);
    await b.close();
  });

  it('is exactly-once across a failure and a restore from the latest checkpoint', async () => {
    await sql(
      `CREATE TABLE ${SCHEMA}.totals (k int PRIMARY KEY, total bigint NOT NULL, n int NOT NULL)`,
    );
    const dir = await mkdtemp(join(tmpdir(), 'weir-pg-tx-'));
    try {
      const build = (failAt?: number) => {
        const env = new StreamEnvironment({
          batchSize: 50,
          parallelism: 2,
          checkpointing: { directory: dir, intervalMs: 5 },
        });
        let seen = 0;
        env
          .fromGenerator({
            count: 6000,
            ratePerSecond: 30_000,
            generate: (i) => ({ k: i % 13, v: i }),
          })
          .uid('gen')
          .map((r) => {
            if (failAt !== undefined && ++seen === failAt) throw new Error('injected failure');
            return { k: r.k, total: r.v, n: 1 };
          })
          .keyBy((r) => r.k)
          .reduce((a, b) => ({ k: a.k, total: a.total + b.total, n: a.n + b.n }))
          .uid('sum')
          .sinkTo(new PostgresTransactionalSink({ connection: PG_URL, table: `${SCHEMA}.totals` }))
          .uid('sink');
        return env;
      };
      await expect(build(3500).execute('tx-fail')).rejects.toThrow(/injected failure/);
      const partial = await sql<{ n: number }>(`SELECT sum(n)::int AS n FROM ${SCHEMA}.totals`);
      expect(partial[0]!.n).toBeLessThan(6000);
      await build().execute('tx-resume', { restoreFrom: 'latest' });
      const totals = await sql<{ k: number; total: string; n: number }>(
        `SELECT * FROM ${SCHEMA}.totals ORDER BY k`,
      );
      const expected = Array.from({ length: 13 }, (_, k) => {
        let total = 0;
        let n = 0;
        for (let i = k; i < 6000; i += 13) {
          total += i;
          n++;
        }
        return { k, total: String(total), n };
      });
      expect(totals).toEqual(expected);
      expect(
        await sql("SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'weir:weir_pg_sink.totals:%'"),
      ).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
