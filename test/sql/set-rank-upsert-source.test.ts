/**
 * INTERSECT, EXCEPT ALL, a Top-N and ORDER BY ... LIMIT over an `upsert-kafka` table (the real
 * Kafka; records and tombstones, normalized into retractions before these operators): after
 * applying each changelog, the result equals the batch query over the table the changes leave
 * (fast-check, parallelism 2).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { BROKERS, createTopic, produce, uniqueTopic } from '../kafka/helpers.js';

beforeAll(() => registerSqlConnectors(externalSqlConnectors));

interface Account {
  readonly id: number;
  readonly owner: string;
  readonly balance: number;
}
/** An upsert of an account, or (without owner) a delete of its id. */
type Op = { readonly id: number } & Partial<Omit<Account, 'id'>>;

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      id: fc.integer({ min: 0, max: 9 }),
      owner: fc.constantFrom('ann', 'bob', 'cy'),
      balance: fc.integer({ min: -20, max: 20 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ id: fc.integer({ min: 0, max: 9 }) }) },
);

/** The accounts the changes leave, applied in order. */
function finalAccounts(ops: readonly Op[]): Account[] {
  const table = new Map<number, Account>();
  for (const op of ops) {
    if (op.owner === undefined) table.delete(op.id);
    else table.set(op.id, op as Account);
  }
  return [...table.values()];
}

const texts = (rows: readonly unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

/** The multiset `left` minus `right` (EXCEPT ALL). */
function minus(left: readonly string[], right: readonly string[]): string[] {
  const rest = [...right];
  return left.filter((row) => {
    const at = rest.indexOf(row);
    if (at < 0) return true;
    rest.splice(at, 1);
    return false;
  });
}

const byBalanceDescThenId = (a: Account, b: Account) => b.balance - a.balance || a.id - b.id;

const CASES: readonly { sql: string; expected: (accounts: Account[]) => string[] }[] = [
  {
    sql: 'SELECT owner FROM accounts WHERE balance > 5 INTERSECT SELECT owner FROM accounts WHERE balance < 0',
    expected: (accounts) => {
      const rich = new Set(accounts.filter((a) => a.balance > 5).map((a) => a.owner));
      const poor = new Set(accounts.filter((a) => a.balance < 0).map((a) => a.owner));
      return texts([...rich].filter((o) => poor.has(o)).map((o) => [o]));
    },
  },
  {
    sql: 'SELECT owner FROM accounts EXCEPT ALL SELECT owner FROM accounts WHERE balance > 5',
    expected: (accounts) =>
      minus(
        texts(accounts.map((a) => [a.owner])),
        texts(accounts.filter((a) => a.balance > 5).map((a) => [a.owner])),
      ).sort(),
  },
  {
    sql: `SELECT owner, id, balance, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY owner ORDER BY balance DESC, id) AS rn
        FROM accounts) WHERE rn <= 2`,
    expected: (accounts) =>
      texts(
        ['ann', 'bob', 'cy'].flatMap((owner) =>
          accounts
            .filter((a) => a.owner === owner)
            .sort(byBalanceDescThenId)
            .slice(0, 2)
            .map((a, i) => [owner, a.id, a.balance, i + 1]),
        ),
      ),
  },
  {
    sql: 'SELECT id, balance FROM accounts ORDER BY balance DESC, id LIMIT 3',
    expected: (accounts) =>
      texts(
        [...accounts]
          .sort(byBalanceDescThenId)
          .slice(0, 3)
          .map((a) => [a.id, a.balance]),
      ),
  },
];

describe('set operations and ranking over an upsert-kafka table', () => {
  it('equal the batch queries over the table the changes leave (parallelism 2)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 15, maxLength: 60 }), async (ops) => {
        const topic = uniqueTopic('sql-set-rank-upsert');
        // Two partitions: a key's records stay on one (by the key's hash), so their order holds.
        await createTopic(topic, 2);
        await produce(
          topic,
          ops.map((op) => ({
            key: JSON.stringify({ id: op.id }),
            value: op.owner === undefined ? null : JSON.stringify(op),
          })),
        );
        const env = new StreamEnvironment({ parallelism: 2 });
        const tEnv = TableEnvironment.create(env);
        tEnv.executeSql(`CREATE TABLE accounts (
            id INT, owner STRING, balance INT, PRIMARY KEY (id) NOT ENFORCED
          ) WITH (
            'connector' = 'upsert-kafka', 'topic' = '${topic}',
            'properties.bootstrap.servers' = '${BROKERS.join(',')}',
            'key.format' = 'json', 'value.format' = 'json',
            'scan.bounded.mode' = 'latest-offset');`);
        const sinks = CASES.map((c) => {
          const sink = new CollectSink<Change<unknown[]>>();
          tEnv.sqlQuery(c.sql).toChangelogStream().sinkTo(sink);
          return sink;
        });
        await env.execute('set operations and ranking over upserts');
        const accounts = finalAccounts(ops);
        CASES.forEach((c, i) => {
          const rows = materialize((sinks[i] as CollectSink<Change<unknown[]>>).values, (r) =>
            JSON.stringify(r),
          ).sort();
          expect(rows, c.sql).toEqual(c.expected(accounts));
        });
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});
