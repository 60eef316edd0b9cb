/**
 * The `postgres-cdc` SQL connector against the real PostgreSQL: a table's snapshot and then its
 * streamed inserts, updates (one of them changing the primary key) and deletes flow through
 * SELECT and GROUP BY into `jdbc` tables, which end equal to what PostgreSQL itself computes
 * over the captured table (a copy of it, and its GROUP BY). Option errors name the option.
 * Flink CDC's METADATA columns: the database, schema and table of each change, and its
 * commit time (0 for the snapshot's rows).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, SqlError, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { cleanup, dropSlots, freshSchema, running, sql, until } from '../postgres/helpers.js';

const SCHEMA = 'sql_pg_cdc';
const SLOT = `sql_pg_cdc_${process.pid}`;

beforeAll(async () => {
  registerSqlConnectors(externalSqlConnectors);
  await freshSchema(SCHEMA);
});

afterAll(async () => {
  await cleanup(SCHEMA, [SLOT]);
});

const connection = `'hostname' = '127.0.0.1', 'port' = '54329', 'username' = 'weir',
  'password' = 'weir', 'database-name' = 'weir', 'schema-name' = '${SCHEMA}'`;

/** One statement against the captured table. */
type Statement =
  | {
      readonly kind: 'insert';
      readonly id: number;
      readonly owner: string;
      readonly balance: number;
    }
  | { readonly kind: 'update'; readonly id: number; readonly balance: number }
  | { readonly kind: 'rekey'; readonly id: number; readonly to: number }
  | { readonly kind: 'delete'; readonly id: number };

const statementArb: fc.Arbitrary<Statement> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    id: fc.integer({ min: 0, max: 30 }),
    owner: fc.constantFrom('ann', 'bob', 'cy'),
    balance: fc.integer({ min: -100, max: 1000 }),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    id: fc.integer({ min: 0, max: 30 }),
    balance: fc.integer({ min: -100, max: 1000 }),
  }),
  fc.record({
    kind: fc.constant('rekey' as const),
    id: fc.integer({ min: 0, max: 30 }),
    to: fc.integer({ min: 100, max: 130 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 30 }) }),
);

function statementSql(s: Statement): string {
  const t = `${SCHEMA}.accounts`;
  switch (s.kind) {
    case 'insert':
      return `INSERT INTO ${t} VALUES (${s.id}, '${s.owner}', ${s.balance}, now()) ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner, balance = EXCLUDED.balance`;
    case 'update':
      return `UPDATE ${t} SET balance = ${s.balance}, updated = now() WHERE id = ${s.id}`;
    case 'rekey':
      return `UPDATE ${t} SET id = ${s.to} WHERE id = ${s.id} AND NOT EXISTS (SELECT 1 FROM ${t} WHERE id = ${s.to})`;
    case 'delete':
      return `DELETE FROM ${t} WHERE id = ${s.id}`;
  }
}

const rowsOf = async (query: string) =>
  (await sql<{ r: string }>(`SELECT row(q.*)::text AS r FROM (${query}) q`)).map((x) => x.r).sort();

