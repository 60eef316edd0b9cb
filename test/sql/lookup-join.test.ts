/**
 * Lookup joins in Weir SQL against `filesystem` tables (`FOR SYSTEM_TIME AS OF` a PROCTIME()
 * column), and processing time: the joins against a nested-loop join of the same rows
 * (fast-check), Nexmark q12's processing-time windows against a batch count, PROCTIME(),
 * NOW() and CURRENT_TIMESTAMP against the wall clock, and the refusals with their positions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { nexmarkConfig, nexmarkEvent } from '../../src/connectors/nexmark/index.js';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { collectSqlOnWeir } from './nexmark-sql.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-lookup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function file(lines: readonly string[]): string {
  const path = join(dir, `t${files++}.csv`);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  return path;
}

async function query(ddl: string, select: string, parallelism = 1): Promise<Row[]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl);
  const sink = new CollectSink<Row>();
  tEnv.sqlQuery(select).toDataStream().sinkTo(sink);
  await env.execute('lookup join');
  return sink.values;
}

const sorted = (rows: readonly Row[]) => rows.map((r) => JSON.stringify(r)).sort();

interface Order {
  id: number;
  customer: number | null;
  amount: number;
}
interface Customer {
  key: number;
  name: string;
  limit: number;
}

const orderArb = fc.array(
  fc.record({
    id: fc.integer({ min: 0, max: 10_000 }),
    customer: fc.option(fc.integer({ min: 0, max: 12 }), { nil: null }),
    amount: fc.integer({ min: 0, max: 100 }),
  }),
  { maxLength: 40 },
);
const customerArb = fc.uniqueArray(
  fc.record({
    key: fc.integer({ min: 0, max: 12 }),
    name: fc.constantFrom('ann', 'bob', 'cy', 'di'),
    limit: fc.integer({ min: 0, max: 100 }),
  }),
  { selector: (c) => c.key, maxLength: 10 },
);

function tables(orders: readonly Order[], customers: readonly Customer[]): string {
  const o = file(orders.map((r) => `${r.id},${r.customer ?? ''},${r.amount}`));
  const c = file(customers.map((r) => `${r.key},${r.name},${r.limit}`));
  return `
    CREATE TABLE orders (
      id INT, customer INT, amount INT, pt AS PROCTIME()
    ) WITH ('connector' = 'filesystem', 'path' = '${o}', 'format' = 'csv');
    CREATE TABLE customers (
      k INT, name STRING, \`limit\` INT
    ) WITH ('connector' = 'filesystem', 'path' = '${c}', 'format' = 'csv');`;
}

describe('lookup joins against a filesystem table', () => {
  for (const parallelism of [1, 2]) {
    it(`INNER and LEFT, with a further condition, equal a nested-loop join (parallelism ${parallelism})`, async () => {
      await fc.assert(
        fc.asyncProperty(orderArb, customerArb, async (orders, customers) => {
          const ddl = tables(orders, customers);
          const find = (o: Order) => customers.find((c) => c.key === o.customer);
          const inner = await query(
            ddl,
            `SELECT o.id, o.amount, c.name FROM orders AS o
             JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c
             ON o.customer = c.k AND o.amount <= c.\`limit\``,
            parallelism,
          );
          const expectedInner = orders.flatMap((o) => {
            const c = find(o);
            return c !== undefined && o.amount <= c.limit ? [[o.id, o.amount, c.name]] : [];
          });
          expect(sorted(inner)).toEqual(sorted(expectedInner));
          const left = await query(
            ddl,
            `SELECT o.id, c.k, c.name FROM orders AS o
             LEFT JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c
             ON c.k = o.customer + 0 AND o.amount <= c.\`limit\``,
            parallelism,
          );
          const expectedLeft = orders.map((o) => {
            const c = find(o);
            return c !== undefined && o.amount <= c.limit
              ? [o.id, c.key, c.name]
              : [o.id, null, null];
          });
          expect(sorted(left)).toEqual(sorted(expectedLeft));
          // A computed projection is written by the join itself; with a WHERE, after it.
          for (const where of ['', 'WHERE o.amount > 40']) {
            const computed = await query(
              ddl,
              `SELECT o.amount + c.\`limit\`, UPPER(c.name) FROM orders AS o
               JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON c.k = o.customer ${where}`,
              parallelism,
            );
            const expected = orders.flatMap((o) => {
              const c = find(o);
              return c === undefined || (where !== '' && o.amount <= 40)
                ? []
                : [[o.amount + c.limit, c.name.toUpperCase()]];
            });
            expect(sorted(computed)).toEqual(sorted(expected));
          }
        }),
        { numRuns: 8 },
      );
    }, 120_000);
  }

  it('a key on two lines fails the job naming both lines', async () => {
    const ddl = tables([{ id: 1, customer: 3, amount: 1 }], []).replace(
      /'path' = '[^']*t\d+\.csv', 'format' = 'csv'\);$/,
      `'path' = '${file(['3,ann,10', '4,bob,10', '3,cy,10'])}', 'format' = 'csv');`,
    );
    await expect(
      query(
        ddl,
        'SELECT o.id, c.name FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.customer = c.k',
      ),
    ).rejects.toThrow(
      /line 3: key 3 is also at file '.*' line 1; a lookup join reads one row per key/,
    );
  });

  it('refuses what it cannot plan, naming the position', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`${tables([], [])}
      CREATE TABLE timed (id INT, customer INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'filesystem', 'path' = '${file([])}', 'format' = 'csv');`);
    const plan = (sql: string) => () => tEnv.sqlQuery(sql);
    expect(
      plan(
        'SELECT * FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.amount AS c ON o.customer = c.k',
      ),
    ).toThrow(
      'line 1, column 64: FOR SYSTEM_TIME AS OF must name a time attribute of the left side',
    );
    expect(
      plan(
        'SELECT * FROM timed AS o JOIN customers FOR SYSTEM_TIME AS OF o.ts AS c ON o.customer = c.k',
      ),
    ).toThrow(
      // AS OF the rowtime is a temporal join, which needs a versioned table.
      /FOR SYSTEM_TIME AS OF needs a versioned table: 'customers' has no PRIMARY KEY/,
    );
    expect(
      plan(
        'SELECT * FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.amount < c.k',
      ),
    ).toThrow(/line 1, column 86: a lookup join needs an equality between a column of 'customers'/);
    expect(
      plan(
        'SELECT * FROM orders AS o FULL JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.customer = c.k',
      ),
    ).toThrow('must be an INNER or LEFT JOIN, not FULL');
    expect(plan('SELECT * FROM customers FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP')).toThrow(
      'FOR SYSTEM_TIME AS OF is the right side of a JOIN',
    );
  });
});

describe('processing time', () => {
  it("a view's PROCTIME() as the AS OF column, read or not by the SELECT (Nexmark q13's shape)", async () => {
    const orders = file(['1,3,10', '2,4,20', '3,,30']);
    const customers = file(['3,ann', '4,bob']);
    const ddl = `
      CREATE TABLE o (id INT, customer INT, amount INT)
        WITH ('connector' = 'filesystem', 'path' = '${orders}', 'format' = 'csv');
      CREATE TABLE c (k INT, name STRING) WITH ('connector' = 'filesystem', 'path' = '${customers}', 'format' = 'csv');`;
    const join = (select: string) =>
      `SELECT ${select} FROM (SELECT *, PROCTIME() AS p_time FROM o) B
       JOIN c FOR SYSTEM_TIME AS OF B.p_time AS S ON MOD(B.customer, 10) = S.k`;
    expect(sorted(await query(ddl, join('B.id, S.name')))).toEqual(
      sorted([
        [1, 'ann'],
        [2, 'bob'],
      ]),
    );
    const before = Date.now();
    const withTime = await query(ddl, join('B.id, B.p_time, S.name'));
    const after = Date.now();
    expect(withTime.map((r) => [r[0], r[2]]).sort()).toEqual([
      [1, 'ann'],
      [2, 'bob'],
    ]);
    for (const [, time] of withTime) {
      expect(time).toBeGreaterThanOrEqual(before);
      expect(time).toBeLessThanOrEqual(after);
    }
  });

  it('PROCTIME(), NOW(), CURRENT_TIMESTAMP and LOCALTIMESTAMP read the wall clock', async () => {
    const path = file(['1', '2', '3']);
    const before = Date.now();
    const rows = await query(
      `CREATE TABLE t (id INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv');`,
      'SELECT id, pt, NOW(), CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_TIMESTAMP() FROM t',
    );
    const after = Date.now();
    expect(rows.map((r) => r[0]).sort()).toEqual([1, 2, 3]);
    for (const row of rows)
      for (const t of row.slice(1)) {
        expect(t).toBeGreaterThanOrEqual(before);
        expect(t).toBeLessThanOrEqual(after);
      }
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(
      `CREATE TABLE t (id INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv');`,
    );
    expect(
      tEnv.sqlQuery('SELECT pt, NOW(), LOCALTIMESTAMP FROM t').columns.map((c) => c.type),
    ).toEqual(['TIMESTAMP_LTZ(3) NOT NULL', 'TIMESTAMP_LTZ(3) NOT NULL', 'TIMESTAMP(3) NOT NULL']);
    expect(() =>
      tEnv.sqlQuery(
        "SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(id), INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
      ),
    ).toThrow("'id' is not a time attribute");
  });

  // q12's windows depend on when each bid is processed; what does not is that every bid is
  // counted once, in a 10-second window of the run's wall-clock time.
  for (const parallelism of [1, 2]) {
    it(`Nexmark q12 verbatim: each bidder's window counts add up to its bids (parallelism ${parallelism})`, async () => {
      const config = { maxEvents: 20_000, eventsPerSecond: 200, seed: 3 };
      const started = Date.now();
      const rows = (await collectSqlOnWeir('q12', config, parallelism)).map(
        (line) => JSON.parse(line) as [number, number, number, number],
      );
      const ended = Date.now();
      const full = nexmarkConfig(config);
      const expected = new Map<number, number>();
      for (let i = 0; i < full.maxEvents; i++) {
        const event = nexmarkEvent(i, full);
        if (event.type === 'bid')
          expected.set(event.bid.bidder, (expected.get(event.bid.bidder) ?? 0) + 1);
      }
      const actual = new Map<number, number>();
      const windows = new Set<string>();
      for (const [bidder, count, start, end] of rows) {
        actual.set(bidder, (actual.get(bidder) ?? 0) + count);
        expect(end - start).toBe(10_000);
        expect(start % 10_000).toBe(0);
        expect(start).toBeGreaterThan(started - 10_000);
        expect(start).toBeLessThanOrEqual(ended);
        const id = `${bidder}@${start}`;
        expect(windows.has(id)).toBe(false);
        windows.add(id);
      }
      expect(actual).toEqual(expected);
    }, 120_000);
  }
});
