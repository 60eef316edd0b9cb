/**
 * Keyed table views: the latest row per primary key, read back as an upsert
 * or retract changelog (or plain inserts for an append-only input), against
 * a plain-loop table, at parallelism 1 and 2 and across a savepoint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Change, StreamEnvironment } from '../../src/index.js';
import { tableViewInput } from '../helpers/internals.js';
import {
  materialize,
  materializeUpserts,
  perKey,
  render,
  type TableOp,
  tableHistory,
  withSavepoint,
} from './helpers.js';

interface Account {
  readonly id: number;
  readonly owner: string;
  readonly balance: number;
}

/** Table operations; `upsert` of an existing id is an update (possibly to the same row). */
type Op = TableOp<Account>;

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('upsert' as const),
      row: fc.record({
        id: fc.integer({ min: 0, max: 8 }),
        owner: fc.constantFrom('ann', 'bo'),
        balance: fc.integer({ min: 0, max: 3 }),
      }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      id: fc.integer({ min: 0, max: 8 }),
    }),
  },
);

/** The input as a retract changelog (as an upstream updating operator would emit it). */
function changelogOf(ops: readonly Op[]): Change<Account>[] {
  return tableHistory(ops, (a) => a.id).changes;
}

/** What the view emits per key, by plain loops over the table operations. */
function viewOracle(ops: readonly Op[], mode: 'upsert' | 'retract') {
  const table = new Map<number, Account>();
  const out: Change<Account>[] = [];
  for (const o of ops) {
    if (o.op === 'delete') {
      const prev = table.get(o.id);
      if (prev !== undefined) out.push({ kind: '-D', value: prev });
      table.delete(o.id);
      continue;
    }
    const prev = table.get(o.row.id);
    table.set(o.row.id, o.row);
    if (prev === undefined) out.push({ kind: '+I', value: o.row });
    else if (JSON.stringify(prev) !== JSON.stringify(o.row)) {
      // The input's -U takes the row out, its +U brings the new one.
      if (mode === 'retract') out.push({ kind: '-U', value: prev }, { kind: '+U', value: o.row });
      else out.push({ kind: '-D', value: prev }, { kind: '+U', value: o.row });
    } else if (mode === 'retract')
      out.push({ kind: '-U', value: prev }, { kind: '+U', value: o.row });
    else out.push({ kind: '-D', value: prev }, { kind: '+U', value: o.row });
  }
  return { changes: out, final: [...table.values()].map((r) => JSON.stringify(r)).sort() };
}

