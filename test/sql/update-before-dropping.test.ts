/**
 * Updating operators that leave out update-befores no consumer needs: each query runs into a
 * sink that applies upserts by the query's upsert key (the operators emit no -U) and into one
 * that takes retractions (they keep it, as before); both changelogs, applied, equal a batch
 * computation over the same shuffled rows (fast-check). EXPLAIN shows the modes inferred.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Change, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import {
  expectBothSinksEqualBatch,
  registerRecordingConnector,
  type Sale,
} from './recording-changes.js';

/** What each table of the `recorded-changes` connector received, by table name. */
let received = new Map<string, Change<Row>[]>();

beforeAll(() => {
  received = registerRecordingConnector('recorded-changes');
});

const salesArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 50 })
  .chain((ids) =>
    fc.shuffledSubarray(
      ids.map((id): Sale => ({ id, owner: `o${id % 4}`, amount: (id * 37) % 11 })),
      { minLength: ids.length, maxLength: ids.length },
    ),
  );

/** One query, its sink's columns and key, and what a batch computation gives. */
interface Case {
  readonly name: string;
  readonly columns: string;
  readonly key: readonly number[];
  readonly select: string;
  readonly batch: (sales: readonly Sale[]) => Row[];
}

function groups<T>(items: readonly T[], keyOf: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) m.set(keyOf(t), [...(m.get(keyOf(t)) ?? []), t]);
  return m;
}

const sum = (sales: readonly Sale[]) => sales.reduce((s, x) => s + x.amount, 0);

const CASES: readonly Case[] = [
  {
    name: 'totals',
    columns: 'owner STRING, n BIGINT, total INT',
    key: [0],
    select: 'SELECT owner, COUNT(*), SUM(amount) FROM sales GROUP BY owner',
    batch: (s) => [...groups(s, (x) => x.owner)].map(([o, l]) => [o, l.length, sum(l)]),
  },
  {
    // A GROUP BY over a GROUP BY: how many owners have each total (the inner keeps its -U).
    name: 'by_total',
    columns: 'total INT, owners BIGINT',
    key: [0],
    select:
      'SELECT total, COUNT(*) FROM (SELECT owner, SUM(amount) AS total FROM sales GROUP BY owner) GROUP BY total',
    batch: (s) =>
      [...groups([...groups(s, (x) => x.owner).values()].map(sum), String)].map(([t, l]) => [
        Number(t),
        l.length,
      ]),
  },
  {
    name: 'joined',
    columns: 'owner STRING, n BIGINT, total INT',
    key: [0],
    select: `SELECT a.owner, a.n, b.t
      FROM (SELECT owner, COUNT(*) AS n FROM sales GROUP BY owner) a
      JOIN (SELECT owner, SUM(amount) AS t FROM sales GROUP BY owner) b ON a.owner = b.owner`,
    batch: (s) => [...groups(s, (x) => x.owner)].map(([o, l]) => [o, l.length, sum(l)]),
  },
  {
    name: 'top2',
    columns: 'owner STRING, rn BIGINT, id INT, amount INT',
    key: [0, 1],
    select: `SELECT owner, rn, id, amount FROM (
        SELECT id, owner, amount,
          ROW_NUMBER() OVER (PARTITION BY owner ORDER BY amount DESC, id DESC) AS rn
        FROM sales)
      WHERE rn <= 2`,
    batch: (s) =>
      [...groups(s, (x) => x.owner)].flatMap(([o, l]) =>
        [...l]
          .sort((a, b) => b.amount - a.amount || b.id - a.id)
          .slice(0, 2)
          .map((x, i) => [o, i + 1, x.id, x.amount]),
      ),
  },
  {
    // Keep-last deduplication by event time: each owner's latest sale.
    name: 'latest',
    columns: 'owner STRING, id INT, amount INT',
    key: [0],
    select: `SELECT owner, id, amount FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY owner ORDER BY ts DESC) AS rn FROM sales)
      WHERE rn = 1`,
    batch: (s) =>
      [...groups(s, (x) => x.owner)].map(([o, l]) => {
        const last = l.reduce((a, b) => (b.id > a.id ? b : a));
        return [o, last.id, last.amount];
      }),
  },
];

function sinkTables(): string {
  return CASES.flatMap((c) =>
    ['upsert', 'retract'].map(
      (accepts) => `CREATE TABLE ${c.name}_${accepts} (${c.columns},
        PRIMARY KEY (${c.key.map((k) => c.columns.split(',')[k]?.trim().split(' ')[0]).join(', ')}) NOT ENFORCED)
        WITH ('connector' = 'recorded-changes', 'accepts' = '${accepts}');`,
    ),
  ).join('\n');
}

