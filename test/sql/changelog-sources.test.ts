/**
 * Changelog sources against the real Kafka: `upsert-kafka` (records and tombstones) and
 * `kafka` with `debezium-json` (c, r, u, d envelopes) read into SELECT and GROUP BY, and
 * `upsert-kafka` and `debezium-json` as sinks of an updating query. Each result is compared
 * with a batch computation over the same changes: the table left after applying them in
 * order, then the query over that table. Bad records, option errors and plan-time refusals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { KafkaSource } from '../../src/connectors/kafka/index.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, SqlError, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { BROKERS, createTopic, produce, uniqueTopic } from '../kafka/helpers.js';

beforeAll(() => registerSqlConnectors(externalSqlConnectors));

/** One change to the table `accounts (id, owner, balance)`: an upsert or a delete of `id`. */
type Op =
  | {
      readonly kind: 'upsert';
      readonly id: number;
      readonly owner: string;
      readonly balance: number;
    }
  | { readonly kind: 'delete'; readonly id: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('upsert' as const),
      id: fc.integer({ min: 0, max: 7 }),
      owner: fc.constantFrom('ann', 'bob', 'cy'),
      balance: fc.integer({ min: -50, max: 500 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      id: fc.integer({ min: 0, max: 7 }),
    }),
  },
);

/** The ops as `upsert-kafka` records: the key, and the row or a tombstone. */
function upsertRecords(ops: readonly Op[]): { key: string; value: string | null }[] {
  return ops.map((op) => ({
    key: JSON.stringify({ id: op.id }),
    value:
      op.kind === 'delete'
        ? null
        : JSON.stringify({ id: op.id, owner: op.owner, balance: op.balance }),
  }));
}

/** The table the changes leave: applied in order, the last upsert of an id wins, a delete removes it. */
function finalTable(ops: readonly Op[]): Map<number, { owner: string; balance: number }> {
  const table = new Map<number, { owner: string; balance: number }>();
  for (const op of ops) {
    if (op.kind === 'upsert') table.set(op.id, { owner: op.owner, balance: op.balance });
    else table.delete(op.id);
  }
  return table;
}

/** The final rows of a changelog: retract changes as a multiset, upsert changes by `key`. */
function finalRows(
  changes: readonly Change<unknown[]>[],
  key?: (row: unknown[]) => string,
): string[] {
  if (key === undefined) return materialize(changes, (r) => JSON.stringify(r)).sort();
  const rows = new Map<string, string>();
  for (const c of changes) {
    if (c.kind === '-D') rows.delete(key(c.value));
    else if (c.kind !== '-U') rows.set(key(c.value), JSON.stringify(c.value));
  }
  return [...rows.values()].sort();
}

/** Owner totals over the final table, as `SELECT owner, COUNT(*), SUM(balance) ... GROUP BY owner` gives them. */
function ownerTotals(table: Map<number, { owner: string; balance: number }>): string[] {
  const totals = new Map<string, [number, number]>();
  for (const { owner, balance } of table.values()) {
    const t = totals.get(owner) ?? [0, 0];
    totals.set(owner, [t[0] + 1, t[1] + balance]);
  }
  return [...totals].map(([owner, [n, sum]]) => JSON.stringify([owner, n, sum])).sort();
}

/** Runs queries in one job over the SQL setup; each query's changes. */
async function runQueries(
  setup: string,
  queries: readonly string[],
  parallelism = 2,
): Promise<Change<unknown[]>[][]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(setup);
  const sinks = queries.map((q) => {
    const table = tEnv.sqlQuery(q);
    const sink = new CollectSink<Change<unknown[]>>();
    table
      .toChangelogStream()
      .map((c): Change<unknown[]> => ({ kind: c.kind, value: table.toJson(c.value) }))
      .sinkTo(sink);
    return sink;
  });
  await env.execute('changelog sources test');
  return sinks.map((s) => s.values as Change<unknown[]>[]);
}

