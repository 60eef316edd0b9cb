/**
 * Event-time interval joins as Flink SQL runs them (`RowTimeIntervalJoin`), of every join type:
 * Flink's IntervalJoinITCase scenarios (their rows and expected results); the operator driven
 * by hand through late rows, as Flink's RowTimeIntervalJoinTest drives it; generated tables
 * against a batch join with time bounds; an insert-only sink taking a LEFT interval join; window
 * aggregations over an interval join's rowtimes; and a run through a savepoint, restored at
 * another parallelism, against an uninterrupted one.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import { ExactlyOnceFileSink } from '../../src/connectors/files/sink/exactly-once-file-sink.js';
import {
  type Change,
  CollectSink,
  type Row,
  StreamEnvironment,
  type Table,
  TableEnvironment,
} from '../../src/index.js';
import {
  TimeIntervalJoinFunction,
  TimeIntervalJoinOperator,
  type TimeIntervalJoinSpec,
} from '../../src/runtime/operators/joins/time-interval-join.js';
import { TwoInputHarness } from '../../src/testing/index.js';
import { committedChanges, stoppedAndRestored } from './savepoint-helpers.js';

type Cell = string | null;
type Input = readonly (readonly [Cell, string, number])[];

const SCHEMA = {
  columns: [
    { name: 'key', type: 'STRING' },
    { name: 'id', type: 'STRING' },
    { name: 'rowtime', type: 'TIMESTAMP(3)' },
  ],
  // Flink's Row3WatermarkExtractor2: a watermark 1 ms behind each row.
  watermark: { column: 'rowtime', expression: "rowtime - INTERVAL '0.001' SECOND" },
};

/** A row as Flink's test sinks print it (`A,R-6,null`). */
function flinkText(table: Table, row: Row): string {
  return table
    .display(row)
    .map((cell) => (cell === '<NULL>' ? 'null' : cell))
    .join(',');
}

/**
 * Runs each of `queries` over `T1` and `T2` in one job; gives each query's changes as
 * `<kind> <row>`, sorted, after a check that the query is planned insert-only.
 */
async function run(
  t1: Input,
  t2: Input,
  queries: readonly string[],
  options: { parallelism?: number; setup?: string } = {},
): Promise<string[][]> {
  const env = new StreamEnvironment({ parallelism: options.parallelism ?? 2 });
  const tEnv = TableEnvironment.create(env);
  const rows = (data: Input) =>
    env.fromArray(data.map(([key, id, rowtime]) => ({ key, id, rowtime })));
  tEnv.fromDataStream('T1', rows(t1), SCHEMA);
  tEnv.fromDataStream('T2', rows(t2), SCHEMA);
  if (options.setup !== undefined) tEnv.executeSql(options.setup);
  const sinks = queries.map((q) => {
    const table = tEnv.sqlQuery(q);
    expect(table.changelogMode, q).toBe('insert-only');
    const sink = new CollectSink<Change<Row>>();
    table.toChangelogStream().sinkTo(sink);
    return { table, sink };
  });
  await env.execute('interval join');
  return sinks.map(({ table, sink }) =>
    sink.values.map((c) => `${c.kind} ${flinkText(table, c.value)}`).sort(),
  );
}

/** Flink's expected rows as the insert-only changes they must arrive as. */
const inserts = (rows: readonly string[]) => rows.map((r) => `+I ${r}`).sort();

