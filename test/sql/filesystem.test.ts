/**
 * The `filesystem` SQL connector on real files: CSV in, a PARTITIONED BY JSON table out (part
 * files committed on checkpoints, `_SUCCESS` per committed partition, as Nexmark q10 writes),
 * read back through the connector with the partition columns from the directory names, and
 * equal to a plain computation over the input; a bad field names its file and line.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-sql-fs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Bid {
  auction: number;
  price: number;
  ts: number;
}

function bids(): Bid[] {
  const start = Date.UTC(2026, 0, 1, 10, 0, 0);
  return Array.from({ length: 400 }, (_, i) => ({
    auction: (i * 31) % 17,
    price: (i * 7919) % 1000,
    // 400 bids over 4 minutes, a few out of order.
    ts: start + i * 600 + (i % 5 === 0 ? -900 : 0),
  }));
}

function sqlTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

describe('filesystem SQL connector', () => {
  it('writes a partitioned table from CSV and reads it back with the partition columns', async () => {
    const input = join(dir, 'bids.csv');
    const output = join(dir, 'out');
    const all = bids();
    writeFileSync(input, all.map((b) => `${b.auction},${b.price},${sqlTime(b.ts)}\n`).join(''));
    const env = new StreamEnvironment({
      parallelism: 2,
      checkpointing: { directory: join(dir, 'checkpoints'), intervalMs: 50 },
    });
    const tEnv = TableEnvironment.create(env);
    const result = tEnv.executeSql(`
      CREATE TABLE bid (
        auction BIGINT, price BIGINT, dateTime TIMESTAMP(3),
        doubled AS price * 2,
        WATERMARK FOR dateTime AS dateTime - INTERVAL '1' SECOND
      ) WITH ('connector' = 'filesystem', 'path' = 'file://${input}', 'format' = 'csv');
      CREATE TABLE fs_sink (
        auction BIGINT, price BIGINT, doubled BIGINT, dateTime TIMESTAMP(3), dt STRING, hm STRING
      ) PARTITIONED BY (dt, hm) WITH (
        'connector' = 'filesystem',
        'path' = '${output}',
        'format' = 'json',
        'sink.partition-commit.trigger' = 'process-time',
        'sink.partition-commit.delay' = '0 s',
        'sink.partition-commit.policy.kind' = 'success-file'
      );
      INSERT INTO fs_sink
      SELECT auction, price, doubled, dateTime,
        DATE_FORMAT(dateTime, 'yyyy-MM-dd'), DATE_FORMAT(dateTime, 'HH:mm')
      FROM bid WHERE price > 100;
    `);
    await result.job?.result;

    const expected = all
      .filter((b) => b.price > 100)
      .map((b) => {
        const text = sqlTime(b.ts);
        return [b.auction, b.price, b.price * 2, b.ts, text.slice(0, 10), text.slice(11, 16)];
      });
    const partitions = [
      ...new Set(expected.map((r) => `dt=${r[4]}/hm=${encodeURIComponent(String(r[5]))}`)),
    ];
    expect(partitions.length).toBe(4);
    for (const p of partitions) {
      expect(existsSync(join(output, p, '_SUCCESS')), p).toBe(true);
      expect(readdirSync(join(output, p)).some((f) => f.startsWith('part-'))).toBe(true);
    }

    const read = new StreamEnvironment();
    const rEnv = TableEnvironment.create(read);
    rEnv.executeSql(`
      CREATE TABLE back (
        auction BIGINT, price BIGINT, doubled BIGINT, dateTime TIMESTAMP(3), dt STRING, hm STRING
      ) PARTITIONED BY (dt, hm) WITH ('connector' = 'filesystem', 'path' = '${output}', 'format' = 'json')`);
    const sink = new CollectSink<Row>();
    rEnv.sqlQuery('SELECT * FROM back').toDataStream().sinkTo(sink);
    await read.execute('read back');
    const order = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(order(sink.values)).toEqual(order(expected));
  }, 60_000);

  it('fails a bad CSV field naming the file, line and field', async () => {
    const input = join(dir, 'bad.csv');
    writeFileSync(input, '1,10\n2,ten\n');
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(
      `CREATE TABLE t (a INT, b INT) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'csv')`,
    );
    tEnv.sqlQuery('SELECT a, b FROM t').toDataStream().sinkTo(new CollectSink<Row>());
    const error = await env.execute('bad csv').then(
      () => undefined,
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(error).toMatch(/table 't': file '\S+bad\.csv' line 2: field 'b' expects INT, got "ten"/);
    // The hint says what to set in SQL, where tables have no onError option.
    expect(error).toContain(`in SQL, the table's '<format>.ignore-parse-errors' = 'true'`);
  }, 30_000);

  it('refuses PARTITIONED BY an unknown column and on other connectors', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE p (a INT) PARTITIONED BY (b) WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json')`,
      ),
    ).toThrow("PARTITIONED BY 'b': no such column in table 'p'");
    expect(() =>
      tEnv.executeSql(`CREATE TABLE q (a INT) PARTITIONED BY (a) WITH ('connector' = 'blackhole')`),
    ).toThrow("connector 'blackhole' does not support PARTITIONED BY");
    expect(() =>
      tEnv.executeSql(
        `CREATE TABLE r (a INT) WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'parquet')`,
      ),
    ).toThrow("option 'format' of connector 'filesystem' is 'parquet'; allowed values: json, csv");
  });
});
