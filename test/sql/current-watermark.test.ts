/**
 * CURRENT_WATERMARK(rowtime): the current watermark of the operator that evaluates it, NULL
 * before its first one.
 *
 * Ported from Flink: CalcITCase (stream) testCurrentWatermark (its SQL queries: the projection,
 * the late-row filter and the group window grouped by the watermark; the Table API query is
 * the same projection), testCurrentWatermarkForNonRowtimeAttribute and
 * testCurrentWatermarkWithoutAnyAttribute; CalcTestPrograms' CURRENT_WATERMARK program; the
 * cases of CurrentWatermarkInputTypeStrategyTest that SQL can write (a TIMESTAMP or
 * TIMESTAMP_LTZ rowtime and its result type, a TIMESTAMP_LTZ that is no rowtime, a BIGINT).
 * Flink's values source emits a watermark after each row; Weir's sources emit one after each
 * batch, so these jobs run with batches of one row. Weir refuses with its own messages where
 * Flink's validator speaks of signatures.
 *
 * Then: the late-row filter view against an oracle of the bounded-out-of-orderness watermark
 * over a scripted out-of-order input, the same over a table scan (Nexmark), and the places
 * where CURRENT_WATERMARK is refused as not supported yet.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { nexmarkSourceSql } from '../../bench/nexmark/sql-texts.js';
import { CollectSink, type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { runScenario, sorted } from './flink-scenario-runner.js';
import { registerValues, registerValuesConnector } from './flink-values-connector.js';

beforeAll(registerValuesConnector);

const second = (epochSeconds: number): number => epochSeconds * 1000;

/** CalcITCase.testCurrentWatermark's table T: ids with a TIMESTAMP_LTZ(3) rowtime, WATERMARK ts. */
function tableT(): string {
  const id = registerValues([
    [1, second(644326662)],
    [2, second(1622466300)],
    [3, second(1622466300)],
  ]);
  return `
    SET 'table.local-time-zone' = 'Europe/Berlin';
    CREATE TABLE T (
      id INT,
      ts TIMESTAMP_LTZ(3),
      WATERMARK FOR ts AS ts
    ) WITH ('connector' = 'flink-values', 'data-id' = '${id}');`;
}

describe('CURRENT_WATERMARK (Flink CalcITCase)', () => {
  it('testCurrentWatermark: the projection, the late-row filter and a group window keyed by it', async () => {
    const [projection, filter, window] = await runScenario(
      tableT(),
      [
        'SELECT id, CURRENT_WATERMARK(ts) FROM T',
        'SELECT id FROM T WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)',
        `SELECT
           TUMBLE_END(ts, INTERVAL '1' SECOND),
           CURRENT_WATERMARK(ts)
         FROM T
         GROUP BY
           TUMBLE(ts, INTERVAL '1' SECOND),
           CURRENT_WATERMARK(ts)`,
      ],
      { parallelism: 1, batchSize: 1 },
    );
    // Flink: 1,null / 2,1990-06-02T11:37:42Z / 3,2021-05-31T13:05:00Z (Instants; shown here on the
    // session zone's wall clock, Europe/Berlin).
    expect(projection?.changes).toEqual([
      '+I(1,null)',
      '+I(2,1990-06-02T13:37:42)',
      '+I(3,2021-05-31T15:05)',
    ]);
    // Row 3 is not later than the watermark of row 2 (the same instant): dropped.
    expect(filter?.changes).toEqual(['+I(1)', '+I(2)']);
    // Flink: 1990-06-02T13:37:43,null / 2021-05-31T15:05:01,1990-06-02T11:37:42Z /
    // 2021-05-31T15:05:01,2021-05-31T13:05:00Z.
    expect(window?.rows).toEqual([
      '1990-06-02T13:37:43,null',
      '2021-05-31T15:05:01,1990-06-02T13:37:42',
      '2021-05-31T15:05:01,2021-05-31T15:05',
    ]);
  });

  it('testCurrentWatermarkForNonRowtimeAttribute: a TIMESTAMP_LTZ column without a WATERMARK is refused', async () => {
    const id = registerValues([]);
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(
      `CREATE TABLE T (ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'flink-values', 'data-id' = '${id}')`,
    );
    expect(() => tEnv.sqlQuery('SELECT CURRENT_WATERMARK(ts) FROM T')).toThrow(
      "line 1, column 26: CURRENT_WATERMARK() must be called with a single rowtime attribute argument, but 'ts' (TIMESTAMP_LTZ(3)) is not a rowtime attribute (a column with a WATERMARK)",
    );
  });

  it('testCurrentWatermarkWithoutAnyAttribute: a call without an argument is refused at its position', async () => {
    const id = registerValues([]);
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(
      `CREATE TABLE T (ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'flink-values', 'data-id' = '${id}')`,
    );
    // Flink: "From line 1, column 12 to line 1, column 30: No match found for function signature
    // CURRENT_WATERMARK()."
    expect(() => tEnv.sqlQuery('SELECT ts, CURRENT_WATERMARK() FROM T')).toThrow(
      'line 1, column 12: CURRENT_WATERMARK() must be called with a single rowtime attribute argument, got 0 arguments',
    );
  });
});