describe('table view', () => {
  it('holds the latest row per key: its upsert and retract streams equal the plain-loop table (p=1 and 2)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        fc.constantFrom(1, 2),
        async (ops, parallelism) => {
          const input = changelogOf(ops);
          for (const mode of ['upsert', 'retract'] as const) {
            const env = new StreamEnvironment({ parallelism, batchSize: 4 });
            const view = env
              .fromArray(input)
              .asChangelog('retract')
              .materialize((a) => a.id);
            const stream = mode === 'upsert' ? view.toUpsertStream() : view.toRetractStream();
            expect(stream.mode).toBe(mode);
            const out = await stream.executeAndCollect();
            const oracle = viewOracle(ops, mode);
            expect(perKey(out, (a) => a.id)).toEqual(perKey(oracle.changes, (a) => a.id));
            if (mode === 'upsert')
              expect(materializeUpserts(out, (a) => a.id)).toEqual(oracle.final);
            else expect(materialize(out)).toEqual(oracle.final);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('turns an upsert input into a retract changelog, dropping no-op updates', async () => {
    const env = new StreamEnvironment();
    const a1 = { id: 1, owner: 'ann', balance: 1 };
    const a2 = { id: 1, owner: 'ann', balance: 2 };
    const out = await env
      .fromArray<Change<Account>>([
        { kind: '+U', value: a1 },
        { kind: '+U', value: a1 },
        { kind: '+U', value: a2 },
        { kind: '-D', value: a2 },
        { kind: '-D', value: a2 },
      ])
      .asChangelog('upsert', (a) => a.id)
      .materialize((a) => a.id)
      .toRetractStream()
      .executeAndCollect();
    // A key's first row is an insert (Flink's ChangelogNormalize), whatever the input called it.
    expect(out).toEqual([
      { kind: '+I', value: a1 },
      { kind: '-U', value: a1 },
      { kind: '+U', value: a2 },
      { kind: '-D', value: a2 },
    ]);
  });

  it('an append-only view reads back as plain records; a second row for a key fails naming it', async () => {
    const rows = [
      { id: 1, owner: 'ann', balance: 1 },
      { id: 2, owner: 'bo', balance: 5 },
    ];
    const env = new StreamEnvironment({ parallelism: 2 });
    const out = await env
      .fromArray(rows)
      .toChangelog()
      .materialize((a) => a.id)
      .toInsertStream()
      .executeAndCollect();
    expect(out.sort((a, b) => a.id - b.id)).toEqual(rows);
    const dup = new StreamEnvironment();
    await expect(
      dup
        .fromArray([...rows, { id: 2, owner: 'bo', balance: 6 }])
        .toChangelog()
        .materialize((a) => a.id)
        .toInsertStream()
        .executeAndCollect(),
    ).rejects.toThrow(
      /an append-only view got a second row for key 2: \{"id":2,"owner":"bo","balance":6\}; read the view as an upsert or retract stream instead/,
    );
  });

  it('with a TTL, forgets a key idle longer than it: its next row is new again', async () => {
    let now = 0;
    const env = new StreamEnvironment({ batchSize: 1, clock: { now: () => now } });
    const at = (t: number, balance: number) => ({ t, row: { id: 1, owner: 'ann', balance } });
    const out = await env
      .fromArray([at(0, 1), at(500, 2), at(5_000, 3)])
      .map(({ t, row }): Change<Account> => {
        now = t; // processing time follows the records
        return { kind: '+U', value: row };
      })
      .asChangelog('upsert', (a) => a.id)
      .materialize((a) => a.id, { ttl: 1_000 })
      .toRetractStream()
      .executeAndCollect();
    expect(render(out)).toEqual([
      '+I {"id":1,"owner":"ann","balance":1}',
      '-U {"id":1,"owner":"ann","balance":1}',
      '+U {"id":1,"owner":"ann","balance":2}',
      '+I {"id":1,"owner":"ann","balance":3}',
    ]);
  });

  it('refuses toInsertStream() on an updating input when the job is built', () => {
    const env = new StreamEnvironment();
    const view = env
      .fromArray<Change<Account>>([])
      .asChangelog('retract')
      .materialize((a) => a.id);
    expect(() => view.toInsertStream()).toThrow(
      'toInsertStream() needs an append-only view, but its input is a retract changelog (rows are updated or deleted); use toUpsertStream() or toRetractStream()',
    );
    expect(() => tableViewInput(view).materialize((a) => a.id, { ttl: 0 })).toThrow(
      /materialize\(\): ttl must be a positive number of milliseconds/,
    );
  });

  it('a run stopped with a savepoint and restored (p=2 -> 1) emits the same view changes', async () => {
    const N = 3_000;
    const { uninterrupted, restored, beforeSavepoint } = await withSavepoint<Account>(
      (parallelism, rate) => {
        const env = new StreamEnvironment({ parallelism, batchSize: 20 });
        const changes = env
          .fromGenerator({
            count: N,
            ...(rate === undefined ? {} : { ratePerSecond: rate }),
            // Upserts of 50 accounts, every seventh a delete.
            generate: (i): Change<Account> => {
              const row = { id: (i * 11) % 50, owner: `o${i % 3}`, balance: i % 5 };
              return i % 7 === 6 ? { kind: '-D', value: row } : { kind: '+U', value: row };
            },
          })
          .setParallelism(1)
          .uid('accounts')
          .asChangelog('upsert', (a) => a.id)
          .materialize((a) => a.id)
          .toRetractStream()
          .uid('view');
        return { env, changes };
      },
      { parallelism: 2, restoredParallelism: 1, rate: 6_000 },
    );
    expect(beforeSavepoint).toBeGreaterThan(0);
    expect(beforeSavepoint).toBeLessThan(uninterrupted.length);
    expect(perKey(restored, (a) => a.id)).toEqual(perKey(uninterrupted, (a) => a.id));
  });
});
