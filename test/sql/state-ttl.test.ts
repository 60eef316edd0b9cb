/**
 * `SET 'table.exec.state.ttl'`: the relational operators drop a key's state once it has been
 * idle for the TTL in processing time, and the job keeps running. Processing time is a
 * manual clock: the source plays a first batch of rows, waits until the clock has moved on,
 * then plays a second; the test moves the clock past the TTL only after the first rows'
 * results have arrived, so nothing expires early whatever the machine's speed.
 */
import { describe, expect, it } from 'vitest';
import {
  type Change,
  CollectSink,
  type Row,
  SqlError,
  StreamEnvironment,
  TableEnvironment,
} from '../../src/index.js';
import { ManualClock } from '../../src/testing/manual-clock.js';
import { ScriptedSource, waitUntil } from '../helpers/timeline.js';
import { runScenario } from './flink-scenario-runner.js';

interface Ev {
  k: string;
  v: number;
  ts: number;
}

const T0 = Date.UTC(2026, 0, 1);
const FIRST: Ev[] = [
  { k: 'a', v: 1, ts: T0 + 1_000 },
  { k: 'a', v: 2, ts: T0 + 2_000 },
  { k: 'b', v: 7, ts: T0 + 2_500 },
];
const SECOND: Ev[] = [
  { k: 'a', v: 5, ts: T0 + 10_000 },
  { k: 'z', v: 0, ts: T0 + 20_000 },
];

const QUERIES = [
  'SELECT k, COUNT(*) AS n, SUM(v) AS s FROM ev GROUP BY k',
  'SELECT x.k, x.v, y.v FROM ev x JOIN ev y ON x.k = y.k',
  `SELECT k, v, rn FROM (
     SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 1`,
  `SELECT k, v FROM (
     SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM ev) WHERE rn = 1`,
  `SELECT k, v, COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING) AS n FROM ev`,
  'SELECT k FROM ev EXCEPT SELECT k FROM ev WHERE v = 2',
  `SELECT k, v, rn FROM (
     SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn
     FROM (SELECT k, MAX(v) AS v FROM ev GROUP BY k)) WHERE rn <= 1`,
];

