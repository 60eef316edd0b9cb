/**
 * The table environment end to end: CREATE TABLE / VIEW, option errors that name the option
 * and the allowed values, window TVF aggregations (TUMBLE, HOP, COUNT(DISTINCT), FILTER)
 * against a plain oracle over the same generated events, INSERT INTO, VALUES and EXPLAIN.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import {
  type Change,
  CollectSink,
  type Row,
  SqlError,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { allEvents } from '../nexmark/oracle.js';
import { nexmarkSourceSql } from './nexmark-sql.js';

const CONFIG: Partial<NexmarkConfig> = { maxEvents: 6000, eventsPerSecond: 100, seed: 11 };

async function query(sql: string, parallelism = 1, config = CONFIG): Promise<unknown[][]> {
  const env = new StreamEnvironment({ parallelism });
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(nexmarkSourceSql(config));
  const table = tEnv.sqlQuery(sql);
  const sink = new CollectSink<Row>();
  table.toDataStream().sinkTo(sink);
  await env.execute('sql test');
  return sink.values.map((r) => table.toJson(r));
}

function sorted(rows: unknown[][]): string[] {
  return rows.map((r) => JSON.stringify(r)).sort();
}

function sqlError(run: () => unknown): SqlError {
  try {
    run();
  } catch (e) {
    if (e instanceof SqlError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('window TVF aggregation', () => {
  const { bids } = allEvents(CONFIG);

  it('TUMBLE per auction: COUNT, SUM, MAX, AVG, COUNT(DISTINCT), FILTER', async () => {
    const sql = `
      SELECT auction, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS top, AVG(price) AS mean,
        COUNT(DISTINCT bidder) AS bidders, COUNT(*) FILTER (WHERE price > 1000000) AS big,
        window_start, window_end
      FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(\`dateTime\`), INTERVAL '10' SECOND))
      GROUP BY auction, window_start, window_end`;
    const groups = new Map<
      string,
      { auction: number; start: number; prices: number[]; bidders: Set<number> }
    >();
    for (const b of bids) {
      const start = Math.floor(b.dateTime / 10_000) * 10_000;
      const key = `${b.auction}/${start}`;
      let g = groups.get(key);
      if (g === undefined) {
        g = { auction: b.auction, start, prices: [], bidders: new Set() };
        groups.set(key, g);
      }
      g.prices.push(b.price);
      g.bidders.add(b.bidder);
    }
    const expected = [...groups.values()].map((g) => {
      const total = g.prices.reduce((a, p) => a + p, 0);
      return [
        g.auction,
        g.prices.length,
        total,
        Math.max(...g.prices),
        Math.trunc(total / g.prices.length),
        g.bidders.size,
        g.prices.filter((p) => p > 1_000_000).length,
        g.start,
        g.start + 10_000,
      ];
    });
    expect(expected.length).toBeGreaterThan(100);
    for (const parallelism of [1, 2])
      expect(sorted(await query(sql, parallelism))).toEqual(sorted(expected));
  }, 120_000);

  it('HOP over all bids (no key), with expressions over the aggregates and HAVING', async () => {
    const sql = `
      SELECT window_start, window_end, COUNT(*) AS n, MIN(price) + 1 AS low
      FROM TABLE(HOP(TABLE bid, DESCRIPTOR(\`dateTime\`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
      GROUP BY window_start, window_end
      HAVING COUNT(*) > 5`;
    const windows = new Map<number, number[]>();
    for (const b of bids) {
      for (
        let start = Math.floor(b.dateTime / 2000) * 2000;
        start > b.dateTime - 10_000;
        start -= 2000
      ) {
        const w = windows.get(start) ?? [];
        w.push(b.price);
        windows.set(start, w);
      }
    }
    const expected = [...windows]
      .filter(([, prices]) => prices.length > 5)
      .map(([start, prices]) => [start, start + 10_000, prices.length, Math.min(...prices) + 1]);
    expect(sorted(await query(sql, 2))).toEqual(sorted(expected));
  }, 120_000);

  it('a window TVF without aggregation adds the window columns to each row', async () => {
    const rows = await query(`
      SELECT auction, price, window_start, window_end
      FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(\`dateTime\`), INTERVAL '5' SECOND))
      WHERE MOD(auction, 10) = 0`);
    const expected = bids
      .filter((b) => b.auction % 10 === 0)
      .map((b) => {
        const start = Math.floor(b.dateTime / 5000) * 5000;
        return [b.auction, b.price, start, start + 5000];
      });
    expect(sorted(rows)).toEqual(sorted(expected));
  }, 120_000);
});

describe('DDL and statements', () => {
  it('names a wrong connector option and the allowed ones', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const unknown = sqlError(() =>
      tEnv.executeSql(
        "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'rows-per-secnd' = '5')",
      ),
    );
    expect(unknown.message).toBe(
      "line 1, column 55: unknown option 'rows-per-secnd' of connector 'datagen'; its options are: number-of-rows, rows-per-second, seed",
    );
    const connector = sqlError(() =>
      tEnv.executeSql("CREATE TABLE t (a INT) WITH ('connector' = 'kafkaa')"),
    );
    // Every built-in connector is named; connectors other test files of this worker registered
    // in the process (registerSqlConnectors) may stand among them, wherever their turn came.
    const allowed =
      /^line 1, column 30: unknown connector 'kafkaa'; allowed values: ([a-z-]+(?:, [a-z-]+)*)$/.exec(
        connector.message,
      );
    expect(allowed?.[1]?.split(', ')).toEqual(
      expect.arrayContaining(
        'nexmark, weir-nexmark, datagen, print, blackhole, filesystem, kafka, upsert-kafka, jdbc, postgres-cdc'.split(
          ', ',
        ),
      ),
    );
    const kind = sqlError(() =>
      tEnv.executeSql(
        "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequnce')",
      ),
    );
    expect(kind.message).toBe(
      "line 1, column 55: option 'fields.a.kind' is 'sequnce'; allowed values: random, sequence",
    );
    const missing = sqlError(() => tEnv.executeSql('CREATE TABLE t (a INT)'));
    expect(missing.message).toBe(
      "line 1, column 1: table 't' needs a 'connector' option in WITH (...)",
    );
    const print = sqlError(() =>
      tEnv.executeSql(
        "CREATE TABLE t (a INT) WITH ('connector' = 'print', 'standard-error' = 'maybe')",
      ),
    );
    expect(print.message).toBe(
      "line 1, column 53: option 'standard-error' is 'maybe'; allowed values: true, false",
    );
  });

  it('refuses an unknown column, a non-rowtime DESCRIPTOR, an ungrouped column and a join on an unknown column with positions', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(nexmarkSourceSql({ maxEvents: 10 }));
    expect(sqlError(() => tEnv.sqlQuery('SELECT auctoin FROM bid')).message).toMatch(
      /^line 1, column 8: column 'auctoin' not found; the columns are: auction, bidder/,
    );
    expect(
      sqlError(() =>
        tEnv.sqlQuery(
          "SELECT * FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(price), INTERVAL '1' SECOND))",
        ),
      ).message,
    ).toMatch(/^line 1, column 39: 'price' is not a time attribute/);
    expect(
      sqlError(() => tEnv.sqlQuery('SELECT auction, COUNT(*) FROM bid GROUP BY bidder')).message,
    ).toBe("line 1, column 8: column 'auction' must appear in GROUP BY or be used in an aggregate");
    expect(
      sqlError(() =>
        tEnv.sqlQuery('SELECT b.auction FROM bid b JOIN auction a ON b.auction = a.idd'),
      ).message,
    ).toMatch(/^line 1, column 59: column 'a.idd' not found/);
  });

  it('INSERT INTO a sink table runs as a job; VALUES and views work; EXPLAIN prints the plan', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const result = tEnv.executeSql(`
      CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1, 'a'), (2, CAST(NULL AS STRING)), (3, 'c'));
      CREATE TABLE out (n INT, s STRING) WITH ('connector' = 'blackhole');
      EXPLAIN INSERT INTO out SELECT EXPR$0 * 10, UPPER(EXPR$1) FROM v WHERE EXPR$0 > 1;
      INSERT INTO out SELECT EXPR$0 * 10, UPPER(EXPR$1) FROM v WHERE EXPR$0 > 1;
    `);
    expect(result.statements).toEqual([
      'CREATE VIEW v',
      'CREATE TABLE out',
      'EXPLAIN',
      'INSERT INTO out',
    ]);
    expect(result.explained[0]).toMatch(/where/);
    expect(result.explained[0]).toMatch(/select/);
    const job = result.job;
    expect(job).toBeDefined();
    expect((await job?.result)?.status).toBe('finished');

    const env2 = new StreamEnvironment();
    const t2 = TableEnvironment.create(env2);
    const table = t2.sqlQuery(
      "SELECT EXPR$0 * 10 AS n, UPPER(EXPR$1) AS s FROM (VALUES (1, 'a'), (2, CAST(NULL AS STRING))) WHERE EXPR$0 > 1 OR EXPR$1 IS NOT NULL",
    );
    expect(table.columns).toEqual([
      { name: 'n', type: 'INT NOT NULL' },
      { name: 's', type: 'STRING' },
    ]);
    const sink = new CollectSink<Row>();
    table.toDataStream().sinkTo(sink);
    await env2.execute();
    expect(sink.values.map((r) => table.toJson(r))).toEqual([
      [10, 'A'],
      [20, null],
    ]);
  }, 60_000);

  it('toJson writes nested values as JSON: ARRAY elements, MAP entries and MULTISET counts as pairs', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const table = tEnv.sqlQuery(
      `SELECT ARRAY[CAST(1.50 AS DECIMAL(4, 2)), NULL], MAP['a', CAST(9007199254740993 AS BIGINT)],
         CAST(MAP['x', 2] AS MAP<STRING, INT>), ROW(ARRAY[CAST(2.5 AS DECIMAL(3, 1))])`,
    );
    const bag = tEnv.sqlQuery("SELECT COLLECT(v) FROM (VALUES ('p'), ('q'), ('p')) AS t(v)");
    const sink = new CollectSink<Row>();
    table.toDataStream().sinkTo(sink);
    const bags = new CollectSink<Change<Row>>();
    bag.toChangelogStream().sinkTo(bags);
    await env.execute();
    const [row] = sink.values.map((r) => table.toJson(r));
    expect(JSON.parse(JSON.stringify(row))).toEqual([
      ['1.50', null],
      [['a', '9007199254740993']],
      [['x', 2]],
      [['2.5']],
    ]);
    const last = bags.values.at(-1) as Change<Row>;
    expect(bag.toJson(last.value)).toEqual([
      [
        ['p', 2],
        ['q', 1],
      ],
    ]);
  }, 60_000);

  it('EXECUTE STATEMENT SET puts several INSERTs into one job', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const result = tEnv.executeSql(`
      CREATE TABLE a (n INT) WITH ('connector' = 'blackhole');
      CREATE TABLE b (n INT) WITH ('connector' = 'blackhole');
      EXECUTE STATEMENT SET BEGIN
        INSERT INTO a SELECT EXPR$0 FROM (VALUES (1), (2));
        INSERT INTO b SELECT EXPR$0 + 1 FROM (VALUES (3));
      END;
    `);
    expect(result.statements).toEqual([
      'CREATE TABLE a',
      'CREATE TABLE b',
      'EXECUTE STATEMENT SET',
    ]);
    expect((await result.job?.result)?.status).toBe('finished');
  }, 60_000);

  it('refuses a second script with INSERT INTO, which would run the first INSERTs again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-second-insert-'));
    try {
      const env = new StreamEnvironment();
      const tEnv = TableEnvironment.create(env);
      const first = tEnv.executeSql(`
        CREATE TABLE a (n INT) WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'csv');
        INSERT INTO a SELECT EXPR$0 FROM (VALUES (1), (2));
      `);
      expect((await first.job?.result)?.status).toBe('finished');
      expect(() => tEnv.executeSql('INSERT INTO a SELECT EXPR$0 FROM (VALUES (3))')).toThrow(
        /already started a job with INSERT INTO.*put the INSERTs in one script/,
      );
      // DDL and queries still run; the first INSERT's rows are there once.
      tEnv.executeSql("CREATE TABLE b (n INT) WITH ('connector' = 'blackhole')");
      const lines = (await readdir(dir, { recursive: true })).filter((f) => !f.startsWith('.'));
      const rows = (
        await Promise.all(lines.map((f) => readFile(join(dir, f), 'utf8').catch(() => '')))
      )
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .sort();
      expect(rows).toEqual(['1', '2']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
