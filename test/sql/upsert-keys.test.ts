/**
 * Upsert keys as Flink infers them: GROUP BY and Top-N into a sink whose PRIMARY KEY is the
 * query's upsert key get no update-befores, and the table the sink applies by key equals a
 * batch computation (fast-check, shuffled input); a sink keyed otherwise gets the changes
 * through a view by its key; a retract sink still gets -U. EXPLAIN names modes and keys.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Change, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { registerRecordingConnector, type Sale } from './recording-changes.js';

/** What each table of the `test-changes` connector received, by table name. */
let received = new Map<string, Change<Row>[]>();

beforeAll(() => {
  received = registerRecordingConnector('test-changes');
});

const salesArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 60 })
  .chain((ids) =>
    fc.shuffledSubarray(
      ids.map((id): Sale => ({ id, owner: `o${id % 5}`, amount: (id * 37) % 101 })),
      { minLength: ids.length, maxLength: ids.length },
    ),
  );

const DDL = (accepts: string) => `
  CREATE TABLE totals (owner STRING, n BIGINT, total INT, PRIMARY KEY (owner) NOT ENFORCED)
    WITH ('connector' = 'test-changes', 'accepts' = '${accepts}');
  CREATE TABLE top2 (owner STRING, rn BIGINT, id INT, amount INT, PRIMARY KEY (owner, rn) NOT ENFORCED)
    WITH ('connector' = 'test-changes', 'accepts' = '${accepts}');
  CREATE TABLE joined (owner STRING, n BIGINT, total INT, PRIMARY KEY (owner) NOT ENFORCED)
    WITH ('connector' = 'test-changes', 'accepts' = '${accepts}');
  CREATE TABLE by_count (n BIGINT, owner STRING, PRIMARY KEY (n) NOT ENFORCED)
    WITH ('connector' = 'test-changes', 'accepts' = '${accepts}');`;

const GROUP_BY = 'INSERT INTO totals SELECT owner, COUNT(*), SUM(amount) FROM sales GROUP BY owner';
/** Two GROUP BYs joined on their group key: each side's key is within the join key. */
const JOIN = `INSERT INTO joined SELECT a.owner, a.n, b.t
  FROM (SELECT owner, COUNT(*) AS n FROM sales GROUP BY owner) a
  JOIN (SELECT owner, SUM(amount) AS t FROM sales GROUP BY owner) b ON a.owner = b.owner`;
const TOP_N = `INSERT INTO top2 SELECT owner, rn, id, amount FROM (
    SELECT id, owner, amount,
      ROW_NUMBER() OVER (PARTITION BY owner ORDER BY amount DESC, id DESC) AS rn
    FROM sales)
  WHERE rn <= 2`;

function environment(sales: readonly Sale[], accepts: string) {
  const env = new StreamEnvironment({ parallelism: 2 });
  const tEnv = TableEnvironment.create(env);
  tEnv.fromDataStream('sales', env.fromArray([...sales]), {
    columns: [
      { name: 'id', type: 'INT' },
      { name: 'owner', type: 'STRING' },
      { name: 'amount', type: 'INT' },
    ],
  });
  tEnv.executeSql(DDL(accepts));
  return tEnv;
}

const rowsText = (rows: readonly Row[]) => rows.map((r) => JSON.stringify(r)).sort();

function batchTotals(sales: readonly Sale[]): Row[] {
  const m = new Map<string, [number, number]>();
  for (const s of sales) {
    const [n, t] = m.get(s.owner) ?? [0, 0];
    m.set(s.owner, [n + 1, t + s.amount]);
  }
  return [...m].map(([owner, [n, t]]) => [owner, n, t]);
}

function batchTop2(sales: readonly Sale[]): Row[] {
  const m = new Map<string, Sale[]>();
  for (const s of sales) m.set(s.owner, [...(m.get(s.owner) ?? []), s]);
  const rows: Row[] = [];
  for (const [owner, list] of m) {
    list.sort((a, b) => b.amount - a.amount || b.id - a.id);
    for (const [i, s] of list.slice(0, 2).entries()) rows.push([owner, i + 1, s.id, s.amount]);
  }
  return rows;
}