describe('CURRENT_WATERMARK (Flink CalcTestPrograms, CurrentWatermarkInputTypeStrategyTest)', () => {
  it('calc-current-watermark: each row sees the watermark of the rows before it', async () => {
    const id = registerValues([
      ['Bob', 0],
      ['Bob', 1],
      ['Alice', 2],
      ['Bob', 3],
    ]);
    const [result] = await runScenario(
      `SET 'table.local-time-zone' = 'UTC';
       CREATE TABLE t (
         name STRING,
         ts TIMESTAMP_LTZ(3),
         WATERMARK FOR ts AS ts
       ) WITH ('connector' = 'flink-values', 'data-id' = '${id}');`,
      ['SELECT name, ts, CURRENT_WATERMARK(ts) AS w FROM t'],
      { parallelism: 1, batchSize: 1 },
    );
    // Flink: +I[Bob, 1970-01-01T00:00:00Z, null], +I[Bob, ...00.001Z, ...00Z],
    // +I[Alice, ...00.002Z, ...00.001Z], +I[Bob, ...00.003Z, ...00.002Z].
    expect(result?.changes).toEqual([
      '+I(Bob,1970-01-01T00:00,null)',
      '+I(Bob,1970-01-01T00:00:00.001,1970-01-01T00:00)',
      '+I(Alice,1970-01-01T00:00:00.002,1970-01-01T00:00:00.001)',
      '+I(Bob,1970-01-01T00:00:00.003,1970-01-01T00:00:00.002)',
    ]);
  });

  it('types: TIMESTAMP(3) for a TIMESTAMP rowtime, TIMESTAMP_LTZ(3) for a TIMESTAMP_LTZ one, nullable', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    const id = registerValues([]);
    tEnv.executeSql(`
      CREATE TABLE a (ts TIMESTAMP(0), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'flink-values', 'data-id' = '${id}');
      CREATE TABLE b (ts TIMESTAMP_LTZ(3) NOT NULL, n BIGINT, WATERMARK FOR ts AS ts)
        WITH ('connector' = 'flink-values', 'data-id' = '${id}');`);
    expect(tEnv.sqlQuery('SELECT CURRENT_WATERMARK(ts) AS w FROM a').columns).toEqual([
      { name: 'w', type: 'TIMESTAMP(3)' },
    ]);
    expect(tEnv.sqlQuery('SELECT CURRENT_WATERMARK(b.ts) AS w FROM b').columns).toEqual([
      { name: 'w', type: 'TIMESTAMP_LTZ(3)' },
    ]);
    // "CURRENT_WATERMARK() must be called with a single rowtime attribute argument, but 'BIGINT'
    // cannot be a time attribute."
    expect(() => tEnv.sqlQuery('SELECT CURRENT_WATERMARK(n) FROM b')).toThrow(
      "line 1, column 26: CURRENT_WATERMARK() must be called with a single rowtime attribute argument, but 'BIGINT' cannot be a time attribute",
    );
    // A time-typed expression over the rowtime is no rowtime attribute.
    expect(() =>
      tEnv.sqlQuery("SELECT CURRENT_WATERMARK(ts + INTERVAL '1' SECOND) FROM b"),
    ).toThrow('is not a rowtime attribute');
    expect(() => tEnv.sqlQuery('SELECT CURRENT_WATERMARK(ts, ts) FROM b')).toThrow(
      'CURRENT_WATERMARK() must be called with a single rowtime attribute argument, got 2 arguments',
    );
  });
});

