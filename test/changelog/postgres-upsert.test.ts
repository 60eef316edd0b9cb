/**
 * The PostgreSQL upsert sink, and the exactly-once one, apply an upsert changelog: `+I`/`+U`
 * upsert, `-D` deletes, so the table equals GROUP BY over the final input table.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PostgresTransactionalSink,
  PostgresUpsertSink,
} from '../../src/connectors/postgres/index.js';
import {
  type Change,
  type GroupResult,
  type RetractableAggregateFunction,
  StreamEnvironment,
} from '../../src/index.js';
import { cleanup, freshSchema, PG_URL, sql, until } from '../postgres/helpers.js';

const SCHEMA = 'weir_changelog_sink';
const dir = mkdtempSync(join(tmpdir(), 'weir-changelog-pg-'));

beforeAll(async () => {
  await freshSchema(SCHEMA);
});
afterAll(async () => {
  await cleanup(SCHEMA, []);
  rmSync(dir, { recursive: true, force: true });
});

interface Row {
  readonly id: number;
  readonly shop: string;
  readonly amount: number;
}

interface Stats {
  readonly count: number;
  readonly total: number;
}

const stats: RetractableAggregateFunction<Row, Stats, Stats> = {
  createAccumulator: () => ({ count: 0, total: 0 }),
  add: (r, a) => ({ count: a.count + 1, total: a.total + r.amount }),
  retract: (r, a) => ({ count: a.count - 1, total: a.total - r.amount }),
  getResult: (a) => ({ count: a.count, total: a.total }),
};

/** A deterministic table history: inserts, updates that move rows between shops, deletes. */
function history(): { changes: Change<Row>[]; final: Map<number, Row> } {
  const table = new Map<number, Row>();
  const changes: Change<Row>[] = [];
  for (let i = 0; i < 3_000; i++) {
    const id = (i * 37) % 101;
    const prev = table.get(id);
    if (i % 5 === 4) {
      if (prev !== undefined) {
        table.delete(id);
        changes.push({ kind: '-D', value: prev });
      }
      continue;
    }
    const row = { id, shop: `s${(i * 13) % 7}`, amount: (i % 17) + 1 };
    table.set(id, row);
    if (prev === undefined) changes.push({ kind: '+I', value: row });
    else changes.push({ kind: '-U', value: prev }, { kind: '+U', value: row });
  }
  // Empty one shop completely, so its row must be deleted from the sink table.
  for (const [id, row] of [...table]) {
    if (row.shop === 's3') {
      table.delete(id);
      changes.push({ kind: '-D', value: row });
    }
  }
  return { changes, final: table };
}

describe('PostgreSQL upsert sink with a changelog', () => {
  it('applies upserts and deletes: the table equals the batch GROUP BY (p=1 and 2, and exactly once)', async () => {
    const { changes, final } = history();
    const expected = new Map<string, Stats>();
    for (const r of final.values()) {
      const s = expected.get(r.shop) ?? { count: 0, total: 0 };
      expected.set(r.shop, { count: s.count + 1, total: s.total + r.amount });
    }
    const rows = [...expected]
      .map(([shop, s]) => ({ shop, count: s.count, total: s.total }))
      .sort((a, b) => a.shop.localeCompare(b.shop));
    expect(rows.some((r) => r.shop === 's3')).toBe(false);

    const runs = [
      ['upsert', 1],
      ['upsert', 2],
      ['exactly-once', 2],
    ] as const;
    for (const [kind, parallelism] of runs) {
      await sql(`DROP TABLE IF EXISTS ${SCHEMA}.shop_stats`);
      await sql(
        `CREATE TABLE ${SCHEMA}.shop_stats (shop text PRIMARY KEY, count int NOT NULL, total int NOT NULL)`,
      );
      const env = new StreamEnvironment({
        parallelism,
        batchSize: 64,
        ...(kind === 'upsert'
          ? {}
          : { checkpointing: { directory: join(dir, `p${parallelism}`), intervalMs: 20 } }),
      });
      const options = {
        connection: PG_URL,
        table: `${SCHEMA}.shop_stats`,
        toMutation: (r: GroupResult<string, Stats>) => ({
          kind: 'upsert' as const,
          row: { shop: r.key, count: r.value.count, total: r.value.total },
        }),
      };
      env
        .fromArray(changes)
        .asChangelog('retract')
        .groupBy((r) => r.shop)
        .updatingAggregate(stats, { mode: 'upsert' })
        .sinkTo(
          kind === 'upsert'
            ? new PostgresUpsertSink<Change<GroupResult<string, Stats>>>(options)
            : new PostgresTransactionalSink<Change<GroupResult<string, Stats>>>(options),
        );
      const result = await env.execute(`changelog-sink-${kind}-p${parallelism}`);
      expect(result.status).toBe('finished');
      const read = () =>
        sql<{ shop: string; count: number; total: number }>(
          `SELECT shop, count, total FROM ${SCHEMA}.shop_stats ORDER BY shop`,
        );
      // The exactly-once sink's last transaction commits as the job ends; an earlier one may
      // have left other totals. The expect below shows what differs if they never match.
      const final = JSON.stringify(rows);
      await until(
        async () => JSON.stringify(await read()) === final,
        30_000,
        'the final rows',
      ).catch(() => undefined);
      const got = await read();
      expect(got).toEqual(rows);
    }
  });
});