/** Each query's changes as `kind json` lines: those of the first rows, then those of the second. */
async function run(ttl: string | undefined): Promise<{ first: string[][]; second: string[][] }> {
  const clock = new ManualClock(1_000_000);
  const env = new StreamEnvironment({ parallelism: 1, batchSize: 1, clock });
  const tEnv = TableEnvironment.create(env);
  const source = new ScriptedSource<Ev>(
    [{ records: FIRST }, { pauseMs: 10_000 }, { records: SECOND }],
    true,
  );
  tEnv.fromDataStream('ev', env.fromSource(source), {
    columns: [
      { name: 'k', type: 'STRING' },
      { name: 'v', type: 'BIGINT' },
      { name: 'ts', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'ts', expression: "ts - INTERVAL '0.001' SECOND" },
  });
  if (ttl !== undefined) tEnv.executeSql(`SET 'table.exec.state.ttl' = '${ttl}'`);
  const sinks = QUERIES.map((q) => {
    const sink = new CollectSink<Change<Row>>();
    tEnv.sqlQuery(q).toChangelogStream().sinkTo(sink);
    return sink;
  });
  const lines = (sink: CollectSink<Change<Row>>) =>
    sink.values.map((c) => `${c.kind} ${JSON.stringify(c.value)}`);
  const job = env.executeAsync('state ttl');
  // The first rows' results: b's group, the 5 pairs of a and b, b's top row and first row,
  // and the OVER rows up to b's (emitted once the watermark passes them).
  await waitUntil(
    () =>
      lines(sinks[0] as CollectSink<Change<Row>>).some((l) => l.includes('"b"')) &&
      (sinks[1] as CollectSink<Change<Row>>).values.length === 5 &&
      lines(sinks[2] as CollectSink<Change<Row>>).some((l) => l.includes('"b"')) &&
      lines(sinks[3] as CollectSink<Change<Row>>).some((l) => l.includes('"b"')) &&
      (sinks[4] as CollectSink<Change<Row>>).values.length === 2 &&
      lines(sinks[5] as CollectSink<Change<Row>>).some((l) => l.includes('"b"')) &&
      lines(sinks[6] as CollectSink<Change<Row>>).some((l) => l.includes('"b"')),
    60_000,
    "the first rows' results",
  );
  const first = sinks.map((s) => lines(s));
  clock.set(1_000_000 + 20_000);
  await job.result;
  return { first, second: sinks.map((s, i) => lines(s).slice((first[i] as string[]).length)) };
}

describe("SET 'table.exec.state.ttl'", () => {
  it('drops the state of keys idle longer than the TTL, and the job keeps running', async () => {
    const { first, second } = await run('5 s');
    expect(first[0]).toEqual(['+I ["a",1,1]', '-U ["a",1,1]', '+U ["a",2,3]', '+I ["b",1,7]']);
    // a's group expired: it starts over (Flink emits +I for it, as for a new group).
    expect(second[0]).toEqual(['+I ["a",1,5]', '+I ["z",1,0]']);
    // The join kept no row of a: the new row meets only itself.
    expect(second[1]).toEqual(['+I ["a",5,5]', '+I ["z",0,0]']);
    expect(second[2]).toEqual(['+I ["a",5,1]', '+I ["z",0,1]']);
    // Deduplication forgot a's first row: the new one is first again.
    expect(second[3]).toEqual(['+I ["a",5]', '+I ["z",0]']);
    // OVER: b's row was waiting for the watermark; a's running count starts over.
    expect(second[4]).toEqual(['+I ["b",7,1]', '+I ["a",5,1]', '+I ["z",0,1]']);
    // EXCEPT forgot a's counts (2 on the left, 1 on the right): a is in the result again.
    // Its two inputs reach it in either order.
    expect(first[5]?.filter((l) => l.includes('"a"'))).toEqual(['+I ["a"]', '-D ["a"]']);
    expect(first[5]).toContain('+I ["b"]');
    expect(second[5]?.sort()).toEqual(['+I ["a"]', '+I ["z"]']);
    // The Top-N over a GROUP BY forgot a's partition, as the GROUP BY forgot a's group.
    expect(first[6]).toEqual(['+I ["a",1,1]', '-D ["a",1,1]', '+I ["a",2,1]', '+I ["b",7,1]']);
    expect(second[6]).toEqual(['+I ["a",5,1]', '+I ["z",0,1]']);
  }, 90_000);

  it('keeps every key without it (the same script, continuing each key)', async () => {
    const { second } = await run(undefined);
    expect(second[0]).toEqual(['-U ["a",2,3]', '+U ["a",3,8]', '+I ["z",1,0]']);
    expect(second[1]?.filter((l) => l.includes('"a"'))).toHaveLength(5);
    expect(second[2]).toEqual(['-U ["a",2,1]', '+U ["a",5,1]', '+I ["z",0,1]']);
    expect(second[3]).toEqual(['+I ["z",0]']);
    expect(second[4]).toEqual(['+I ["b",7,1]', '+I ["a",5,3]', '+I ["z",0,1]']);
    expect(second[5]).toEqual(['+I ["z"]']);
    // The update reaches the Top-N as two changes: a retraction empties rank 1, then it fills.
    expect(second[6]).toEqual(['-D ["a",2,1]', '+I ["a",5,1]', '+I ["z",0,1]']);
  }, 90_000);

  it('refuses a value that is not a duration, at its SET', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    expect(() => tEnv.executeSql("SET 'table.exec.state.ttl' = 'soon'")).toThrow(SqlError);
    expect(() => tEnv.executeSql("SET 'table.exec.state.ttl' = 'soon'")).toThrow(
      "line 1, column 1: 'table.exec.state.ttl' is 'soon'; it must be a duration such as '0', '500 ms', '10 s', '1 h'",
    );
    expect(() => tEnv.executeSql("SET 'table.exec.state.ttl' = '0'")).not.toThrow();
  });
});

describe('an unchanged group result with a state TTL', () => {
  it('is sent again (-U/+U of the same row) so downstream state sees the key, as Flink does; without a TTL nothing is sent', async () => {
    const rows = [
      [1, 'a', 5],
      [2, 'a', 3],
      [3, 'b', 1],
    ] as const;
    const view = `CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ${rows.map((r) => `(${r[0]}, '${r[1]}', ${r[2]})`).join(', ')}) AS v(i, k, x);`;
    const changesWith = async (setup: string): Promise<string[]> => {
      const [result] = await runScenario(
        `${setup}${view}`,
        ['SELECT k, MAX(x) FROM t GROUP BY k'],
        {
          parallelism: 1,
        },
      );
      return result!.changes;
    };
    // The second row of `a` does not change MAX(x).
    expect(await changesWith('')).toEqual(['+I(a,5)', '+I(b,1)']);
    expect(await changesWith("SET 'table.exec.state.ttl' = '1 h';")).toEqual([
      '+I(a,5)',
      '-U(a,5)',
      '+U(a,5)',
      '+I(b,1)',
    ]);
  });
});
