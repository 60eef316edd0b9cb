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
});