function upsertKafkaTable(name: string, topic: string, extra = ''): string {
  return `CREATE TABLE ${name} (
    id INT, owner STRING, balance INT, PRIMARY KEY (id) NOT ENFORCED ${extra}
  ) WITH (
    'connector' = 'upsert-kafka',
    'topic' = '${topic}',
    'properties.bootstrap.servers' = '${BROKERS.join(',')}',
    'key.format' = 'json',
    'value.format' = 'json',
    'scan.bounded.mode' = 'latest-offset'
  );`;
}

function planError(setup: string, query: string): SqlError {
  const tEnv = TableEnvironment.create(new StreamEnvironment());
  try {
    tEnv.executeSql(setup);
    tEnv.executeSql(query);
  } catch (error) {
    if (error instanceof SqlError) return error;
    throw error;
  }
  throw new Error('expected a SqlError');
}

describe('upsert-kafka', () => {
  it('reads records and tombstones as an upsert changelog: SELECT and GROUP BY equal the batch result over the final table', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const topic = uniqueTopic('sql-upsert-src');
        // Two partitions: a key's records stay on one (by the key's hash), so their order holds.
        await createTopic(topic, 2);
        await produce(topic, upsertRecords(ops));
        const [rows, totals, rich] = await runQueries(upsertKafkaTable('accounts', topic), [
          'SELECT id, owner, balance FROM accounts',
          'SELECT owner, COUNT(*) AS n, SUM(balance) AS total FROM accounts GROUP BY owner',
          'SELECT id, balance * 2 FROM accounts WHERE balance > 100',
        ]);
        const table = finalTable(ops);
        expect(finalRows(rows as Change<unknown[]>[], (r) => String(r[0]))).toEqual(
          [...table].map(([id, a]) => JSON.stringify([id, a.owner, a.balance])).sort(),
        );
        expect(finalRows(totals as Change<unknown[]>[])).toEqual(ownerTotals(table));
        expect(finalRows(rich as Change<unknown[]>[])).toEqual(
          [...table]
            .filter(([, a]) => a.balance > 100)
            .map(([id, a]) => JSON.stringify([id, a.balance * 2]))
            .sort(),
        );
      }),
      { numRuns: 4 },
    );
  });

  it('writes an updating query as keys and values, deletes as tombstones; read back, the topic holds the batch result', async () => {
    const [source, target] = await topicPair('sql-upsert');
    const ops: Op[] = [];
    for (let i = 0; i < 200; i++) {
      ops.push(
        i % 9 === 4
          ? { kind: 'delete', id: (i * 7) % 23 }
          : {
              kind: 'upsert',
              id: (i * 7) % 23,
              owner: ['ann', 'bob', 'cy', 'dee'][i % 4] as string,
              balance: (i * 37) % 300,
            },
      );
    }
    // All of one owner's accounts deleted at the end: its total row must be deleted too.
    for (let id = 0; id < 23; id++)
      ops.push(
        { kind: 'delete', id },
        { kind: 'upsert', id, owner: id % 2 === 0 ? 'ann' : 'bob', balance: id },
      );
    await produce(source, upsertRecords(ops));
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    const result = tEnv.executeSql(`
      ${upsertKafkaTable('accounts', source)}
      CREATE TABLE totals (owner STRING, n BIGINT, total INT, PRIMARY KEY (owner) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka',
        'topic' = '${target}',
        'properties.bootstrap.servers' = '${BROKERS.join(',')}',
        'key.format' = 'json',
        'value.format' = 'json'
      );
      INSERT INTO totals SELECT owner, COUNT(*), SUM(balance) FROM accounts GROUP BY owner;
    `);
    await result.job?.result;
    // Compacting the topic by key: the last record of each key, a tombstone removing it.
    const compacted = await compactedTopic(target);
    expect(totalsIn(compacted)).toEqual(ownerTotals(finalTable(ops)));
    // The owners whose accounts all moved away were deleted with a tombstone.
    expect(compacted.get(JSON.stringify({ owner: 'cy' }))).toBeNull();
    expect(compacted.get(JSON.stringify({ owner: 'dee' }))).toBeNull();
  });

  it('stopped with a savepoint and restored, a GROUP BY into upsert-kafka leaves the result of an uninterrupted run', async () => {
    const [source, target] = await topicPair('sql-upsert-restore');
    const ops = fc.sample(fc.array(opArb, { minLength: 160, maxLength: 160 }), {
      numRuns: 1,
      seed: 7,
    })[0] as Op[];
    await produce(source, upsertRecords(ops.slice(0, 100)));
    const dir = mkdtempSync(join(tmpdir(), 'weir-sql-upsert-restore-'));
    const script = (bounded: boolean) => `
      CREATE TABLE accounts (id INT, owner STRING, balance INT, PRIMARY KEY (id) NOT ENFORCED)
      WITH ('connector' = 'upsert-kafka', 'topic' = '${source}',
        'properties.bootstrap.servers' = '${BROKERS.join(',')}',
        'key.format' = 'json', 'value.format' = 'json'${bounded ? ", 'scan.bounded.mode' = 'latest-offset'" : ''});
      CREATE TABLE totals (owner STRING, n BIGINT, total INT, PRIMARY KEY (owner) NOT ENFORCED)
      WITH ('connector' = 'upsert-kafka', 'topic' = '${target}',
        'properties.bootstrap.servers' = '${BROKERS.join(',')}',
        'key.format' = 'json', 'value.format' = 'json');
      INSERT INTO totals SELECT owner, COUNT(*), SUM(balance) FROM accounts GROUP BY owner;`;
    const environment = () =>
      new StreamEnvironment({
        parallelism: 2,
        checkpointing: { directory: join(dir, 'checkpoints'), intervalMs: 100 },
      });
    try {
      const first = TableEnvironment.create(environment()).executeSql(script(false)).job;
      if (first === undefined) throw new Error('no job');
      // Some totals written, so the savepoint holds state of the first part.
      const deadline = Date.now() + 60_000;
      while ((await readKeyed(target)).length === 0) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the first totals');
      }
      const savepoint = await first.triggerSavepoint(join(dir, 'savepoint'), { final: true });
      const firstRun = await first.cancel();
      await produce(source, upsertRecords(ops.slice(100)));
      const second = TableEnvironment.create(environment()).executeSql(script(true), {
        restoreFrom: savepoint,
      }).job;
      const secondRun = await second?.result;
      // The restored run read on from the savepoint's offsets: every record read once.
      const read = (run: typeof firstRun | undefined) =>
        run?.metric('weir_source_records_total') ?? 0;
      expect(read(secondRun)).toBeGreaterThanOrEqual(60);
      expect(read(firstRun) + read(secondRun)).toBe(160);
      expect(totalsIn(await compactedTopic(target))).toEqual(ownerTotals(finalTable(ops)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad record fails the job naming topic, partition, offset and field', async () => {
    const topic = uniqueTopic('sql-upsert-bad');
    await createTopic(topic, 1);
    await produce(topic, [
      { key: '{"id":1}', value: '{"id":1,"owner":"ann","balance":5}' },
      { key: '{"id":2}', value: '{"id":2,"owner":"bob","balance":"lots"}' },
    ]);
    await expect(
      runQueries(upsertKafkaTable('accounts', topic), ['SELECT * FROM accounts'], 1),
    ).rejects.toThrow(
      `table 'accounts': record at topic ${topic} partition 0 offset 1: field 'balance' expects INT, got "lots"`,
    );
  });

  it('checks its options and its PRIMARY KEY when the table is created', () => {
    const table = (key: string, options: string) =>
      `CREATE TABLE t (id INT, v STRING${key}) WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'x:1'${options});`;
    expect(
      planError(table('', ", 'key.format' = 'json', 'value.format' = 'json'"), '').message,
    ).toContain(
      "connector 'upsert-kafka' needs a PRIMARY KEY (...) NOT ENFORCED: its columns are the record key",
    );
    expect(
      planError(
        table(
          ', PRIMARY KEY (id) NOT ENFORCED',
          ", 'key.format' = 'json', 'value.format' = 'parquet'",
        ),
        '',
      ).message,
    ).toMatch(
      /line 1, column \d+: option 'value.format' of connector 'upsert-kafka' is 'parquet'; allowed values: json, raw, csv, avro/,
    );
    expect(
      planError(table(', PRIMARY KEY (id) NOT ENFORCED', ", 'value.format' = 'json'"), '').message,
    ).toContain("connector 'upsert-kafka' needs option 'key.format'");
    expect(
      planError(
        table(
          ', PRIMARY KEY (id) NOT ENFORCED',
          ", 'key.format' = 'json', 'value.format' = 'json', 'scan.startup.mode' = 'earliest-offset'",
        ),
        '',
      ).message,
    ).toContain("unknown option 'scan.startup.mode' of connector 'upsert-kafka'");
  });

  it('an insert-only sink refuses it at plan time; EXPLAIN shows the upsert changelog and its normalization', () => {
    const setup = `${upsertKafkaTable('accounts', 'x')}
      CREATE TABLE out (id INT, owner STRING, balance INT) WITH (
        'connector' = 'kafka', 'topic' = 'y', 'properties.bootstrap.servers' = 'x:1', 'format' = 'json');`;
    expect(planError(setup, 'INSERT INTO out SELECT * FROM accounts;').message).toContain(
      "INSERT INTO out: the query is updating (it emits a upsert changelog, with update and delete changes), but connector 'kafka' accepts only inserts",
    );
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(setup);
    const plan = tEnv.explainSql('SELECT owner, COUNT(*) FROM accounts GROUP BY owner');
    expect(plan).toContain('upsert');
    expect(plan).toContain('table view');
  });
});

