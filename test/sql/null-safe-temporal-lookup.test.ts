/**
 * `IS NOT DISTINCT FROM` as the key of an event-time temporal join and of a lookup join, as
 * Flink plans them:
 *
 * - temporal join: the key equality may be NULL-safe; a NULL left key then joins the version
 *   of the NULL key (a versioned view's key may be NULL), where `=` joins none. Against an
 *   as-of lookup over the versions the view keeps.
 * - lookup join: Flink accepts it as a lookup key but looks nothing up for a NULL key (its
 *   lookup skips NULL arguments), and checks the pairs it does not look up by as `=`; so it
 *   joins exactly as `=` does, and a constant is no lookup key (refused as Flink refuses it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';

const T0 = Date.UTC(2026, 0, 1);

/** Versions of rates by currency (NULL is a currency of its own for the deduplication). */
const HISTORY: readonly (readonly [string | null, number, number])[] = [
  ['EUR', 10, T0 + 1_000],
  [null, 7, T0 + 2_000],
  ['EUR', 11, T0 + 5_000],
  [null, 8, T0 + 6_000],
];

/** Orders: id, currency, time. */
const ORDERS: readonly (readonly [number, string | null, number])[] = [
  [1, 'EUR', T0 + 3_000],
  [2, null, T0 + 3_000],
  [3, null, T0 + 7_000],
  [4, 'GBP', T0 + 7_000],
  [5, null, T0 + 1_500],
  [6, 'EUR', T0 + 5_000],
];

