/**
 * Regular joins of updating inputs keyed by the join key (GROUP BYs, a keep-last
 * deduplication), inner, left and full: into a sink keyed by the join's upsert key (no `-U`
 * anywhere: the join keeps those inputs' rows by their key and a `+U` replaces its row), into
 * one keyed otherwise (a view by the sink's key) and into a retract sink, at parallelism 1
 * and 2, with and without mini-batch. Every sink's table equals the batch join of the batch
 * aggregates (fast-check).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Change, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import {
  expectBothSinksEqualBatch,
  registerRecordingConnector,
  type Sale,
} from './recording-changes.js';

let received = new Map<string, Change<Row>[]>();

beforeAll(() => {
  received = registerRecordingConnector('recorded-join-changes');
});

const rowsArb = (owners: readonly string[]) =>
  fc.array(
    fc.record({ owner: fc.constantFrom(...owners), amount: fc.integer({ min: 0, max: 9 }) }),
    { maxLength: 30 },
  );

/** Sales of owners o0..o4 and refunds of o2..o6: each side has owners the other lacks. */
const inputArb = fc
  .tuple(rowsArb(['o0', 'o1', 'o2', 'o3', 'o4']), rowsArb(['o2', 'o3', 'o4', 'o5', 'o6']))
  .map(([s, r]) => ({
    sales: s.map((x, i): Sale => ({ id: i, ...x })),
    refunds: r.map((x, i): Sale => ({ id: i, ...x })),
  }));

type Input = { readonly sales: readonly Sale[]; readonly refunds: readonly Sale[] };

function groups<T>(items: readonly T[], keyOf: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) m.set(keyOf(t), [...(m.get(keyOf(t)) ?? []), t]);
  return m;
}

const sum = (rows: readonly Sale[]) => rows.reduce((s, x) => s + x.amount, 0);
/** The batch GROUP BY owner of each side: sales' count, refunds' sum. */
const counts = (i: Input) =>
  new Map([...groups(i.sales, (x) => x.owner)].map(([o, l]) => [o, l.length]));
const totals = (i: Input) =>
  new Map([...groups(i.refunds, (x) => x.owner)].map(([o, l]) => [o, sum(l)]));

const COUNTS = 'SELECT owner, COUNT(*) AS n FROM sales GROUP BY owner';
const TOTALS = 'SELECT owner, SUM(amount) AS t FROM refunds GROUP BY owner';

interface Case {
  readonly name: string;
  readonly columns: string;
  /** The sink's PRIMARY KEY, by column position. */
  readonly key: readonly number[];
  readonly select: string;
  readonly batch: (input: Input) => Row[];
}

const CASES: readonly Case[] = [
  {
    name: 'inner_by_owner',
    columns: 'owner STRING, n BIGINT, t INT',
    key: [0],
    select: `SELECT a.owner, a.n, b.t FROM (${COUNTS}) a JOIN (${TOTALS}) b ON a.owner = b.owner`,
    batch: (i) => {
      const t = totals(i);
      return [...counts(i)].filter(([o]) => t.has(o)).map(([o, n]) => [o, n, t.get(o)]);
    },
  },
  {
    // The right side is unique on the join key and the left is never padded: the left's key
    // is the join's upsert key.
    name: 'left_by_owner',
    columns: 'owner STRING, n BIGINT, t INT',
    key: [0],
    select: `SELECT a.owner, a.n, b.t FROM (${COUNTS}) a LEFT JOIN (${TOTALS}) b ON a.owner = b.owner`,
    batch: (i) => {
      const t = totals(i);
      return [...counts(i)].map(([o, n]) => [o, n, t.get(o) ?? null]);
    },
  },
  {
    // A left input keyed by more than the join key (Flink's HasUniqueKey).
    name: 'left_by_bucket',
    columns: 'owner STRING, bucket INT, n BIGINT, t INT',
    key: [0, 1],
    select: `SELECT a.owner, a.bucket, a.n, b.t
      FROM (SELECT owner, bucket, COUNT(*) AS n
            FROM (SELECT owner, MOD(amount, 3) AS bucket FROM sales) GROUP BY owner, bucket) a
      LEFT JOIN (${TOTALS}) b ON a.owner = b.owner`,
    batch: (i) => {
      const t = totals(i);
      return [...groups(i.sales, (x) => `${x.owner}/${x.amount % 3}`)].map(([k, l]) => {
        const [o, bucket] = k.split('/') as [string, string];
        return [o, Number(bucket), l.length, t.get(o) ?? null];
      });
    },
  },
  {
    // Padded rows on both sides: the sink's key is not the join's upsert key (both owners).
    name: 'full_by_owner',
    columns: 'owner STRING, n BIGINT, t INT',
    key: [0],
    select: `SELECT COALESCE(a.owner, b.owner), a.n, b.t
      FROM (${COUNTS}) a FULL JOIN (${TOTALS}) b ON a.owner = b.owner`,
    batch: (i) => {
      const n = counts(i);
      const t = totals(i);
      const owners = new Set([...n.keys(), ...t.keys()]);
      return [...owners].map((o) => [o, n.get(o) ?? null, t.get(o) ?? null]);
    },
  },
  {
    // An upsert input (each owner's latest refund, a keep-last deduplication) joined with a
    // GROUP BY.
    name: 'latest_refund',
    columns: 'owner STRING, n BIGINT, id INT',
    key: [0],
    select: `SELECT a.owner, a.n, b.id FROM (${COUNTS}) a LEFT JOIN (
        SELECT owner, id FROM (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY owner ORDER BY ts DESC) AS rn FROM refunds)
        WHERE rn = 1) b ON a.owner = b.owner`,
    batch: (i) => {
      const latest = new Map<string, number>();
      for (const r of i.refunds) latest.set(r.owner, Math.max(latest.get(r.owner) ?? -1, r.id));
      return [...counts(i)].map(([o, n]) => [o, n, latest.get(o) ?? null]);
    },
  },
];

