/**
 * Golden tests of the change events: every operation in Debezium's envelope,
 * keys, tombstones, primary-key changes, REPLICA IDENTITY FULL, truncate,
 * schema changes, the flattened form, and the mapping of column types (the
 * same for snapshot reads and streamed changes).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CollectSink } from '../../src/connectors/collection/sink/collect-sink.js';
import {
  type ChangeEvent,
  type ChangeRecord,
  type FlatRow,
  postgresCdc,
} from '../../src/connectors/postgres/index.js';
import { StreamEnvironment, type WindowResult, Windows } from '../../src/index.js';
import { cleanup, dropSlots, freshSchema, PG_URL, running, sql, until } from './helpers.js';

const SCHEMA = 'weir_pg_envelope';
const SLOTS = [
  'weir_env_main',
  'weir_env_flat',
  'weir_env_types',
  'weir_env_time',
  'weir_env_idle',
];

beforeAll(async () => {
  await freshSchema(SCHEMA);
  await sql('CREATE EXTENSION IF NOT EXISTS hstore');
  await sql(`CREATE TABLE ${SCHEMA}.items (id int PRIMARY KEY, name text NOT NULL, qty int)`);
  await sql(`CREATE TABLE ${SCHEMA}.full_items (id int PRIMARY KEY, name text, qty int)`);
  await sql(`ALTER TABLE ${SCHEMA}.full_items REPLICA IDENTITY FULL`);
  await sql(`CREATE TABLE ${SCHEMA}.nokey (a int, b text)`);
  await sql(`INSERT INTO ${SCHEMA}.items VALUES (1, 'one', 10)`);
});
afterEach(async () => dropSlots(SLOTS));
afterAll(async () => cleanup(SCHEMA, SLOTS));

/** The volatile parts of an event checked, then blanked for a golden comparison. */
function golden(record: ChangeRecord): unknown {
  const v = record.value;
  if (v === null) return record;
  const s = v.source;
  expect(typeof v.ts_ms).toBe('number');
  expect(Math.abs(v.ts_ms - Date.now())).toBeLessThan(60_000);
  expect(s.ts_us).toBeGreaterThanOrEqual(s.ts_ms * 1000);
  expect(typeof s.lsn).toBe('number');
  const sequence = JSON.parse(s.sequence) as (string | null)[];
  expect(sequence).toHaveLength(2);
  expect(sequence[1]).toBe(String(s.lsn));
  if (s.snapshot === 'false') expect(typeof s.txId).toBe('number');
  return {
    ...record,
    value: { ...v, ts_ms: 0, source: { ...s, ts_ms: 0, ts_us: 0, lsn: 0, sequence: '', txId: 0 } },
  };
}

const src = (table: string, snapshot: 'true' | 'last' | 'false') => ({
  version: '0.1.0',
  connector: 'postgresql',
  name: 'shop',
  ts_ms: 0,
  ts_us: 0,
  snapshot,
  db: 'weir',
  sequence: '',
  schema: SCHEMA,
  table,
  txId: 0,
  lsn: 0,
  xmin: null,
});

