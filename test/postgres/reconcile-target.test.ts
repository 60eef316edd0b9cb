/**
 * `reconcileTarget()` of the PostgreSQL sinks against the real server: what
 * a job wrote, read back, equals `expected()` of the same values; a row
 * edited by hand shows up as a different value; values written differently
 * but stored equal (numeric scale, time zone offset, bytes, JSON key order)
 * compare equal, and different ones do not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PostgresTransactionalSink,
  PostgresUpsertSink,
} from '../../src/connectors/postgres/index.js';
import { type Change, Changes } from '../../src/core/changelog.js';
import {
  isReconcilableSink,
  type ReconcileTarget,
  type ReplayedValue,
  type WrittenRow,
} from '../../src/core/replay.js';
import { StreamEnvironment } from '../../src/index.js';
import { cleanup, freshSchema, PG_URL, sql } from './helpers.js';

const SCHEMA = 'weir_pg_reconcile';

const COLUMNS = `customer text PRIMARY KEY, cents bigint, amount numeric(12,3), updated timestamptz,
  day timestamp(3), payload jsonb, blob bytea, tags text[], amounts numeric[], ratio float8,
  note text NOT NULL DEFAULT 'none'`;

beforeAll(async () => {
  await freshSchema(SCHEMA);
  await sql(`CREATE TABLE ${SCHEMA}.totals (${COLUMNS})`);
  await sql(`CREATE TABLE ${SCHEMA}.tx_totals (${COLUMNS})`);
}, 60_000);
afterAll(async () => cleanup(SCHEMA, []), 60_000);

interface Total {
  customer: string;
  cents?: bigint | string | null;
  amount?: string | number | null;
  updated?: string | null;
  day?: number | null;
  payload?: unknown;
  blob?: Uint8Array | null;
  tags?: string[] | null;
  amounts?: string[] | null;
  ratio?: number | null;
  note?: string;
}

function total(i: number): Total {
  return {
    customer: `c${i}`,
    cents: 9_007_199_254_740_993n + BigInt(i),
    amount: `${i}.5`,
    updated: `2024-02-29T10:34:56.${String(i).padStart(6, '0')}Z`,
    day: Date.UTC(2024, 1, 29) + i * 1001,
    payload: { n: i, tags: ['a', i % 3], nested: { z: 1, a: null } },
    blob: i % 4 === 0 ? null : Buffer.from([i & 0xff, 0, 0xff]),
    tags: ['x', `t "${i}"`, 'a,b'],
    amounts: ['1.10', `${i}`],
    ratio: i / 7,
    ...(i % 3 === 0 ? {} : { note: `note ${i}` }),
  };
}

/** A changelog: inserts, updates of some, deletes of others. */
function changelog(n: number): Change<Total>[] {
  const out: Change<Total>[] = [];
  for (let i = 0; i < n; i++) out.push(Changes.insert(total(i)));
  for (let i = 0; i < n; i += 5)
    out.push(Changes.updateAfter({ ...total(i), amount: '999.125', tags: null }));
  for (let i = 1; i < n; i += 7) out.push(Changes.delete(total(i)));
  return out;
}

async function* replayed<T>(values: readonly T[]): AsyncIterable<ReplayedValue<T>> {
  for (const value of values) yield { value, timestamp: 0 };
}