/** A new input and output topic of one partition each. */
async function topicPair(prefix: string): Promise<[string, string]> {
  const pair: [string, string] = [uniqueTopic(`${prefix}-in`), uniqueTopic(`${prefix}-out`)];
  for (const topic of pair) await createTopic(topic, 1);
  return pair;
}

/** A topic as compaction leaves it: the last value of each key (null: a tombstone). */
async function compactedTopic(topic: string): Promise<Map<string, string | null>> {
  const compacted = new Map<string, string | null>();
  for (const r of await readKeyed(topic)) compacted.set(r.key, r.value);
  return compacted;
}

/** The `totals` rows of a compacted topic, as `ownerTotals` gives them. */
function totalsIn(compacted: Map<string, string | null>): string[] {
  return [...compacted.values()]
    .filter((v): v is string => v !== null)
    .map((v) => {
      const o = JSON.parse(v) as { owner: string; n: number; total: number };
      return JSON.stringify([o.owner, o.n, o.total]);
    })
    .sort();
}

/** The records of a topic with their keys as text (null for a tombstone's value). */
async function readKeyed(topic: string): Promise<{ key: string; value: string | null }[]> {
  const env = new StreamEnvironment();
  const sink = new CollectSink<{ key: string; value: string | null }>();
  env
    .fromSource(
      new KafkaSource({
        brokers: BROKERS,
        topics: [topic],
        stopAt: 'latest',
        deserializer: (r) => ({
          key: r.key?.toString('utf8') ?? '',
          value: r.value === undefined ? null : r.value.toString('utf8'),
        }),
      }),
    )
    .sinkTo(sink);
  await env.execute('read keyed');
  return sink.values;
}

