/**
 * A DataStream registered as a table (schema, rowtime and watermark) and queried with a
 * window aggregation, equal to a plain computation; the result as a changelog of inserts.
 */
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';

interface Click {
  user: string;
  amount: number;
  ts: number;
}

const clicks: Click[] = Array.from({ length: 120 }, (_, i) => ({
  user: `u${i % 4}`,
  amount: (i * 37) % 11,
  ts: Date.UTC(2026, 0, 1) + i * 250,
}));

describe('DataStream tables', () => {
  it('queries a DataStream with a rowtime as a table, and returns the rows as a changelog', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('clicks', env.fromArray(clicks), {
      columns: [
        { name: 'user', type: 'STRING' },
        { name: 'amount', type: 'BIGINT' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: "ts - INTERVAL '1' SECOND" },
    });
    const table = tEnv.sqlQuery(`
      SELECT user, SUM(amount), window_end
      FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
      GROUP BY user, window_start, window_end`);
    const sink = new CollectSink<Change<Row>>();
    table.toChangelogStream().sinkTo(sink);
    await env.execute('datastream table');

    const expected = new Map<string, number>();
    for (const c of clicks) {
      const end = Math.floor(c.ts / 10_000) * 10_000 + 10_000;
      const key = JSON.stringify([c.user, end]);
      expected.set(key, (expected.get(key) ?? 0) + c.amount);
    }
    expect(sink.values.every((c) => c.kind === '+I')).toBe(true);
    const got = sink.values.map((c) =>
      JSON.stringify([c.value[0], Number(c.value[1]), c.value[2]]),
    );
    const want = [...expected].map(([k, sum]) => {
      const [user, end] = JSON.parse(k) as [string, number];
      return JSON.stringify([user, sum, end]);
    });
    expect(got.sort()).toEqual(want.sort());
  });

  it('refuses a DataStream of another environment, and explains and views the table in its own', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    expect(() =>
      tEnv.fromDataStream('t', new StreamEnvironment().fromArray([[1]]), {
        columns: [{ name: 'a', type: 'INT' }],
      }),
    ).toThrow("fromDataStream 't': the DataStream belongs to another StreamEnvironment");
    tEnv.fromDataStream('t', env.fromArray([[1]]), { columns: [{ name: 'a', type: 'INT' }] });
    // EXPLAIN and CREATE VIEW plan into a scratch job, where the stream stands in empty.
    expect(tEnv.explainSql('SELECT a FROM t')).toContain('source "DataStream of table t"');
    tEnv.executeSql('CREATE TEMPORARY VIEW v AS SELECT a + 1 AS b FROM t');
    expect(tEnv.explainSql('SELECT b FROM v')).toContain('source "DataStream of table t"');
  });

  it('takes the values a program holds: Dates for times and dates, numbers and text for DECIMAL, bigints for BIGINT', async () => {
    const env = new StreamEnvironment({ parallelism: 2 });
    const tEnv = TableEnvironment.create(env);
    const base = Date.UTC(2026, 0, 1);
    const orders = Array.from({ length: 40 }, (_, i) => ({
      id: i % 2 === 0 ? BigInt(i % 5) : i % 5, // 3n and 3 are one key
      day: new Date(base + (i % 3) * 86_400_000),
      price: i % 2 === 0 ? 1.1 : '2.25',
      ts: new Date(base + i * 1000 + (i % 2)), // milliseconds apart
    }));
    tEnv.fromDataStream('orders', env.fromArray(orders), {
      columns: [
        { name: 'id', type: 'BIGINT' },
        { name: 'day', type: 'DATE' },
        { name: 'price', type: 'DECIMAL(10, 2)' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: "ts - INTERVAL '1' SECOND" },
    });
    const byId = new CollectSink<Change<Row>>();
    tEnv
      .sqlQuery(
        `SELECT id, CAST(SUM(price) AS STRING), COUNT(DISTINCT ts), CAST(MIN(day) AS STRING)
         FROM orders GROUP BY id`,
      )
      .toChangelogStream()
      .sinkTo(byId);
    const windows = new CollectSink<Row>();
    tEnv
      .sqlQuery(
        `SELECT CAST(window_start AS STRING), COUNT(*)
         FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
         GROUP BY window_start, window_end`,
      )
      .toDataStream()
      .sinkTo(windows);
    await env.execute('program values');

    // The last result per id (the GROUP BY updates it).
    const last = new Map<number, Row>();
    for (const c of byId.values)
      if (c.kind === '+I' || c.kind === '+U') last.set(Number(c.value[0]), c.value);
    for (let id = 0; id < 5; id++) {
      const mine = orders.filter((o) => Number(o.id) === id);
      const cents = mine.reduce((a, o) => a + (typeof o.price === 'number' ? 110 : 225), 0);
      const first = new Date(Math.min(...mine.map((o) => o.day.getTime())));
      expect(last.get(id)).toEqual([
        id,
        (cents / 100).toFixed(2),
        mine.length,
        first.toISOString().slice(0, 10),
      ]);
    }
    expect(windows.values.map((r) => [r[0], Number(r[1])]).sort()).toEqual([
      ['2026-01-01 00:00:00.000', 10],
      ['2026-01-01 00:00:10.000', 10],
      ['2026-01-01 00:00:20.000', 10],
      ['2026-01-01 00:00:30.000', 10],
    ]);
  });

  it('fails a value of the wrong kind naming the table and column', async () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('events', env.fromArray([{ at: '2026-01-01T00:00:00Z' }]), {
      columns: [{ name: 'at', type: 'TIMESTAMP(3)' }],
    });
    tEnv.sqlQuery('SELECT at FROM events').toDataStream().sinkTo(new CollectSink<Row>());
    await expect(env.execute('wrong kind')).rejects.toThrow(
      "fromDataStream 'events': column 'at' is TIMESTAMP(3) and takes a Date or epoch milliseconds, not the string \"2026-01-01T00:00:00Z\"",
    );
  });
});