function environment(sales: readonly Sale[], options: string) {
  const env = new StreamEnvironment({ parallelism: 2 });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream('sales', env.fromArray(sales.map((s) => ({ ...s, ts: s.id * 1000 }))), {
    columns: [
      { name: 'id', type: 'INT' },
      { name: 'owner', type: 'STRING' },
      { name: 'amount', type: 'INT' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'ts', expression: "ts - INTERVAL '10' SECOND" },
  });
  tEnv.executeSql(`${options} ${sinkTables()}`);
  return tEnv;
}

/** The same tables over a `datagen` source, for EXPLAIN (which plans into a scratch job). */
function explainEnvironment() {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
  tEnv.executeSql(`CREATE TABLE sales (id INT, owner STRING, amount INT, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector' = 'datagen');
    ${sinkTables()}`);
  return tEnv;
}

const MINI_BATCH = `SET 'table.exec.mini-batch.enabled' = 'true';
  SET 'table.exec.mini-batch.allow-latency' = '1 s'; SET 'table.exec.mini-batch.size' = '7';`;

describe('update-befores left out where no consumer needs them', () => {
  for (const [label, options] of [
    ['', ''],
    [' (mini-batch)', MINI_BATCH],
  ] as const) {
    it(`upsert and retract sinks both end equal to a batch computation${label}`, async () => {
      await fc.assert(
        fc.asyncProperty(salesArb, async (sales) => {
          const tEnv = environment(sales, options);
          await expectBothSinksEqualBatch(tEnv, received, CASES, (c) => (c as Case).batch(sales));
        }),
        { numRuns: 10 },
      );
    }, 180_000);
  }

  it('EXPLAIN: the operators emit no -U into an upsert sink, except where a consumer needs it', () => {
    const tEnv = explainEnvironment();
    const explain = (name: string, accepts: string) => {
      const c = CASES.find((x) => x.name === name);
      return tEnv.explainSql(`INSERT INTO ${name}_${accepts} ${c?.select}`);
    };
    const physical = (plan: string, kind: string) =>
      plan
        .slice(plan.indexOf('Physical plan'))
        .split('\n')
        .filter((l) => l.includes(`: ${kind} (from`))
        .map((l) => /changelogMode=(\S+)/.exec(l)?.[1]);
    expect(physical(explain('totals', 'upsert'), 'updating-aggregate')).toEqual(['[I,UA]']);
    expect(physical(explain('totals', 'retract'), 'updating-aggregate')).toEqual(['[I,UB,UA]']);
    // The inner GROUP BY feeds one that takes rows back out: it keeps -U; the outer drops it.
    expect(physical(explain('by_total', 'upsert'), 'updating-aggregate')).toEqual([
      '[I,UB,UA]',
      '[I,UA,D]',
    ]);
    // Both aggregates are keyed by the join key: the join keeps their rows by it and needs no
    // -U (it emits an update of a joined row as -D and +I).
    const joined = explain('joined', 'upsert');
    expect(physical(joined, 'updating-aggregate')).toEqual(['[I,UA]', '[I,UA]']);
    expect(physical(joined, 'regular-join')).toEqual(['[I,UA]']);
    expect(physical(explain('joined', 'retract'), 'updating-aggregate')).toEqual([
      '[I,UB,UA]',
      '[I,UB,UA]',
    ]);
    expect(physical(explain('top2', 'upsert'), 'top-n')).toEqual(['[I,UA,D]']);
    expect(physical(explain('top2', 'retract'), 'top-n')).toEqual(['[I,UB,UA,D]']);
    expect(physical(explain('latest', 'upsert'), 'deduplicate')).toEqual(['[I,UA,D]']);
    // The logical plan shows the rebuilt operator, and the physical plan every operator's mode.
    const totals = explain('totals', 'upsert');
    expect(totals).toMatch(/#\d+ updating-aggregate "updating aggregate" changelog=upsert/);
    expect(totals).toMatch(/: source \(from #0\).* changelogMode=\[I\]/);
    expect(totals).toMatch(/: map \(from #\d+\).* changelogMode=\[I,UA\] upsertKey=\[owner\]/);
    expect(totals).toMatch(/: sink \(from #\d+\).* changelogMode=\[NONE\]/);
  });

  it("Flink's EXPLAIN CHANGELOG_MODE; a blackhole table ignores update-befores, as Flink's does", () => {
    const tEnv = explainEnvironment();
    const select = CASES[0]?.select;
    const { explained } = tEnv.executeSql(
      `EXPLAIN CHANGELOG_MODE INSERT INTO totals_upsert ${select};`,
    );
    expect(explained[0]).toMatch(/: updating-aggregate \(from #\d+\).* changelogMode=\[I,UA\]/);
    expect(() => tEnv.explainSql('EXPLAIN ESTIMATED_COST SELECT owner FROM sales')).toThrow(
      'line 1, column 9: EXPLAIN ESTIMATED_COST is not supported by Weir SQL yet',
    );
    tEnv.executeSql(
      "CREATE TABLE discard (owner STRING, n BIGINT, total INT) WITH ('connector' = 'blackhole')",
    );
    const blackhole = tEnv.explainSql(`INSERT INTO discard ${select}`);
    expect(blackhole).toContain('update-befores ignored by the connector: changelogMode=[I,UA,D]');
    expect(blackhole).toMatch(/: updating-aggregate \(from #\d+\).* changelogMode=\[I,UA\]/);
  });
});