describe("Flink's IntervalJoinITCase: outer rowtime interval joins", () => {
  const outerLeft: Input = [
    ['A', 'L-1', 1000],
    ['A', 'L-2', 2000],
    ['B', 'L-4', 4000],
    ['B', 'L-5', 5000],
    ['A', 'L-6', 6000],
    ['C', 'L-7', 7000],
    ['A', 'L-10', 10000],
    ['A', 'L-12', 12000],
    ['A', 'L-20', 20000],
  ];

  it.each([1, 2])(
    'testRowTimeLeftOuterJoin: pairs at once, the unmatched left rows padded (parallelism %i)',
    async (parallelism) => {
      const [changes] = await run(
        outerLeft,
        [
          ['A', 'R-6', 6000],
          ['B', 'R-7', 7000],
          ['D', 'R-8', 8000],
          ['A', 'R-11', 11000],
        ],
        [
          `SELECT t1.key, t2.id, t1.id
           FROM T1 AS t1 LEFT OUTER JOIN T2 AS t2 ON
             t1.key = t2.key AND
             t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND
             t2.rowtime + INTERVAL '6' SECOND AND
             t1.id <> 'L-5'`,
        ],
        { parallelism },
      );
      expect(changes).toEqual(
        inserts([
          'A,R-6,L-1',
          'A,R-6,L-2',
          'A,R-6,L-6',
          'A,R-6,L-10',
          'A,R-6,L-12',
          'B,R-7,L-4',
          'A,R-11,L-6',
          'A,R-11,L-10',
          'A,R-11,L-12',
          'B,null,L-5',
          'C,null,L-7',
          'A,null,L-20',
        ]),
      );
    },
    60_000,
  );

  it('testRowTimeRightOuterJoin: the unmatched right rows padded', async () => {
    const [changes] = await run(
      [
        ['A', 'L-1', 1000],
        ['A', 'L-2', 2000],
        ['B', 'L-4', 4000],
        ['A', 'L-6', 6000],
        ['C', 'L-7', 7000],
        ['A', 'L-10', 10000],
        ['A', 'L-12', 12000],
      ],
      [
        ['A', 'R-5', 5000],
        ['A', 'R-6', 6000],
        ['B', 'R-7', 7000],
        ['D', 'R-8', 8000],
        ['A', 'R-20', 20000],
      ],
      [
        `SELECT t2.key, t2.id, t1.id
         FROM T1 AS t1 RIGHT OUTER JOIN T2 AS t2 ON
           t1.key = t2.key AND
           t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND
           t2.rowtime + INTERVAL '6' SECOND AND
           t2.id <> 'R-5'`,
      ],
    );
    expect(changes).toEqual(
      inserts([
        'A,R-5,null',
        'A,R-6,L-1',
        'A,R-6,L-2',
        'A,R-6,L-6',
        'A,R-6,L-10',
        'A,R-6,L-12',
        'A,R-20,null',
        'B,R-7,L-4',
        'D,R-8,null',
      ]),
    );
  }, 60_000);

  it('testRowTimeFullOuterJoin: the unmatched rows of both sides padded', async () => {
    const [changes] = await run(
      outerLeft,
      [
        ['A', 'R-5', 5000],
        ['A', 'R-6', 6000],
        ['B', 'R-7', 7000],
        ['D', 'R-8', 8000],
      ],
      [
        `SELECT t2.key, t2.id, t1.id
         FROM T1 AS t1 FULL OUTER JOIN T2 AS t2 ON
           t1.key = t2.key AND
           t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND
           t2.rowtime + INTERVAL '6' SECOND AND
           NOT (t1.id = 'L-5' OR t2.id = 'R-5')`,
      ],
    );
    expect(changes).toEqual(
      inserts([
        'A,R-6,L-1',
        'A,R-6,L-2',
        'A,R-6,L-6',
        'A,R-6,L-10',
        'A,R-6,L-12',
        'B,R-7,L-4',
        'A,R-5,null',
        'D,R-8,null',
        'null,null,L-5',
        'null,null,L-7',
        'null,null,L-20',
      ]),
    );
  }, 60_000);

  it('testRowTime{Left,Right,Full}OuterJoinNegativeIntervalSize: an empty interval pads every row of an outer side', async () => {
    const left: Input = [
      ['A', 'L-1', 1000],
      ['B', 'L-4', 4000],
      ['C', 'L-7', 7000],
    ];
    const right: Input = [
      ['A', 'R-6', 6000],
      ['B', 'R-7', 7000],
      ['D', 'R-8', 8000],
    ];
    const query = (type: string, from: number, to: number) =>
      `SELECT t2.key, t2.id, t1.id FROM T1 AS t1 ${type} OUTER JOIN T2 AS t2 ON
         t1.key = t2.key AND
         t1.rowtime BETWEEN t2.rowtime + INTERVAL '${from}' SECOND AND
         t2.rowtime + INTERVAL '${to}' SECOND`;
    const [leftJoin, rightJoin, fullJoin, innerJoin] = await run(left, right, [
      query('LEFT', 3, 1),
      query('RIGHT', 5, 1),
      query('FULL', 5, 4),
      query('LEFT', 5, 4).replace('LEFT OUTER', 'INNER'),
    ]);
    expect(leftJoin).toEqual(inserts(['null,null,L-1', 'null,null,L-4', 'null,null,L-7']));
    expect(rightJoin).toEqual(inserts(['A,R-6,null', 'B,R-7,null', 'D,R-8,null']));
    expect(fullJoin).toEqual(
      inserts([
        'null,null,L-1',
        'null,null,L-4',
        'null,null,L-7',
        'A,R-6,null',
        'B,R-7,null',
        'D,R-8,null',
      ]),
    );
    expect(innerJoin).toEqual([]);
  }, 60_000);
});