describe('kafka with debezium-json', () => {
  /** Debezium envelopes for the ops: c for a new id, u (with before) for an existing one, d for a delete. */
  function envelopes(ops: readonly Op[], schemaInclude: boolean): string[] {
    const table = new Map<number, { owner: string; balance: number }>();
    const out: string[] = [];
    for (const [i, op] of ops.entries()) {
      const before = table.get(op.id);
      const row = (a: { owner: string; balance: number } | undefined) =>
        a === undefined ? null : { id: op.id, owner: a.owner, balance: a.balance };
      let envelope: object | undefined;
      if (op.kind === 'upsert') {
        const after = { owner: op.owner, balance: op.balance };
        envelope = {
          before: row(before),
          after: row(after),
          op: before === undefined ? (i % 2 === 0 ? 'c' : 'r') : 'u',
        };
        table.set(op.id, after);
      } else if (before !== undefined) {
        envelope = { before: row(before), after: null, op: 'd' };
        table.delete(op.id);
      }
      if (envelope !== undefined)
        out.push(
          JSON.stringify(
            schemaInclude ? { schema: { type: 'struct' }, payload: envelope } : envelope,
          ),
        );
    }
    return out;
  }

  function debeziumTable(name: string, topic: string, options = ''): string {
    return `CREATE TABLE ${name} (id INT, owner STRING, balance INT) WITH (
      'connector' = 'kafka',
      'topic' = '${topic}',
      'properties.bootstrap.servers' = '${BROKERS.join(',')}',
      'scan.startup.mode' = 'earliest-offset',
      'scan.bounded.mode' = 'latest-offset',
      'value.format' = 'debezium-json'${options}
    );`;
  }

  it('reads c, r, u and d as a retract changelog: SELECT and GROUP BY equal the batch result over the final table', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        async (ops, schemaInclude) => {
          const topic = uniqueTopic('sql-debezium-src');
          await createTopic(topic, 1);
          await produce(
            topic,
            envelopes(ops, schemaInclude).map((value) => ({ value })),
          );
          const [rows, totals] = await runQueries(
            debeziumTable(
              'accounts',
              topic,
              schemaInclude ? ", 'debezium-json.schema-include' = 'true'" : '',
            ),
            [
              'SELECT * FROM accounts',
              'SELECT owner, COUNT(*), SUM(balance) FROM accounts GROUP BY owner',
            ],
          );
          const table = finalTable(ops);
          expect(finalRows(rows as Change<unknown[]>[])).toEqual(
            [...table].map(([id, a]) => JSON.stringify([id, a.owner, a.balance])).sort(),
          );
          expect(finalRows(totals as Change<unknown[]>[])).toEqual(ownerTotals(table));
        },
      ),
      { numRuns: 4 },
    );
  });

  it('writes an updating query as envelopes that read back to the same final table', async () => {
    const [source, target] = await topicPair('sql-debezium');
    const ops: Op[] = Array.from(
      { length: 120 },
      (_, i): Op =>
        i % 7 === 3
          ? { kind: 'delete', id: i % 11 }
          : {
              kind: 'upsert',
              id: i % 11,
              owner: ['ann', 'bob', 'cy'][i % 3] as string,
              balance: (i * 13) % 97,
            },
    );
    await produce(
      source,
      envelopes(ops, false).map((value) => ({ value })),
    );
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    const result = tEnv.executeSql(`
      ${debeziumTable('accounts', source)}
      CREATE TABLE totals (owner STRING, n BIGINT, total INT) WITH (
        'connector' = 'kafka', 'topic' = '${target}',
        'properties.bootstrap.servers' = '${BROKERS.join(',')}', 'value.format' = 'debezium-json');
      INSERT INTO totals SELECT owner, COUNT(*), SUM(balance) FROM accounts GROUP BY owner;
    `);
    await result.job?.result;
    const [back] = await runQueries(
      debeziumTable('totals', target).replace(
        '(id INT, owner STRING, balance INT)',
        '(owner STRING, n BIGINT, total INT)',
      ),
      ['SELECT * FROM totals'],
      1,
    );
    expect(finalRows(back as Change<unknown[]>[])).toEqual(ownerTotals(finalTable(ops)));
  });

  it('a bad envelope fails the job naming topic, partition, offset and field', async () => {
    const cases = [
      [
        '{"before":null,"after":{"id":1,"owner":"ann","balance":2},"op":"u"}',
        "field 'before' is null in a change with op 'u'",
      ],
      [
        '{"before":null,"after":{"id":2,"owner":"ann","balance":"x"},"op":"c"}',
        `field 'after.balance' expects INT, got "x"`,
      ],
      [
        '{"before":null,"after":{"id":3,"owner":"ann","balance":1},"op":"x"}',
        `field 'op' is "x"; allowed values: c, r, u, d`,
      ],
    ] as const;
    for (const [bad, message] of cases) {
      const topic = uniqueTopic('sql-debezium-bad');
      await createTopic(topic, 1);
      await produce(topic, [
        { value: '{"before":null,"after":{"id":1,"owner":"ann","balance":1},"op":"c"}' },
        { value: bad },
      ]);
      await expect(
        runQueries(debeziumTable('accounts', topic), ['SELECT * FROM accounts'], 1),
      ).rejects.toThrow(
        `table 'accounts': record at topic ${topic} partition 0 offset 1: ${message}`,
      );
    }
  });
});
