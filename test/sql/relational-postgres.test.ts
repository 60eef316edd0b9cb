/**
 * An updating query into an upsert sink with a primary key (the `jdbc` connector on the real
 * PostgreSQL server): the retract changelog of a GROUP BY is applied without its
 * update-befores, and the table ends equal to a batch aggregation of the same events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { allEvents } from '../nexmark/oracle.js';
import { cleanup, freshSchema, sql } from '../postgres/helpers.js';
import { nexmarkSourceSql } from './nexmark-sql.js';

const SCHEMA = 'sql_relational_pg';
const CONFIG: Partial<NexmarkConfig> = { maxEvents: 2000, eventsPerSecond: 100, seed: 9 };

beforeAll(async () => {
  registerSqlConnectors(externalSqlConnectors);
  await freshSchema(SCHEMA);
});

afterAll(() => cleanup(SCHEMA, []));

describe('updating SQL into PostgreSQL', () => {
  it('upserts a GROUP BY by its primary key and deletes nothing that stays', async () => {
    await sql(`CREATE TABLE ${SCHEMA}.counts (auction bigint PRIMARY KEY, n bigint, top bigint)`);
    const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
    const result = tEnv.executeSql(`${nexmarkSourceSql(CONFIG)}
      CREATE TABLE counts (auction BIGINT, n BIGINT, top BIGINT, PRIMARY KEY (auction) NOT ENFORCED)
      WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:54329/weir',
        'table-name' = '${SCHEMA}.counts', 'username' = 'weir', 'password' = 'weir');
      INSERT INTO counts SELECT auction, COUNT(*), MAX(price) FROM bid GROUP BY auction;`);
    await result.job?.result;
    const rows = await sql<{ auction: string; n: string; top: string }>(
      `SELECT auction::text, n::text, top::text FROM ${SCHEMA}.counts ORDER BY auction`,
    );
    const expected = new Map<number, { n: number; top: number }>();
    for (const b of allEvents(CONFIG).bids) {
      const g = expected.get(b.auction) ?? { n: 0, top: 0 };
      expected.set(b.auction, { n: g.n + 1, top: Math.max(g.top, b.price) });
    }
    expect(rows).toEqual(
      [...expected]
        .sort(([a], [b]) => a - b)
        .map(([auction, g]) => ({ auction: String(auction), n: String(g.n), top: String(g.top) })),
    );
  }, 60_000);
});