async function temporal(
  on: string,
  type: 'JOIN' | 'LEFT JOIN',
  parallelism: number,
): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism, batchSize: 2 });
  const tEnv = TableEnvironment.create(env);
  const schema = (columns: { name: string; type: string }[]) => ({
    columns,
    watermark: { column: 'ts', expression: 'ts' },
  });
  tEnv.fromDataStream(
    'rates_history',
    env.fromArray(HISTORY.map(([currency, rate, ts]) => ({ currency, rate, ts }))),
    schema([
      { name: 'currency', type: 'STRING' },
      { name: 'rate', type: 'INT' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ]),
  );
  tEnv.fromDataStream(
    'orders',
    env.fromArray(ORDERS.map(([id, currency, ts]) => ({ id, currency, ts }))),
    schema([
      { name: 'id', type: 'INT' },
      { name: 'currency', type: 'STRING' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ]),
  );
  tEnv.executeSql(`CREATE TEMPORARY VIEW rates AS
    SELECT currency, rate, ts FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rn
      FROM rates_history)
    WHERE rn = 1`);
  const sink = new CollectSink<Row>();
  tEnv
    .sqlQuery(
      `SELECT o.id, r.rate FROM orders AS o ${type} rates FOR SYSTEM_TIME AS OF o.ts AS r ON ${on}`,
    )
    .toDataStream()
    .sinkTo(sink);
  await env.execute('null-safe temporal join');
  return sink.values.map((r) => JSON.stringify(r)).sort();
}

/** The as-of lookup: each order's newest version at or before it, its key matched by `same`. */
function asOf(same: (a: string | null, b: string | null) => boolean, outer: boolean): string[] {
  const rows: string[] = [];
  for (const [id, currency, ts] of ORDERS) {
    let valid: (typeof HISTORY)[number] | undefined;
    for (const v of HISTORY) if (same(v[0], currency) && v[2] <= ts) valid = v;
    if (valid !== undefined) rows.push(JSON.stringify([id, valid[1]]));
    else if (outer) rows.push(JSON.stringify([id, null]));
  }
  return rows.sort();
}

const nullSafe = (a: string | null, b: string | null) => a === b;
const equals = (a: string | null, b: string | null) => a !== null && a === b;

describe('IS NOT DISTINCT FROM in an event-time temporal join', () => {
  for (const parallelism of [1, 2]) {
    it(`joins a NULL key to the NULL key's version; = joins it to none (parallelism ${parallelism})`, async () => {
      const expected = asOf(nullSafe, false);
      // Orders 2 and 3 find the NULL currency's versions valid at their times.
      expect(expected).toContain(JSON.stringify([2, 7]));
      expect(expected).toContain(JSON.stringify([3, 8]));
      expect(
        await temporal('o.currency IS NOT DISTINCT FROM r.currency', 'JOIN', parallelism),
      ).toEqual(expected);
      expect(
        await temporal('r.currency IS NOT DISTINCT FROM o.currency', 'LEFT JOIN', parallelism),
      ).toEqual(asOf(nullSafe, true));
      expect(await temporal('o.currency = r.currency', 'JOIN', parallelism)).toEqual(
        asOf(equals, false),
      );
      expect(await temporal('o.currency = r.currency', 'LEFT JOIN', parallelism)).toEqual(
        asOf(equals, true),
      );
    }, 60_000);
  }
});

const dir = mkdtempSync(join(tmpdir(), 'weir-null-safe-lookup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function file(lines: readonly string[]): string {
  const path = join(dir, `t${files++}.csv`);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  return path;
}

/** Orders: id, customer, region (INT columns: NULL where empty). Customers: key, name, region. */
const LOOKUP_ORDERS = ['1,3,1', '2,,1', '3,4,', '4,5,2', '5,3,2'];
const CUSTOMERS = ['3,ann,1', '4,bob,', '5,cy,2'];

function lookupTables(): string {
  return `
    CREATE TABLE orders (id INT, customer INT, region INT, pt AS PROCTIME())
      WITH ('connector' = 'filesystem', 'path' = '${file(LOOKUP_ORDERS)}', 'format' = 'csv');
    CREATE TABLE customers (k INT, name STRING, region INT)
      WITH ('connector' = 'filesystem', 'path' = '${file(CUSTOMERS)}', 'format' = 'csv');`;
}

async function lookup(on: string, type: 'JOIN' | 'LEFT JOIN'): Promise<string[]> {
  const env = new StreamEnvironment({ parallelism: 1 });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(lookupTables());
  const sink = new CollectSink<Row>();
  tEnv
    .sqlQuery(
      `SELECT o.id, c.name FROM orders AS o ${type} customers FOR SYSTEM_TIME AS OF o.pt AS c ON ${on}`,
    )
    .toDataStream()
    .sinkTo(sink);
  await env.execute('null-safe lookup join');
  return sink.values.map((r) => JSON.stringify(r)).sort();
}

describe('IS NOT DISTINCT FROM in a lookup join', () => {
  it('is a lookup key that joins as = does: a NULL key looks nothing up, as in Flink', async () => {
    // Order 2 has no customer: no row, padded in a LEFT join.
    const inner = ['[1,"ann"]', '[3,"bob"]', '[4,"cy"]', '[5,"ann"]'];
    expect(await lookup('o.customer IS NOT DISTINCT FROM c.k', 'JOIN')).toEqual(inner);
    expect(await lookup('c.k IS NOT DISTINCT FROM o.customer', 'JOIN')).toEqual(
      await lookup('o.customer = c.k', 'JOIN'),
    );
    expect(await lookup('o.customer IS NOT DISTINCT FROM c.k', 'LEFT JOIN')).toEqual(
      [...inner, '[2,null]'].sort(),
    );
  }, 60_000);

  it('a further key pair checks as =: NULL regions do not match, as Flink checks its pairs', async () => {
    // Order 3 and customer 4 both have a NULL region: Flink looks nothing up (a NULL key).
    const on = 'o.customer = c.k AND o.region IS NOT DISTINCT FROM c.region';
    expect(await lookup(on, 'JOIN')).toEqual(['[1,"ann"]', '[4,"cy"]']);
    expect(await lookup(on, 'LEFT JOIN')).toEqual(
      ['[1,"ann"]', '[2,null]', '[3,null]', '[4,"cy"]', '[5,null]'].sort(),
    );
    // A condition within the table stays NULL-safe: it is no key pair.
    expect(
      await lookup('o.customer = c.k AND c.region IS NOT DISTINCT FROM CAST(NULL AS INT)', 'JOIN'),
    ).toEqual(['[3,"bob"]']);
  }, 60_000);

  it('a constant is no lookup key: refused, as Flink refuses a lookup join without a key pair', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(lookupTables());
    expect(() =>
      tEnv.sqlQuery(
        'SELECT o.id FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON c.k IS NOT DISTINCT FROM 3',
      ),
    ).toThrow(/a lookup join needs an equality between a column of 'customers'/);
  });
});