describe('Debezium envelope', () => {
  it('emits every operation, keys, primary-key changes, full before images, truncates and schema changes', async () => {
    const env = new StreamEnvironment();
    const sink = new CollectSink<ChangeRecord>();
    env
      .fromSource(
        postgresCdc({
          connection: PG_URL,
          name: 'shop',
          tables: [`${SCHEMA}.items`, `${SCHEMA}.full_items`, `${SCHEMA}.nokey`],
          slotName: SLOTS[0]!,
          tombstonesOnDelete: true,
        }),
      )
      .sinkTo(sink);
    await running(env, 'envelope', async (job) => {
      await until(() => sink.values.length >= 1 || job.failed() !== undefined, 15_000, 'snapshot');
      await sql(`INSERT INTO ${SCHEMA}.items VALUES (2, 'two', 20)`);
      await sql(`UPDATE ${SCHEMA}.items SET qty = 21 WHERE id = 2`);
      await sql(`UPDATE ${SCHEMA}.items SET id = 3 WHERE id = 2`);
      await sql(`DELETE FROM ${SCHEMA}.items WHERE id = 1`);
      await sql(`INSERT INTO ${SCHEMA}.full_items VALUES (1, 'f', 1)`);
      await sql(`UPDATE ${SCHEMA}.full_items SET qty = 2 WHERE id = 1`);
      await sql(`DELETE FROM ${SCHEMA}.full_items WHERE id = 1`);
      await sql(`INSERT INTO ${SCHEMA}.nokey VALUES (1, 'x')`);
      await sql(`ALTER TABLE ${SCHEMA}.items ADD COLUMN note text`);
      await sql(`INSERT INTO ${SCHEMA}.items VALUES (4, 'four', 40, 'new column')`);
      await sql(`TRUNCATE ${SCHEMA}.nokey`);
      await until(() => sink.values.length >= 15 || job.failed() !== undefined, 15_000, 'changes');
      expect(job.failed()).toBeUndefined();
    });
    const items = (id: number, name: string | null, qty: number | null, note?: string | null) =>
      note === undefined ? { id, name, qty } : { id, name, qty, note };
    const t = 'items';
    expect(sink.values.map(golden)).toEqual([
      // the snapshot: one row, so it is also the last
      {
        topic: `shop.${SCHEMA}.items`,
        key: { id: 1 },
        value: {
          before: null,
          after: items(1, 'one', 10),
          source: src(t, 'last'),
          op: 'r',
          ts_ms: 0,
        },
      },
      {
        topic: `shop.${SCHEMA}.items`,
        key: { id: 2 },
        value: {
          before: null,
          after: items(2, 'two', 20),
          source: src(t, 'false'),
          op: 'c',
          ts_ms: 0,
        },
      },
      // REPLICA IDENTITY DEFAULT: no before image for an update
      {
        topic: `shop.${SCHEMA}.items`,
        key: { id: 2 },
        value: {
          before: null,
          after: items(2, 'two', 21),
          source: src(t, 'false'),
          op: 'u',
          ts_ms: 0,
        },
      },
      // a primary-key change: delete of the old key (key columns only), tombstone, create
      {
        topic: `shop.${SCHEMA}.items`,
        key: { id: 2 },
        value: {
          before: items(2, null, null),
          after: null,
          source: src(t, 'false'),
          op: 'd',
          ts_ms: 0,
        },
      },
      { topic: `shop.${SCHEMA}.items`, key: { id: 2 }, value: null },
      {
        topic: `shop.${SCHEMA}.items`,
        key: { id: 3 },
        value: {
          before: null,
          after: items(3, 'two', 21),
          source: src(t, 'false'),
          op: 'c',
          ts_ms: 0,
        },
      },
      {
        topic: `shop.${SCHEMA}.items`,
        key: { id: 1 },
        value: {
          before: items(1, null, null),
          after: null,
          source: src(t, 'false'),
          op: 'd',
          ts_ms: 0,
        },
      },
      { topic: `shop.${SCHEMA}.items`, key: { id: 1 }, value: null },
      // REPLICA IDENTITY FULL: complete before images
      {
        topic: `shop.${SCHEMA}.full_items`,
        key: { id: 1 },
        value: {
          before: null,
          after: items(1, 'f', 1),
          source: src('full_items', 'false'),
          op: 'c',
          ts_ms: 0,
        },
      },
      {
        topic: `shop.${SCHEMA}.full_items`,
        key: { id: 1 },
        value: {
          before: items(1, 'f', 1),
          after: items(1, 'f', 2),
          source: src('full_items', 'false'),
          op: 'u',
          ts_ms: 0,
        },
      },
      {
        topic: `shop.${SCHEMA}.full_items`,
        key: { id: 1 },
        value: {
          before: items(1, 'f', 2),
          after: null,
          source: src('full_items', 'false'),
          op: 'd',
          ts_ms: 0,
        },
      },
      { topic: `shop.${SCHEMA}.full_items`, key: { id: 1 }, value: null },
      // no primary key: null key
      {
        topic: `shop.${SCHEMA}.nokey`,
        key: null,
        value: {
          before: null,
          after: { a: 1, b: 'x' },
          source: src('nokey', 'false'),
          op: 'c',
          ts_ms: 0,
        },
      },
      // a column added while streaming appears without a restart
      {
        topic: `shop.${SCHEMA}.items`,
        key: { id: 4 },
        value: {
          before: null,
          after: items(4, 'four', 40, 'new column'),
          source: src(t, 'false'),
          op: 'c',
          ts_ms: 0,
        },
      },
      {
        topic: `shop.${SCHEMA}.nokey`,
        key: null,
        value: { before: null, after: null, source: src('nokey', 'false'), op: 't', ts_ms: 0 },
      },
    ]);
    // Event time is the commit time.
    sink.values.forEach((r, i) => {
      if (r.value !== null && r.value.op !== 'r')
        expect(sink.timestamps[i]).toBe(r.value.source.ts_ms);
    });
    // LSNs and the sequence grow in commit order.
    const lsns = sink.values.flatMap((r) =>
      r.value === null || r.value.op === 'r' ? [] : [r.value.source.lsn!],
    );
    expect([...lsns].sort((a, b) => a - b)).toEqual(lsns);
  });

  it('flattens to the row after the change plus __deleted', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.flat (id int PRIMARY KEY, v text)`);
    await sql(`INSERT INTO ${SCHEMA}.flat VALUES (1, 'a')`);
    const env = new StreamEnvironment();
    const sink = new CollectSink<ChangeRecord<FlatRow>>();
    env
      .fromSource(
        postgresCdc({
          connection: PG_URL,
          tables: [`${SCHEMA}.flat`],
          slotName: SLOTS[1]!,
          flatten: true,
        }),
      )
      .sinkTo(sink);
    await running(env, 'flat', async (job) => {
      await until(() => sink.values.length >= 1 || job.failed() !== undefined, 15_000, 'snapshot');
      await sql(`UPDATE ${SCHEMA}.flat SET v = 'b' WHERE id = 1`);
      await sql(`INSERT INTO ${SCHEMA}.flat VALUES (2, 'c')`);
      await sql(`DELETE FROM ${SCHEMA}.flat WHERE id = 1`);
      await sql(`TRUNCATE ${SCHEMA}.flat`);
      await sql(`INSERT INTO ${SCHEMA}.flat VALUES (3, 'd')`);
      await until(() => sink.values.length >= 5 || job.failed() !== undefined, 15_000, 'changes');
    });
    const topic = `weir.${SCHEMA}.flat`;
    expect(sink.values).toEqual([
      { topic, key: { id: 1 }, value: { id: 1, v: 'a', __deleted: false } },
      { topic, key: { id: 1 }, value: { id: 1, v: 'b', __deleted: false } },
      { topic, key: { id: 2 }, value: { id: 2, v: 'c', __deleted: false } },
      { topic, key: { id: 1 }, value: { id: 1, v: null, __deleted: true } },
      { topic, key: { id: 3 }, value: { id: 3, v: 'd', __deleted: false } },
    ]);
  });
});

/** Days since the epoch. */
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / 86_400_000;

describe('type mapping', () => {
  it('maps column types as Debezium does, identically in the snapshot and in the stream', async () => {
    await sql(`CREATE TYPE ${SCHEMA}.mood AS ENUM ('sad', 'happy')`);
    await sql(`CREATE DOMAIN ${SCHEMA}.posint AS int CHECK (VALUE > 0)`);
    await sql(`CREATE TABLE ${SCHEMA}.types (
      id int PRIMARY KEY, b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision,
      n numeric(12,3), nfree numeric, m money, t text, vc varchar(10), c char(3), by bytea,
      d date, d_old date, tm time, tm3 time(3), ts timestamp, ts3 timestamp(3), tstz timestamptz,
      tstz0 timestamptz(0), ttz timetz, iv interval, u uuid, j json, jb jsonb, ai int[], at text[],
      a2 int[][], an numeric(5,2)[], bit1 bit(1), bits bit(10), vb varbit, ip inet, e ${SCHEMA}.mood,
      dom ${SCHEMA}.posint, pt point, x xml, h hstore, nul text)`);
    const values = `true, 7, 70000, 9007199254740991, 1.5, 2.25, 1234.5, 12345678901234567890.12345, 12.34,
      'héllo "q"', 'abc', 'ab', '\\x0102ff'::bytea, '2024-02-29', '1969-12-31', '13:45:30.123456', '13:45:30.123',
      '2024-02-29 12:34:56.789012', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789012+02',
      '2024-02-29 12:34:56+00', '10:15:30.5+01', '1 year 2 months 3 days 04:05:06.5',
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"b": [1, 2], "a": null}', '{1,2,NULL}',
      '{"a b","c\\"d",NULL}', '{{1,2},{3,4}}', '{1.5,2.25}', B'1', B'1000000001', B'101', '192.168.0.1/24',
      'happy', 5, '(1.5,2)', '<a>1</a>', 'a=>1, b=>NULL', NULL`;
    await sql(`INSERT INTO ${SCHEMA}.types VALUES (1, ${values})`);
    const env = new StreamEnvironment();
    const sink = new CollectSink<ChangeRecord>();
    env
      .fromSource(
        postgresCdc({ connection: PG_URL, tables: [`${SCHEMA}.types`], slotName: SLOTS[2]! }),
      )
      .sinkTo(sink);
    await running(env, 'types', async (job) => {
      await until(() => sink.values.length >= 1 || job.failed() !== undefined, 15_000, 'snapshot');
      await sql(`INSERT INTO ${SCHEMA}.types VALUES (2, ${values})`);
      await until(() => sink.values.length >= 2 || job.failed() !== undefined, 15_000, 'insert');
      expect(job.failed()).toBeUndefined();
    });
    const [read, created] = sink.values.map((r) => (r.value as ChangeEvent).after!);
    const wkb = Buffer.alloc(21);
    wkb.writeUInt8(1, 0);
    wkb.writeUInt32LE(1, 1);
    wkb.writeDoubleLE(1.5, 5);
    wkb.writeDoubleLE(2, 13);
    const expected = {
      id: 1,
      b: true,
      i2: 7,
      i4: 70000,
      i8: 9007199254740991,
      f4: 1.5,
      f8: 2.25,
      n: '1234.500',
      nfree: '12345678901234567890.12345',
      m: '12.34',
      t: 'héllo "q"',
      vc: 'abc',
      c: 'ab ',
      by: Buffer.from([1, 2, 255]),
      d: day(2024, 2, 29),
      d_old: -1,
      tm: ((13 * 60 + 45) * 60 + 30) * 1_000_000 + 123_456,
      tm3: ((13 * 60 + 45) * 60 + 30) * 1000 + 123,
      ts: Date.UTC(2024, 1, 29, 12, 34, 56, 789) * 1000 + 12,
      ts3: Date.UTC(2024, 1, 29, 12, 34, 56, 789),
      tstz: '2024-02-29T10:34:56.789012Z',
      tstz0: '2024-02-29T12:34:56Z',
      ttz: '09:15:30.5Z',
      iv:
        Math.trunc((14 * 30.4375 + 3) * 86_400_000_000) +
        (4 * 3600 + 5 * 60) * 1_000_000 +
        6_500_000,
      u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      j: '{"a": 1}',
      jb: '{"a": null, "b": [1, 2]}',
      ai: [1, 2, null],
      at: ['a b', 'c"d', null],
      a2: [
        [1, 2],
        [3, 4],
      ],
      an: ['1.50', '2.25'],
      bit1: true,
      bits: Buffer.from([0x01, 0x02]),
      vb: Buffer.from([0x05]),
      ip: '192.168.0.1/24',
      e: 'happy',
      dom: 5,
      pt: { x: 1.5, y: 2, wkb, srid: null },
      x: '<a>1</a>',
      h: '{"a":"1","b":null}',
      nul: null,
    };
    expect(read).toEqual(expected);
    expect(created).toEqual({ ...expected, id: 2 });
  });
});

describe('event time and idleness', () => {
  it('stamps records with the commit time and emits watermarks, so CDC streams can be windowed', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.clicks (id int PRIMARY KEY)`);
    const env = new StreamEnvironment();
    const sink = new CollectSink<WindowResult<string, number>>();
    env
      .fromSource(
        postgresCdc({ connection: PG_URL, tables: [`${SCHEMA}.clicks`], slotName: SLOTS[3]! }),
      )
      .filter((r) => r.value?.op === 'c')
      .map(() => 1)
      .keyBy(() => 'all')
      .window(Windows.tumbling(200))
      .reduce((a, b) => a + b)
      .sinkTo(sink);
    await running(env, 'windows', async (job) => {
      await until(
        async () =>
          (
            await sql('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [
              SLOTS[3],
            ])
          ).length > 0,
        15_000,
        'streaming',
      );
      for (let i = 1; i <= 5; i++) await sql(`INSERT INTO ${SCHEMA}.clicks VALUES (${i})`);
      await new Promise((r) => setTimeout(r, 450));
      await sql(`INSERT INTO ${SCHEMA}.clicks VALUES (6)`); // its commit time moves the watermark past the first windows
      await until(
        () => sink.values.reduce((n, w) => n + w.value, 0) >= 5 || job.failed() !== undefined,
        15_000,
        'windows to fire',
      );
    });
    expect(sink.values.reduce((n, w) => n + w.value, 0)).toBe(5);
  });

  it('answers keepalives while idle, so a short wal_sender_timeout does not end replication', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.quiet (id int PRIMARY KEY)`);
    const env = new StreamEnvironment();
    const sink = new CollectSink<ChangeRecord>();
    env
      .fromSource(
        postgresCdc({
          connection: { connectionString: PG_URL, sessionOptions: '-c wal_sender_timeout=1000' },
          tables: [`${SCHEMA}.quiet`],
          slotName: SLOTS[4]!,
          statusIntervalMs: 60_000, // only keepalive replies keep the session alive
        }),
      )
      .sinkTo(sink);
    await running(env, 'idle', async (job) => {
      await until(
        async () =>
          (
            await sql('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active', [
              SLOTS[4],
            ])
          ).length > 0,
        15_000,
        'streaming',
      );
      await new Promise((r) => setTimeout(r, 3000));
      expect(job.failed()).toBeUndefined();
      await sql(`INSERT INTO ${SCHEMA}.quiet VALUES (1)`);
      await until(
        () => sink.values.length >= 1 || job.failed() !== undefined,
        15_000,
        'the change',
      );
      expect(job.failed()).toBeUndefined();
    });
  });
});

describe('errors', () => {
  it('fails clearly when a captured table does not exist', async () => {
    const env = new StreamEnvironment();
    env
      .fromSource(
        postgresCdc({
          connection: PG_URL,
          tables: [`${SCHEMA}.items`, `${SCHEMA}.missing`, 'nowhere.x'],
          slotName: 'weir_env_missing',
        }),
      )
      .sinkTo(new CollectSink());
    await expect(env.execute('missing')).rejects.toThrow(
      `cannot capture changes: tables ${SCHEMA}.missing, nowhere.x not found`,
    );
    expect(
      await sql("SELECT 1 FROM pg_replication_slots WHERE slot_name = 'weir_env_missing'"),
    ).toEqual([]);
  });
});