/** A deterministic out-of-order input: ids with event times (ms) that jump back now and then. */
function scriptedInput(n: number): [number, number][] {
  const rows: [number, number][] = [];
  let seed = 42;
  let time = 1_000_000;
  for (let id = 0; id < n; id++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    // Mostly forward by up to 1.5 s; every so often up to 5 s back.
    const step = seed % 10 < 7 ? seed % 1500 : -(seed % 5000);
    time = Math.max(0, time + step);
    rows.push([id, time]);
  }
  return rows;
}

describe('the late-row filter view', () => {
  const VIEW = `CREATE VIEW on_time AS
    SELECT * FROM events WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)`;

  it('keeps exactly the rows later than the bounded-out-of-orderness watermark before them', async () => {
    const input = scriptedInput(300);
    // The oracle: the watermark is the largest `ts - 2 s` of the rows before (emitted after each
    // row: batches of one row); a row is late when its time is not after it.
    const expected: string[] = [];
    const late: number[] = [];
    let watermark = Number.NEGATIVE_INFINITY;
    for (const [id, time] of input) {
      if (time > watermark) expected.push(`+I(${id})`);
      else late.push(id);
      watermark = Math.max(watermark, time - 2000);
    }
    // The script has late rows and kept rows.
    expect(late.length).toBeGreaterThan(10);
    expect(expected.length).toBeGreaterThan(50);
    const [kept, all] = await runScenario(
      VIEW,
      ['SELECT id FROM on_time', 'SELECT id FROM events'],
      {
        parallelism: 1,
        batchSize: 1,
        tables: (env, tEnv) =>
          tEnv.fromDataStream('events', env.fromArray(input), {
            columns: [
              { name: 'id', type: 'INT' },
              { name: 'ts', type: 'TIMESTAMP(3)' },
            ],
            watermark: { column: 'ts', expression: "ts - INTERVAL '2' SECOND" },
          }),
      },
    );
    expect(kept?.changes).toEqual(expected);
    expect(all?.changes).toHaveLength(input.length);
  });

  it('reads the view in another query: projected, filtered again, aggregated', async () => {
    const input = scriptedInput(200);
    let watermark = Number.NEGATIVE_INFINITY;
    const onTime: [number, number][] = [];
    for (const [id, time] of input) {
      if (time > watermark) onTime.push([id, time]);
      watermark = Math.max(watermark, time - 2000);
    }
    const [projected, counted] = await runScenario(
      VIEW,
      [
        'SELECT id * 10 AS x FROM on_time WHERE MOD(id, 2) = 0',
        'SELECT COUNT(*) AS n FROM on_time',
      ],
      {
        parallelism: 1,
        batchSize: 1,
        tables: (env, tEnv) =>
          tEnv.fromDataStream('events', env.fromArray(input), {
            columns: [
              { name: 'id', type: 'INT' },
              { name: 'ts', type: 'TIMESTAMP(3)' },
            ],
            watermark: { column: 'ts', expression: "ts - INTERVAL '2' SECOND" },
          }),
      },
    );
    expect(projected?.changes).toEqual(
      onTime.filter(([id]) => id % 2 === 0).map(([id]) => `+I(${id * 10})`),
    );
    expect(counted?.rows).toEqual([String(onTime.length)]);
  });

  it('over a table scan: the watermark the scan assigns to the records, not one of its own', async () => {
    // Nexmark's WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND over every event.
    const env = new StreamEnvironment({ parallelism: 1, batchSize: 1 });
    const tEnv = TableEnvironment.create(env);
    tEnv.executeSql(nexmarkSourceSql({ maxEvents: 400 }));
    const all = tEnv.sqlQuery(
      'SELECT event_type, dateTime, CURRENT_WATERMARK(dateTime) FROM datagen',
    );
    const bids = tEnv.sqlQuery(
      `SELECT dateTime FROM datagen WHERE event_type = 2
         AND (CURRENT_WATERMARK(dateTime) IS NULL OR dateTime > CURRENT_WATERMARK(dateTime))`,
    );
    const allSink = new CollectSink<{ value: Row }>();
    const bidSink = new CollectSink<{ value: Row }>();
    all.toChangelogStream().sinkTo(allSink);
    bids.toChangelogStream().sinkTo(bidSink);
    await env.execute('nexmark watermark');
    const rows = allSink.values.map((c) => c.value as [number, number, number | null]);
    expect(rows).toHaveLength(400);
    let watermark = Number.NEGATIVE_INFINITY;
    const expectedBids: number[] = [];
    for (const [type, time, seen] of rows) {
      expect(seen).toBe(Number.isFinite(watermark) ? watermark : null);
      if (type === 2 && time > watermark) expectedBids.push(time);
      watermark = Math.max(watermark, time - 4000);
    }
    expect(bidSink.values.map((c) => c.value[0])).toEqual(expectedBids);
  });
});