const columnName = (c: Case, k: number) => c.columns.split(',')[k]?.trim().split(' ')[0];

function environment(input: Input, parallelism: number, options: string) {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  for (const [name, rows] of [
    ['sales', input.sales],
    ['refunds', input.refunds],
  ] as const) {
    tEnv.fromDataStream(name, env.fromArray(rows.map((s) => ({ ...s, ts: s.id * 1000 }))), {
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'owner', type: 'STRING' },
        { name: 'amount', type: 'INT' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: "ts - INTERVAL '10' SECOND" },
    });
  }
  tEnv.executeSql(`${options} ${sinkTables()}`);
  return tEnv;
}

function sinkTables(): string {
  return CASES.flatMap((c) =>
    ['upsert', 'retract'].map(
      (accepts) => `CREATE TABLE ${c.name}_${accepts} (${c.columns},
        PRIMARY KEY (${c.key.map((k) => columnName(c, k)).join(', ')}) NOT ENFORCED)
        WITH ('connector' = 'recorded-join-changes', 'accepts' = '${accepts}');`,
    ),
  ).join('\n');
}

/** The same tables over `datagen` sources, for EXPLAIN (which plans into a scratch job). */
function explainEnvironment() {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
  const source = (name: string) => `CREATE TABLE ${name} (id INT, owner STRING, amount INT,
      ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector' = 'datagen');`;
  tEnv.executeSql(`${source('sales')} ${source('refunds')} ${sinkTables()}`);
  return tEnv;
}

const MINI_BATCH = `SET 'table.exec.mini-batch.enabled' = 'true';
  SET 'table.exec.mini-batch.allow-latency' = '1 s'; SET 'table.exec.mini-batch.size' = '7';`;

describe('regular joins of inputs keyed by the join key', () => {
  for (const parallelism of [1, 2]) {
    for (const [label, options] of [
      ['', ''],
      [', mini-batch', MINI_BATCH],
    ] as const) {
      it(`end equal to the batch join of the batch aggregates (parallelism ${parallelism}${label})`, async () => {
        await fc.assert(
          fc.asyncProperty(inputArb, async (input) => {
            const tEnv = environment(input, parallelism, options);
            await expectBothSinksEqualBatch(tEnv, received, CASES, (c) => (c as Case).batch(input));
          }),
          { numRuns: 8 },
        );
      }, 120_000);
    }
  }

  it('EXPLAIN: no -U where the join keeps its inputs by their keys; the upsert keys of outer joins', () => {
    const tEnv = explainEnvironment();
    const plan = (name: string) => {
      const c = CASES.find((x) => x.name === name);
      const text = tEnv.explainSql(`INSERT INTO ${name}_upsert ${c?.select}`);
      return text.slice(text.indexOf('Physical plan'));
    };
    const modes = (text: string, kind: string) =>
      text
        .split('\n')
        .filter((l) => l.includes(`: ${kind} (from`))
        .map((l) => /changelogMode=(\S+)/.exec(l)?.[1]);
    for (const name of ['inner_by_owner', 'left_by_owner', 'left_by_bucket']) {
      const text = plan(name);
      expect(text, name).not.toContain('UB');
      expect(modes(text, 'updating-aggregate'), name).toEqual(['[I,UA]', '[I,UA]']);
    }
    expect(plan('left_by_owner')).toMatch(/regular-join.*\n.*upsertKey=\[owner\]/);
    // The left join's output is keyed by the left side's key; the full join's by both owners.
    expect(plan('left_by_bucket')).toMatch(/upsertKey=\[owner, bucket\]/);
    expect(plan('full_by_owner')).toMatch(/upsertKey=\[owner, owner\]/);
    // The sink's key is not the full join's upsert key: a view by it needs the -U.
    expect(modes(plan('full_by_owner'), 'updating-aggregate')).toEqual(['[I,UB,UA]', '[I,UB,UA]']);
  });
});