/** Numbers as plain numbers (COUNT is a BIGINT, which rows may hold as a bigint). */
const plain = (changes: readonly Change<Row>[]) =>
  changes.map((c) => ({
    kind: c.kind,
    value: c.value.map((v) => (typeof v === 'bigint' ? Number(v) : v)),
  }));

/** The same tables over a `datagen` source, for EXPLAIN (which plans into a scratch job). */
function explainEnvironment(accepts: string) {
  const tEnv = TableEnvironment.create(new StreamEnvironment({ parallelism: 2 }));
  tEnv.executeSql(
    `CREATE TABLE sales (id INT, owner STRING, amount INT) WITH ('connector' = 'datagen'); ${DDL(accepts)}`,
  );
  return tEnv;
}

/** The table a changelog leaves, applying each change by the key columns. */
function finalTable(changes: readonly Change<Row>[], key: readonly number[]): string[] {
  const table = new Map<string, Row>();
  for (const c of plain(changes)) {
    const k = JSON.stringify(key.map((i) => c.value[i]));
    if (c.kind === '-D' || c.kind === '-U') table.delete(k);
    else table.set(k, c.value);
  }
  return rowsText([...table.values()]);
}

describe('upsert keys', () => {
  it('a GROUP BY, a Top-N and a join of GROUP BYs into sinks keyed by their upsert keys get upserts, equal to a batch computation', async () => {
    await fc.assert(
      fc.asyncProperty(salesArb, async (sales) => {
        const tEnv = environment(sales, 'upsert');
        await tEnv.executeSql(`EXECUTE STATEMENT SET BEGIN ${GROUP_BY}; ${TOP_N}; ${JOIN}; END;`)
          .job?.result;
        const totals = received.get('totals') ?? [];
        const top2 = received.get('top2') ?? [];
        expect(totals.some((c) => c.kind === '-U')).toBe(false);
        expect(top2.some((c) => c.kind === '-U')).toBe(false);
        const joined = received.get('joined') ?? [];
        expect(joined.some((c) => c.kind === '-U')).toBe(false);
        expect(finalTable(joined, [0])).toEqual(rowsText(batchTotals(sales)));
        expect(finalTable(totals, [0])).toEqual(rowsText(batchTotals(sales)));
        expect(finalTable(top2, [0, 1])).toEqual(rowsText(batchTop2(sales)));
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('a retract sink still gets -U, and its changes add up to the batch result', async () => {
    // Two rows per owner: the second updates the first's total.
    const sales: Sale[] = [0, 1, 2, 5, 6, 7].map((id) => ({ id, owner: `o${id % 5}`, amount: id }));
    const tEnv = environment(sales, 'retract');
    await tEnv.executeSql(GROUP_BY).job?.result;
    const totals = plain(received.get('totals') ?? []);
    expect(totals.filter((c) => c.kind === '-U').length).toBeGreaterThan(0);
    // A retract changelog: each -U removes a row added before it.
    const bag: string[] = [];
    for (const c of totals) {
      const text = JSON.stringify(c.value);
      if (c.kind === '+I' || c.kind === '+U') bag.push(text);
      else bag.splice(bag.indexOf(text), 1);
    }
    expect(bag.sort()).toEqual(rowsText(batchTotals(sales)));
  });

  it('EXPLAIN shows each sink changelog mode and upsert key, and the query upsert key', () => {
    const tEnv = explainEnvironment('upsert');
    const groupBy = tEnv.explainSql(GROUP_BY);
    expect(groupBy).toContain(
      'sink totals: changelogMode=[I,UA,D], upsertKey=[owner], the PRIMARY KEY [owner]',
    );
    expect(tEnv.explainSql(TOP_N)).toContain(
      'sink top2: changelogMode=[I,UA,D], upsertKey=[owner, rn], the PRIMARY KEY [owner, rn]',
    );
    expect(tEnv.explainSql(JOIN)).toContain(
      'sink joined: changelogMode=[I,UA,D], upsertKey=[owner], the PRIMARY KEY [owner]',
    );
    // The count is not a key of the groups: updates keep -U up to a view by the sink's key.
    const other = tEnv.explainSql(
      'INSERT INTO by_count SELECT COUNT(*), owner FROM sales GROUP BY owner',
    );
    expect(other).toContain(
      'sink by_count: changelogMode=[I,UB,UA,D], upsertKey=[owner], not the PRIMARY KEY [n]: materialized by it, then changelogMode=[I,UA,D]',
    );
    expect(other).toContain('table-view');
    const query = tEnv.explainSql(
      'SELECT total, owner FROM (SELECT owner, SUM(amount) AS total FROM sales GROUP BY owner)',
    );
    expect(query).toContain('changelog mode: retract\nupsert key: [owner]');
    // A computed column in place of the key: no upsert key.
    expect(tEnv.explainSql('SELECT UPPER(owner), COUNT(*) FROM sales GROUP BY owner')).toContain(
      'upsert key: none',
    );
    const retractEnv = explainEnvironment('retract');
    expect(retractEnv.explainSql(GROUP_BY)).toContain(
      'sink totals: changelogMode=[I,UB,UA,D], upsertKey=[owner]',
    );
  });

  it('EXPLAIN shows the changelog mode, upsert key and state of set operations and the retracting Top-N', () => {
    const tEnv = explainEnvironment('upsert');
    // The physical plan's line of the operator whose id starts with `prefix`.
    const line = (plan: string, prefix: string) =>
      plan.split('\n').find((l) => new RegExp(`\\] ${prefix}\\d+: `).test(l)) ?? '';
    const intersect = tEnv.explainSql(
      'SELECT owner FROM sales WHERE amount > 1 INTERSECT SELECT owner FROM sales WHERE id > 3',
    );
    // Only inserts and deletes of whole rows, which identify themselves.
    expect(line(intersect, 'intersect-')).toMatch(/keyed-process .*changelogMode=\[I,D\]$/);
    expect(line(intersect, 'changelog-retract-')).toMatch(
      /changelogMode=\[I,D\] upsertKey=\[owner\]$/,
    );
    expect(intersect).toContain('state: per row, how many times each side holds it');
    expect(intersect).toContain('changelog mode: retract\nupsert key: [owner]');
    const exceptAll = tEnv.explainSql(
      'SELECT owner FROM sales EXCEPT ALL SELECT owner FROM sales WHERE id > 3',
    );
    expect(line(exceptAll, 'except-all-')).toMatch(/changelogMode=\[I,D\]$/);
    expect(exceptAll).toContain('upsert key: none');
    // UNION: a GROUP BY of every column, keyed by them.
    expect(tEnv.explainSql('SELECT owner FROM sales UNION SELECT owner FROM sales')).toContain(
      'changelog mode: retract\nupsert key: [owner]',
    );
    // A Top-N over a GROUP BY needs the update-befores of its input and emits its own.
    const topN = tEnv.explainSql(`INSERT INTO top2 SELECT owner, rn, CAST(n AS INT), 0 FROM (
        SELECT owner, n, ROW_NUMBER() OVER (PARTITION BY owner ORDER BY n DESC) AS rn
        FROM (SELECT owner, COUNT(*) AS n FROM sales GROUP BY owner)) WHERE rn <= 2`);
    expect(line(topN, 'updating-aggregate-')).toContain('changelogMode=[I,UB,UA]');
    expect(line(topN, 'top-n-retract-')).toContain('changelogMode=[I,UB,UA,D]');
    expect(topN).toContain('state: every current row per partition, sorted');
    expect(topN).toContain('upsertKey=[owner, rn]');
    const limit = tEnv.explainSql(
      'SELECT owner, COUNT(*) AS n FROM sales GROUP BY owner ORDER BY n DESC LIMIT 2 OFFSET 1',
    );
    expect(line(limit, 'order-by-limit-2-offset-1-retract-')).toContain('changelogMode=[I,D]');
  });
});