describe('time attributes of an interval join', () => {
  // Flink's testRowTimeInnerJoinWithWindowAggregateOnFirstTime / OnSecondTime.
  const left: Input = [
    ['A', 'L-1', 1000],
    ['A', 'L-2', 2000],
    ['A', 'L-3', 3000],
    ['B', 'L-4', 4000],
    ['C', 'L-5', 4000],
    ['A', 'L-6', 10000],
    ['A', 'L-7', 13000],
  ];
  const right: Input = [
    ['A', 'R-1', 7000],
    ['B', 'R-4', 7000],
    ['A', 'R-3', 8000],
    ['D', 'R-2', 8000],
  ];
  const windowed = (side: 't1' | 't2', other: 't1' | 't2') =>
    `SELECT ${side}.key, TUMBLE_END(${side}.rowtime, INTERVAL '4' SECOND), COUNT(${other}.key)
     FROM T1 AS t1 JOIN T2 AS t2 ON
       t1.key = t2.key AND
       t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND t2.rowtime + INTERVAL '5' SECOND
     GROUP BY TUMBLE(${side}.rowtime, INTERVAL '4' SECOND), ${side}.key`;

  it("keeps both rowtimes as time attributes: a group window on either gives Flink's rows", async () => {
    const [first, second] = await run(left, right, [windowed('t1', 't2'), windowed('t2', 't1')]);
    expect(first).toEqual(
      inserts([
        'A,1970-01-01T00:00:04,3',
        'A,1970-01-01T00:00:12,2',
        'A,1970-01-01T00:00:16,1',
        'B,1970-01-01T00:00:08,1',
      ]),
    );
    expect(second).toEqual(
      inserts(['A,1970-01-01T00:00:08,3', 'A,1970-01-01T00:00:12,3', 'B,1970-01-01T00:00:08,1']),
    );
  }, 60_000);

  it('takes a TUMBLE window TVF over a LEFT interval join, on the left rowtime or the padded right one', async () => {
    const setup = `CREATE TEMPORARY VIEW j AS
      SELECT t1.key AS k, t1.id AS lid, t2.id AS rid, t1.rowtime AS lt, t2.rowtime AS rt
      FROM T1 AS t1 LEFT JOIN T2 AS t2 ON
        t1.key = t2.key AND
        t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND t2.rowtime + INTERVAL '6' SECOND AND
        t1.id <> 'L-5'`;
    const tumble = (time: string) =>
      `SELECT window_start, window_end, COUNT(*) AS n, COUNT(rid) AS matched
       FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(${time}), INTERVAL '5' SECOND))
       GROUP BY window_start, window_end`;
    const [byLeft, byRight] = await run(
      [
        ['A', 'L-1', 1000],
        ['A', 'L-2', 2000],
        ['B', 'L-4', 4000],
        ['B', 'L-5', 5000],
        ['A', 'L-6', 6000],
        ['C', 'L-7', 7000],
        ['A', 'L-10', 10000],
        ['A', 'L-12', 12000],
        ['A', 'L-20', 20000],
      ],
      [
        ['A', 'R-6', 6000],
        ['B', 'R-7', 7000],
        ['D', 'R-8', 8000],
        ['A', 'R-11', 11000],
      ],
      [tumble('lt'), tumble('rt')],
      { setup },
    );
    // As Java prints a LocalDateTime: no seconds when they are 0.
    const ts = (s: number) => `1970-01-01T00:00${s === 0 ? '' : `:${String(s).padStart(2, '0')}`}`;
    const w = (start: number, n: number, matched: number) =>
      `${ts(start)},${ts(start + 5)},${n},${matched}`;
    expect(byLeft).toEqual(inserts([w(0, 3, 3), w(5, 4, 2), w(10, 4, 4), w(20, 1, 0)]));
    // On the right rowtime: a padded row has none and is in no window (Flink drops it).
    expect(byRight).toEqual(inserts([w(5, 6, 6), w(10, 3, 3)]));
  }, 60_000);

  it('are read by an insert-only sink, which takes a LEFT interval join', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-interval-join-sink-'));
    try {
      const env = new StreamEnvironment({
        parallelism: 2,
        checkpointing: { directory: join(dir, 'checkpoints'), intervalMs: 50 },
      });
      const tEnv = TableEnvironment.create(env);
      const rows = (data: Input) =>
        env.fromArray(data.map(([key, id, rowtime]) => ({ key, id, rowtime })));
      tEnv.fromDataStream('T1', rows(left), SCHEMA);
      tEnv.fromDataStream('T2', rows(right), SCHEMA);
      const query = `SELECT t1.id AS lid, t2.id AS rid
        FROM T1 AS t1 LEFT JOIN T2 AS t2 ON
          t1.key = t2.key AND
          t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND t2.rowtime + INTERVAL '5' SECOND`;
      const table = tEnv.sqlQuery(query);
      expect(table.changelogMode).toBe('insert-only');
      // An insert-only query is read as a DataStream (an updating one is refused).
      expect(() => table.toDataStream()).not.toThrow();
      const out = join(dir, 'out');
      const result = tEnv.executeSql(`
        CREATE TABLE fs_sink (lid STRING, rid STRING)
          WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
        INSERT INTO fs_sink ${query};
      `);
      await result.job?.result;
      const written: string[] = [];
      for (const file of await readdir(out, { recursive: true })) {
        if (!file.endsWith('.json') && !/part-/.test(file)) continue;
        const text = await readFile(join(out, file), 'utf8').catch(() => '');
        for (const line of text.split('\n')) if (line.trim() !== '') written.push(line);
      }
      const pairs = written.map((l) => {
        const r = JSON.parse(l) as { lid: string; rid: string | null };
        return `${r.lid},${r.rid}`;
      });
      expect(pairs.sort()).toEqual(
        [
          'L-1,null',
          'L-2,R-1',
          'L-3,R-1',
          'L-3,R-3',
          'L-4,R-4',
          'L-5,null',
          'L-6,R-1',
          'L-6,R-3',
          'L-7,R-3',
        ].sort(),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('EXPLAIN shows the interval join, its type, bounds, watermark delay, state and insert-only mode', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    tEnv.fromDataStream('T1', env.fromArray([]), SCHEMA);
    tEnv.fromDataStream('T2', env.fromArray([]), SCHEMA);
    const plan = tEnv.explainSql(
      `SELECT * FROM T1 AS t1 FULL JOIN T2 AS t2 ON t1.key = t2.key AND
         t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND t2.rowtime + INTERVAL '6' SECOND`,
    );
    expect(plan).toContain('changelog mode: insert-only');
    expect(plan).toMatch(
      /#\d+ time-interval-join "interval join" <- #\d+ keyed\(leftKey\), #\d+ keyed\(rightKey\) input=1/,
    );
    expect(plan).toContain(
      'full join, left rowtime - right rowtime between -5000ms and 6000ms, watermark held back 6000ms',
    );
    expect(plan).toContain(
      'state: each input row until the watermark passes its interval (a row of an outer side that met nothing leaves then, padded)',
    );
    expect(plan).toMatch(/interval-join-\d+: time-interval-join .* changelogMode=\[I\]/);
    expect(plan).not.toContain('regular-join');
  });
});

/** A row of the harness tests: its time and key, as Flink's RowTimeIntervalJoinTest has them. */
type TimedRow = readonly [number | null, string | null];
type Joined = readonly [number | null, string | null, number | null, string | null];

/** The operator of `type` for bounds `left.time BETWEEN right.time + from AND right.time + to`. */
function harness(type: 'inner' | 'left' | 'right' | 'full', from: number, to: number) {
  const spec: TimeIntervalJoinSpec<TimedRow, TimedRow, Joined> = {
    type,
    lower: -to,
    upper: -from,
    leftTime: (r) => r[0],
    rightTime: (r) => r[0],
    test: undefined,
    combine: (l, r) => [...(l ?? [null, null]), ...(r ?? [null, null])] as unknown as Joined,
    stamp: type === 'right' ? 'right' : 'left',
  };
  const create = () =>
    new TimeIntervalJoinOperator(
      new TimeIntervalJoinFunction<string, TimedRow, TimedRow, Joined>(spec),
      Math.max(to, -from),
    );
  const options = {
    keySelector1: (r: TimedRow) => r[1] as string,
    keySelector2: (r: TimedRow) => r[1] as string,
  };
  return { h: new TwoInputHarness<TimedRow, TimedRow, Joined>(create(), options), create, options };
}

/** What the harness emitted: records as `lt,lk,rt,rk@timestamp` and watermarks as `wm <t>`. */
function emitted(h: TwoInputHarness<TimedRow, TimedRow, Joined>): string[] {
  return h
    .emitted()
    .flatMap((e) =>
      e.kind === 'record'
        ? [`${e.value.join(',')}@${e.timestamp}`]
        : e.kind === 'watermark'
          ? [`wm ${e.time}`]
          : [],
    );
}

/** The records emitted between two watermarks in any order: each stretch sorted. */
function byWatermark(out: readonly string[]): string[] {
  const result: string[] = [];
  let stretch: string[] = [];
  for (const e of out) {
    if (e.startsWith('wm ')) {
      result.push(...stretch.sort(), e);
      stretch = [];
    } else stretch.push(e);
  }
  return [...result, ...stretch.sort()];
}

const watermark = (h: TwoInputHarness<TimedRow, TimedRow, Joined>, t: number) => {
  h.processWatermark1(t);
  h.processWatermark2(t);
};

describe("late rows, as Flink's RowTimeIntervalJoinTest drives the operator", () => {
  it('testRowTimeInnerJoinWithCommonBounds: a row at the watermark joins and waits; the watermark leaves 20 ms behind', () => {
    // a.rowtime >= b.rowtime - 10 and a.rowtime <= b.rowtime + 20
    const { h } = harness('inner', -10, 20);
    watermark(h, 1);
    h.processElement1([1, 'k1']);
    h.processElement1([2, 'k1']);
    h.processElement2([2, 'k1']);
    h.processElement1([5, 'k1']);
    h.processElement2([15, 'k1']);
    watermark(h, 20);
    h.processElement1([35, 'k1']);
    watermark(h, 38);
    h.processElement1([40, 'k2']);
    h.processElement2([39, 'k2']);
    watermark(h, 61);
    expect(byWatermark(emitted(h))).toEqual([
      'wm -19',
      '1,k1,2,k1@1',
      '2,k1,2,k1@2',
      '5,k1,15,k1@5',
      '5,k1,2,k1@5',
      'wm 0',
      '35,k1,15,k1@35',
      'wm 18',
      '40,k2,39,k2@40',
      'wm 41',
    ]);
    expect(h.metric('weir_join_late_records_total')).toBe(0);
  });

  it('testRowTimeLeftOuterJoin: an expired left row padded by its timer, a late one padded at once, a late right one forgotten', () => {
    // a.rowtime >= b.rowtime - 5 and a.rowtime <= b.rowtime + 9 (no minimum cleanup interval, Flink's default)
    const { h } = harness('left', -5, 9);
    h.processElement1([1, 'k1']);
    h.processElement2([1, 'k2']);
    // The left row at 1 waits until the watermark reaches 7 (1 + 5 + 1).
    watermark(h, 7);
    watermark(h, 18);
    // Late: behind the watermark, their intervals passed; the left one leaves padded now.
    h.processElement1([2, 'k1']);
    h.processElement2([2, 'k2']);
    h.processElement1([19, 'k1']);
    h.processElement1([20, 'k1']);
    h.processElement2([26, 'k1']);
    h.processElement2([25, 'k1']);
    h.processElement1([21, 'k1']);
    h.processElement2([39, 'k2']);
    h.processElement2([40, 'k2']);
    h.processElement1([50, 'k2']);
    h.processElement1([49, 'k2']);
    h.processElement2([41, 'k2']);
    watermark(h, 100);
    expect(byWatermark(emitted(h))).toEqual([
      '1,k1,,@1',
      'wm -2',
      'wm 9',
      '19,k1,,@19',
      '2,k1,,@2',
      '20,k1,25,k1@20',
      '21,k1,25,k1@21',
      '21,k1,26,k1@21',
      '49,k2,40,k2@49',
      '49,k2,41,k2@49',
      '50,k2,41,k2@50',
      'wm 91',
    ]);
    expect(h.metric('weir_join_late_records_total')).toBe(2);
  });

  it('testRowTimeRightOuterJoin: the right rows that met nothing padded, carrying their own time', () => {
    const { h } = harness('right', -5, 9);
    h.processElement1([1, 'k1']);
    h.processElement2([1, 'k2']);
    watermark(h, 7);
    // The right row at 1 waits until the watermark reaches 11 (1 + 9 + 1).
    watermark(h, 18);
    h.processElement1([2, 'k1']);
    h.processElement2([2, 'k2']);
    h.processElement1([19, 'k1']);
    h.processElement1([20, 'k1']);
    h.processElement2([26, 'k1']);
    h.processElement2([25, 'k1']);
    h.processElement1([21, 'k1']);
    h.processElement2([39, 'k2']);
    h.processElement2([40, 'k2']);
    h.processElement1([50, 'k2']);
    h.processElement1([49, 'k2']);
    h.processElement2([41, 'k2']);
    watermark(h, 100);
    expect(byWatermark(emitted(h))).toEqual([
      'wm -2',
      ',,1,k2@1',
      'wm 9',
      ',,2,k2@2',
      ',,39,k2@39',
      '20,k1,25,k1@25',
      '21,k1,25,k1@25',
      '21,k1,26,k1@26',
      '49,k2,40,k2@40',
      '49,k2,41,k2@41',
      '50,k2,41,k2@41',
      'wm 91',
    ]);
  });

  it('joins a late row with the rows the state still holds, and keeps it while its interval is open', () => {
    // DataStream's interval join drops such a row; Flink SQL's joins it.
    const { h } = harness('left', -5, 9);
    h.processElement2([10, 'k']);
    watermark(h, 12);
    h.processElement1([8, 'k']);
    h.processElement2([13, 'k']);
    h.processElement1([3, 'k']);
    watermark(h, 40);
    expect(byWatermark(emitted(h))).toEqual([
      'wm 3',
      '3,k,,@3',
      '8,k,10,k@8',
      '8,k,13,k@8',
      'wm 31',
    ]);
    expect(h.metric('weir_join_late_records_total')).toBe(2);
  });

  it('restores its waiting rows and timers from a snapshot', () => {
    const first = harness('full', -5, 9);
    first.h.processElement1([1, 'a']);
    first.h.processElement2([3, 'a']);
    first.h.processElement1([20, 'b']);
    watermark(first.h, 2);
    const snapshot = first.h.snapshot();
    const expectedAfter = (h: TwoInputHarness<TimedRow, TimedRow, Joined>) => {
      h.processElement2([18, 'b']);
      h.processElement2([50, 'c']);
      watermark(h, 100);
      return byWatermark(emitted(h));
    };
    const uninterrupted = expectedAfter(first.h).filter((e) => !['1,a,3,a@1', 'wm -7'].includes(e));
    const restored = TwoInputHarness.restored(first.create, snapshot, first.options);
    expect(expectedAfter(restored)).toEqual(uninterrupted);
    expect(uninterrupted).toEqual([',,50,c@50', '20,b,18,b@20', 'wm 91']);
  });
});

type JoinKind = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL';
interface GenRow {
  readonly k: number | null;
  readonly x: number;
  readonly t: number;
}

/** `ms` as a term of `column`: `t1.ts + INTERVAL '0.25' SECOND`. */
function shifted(column: string, ms: number): string {
  if (ms === 0) return column;
  return `${column} ${ms > 0 ? '+' : '-'} INTERVAL '${Math.abs(ms) / 1000}' SECOND`;
}

/** The join of generated rows in batch: nested loops, the time bounds on `right.t - left.t`. */
function batchJoin(
  left: readonly GenRow[],
  right: readonly GenRow[],
  kind: JoinKind,
  within: (d: number) => boolean,
): string[] {
  const out: string[] = [];
  const matchedRight = new Set<number>();
  left.forEach((l, i) => {
    let matched = false;
    right.forEach((r, j) => {
      if (l.k === null || l.k !== r.k || !within(r.t - l.t) || (l.x + r.x) % 3 === 0) return;
      out.push(`L${i},R${j}`);
      matched = true;
      matchedRight.add(j);
    });
    if (!matched && (kind === 'LEFT' || kind === 'FULL')) out.push(`L${i},null`);
  });
  if (kind === 'RIGHT' || kind === 'FULL')
    right.forEach((_, j) => {
      if (!matchedRight.has(j)) out.push(`null,R${j}`);
    });
  return out.sort();
}

describe('an interval join of every type equals the batch join with time bounds when no row is late', () => {
  const rows = fc.array(
    fc.record({
      k: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }),
      x: fc.integer({ min: 0, max: 5 }),
      t: fc.integer({ min: 0, max: 4000 }),
      // How far behind its time order the row arrives: less than the watermark's delay.
      late: fc.integer({ min: 0, max: 299 }),
    }),
    { maxLength: 25 },
  );
  it('on generated rows out of order within the watermark delay, bounds (inclusive or exclusive, empty ones too) and a further condition (parallelism 1 and 2)', async () => {
    await fc.assert(
      fc.asyncProperty(
        rows,
        rows,
        fc.integer({ min: -1500, max: 1500 }),
        fc.integer({ min: -200, max: 2000 }),
        fc.boolean(),
        fc.constantFrom(1, 2),
        async (left, right, lo, span, exclusive, parallelism) => {
          // Each side out of time order by less than the watermark's delay: no row is late.
          const arrival = (a: GenRow & { late: number }, b: GenRow & { late: number }) =>
            a.t + a.late - (b.t + b.late);
          const l = [...left].sort(arrival);
          const r = [...right].sort(arrival);
          const hi = lo + span;
          const within = exclusive
            ? (d: number) => d > lo && d < hi
            : (d: number) => d >= lo && d <= hi;
          const bounds = exclusive
            ? `t2.ts > ${shifted('t1.ts', lo)} AND t2.ts < ${shifted('t1.ts', hi)}`
            : `t2.ts BETWEEN ${shifted('t1.ts', lo)} AND ${shifted('t1.ts', hi)}`;
          const kinds: JoinKind[] = ['INNER', 'LEFT', 'RIGHT', 'FULL'];
          const env = new StreamEnvironment({ parallelism });
          const tEnv = TableEnvironment.create(env);
          const schema = {
            columns: [
              { name: 'k', type: 'INT' },
              { name: 'id', type: 'STRING' },
              { name: 'x', type: 'INT' },
              { name: 'ts', type: 'TIMESTAMP(3)' },
            ],
            watermark: { column: 'ts', expression: "ts - INTERVAL '0.3' SECOND" },
          };
          const table = (name: string, data: readonly GenRow[], prefix: string) =>
            tEnv.fromDataStream(
              name,
              env.fromArray(
                data.map((row, i) => ({ k: row.k, id: `${prefix}${i}`, x: row.x, ts: row.t })),
              ),
              schema,
            );
          table('T1', l, 'L');
          table('T2', r, 'R');
          const sinks = kinds.map((kind) => {
            const t = tEnv.sqlQuery(
              `SELECT t1.id, t2.id FROM T1 AS t1 ${kind} JOIN T2 AS t2
               ON t1.k = t2.k AND ${bounds} AND MOD(t1.x + t2.x, 3) <> 0`,
            );
            const sink = new CollectSink<Change<Row>>();
            t.toChangelogStream().sinkTo(sink);
            return { t, sink };
          });
          await env.execute('interval join oracle');
          kinds.forEach((kind, i) => {
            const { t, sink } = sinks[i]!;
            expect(new Set(sink.values.map((c) => c.kind)), kind).toEqual(
              new Set(sink.values.length === 0 ? [] : ['+I']),
            );
            expect(
              sink.values.map((c) => flinkText(t, c.value)).sort(),
              `${kind} ${bounds}`,
            ).toEqual(batchJoin(l, r, kind, within));
          });
        },
      ),
      { numRuns: 30 },
    );
  }, 180_000);
});