async function collect(rows: AsyncIterable<WrittenRow>): Promise<WrittenRow[]> {
  const out: WrittenRow[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

/** Rows by key, for messages that name what differs. */
function byKey(rows: readonly WrittenRow[]): Map<string | undefined, unknown> {
  return new Map(rows.map((r) => [r.key, r.value]));
}

describe('upsert sink reconcile target', () => {
  const sink = new PostgresUpsertSink<Change<Total>>({
    connection: PG_URL,
    table: `${SCHEMA}.totals`,
    maxBatchSize: 97,
  });
  const input = changelog(500);
  let target: ReconcileTarget<Change<Total>>;

  beforeAll(async () => {
    expect(isReconcilableSink(sink)).toBe(true);
    const env = new StreamEnvironment({ batchSize: 64 });
    env.fromArray(input).sinkTo(sink);
    await env.execute('write totals');
    target = await sink.reconcileTarget();
  }, 120_000);
  afterAll(async () => target?.close());

  it('reads back what the job wrote exactly as expected() computes it from the same values', async () => {
    expect(target.mode).toBe('upsert');
    expect(target.description).toBe(`table ${SCHEMA}.totals`);
    const written = await collect(target.written());
    const expected = await collect(target.expected(replayed(input)));
    expect(written.length).toBe(500 - Math.ceil(499 / 7));
    expect(written).toEqual(expected);
    // Ordered by key as the database orders it (the oracle: a plain SELECT).
    const keys = await sql<{ customer: string }>(
      `SELECT customer FROM ${SCHEMA}.totals ORDER BY customer`,
    );
    expect(written.map((r) => r.key)).toEqual(keys.map((k) => JSON.stringify([k.customer])));
    expect(new Set(written.map((r) => r.origin))).toEqual(new Set([`${SCHEMA}.totals`]));
  });

  it('normalises every type to JSON deterministically', async () => {
    const written = byKey(await collect(target.written()));
    expect(written.get('["c5"]')).toEqual({
      customer: 'c5',
      cents: '9007199254740998',
      amount: '999.125',
      updated: '2024-02-29T10:34:56.000005Z',
      day: '2024-02-29T00:00:05.005',
      payload: { n: 5, nested: { a: null, z: 1 }, tags: ['a', 2] },
      blob: '0500ff',
      tags: null,
      amounts: ['1.1', '5'],
      ratio: 5 / 7,
      note: 'note 5',
    });
    // Defaults fill the columns a record does not set; NULLs stay null.
    expect(written.get('["c4"]')).toMatchObject({ blob: null, note: 'note 4', amount: '4.5' });
    expect(written.get('["c3"]')).toMatchObject({ note: 'none', tags: ['x', 't "3"', 'a,b'] });
    expect(written.has('["c1"]')).toBe(false);
  });

  it('shows a row edited by hand as a different value, and only that row', async () => {
    await sql(`UPDATE ${SCHEMA}.totals SET amount = amount + 0.001 WHERE customer = 'c2'`);
    try {
      const written = byKey(await collect(target.written()));
      const expected = byKey(await collect(target.expected(replayed(input))));
      const differing = [...expected.keys()].filter(
        (k) => JSON.stringify(written.get(k)) !== JSON.stringify(expected.get(k)),
      );
      expect(differing).toEqual(['["c2"]']);
      expect(written.get('["c2"]')).toMatchObject({ amount: '2.501' });
      expect(expected.get('["c2"]')).toMatchObject({ amount: '2.5' });
    } finally {
      await sql(`UPDATE ${SCHEMA}.totals SET amount = 2.5 WHERE customer = 'c2'`);
    }
  });

  it('compares values stored equal as equal, whatever form they were given in', async () => {
    // The same rows, written differently: numeric scale, a time zone offset,
    // JSON key order, bytes as a Uint8Array, text for a bigint.
    const restated = input.map((change) => {
      const v = change.value;
      const { nested, ...rest } = v.payload as { nested: unknown };
      return {
        kind: change.kind,
        value: {
          ...v,
          amount: typeof v.amount === 'string' ? `${v.amount}00` : v.amount,
          updated: `${v.updated!.slice(0, 10)} 12:34:56.${v.updated!.slice(20, 26)}+02`,
          payload: { nested, ...rest },
          blob: v.blob === null || v.blob === undefined ? v.blob : new Uint8Array(v.blob),
          cents: typeof v.cents === 'bigint' ? String(v.cents) : v.cents,
        },
      } as Change<Total>;
    });
    const written = await collect(target.written());
    expect(await collect(target.expected(replayed(restated)))).toEqual(written);
    // And a value that differs is not equal.
    const changed = input.map((c) =>
      c.value.customer === 'c9' ? { ...c, value: { ...c.value, amount: '9.51' } } : c,
    );
    const differing = await collect(target.expected(replayed(changed)));
    expect(byKey(differing).get('["c9"]')).toMatchObject({ amount: '9.51' });
    expect(
      differing.filter((r, i) => JSON.stringify(r) !== JSON.stringify(written[i])),
    ).toHaveLength(1);
  });

  it('leaves no copy of the table behind and fails clearly on a missing table', async () => {
    const copies = await sql("SELECT 1 FROM pg_class WHERE relname = 'weir_reconcile_expected'");
    expect(copies).toEqual([]);
    const missing = new PostgresUpsertSink<Total>({ connection: PG_URL, table: `${SCHEMA}.nope` });
    const t = await missing.reconcileTarget();
    await expect(collect(t.written())).rejects.toThrow(
      /table weir_pg_reconcile.nope does not exist/,
    );
    await t.close();
  });
});

describe('rows the table rejects', () => {
  it('fail expected() under the fail policy, and are left out (without calling the dead letter) otherwise', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.checked (id int PRIMARY KEY, qty int CHECK (qty >= 0))`);
    const values = [
      { id: 1, qty: 5 },
      { id: 2, qty: -1 },
      { id: 3, qty: 7 },
    ];
    const failing = await new PostgresUpsertSink<{ id: number; qty: number }>({
      connection: PG_URL,
      table: `${SCHEMA}.checked`,
    }).reconcileTarget();
    await expect(collect(failing.expected(replayed(values)))).rejects.toThrow(
      /rejected record \{"id":2,"qty":-1\}.*checked_qty_check/,
    );
    await failing.close();
    const dead: unknown[] = [];
    const lenient = await new PostgresUpsertSink<{ id: number; qty: number }>({
      connection: PG_URL,
      table: `${SCHEMA}.checked`,
      onRejected: { deadLetter: (r) => dead.push(r) },
    }).reconcileTarget();
    const rows = await collect(lenient.expected(replayed(values)));
    await lenient.close();
    expect(rows.map((r) => r.value)).toEqual([
      { id: 1, qty: 5 },
      { id: 3, qty: 7 },
    ]);
    expect(dead).toEqual([]);
    expect(await sql(`SELECT * FROM ${SCHEMA}.checked`)).toEqual([]);
  });
});

describe('transactional sink reconcile target', () => {
  it('reads back what the job committed exactly as expected() computes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-pg-reconcile-'));
    try {
      const sink = new PostgresTransactionalSink<Total>({
        connection: PG_URL,
        table: `${SCHEMA}.tx_totals`,
      });
      // Plain rows (this sink takes no changelog); later rows replace earlier ones by key.
      const input = [...Array.from({ length: 300 }, (_, i) => total(i % 200))].map((t, i) =>
        i >= 200 ? { ...t, amount: `${i}.25` } : t,
      );
      const env = new StreamEnvironment({
        batchSize: 50,
        checkpointing: { directory: dir, intervalMs: 20 },
      });
      env.fromArray(input).sinkTo(sink);
      await env.execute('write tx totals');
      const target = await sink.reconcileTarget();
      try {
        expect(target.mode).toBe('upsert');
        const written = await collect(target.written());
        expect(written.length).toBe(200);
        expect(written).toEqual(await collect(target.expected(replayed(input))));
        expect(byKey(written).get('["c7"]')).toMatchObject({ amount: '207.25' });
      } finally {
        await target.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