describe('CURRENT_WATERMARK around OVER aggregations and Top-N', () => {
  it('in the WHERE before them and the SELECT list after them', async () => {
    const input: [number, number][] = [
      [1, 1000],
      [2, 3000],
      [3, 2000],
      [4, 5000],
    ];
    const late = 'CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)';
    const [after, before, firstRows] = await runScenario(
      '',
      [
        // After the OVER operator: the watermark it has forwarded when it emits a row (it emits
        // a row when a later watermark arrives, before passing that one on).
        'SELECT id, SUM(id) OVER (ORDER BY ts ROWS 1 PRECEDING), CURRENT_WATERMARK(ts) FROM events',
        // Before it: row 3 is late against the watermark of row 2 and filtered out.
        `SELECT id, SUM(id) OVER (ORDER BY ts ROWS 1 PRECEDING) FROM events WHERE ${late}`,
        `SELECT id FROM (
           SELECT id, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts) AS rn FROM events WHERE ${late}
         ) WHERE rn = 1`,
      ],
      {
        parallelism: 1,
        batchSize: 1,
        tables: (env, tEnv) =>
          tEnv.fromDataStream('events', env.fromArray(input), {
            columns: [
              { name: 'id', type: 'INT' },
              { name: 'ts', type: 'TIMESTAMP(3)' },
            ],
            watermark: { column: 'ts', expression: 'ts' },
          }),
      },
    );
    // The OVER operator itself drops row 3 (behind its watermark) in the first query.
    expect(after?.changes).toEqual([
      '+I(1,1,null)',
      '+I(2,3,1970-01-01T00:00:01)',
      '+I(4,6,1970-01-01T00:00:03)',
    ]);
    expect(before?.changes).toEqual(['+I(1,1)', '+I(2,3)', '+I(4,6)']);
    expect(firstRows?.rows).toEqual(['1', '2', '4']);
  });
});