const EVENTS = 300;
/** Records per second in the run that is stopped: far longer than a first checkpoint takes. */
const FIRST_RUN_RATE = 60;
const leftAt = (i: number): [number, number, number] => [i % 7, i, i * 10];
const rightAt = (i: number): [number, number, number] => [(i * 3) % 7, i, i * 10 + 5];
const RESTORED_QUERIES = (['LEFT', 'FULL'] as const).map(
  (kind) => `SELECT l.id, r.id FROM L AS l ${kind} JOIN R AS r ON l.k = r.k AND
     r.ts BETWEEN l.ts - INTERVAL '0.02' SECOND AND l.ts + INTERVAL '0.03' SECOND`,
);

/** The savepoint test's job: LEFT and FULL interval joins of two generated tables. */
function restoredJob(out: string, checkpoints: string, rate: number | undefined) {
  // The restored (and the clean) run at another parallelism: key groups move between subtasks.
  const env = new StreamEnvironment({
    parallelism: rate === undefined ? 3 : 2,
    batchSize: 5,
    checkpointing: { directory: checkpoints, intervalMs: 100 },
  });
  const tEnv = TableEnvironment.create(env);
  const table = (name: string, at: (i: number) => [number, number, number]) => {
    const rows = env
      .fromGenerator({
        count: EVENTS,
        ...(rate === undefined ? {} : { ratePerSecond: rate }),
        generate: at,
      })
      .setParallelism(1)
      .uid(`${name}-rows`);
    tEnv.fromDataStream(name, rows, {
      columns: [
        { name: 'k', type: 'INT' },
        { name: 'id', type: 'INT' },
        { name: 'ts', type: 'TIMESTAMP(3)' },
      ],
      watermark: { column: 'ts', expression: "ts - INTERVAL '0.001' SECOND" },
    });
  };
  table('L', leftAt);
  table('R', rightAt);
  RESTORED_QUERIES.forEach((q, i) => {
    tEnv
      .sqlQuery(q)
      .toChangelogStream()
      .map((c: Change<Row>) => JSON.stringify(c))
      .sinkTo(new ExactlyOnceFileSink<string>({ directory: join(out, `q${i}`), format: (l) => l }))
      .uid(`changes-${i}`);
  });
  return env;
}