describe('postgres-cdc', () => {
  it('snapshot then streamed changes: a copy and a GROUP BY equal PostgreSQL over the captured table', async () => {
    const statements = fc.sample(fc.array(statementArb, { minLength: 60, maxLength: 60 }), {
      numRuns: 1,
      seed: 14,
    })[0] as Statement[];
    await sql(
      `CREATE TABLE ${SCHEMA}.accounts (id int PRIMARY KEY, owner text NOT NULL, balance int, updated timestamp(3) NOT NULL DEFAULT now())`,
    );
    await sql(`CREATE TABLE ${SCHEMA}.copy (id int PRIMARY KEY, owner text, balance int)`);
    await sql(`CREATE TABLE ${SCHEMA}.totals (owner text PRIMARY KEY, n bigint, total bigint)`);
    // Rows for the snapshot: some of them later updated, re-keyed and deleted.
    for (let id = 0; id < 20; id++)
      await sql(
        statementSql({
          kind: 'insert',
          id,
          owner: ['ann', 'bob', 'cy'][id % 3] as string,
          balance: id * 10,
        }),
      );
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    const jdbc = (
      table: string,
    ) => `'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:54329/weir',
      'table-name' = '${SCHEMA}.${table}', 'username' = 'weir', 'password' = 'weir'`;
    tEnv.executeSql(
      `
      CREATE TABLE accounts (
        id INT, owner STRING, balance INT, updated TIMESTAMP(3),
        PRIMARY KEY (id) NOT ENFORCED
      ) WITH ('connector' = 'postgres-cdc', ${connection}, 'table-name' = 'accounts',
        'slot.name' = '${SLOT}', 'decoding.plugin.name' = 'pgoutput');
      CREATE TABLE copy (id INT, owner STRING, balance INT, PRIMARY KEY (id) NOT ENFORCED)
        WITH (${jdbc('copy')});
      CREATE TABLE totals (owner STRING, n BIGINT, total BIGINT, PRIMARY KEY (owner) NOT ENFORCED)
        WITH (${jdbc('totals')});
      `,
    );
    const script = tEnv.buildScript(`
      INSERT INTO copy SELECT id, owner, balance FROM accounts;
      INSERT INTO totals SELECT owner, COUNT(*), SUM(CAST(balance AS BIGINT)) FROM accounts GROUP BY owner;
    `);
    expect(script.inserts).toBe(2);
    await running(env, 'postgres-cdc sql', async (job) => {
      const same = async () => {
        if (job.failed() !== undefined) throw job.failed();
        const [copy, source, totals, grouped] = await Promise.all([
          rowsOf(`SELECT * FROM ${SCHEMA}.copy`),
          rowsOf(`SELECT id, owner, balance FROM ${SCHEMA}.accounts`),
          rowsOf(`SELECT * FROM ${SCHEMA}.totals`),
          rowsOf(
            `SELECT owner, count(*) AS n, sum(balance) AS total FROM ${SCHEMA}.accounts GROUP BY owner`,
          ),
        ]);
        return (
          JSON.stringify(copy) === JSON.stringify(source) &&
          JSON.stringify(totals) === JSON.stringify(grouped)
        );
      };
      await until(same, 60_000, 'the snapshot in the sink tables');
      for (const s of statements) await sql(statementSql(s));
      // Every row of one owner deleted: its total must be deleted too.
      await sql(`DELETE FROM ${SCHEMA}.accounts WHERE owner = 'cy'`);
      await until(same, 60_000, 'the streamed changes in the sink tables');
      expect(await rowsOf(`SELECT * FROM ${SCHEMA}.totals WHERE owner = 'cy'`)).toEqual([]);
    });
  });

  it("fills Flink CDC's METADATA columns: where each change was made, and when (0 for the snapshot)", async () => {
    const slot = `${SLOT}_meta`;
    await sql(`CREATE TABLE ${SCHEMA}.items (id int PRIMARY KEY, name text)`);
    await sql(`INSERT INTO ${SCHEMA}.items VALUES (1, 'one'), (2, 'two')`);
    const env = new StreamEnvironment({ parallelism: 1 });
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(`
      CREATE TABLE items (
        db STRING METADATA FROM 'database_name' VIRTUAL,
        id INT,
        sch STRING METADATA FROM 'schema_name' VIRTUAL,
        name STRING,
        tbl STRING METADATA FROM 'table_name' VIRTUAL,
        op_ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL,
        PRIMARY KEY (id) NOT ENFORCED
      ) WITH ('connector' = 'postgres-cdc', ${connection}, 'table-name' = 'items',
        'slot.name' = '${slot}')`);
    const sink = new CollectSink<Change<unknown[]>>();
    tEnv.sqlQuery('SELECT * FROM items').toChangelogStream().sinkTo(sink);
    try {
      await running(env, 'postgres-cdc metadata', async (job) => {
        const seen = (n: number) => async () => {
          if (job.failed() !== undefined) throw job.failed();
          return sink.values.length >= n;
        };
        await until(seen(2), 60_000, 'the snapshot');
        const before = Date.now();
        await sql(`UPDATE ${SCHEMA}.items SET name = 'uno' WHERE id = 1`);
        await sql(`DELETE FROM ${SCHEMA}.items WHERE id = 2`);
        const after = Date.now();
        await until(seen(4), 60_000, 'the update and the delete');
        const where = ['weir', SCHEMA, 'items'];
        const rows = sink.values.map((c) => [c.kind, ...c.value]);
        // Read by the snapshot: op_ts 0, as Flink CDC.
        expect(rows.slice(0, 2).sort()).toEqual(
          [
            ['+I', 'weir', 1, SCHEMA, 'one', 'items', 0],
            ['+I', 'weir', 2, SCHEMA, 'two', 'items', 0],
          ].sort(),
        );
        // Streamed (an upsert changelog: the delete holds the key): the commit time of each
        // change's transaction.
        const streamed = rows.slice(2);
        expect(streamed.map((r) => [r[0], r[2], r[4]])).toEqual([
          ['+U', 1, 'uno'],
          ['-D', 2, null],
        ]);
        for (const r of streamed) {
          expect([r[1], r[3], r[5]]).toEqual(where);
          // Commit times by the server's clock, the same machine's: within the statements' span.
          expect(r[6]).toBeGreaterThanOrEqual(before - 1_000);
          expect(r[6]).toBeLessThanOrEqual(after + 1_000);
        }
      });
    } finally {
      await dropSlots([slot]).catch(() => {});
    }
  });

  it('refuses a METADATA key it does not have, a column of another type, and a key of metadata', () => {
    const create = (columns: string) => () =>
      TableEnvironment.create(new StreamEnvironment()).executeSql(
        `CREATE TABLE t (id INT, ${columns}) WITH ('connector' = 'postgres-cdc', ${connection}, 'table-name' = 't', 'slot.name' = 's')`,
      );
    expect(create("o BIGINT METADATA FROM 'offset', PRIMARY KEY (id) NOT ENFORCED")).toThrow(
      "column 'o': connector 'postgres-cdc' has no metadata key 'offset'; allowed: table_name, schema_name, database_name, op_ts",
    );
    expect(create("n INT METADATA FROM 'table_name', PRIMARY KEY (id) NOT ENFORCED")).toThrow(
      "column 'n': metadata 'table_name' is STRING, not INT",
    );
    expect(create("n STRING METADATA FROM 'table_name', PRIMARY KEY (n) NOT ENFORCED")).toThrow(
      "PRIMARY KEY column 'n' is METADATA",
    );
  });

  it('checks its options and its PRIMARY KEY when the table is created', () => {
    const create = (key: string, options: string) => {
      const tEnv = TableEnvironment.create(new StreamEnvironment());
      try {
        tEnv.executeSql(
          `CREATE TABLE t (id INT, v STRING${key}) WITH ('connector' = 'postgres-cdc', ${connection}, 'table-name' = 't'${options});`,
        );
      } catch (error) {
        if (error instanceof SqlError) return error.message;
        throw error;
      }
      throw new Error('expected a SqlError');
    };
    expect(create('', ", 'slot.name' = 's'")).toContain(
      "connector 'postgres-cdc' needs a PRIMARY KEY (...) NOT ENFORCED",
    );
    const pk = ', PRIMARY KEY (id) NOT ENFORCED';
    expect(create(pk, ", 'slot.name' = 's', 'decoding.plugin.name' = 'decoderbufs'")).toMatch(
      /line \d+, column \d+: option 'decoding.plugin.name' of connector 'postgres-cdc' is 'decoderbufs'; allowed values: pgoutput/,
    );
    expect(create(pk, ", 'slot.name' = 'Bad-Slot'")).toContain(
      "'slot.name' must be 1-63 lower-case letters, digits or '_'",
    );
    expect(create(pk, '')).toContain("connector 'postgres-cdc' needs option 'slot.name'");
    expect(create(pk, ", 'slot.name' = 's', 'changelog-mode' = 'all'")).toContain(
      "option 'changelog-mode' of connector 'postgres-cdc' is 'all'; allowed values: upsert",
    );
  });
});