describe('where CURRENT_WATERMARK is refused', () => {
  function tEnvWithEvents(): TableEnvironment {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('events', env.fromArray<[number, number]>([]), {
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: 'ts' },
    });
    return tEnv;
  }

  it('over a changelog: not supported yet, at the call', async () => {
    const id = registerValues([
      ['+I', 1, 1000],
      ['-D', 1, 1000],
    ]);
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    tEnv.executeSql(`
      CREATE TABLE c (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'flink-values', 'data-id' = '${id}', 'changelog-mode' = 'I,UA,UB,D')`);
    expect(() => tEnv.sqlQuery('SELECT id, CURRENT_WATERMARK(ts) FROM c')).toThrow(
      'line 1, column 12: CURRENT_WATERMARK here is not supported by Weir SQL yet',
    );
  });

  it('in a window TVF aggregation: not supported yet, at the call', () => {
    const tEnv = tEnvWithEvents();
    expect(() =>
      tEnv.sqlQuery(
        `SELECT window_start, CURRENT_WATERMARK(window_time), COUNT(*)
           FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))
           GROUP BY window_start, window_end, window_time`,
      ),
    ).toThrow('line 1, column 22: CURRENT_WATERMARK here is not supported by Weir SQL yet');
    // Without an aggregation, the window TVF's rows are filtered and projected as any.
    expect(() =>
      tEnv.sqlQuery(
        `SELECT window_start, CURRENT_WATERMARK(window_time)
           FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))`,
      ),
    ).not.toThrow();
    // As in Flink, the TVF's input rowtime is a plain TIMESTAMP after it (window_time is the
    // time attribute).
    expect(() =>
      tEnv.sqlQuery(
        `SELECT CURRENT_WATERMARK(ts) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND))`,
      ),
    ).toThrow("but 'ts' (TIMESTAMP(3)) is not a rowtime attribute");
  });

  it('in a join condition: not supported yet, at the call', () => {
    expect(() =>
      tEnvWithEvents().sqlQuery(
        'SELECT a.id FROM events a JOIN events b ON a.id = b.id AND CURRENT_WATERMARK(a.ts) IS NULL',
      ),
    ).toThrow('line 1, column 60: CURRENT_WATERMARK here is not supported by Weir SQL yet');
  });

  it('a computed column and a WATERMARK expression have no operator watermark to read', () => {
    const id = registerValues([]);
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    expect(() =>
      tEnv.executeSql(`
        CREATE TABLE t (ts TIMESTAMP(3), w AS CURRENT_WATERMARK(ts), WATERMARK FOR ts AS ts)
          WITH ('connector' = 'flink-values', 'data-id' = '${id}')`),
    ).toThrow(/CURRENT_WATERMARK/);
  });
});

describe('never folded into a constant', () => {
  it('gives each row the watermark of its time, also in a CASE and arithmetic', async () => {
    const input: [number, number][] = [
      [1, 10_000],
      [2, 12_000],
      [3, 11_000],
      [4, 20_000],
    ];
    const [result] = await runScenario(
      '',
      [
        `SELECT id,
           CASE WHEN CURRENT_WATERMARK(ts) IS NULL THEN 'none' ELSE 'some' END,
           TIMESTAMPDIFF(SECOND, CURRENT_WATERMARK(ts), ts)
         FROM events`,
      ],
      {
        parallelism: 1,
        batchSize: 1,
        tables: (env, tEnv) =>
          tEnv.fromDataStream('events', env.fromArray(input), {
            columns: [
              { name: 'id', type: 'INT' },
              { name: 'ts', type: 'TIMESTAMP(3)' },
            ],
            watermark: { column: 'ts', expression: "ts - INTERVAL '1' SECOND" },
          }),
      },
    );
    expect(sorted(result?.changes ?? [])).toEqual([
      '+I(1,none,null)',
      '+I(2,some,3)',
      '+I(3,some,0)',
      '+I(4,some,9)',
    ]);
  });
});