describe('an interval join through a savepoint', () => {
  it('restored part-way at another parallelism, ends as an uninterrupted run and the batch join, insert-only', async () => {
    const changesOf = async (out: string) =>
      Promise.all(RESTORED_QUERIES.map((_, i) => committedChanges(join(out, `q${i}`))));
    const run = await stoppedAndRestored(
      'weir-interval-join-',
      restoredJob,
      FIRST_RUN_RATE,
      `q${RESTORED_QUERIES.length - 1}`,
      async (out) => {
        const changes = await changesOf(out);
        for (const c of changes) expect(new Set(c.map((x) => x.kind))).toEqual(new Set(['+I']));
        return changes.map((c) => materialize(c, (row) => `${row[0]},${row[1]}`).sort());
      },
    );
    expect(run.before).toBeGreaterThan(0);
    expect(run.after).toBeGreaterThan(run.before);
    expect(run.restored).toEqual(run.uninterrupted);
    const rows = (at: (i: number) => [number, number, number]) =>
      Array.from({ length: EVENTS }, (_, i) => {
        const [k, , t] = at(i);
        return { k, x: 1, t };
      });
    const within = (d: number) => d >= -20 && d <= 30;
    // The ids are the row numbers: L<i>/R<j> of the batch join are i and j.
    const ids = (texts: string[]) => texts.map((t) => t.replace(/[LR]/g, '')).sort();
    expect(run.restored).toEqual([
      ids(batchJoin(rows(leftAt), rows(rightAt), 'LEFT', within)),
      ids(batchJoin(rows(leftAt), rows(rightAt), 'FULL', within)),
    ]);
  }, 180_000);
});
