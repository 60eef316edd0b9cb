/**
 * The scenarios of Flink's streaming SQL IntervalJoinITCase that interval-join-outer.test.ts
 * and null-safe-join.test.ts do not hold, with Flink's rows and expected results: inner joins
 * by event time (no equality key at all, equal rowtimes, `<`/`>` bounds with further
 * conditions, an aggregation over the join) and joins of every type by processing time. Also
 * the bounds of Flink's IntervalJoinTest as EXPLAIN shows them, and the processing-time
 * operator driven by hand as Flink's ProcTimeIntervalJoinTest drives it.
 *
 * Processing time never comes from the wall clock here: a manual clock stands still while a
 * job runs (every row of a bounded input then arrives at one instant, so generous bounds give
 * Flink's pairs whatever the order of arrival), or a scripted source moves it between rows.
 */
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import {
  TimeIntervalJoinFunction,
  TimeIntervalJoinOperator,
} from '../../src/runtime/operators/joins/time-interval-join.js';
import { TwoInputHarness } from '../../src/testing/index.js';
import { ManualClock } from '../../src/testing/manual-clock.js';
import { ClockScript, type ClockStep } from '../helpers/clock-script.js';
import {
  INTERVAL_JOIN_LEFT,
  INTERVAL_JOIN_RIGHT,
  type KeyIdRowtime,
  runScenario,
} from './flink-scenario-runner.js';

type Column = readonly [name: string, type: string];

/** A table of one test: its columns, its rows, and the rowtime column if it has one. */
interface TestTable {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly unknown[])[];
  /** The rowtime column and the delay of the watermark behind the latest row (ms). */
  readonly rowtime?: { readonly column: string; readonly delayMs: number };
}

interface RunOptions {
  readonly parallelism?: number;
  /** Run before the queries (views over T1 and T2). */
  readonly setup?: string;
}

/** `t` as fromDataStream's schema. */
const schemaOf = (t: Pick<TestTable, 'columns' | 'rowtime'>) => ({
  columns: t.columns.map(([name, type]) => ({ name, type })),
  ...(t.rowtime === undefined
    ? {}
    : {
        watermark: {
          column: t.rowtime.column,
          expression: `${t.rowtime.column} - INTERVAL '${t.rowtime.delayMs / 1000}' SECOND`,
        },
      }),
});

/**
 * Registers `T1` and `T2` and runs each query in one job, on a manual clock that stands still;
 * gives each query's final rows (its changelog applied) as Flink's sinks print them, sorted,
 * and whether it changed by inserts only.
 */
async function run(
  t1: TestTable,
  t2: TestTable,
  queries: readonly string[],
  options: RunOptions = {},
): Promise<{ rows: string[]; insertOnly: boolean }[]> {
  const results = await runScenario(options.setup ?? '', queries, {
    parallelism: options.parallelism ?? 2,
    clock: new ManualClock(1_000),
    tables: (env, tEnv) => {
      tEnv.fromDataStream('T1', env.fromArray(t1.rows.map((r) => [...r])), schemaOf(t1));
      tEnv.fromDataStream('T2', env.fromArray(t2.rows.map((r) => [...r])), schemaOf(t2));
    },
  });
  return results.map((r) => ({
    rows: r.rows,
    insertOnly: r.changes.every((c) => c.startsWith('+I(')),
  }));
}

const sorted = (rows: readonly string[]) => [...rows].sort();

/** Flink's `(key, id, rowtime)` tables with Row3WatermarkExtractor2: a watermark 1 ms behind. */
const keyIdRowtime = (rows: readonly KeyIdRowtime[]): TestTable => ({
  columns: [
    ['key', 'STRING'],
    ['id', 'STRING'],
    ['rowtime', 'TIMESTAMP(3)'],
  ],
  rows,
  rowtime: { column: 'rowtime', delayMs: 1 },
});

/** Flink's `(a, b, c, rowtime)` tables with Row4WatermarkExtractor: a watermark 1 ms behind. */
const abcRowtime = (rows: readonly (readonly [number, number, string, number])[]): TestTable => ({
  columns: [
    ['a', 'INT'],
    ['b', 'BIGINT'],
    ['c', 'STRING'],
    ['rowtime', 'TIMESTAMP(3)'],
  ],
  rows,
  rowtime: { column: 'rowtime', delayMs: 1 },
});

const LEFT_ROWS = keyIdRowtime(INTERVAL_JOIN_LEFT);
const RIGHT_ROWS = keyIdRowtime(INTERVAL_JOIN_RIGHT);

const BETWEEN_5_AND_6 = `t1.rowtime BETWEEN t2.rowtime - INTERVAL '5' SECOND AND
    t2.rowtime + INTERVAL '6' SECOND`;

describe("Flink's IntervalJoinITCase: inner joins by event time", () => {
  // testRowTimeInnerJoin and ...WithIsNotDistinctFrom, on the same rows, are in
  // null-safe-join.test.ts.
  it('testRowTimeInnerJoinWithoutEqualCondition: no equality key, every row at one key (parallelism 1 and 2)', async () => {
    for (const parallelism of [1, 2]) {
      const [noKey] = await run(
        LEFT_ROWS,
        RIGHT_ROWS,
        [`SELECT t2.key, t2.id, t1.id FROM T1 AS t1 JOIN T2 AS t2 ON ${BETWEEN_5_AND_6}`],
        { parallelism },
      );
      expect(noKey?.rows).toEqual(
        sorted([
          'A,RIGHT6,LEFT1',
          'A,RIGHT6,LEFT2',
          'A,RIGHT6,LEFT3',
          'A,RIGHT6,LEFT4',
          'A,RIGHT6,LEFT5',
          'A,RIGHT6,LEFT6',
          'A,RIGHT6,LEFT8',
          'B,RIGHT7,LEFT2',
          'B,RIGHT7,LEFT3',
          'B,RIGHT7,LEFT4',
          'B,RIGHT7,LEFT5',
          'B,RIGHT7,LEFT6',
          'B,RIGHT7,LEFT8',
          'null,RIGHT10,LEFT5',
          'null,RIGHT10,LEFT6',
          'null,RIGHT10,LEFT8',
        ]),
      );
      expect(noKey?.insertOnly).toBe(true);
    }
  }, 60_000);

  it('testUnboundedAggAfterRowtimeInnerJoin: COUNT(DISTINCT) over the joined rows', async () => {
    const [result] = await run(LEFT_ROWS, RIGHT_ROWS, [
      `SELECT key, COUNT(DISTINCT id1), COUNT(DISTINCT id2) FROM (
         SELECT t2.key AS key, t2.id AS id1, t1.id AS id2
         FROM T1 AS t1 JOIN T2 AS t2 ON t1.key = t2.key AND ${BETWEEN_5_AND_6}
       ) GROUP BY key`,
    ]);
    expect(result?.rows).toEqual(['A,1,5', 'B,1,1']);
  }, 60_000);

  it('testRowTimeInnerJoinWithEquiTimeAttrs: equal rowtimes join as the interval [0, 0]', async () => {
    // Flink's schema: key = _1, rowtime = TO_TIMESTAMP_LTZ(_2, 3), val = _3, a watermark 1 s behind.
    const table = (rows: readonly (readonly [string, number, string])[]): TestTable => ({
      columns: [
        ['key', 'STRING'],
        ['_2', 'BIGINT'],
        ['val', 'STRING'],
        ['rowtime', 'TIMESTAMP_LTZ(3)'],
      ],
      rows: rows.map(([k, t, v]) => [k, t, v, t]),
      rowtime: { column: 'rowtime', delayMs: 1000 },
    });
    const [result] = await run(
      table([
        ['K1', 1000, 'L1'],
        ['K1', 1000, 'L2'],
        ['K1', 1000, 'L3'],
        ['K2', 2000, 'L4'],
        ['K1', 4000, 'L5'],
        ['K1', 6000, 'L7'],
        ['K1', 5001, 'L8'],
      ]),
      table([
        ['K1', 1000, 'R1'],
        ['K1', 1000, 'R2'],
        ['K1', 1000, 'R3'],
        ['K2', 3000, 'R4'],
        ['K1', 4000, 'R5'],
        ['K1', 6000, 'R6'],
        ['K1', 5001, 'R7'],
      ]),
      [
        `SELECT t1.key, t1._2, t1.val, t2.val FROM T1 AS t1 JOIN T2 AS t2 ON
           t1.key = t2.key AND t2.rowtime = t1.rowtime`,
      ],
    );
    expect(result?.rows).toEqual(
      sorted([
        ...['L1', 'L2', 'L3'].flatMap((l) => ['R1', 'R2', 'R3'].map((r) => `K1,1000,${l},${r}`)),
        'K1,4000,L5,R5',
        'K1,6000,L7,R6',
        'K1,5001,L8,R7',
      ]),
    );
    expect(result?.insertOnly).toBe(true);
  }, 60_000);

  /** Flink's `SELECT t2.a, t1.c, t2.c` over its `(a, b, c, rowtime)` tables, `t1.a = t2.a AND ...`. */
  const abcJoin = async (
    left: readonly (readonly [number, number, string, number])[],
    right: readonly (readonly [number, number, string, number])[],
    condition: string,
  ) => {
    const [result] = await run(abcRowtime(left), abcRowtime(right), [
      `SELECT t2.a, t1.c, t2.c FROM T1 AS t1 JOIN T2 AS t2 ON t1.a = t2.a AND ${condition}`,
    ]);
    return result?.rows;
  };

  it('testRowTimeInnerJoinWithOtherConditions: exclusive `>`/`<` bounds, a pair condition and a pushed-down filter', async () => {
    const rows = await abcJoin(
      [
        [1, 4, 'LEFT1', 1000],
        [1, 8, 'LEFT1.1', 1001],
        [1, 2, 'LEFT2', 2000],
        [1, 7, 'LEFT3', 3000],
        [2, 5, 'LEFT4', 4000],
        [1, 4, 'LEFT4.9', 4999],
        [1, 4, 'LEFT5', 5000],
        [1, 10, 'LEFT6', 6000],
      ],
      [
        [1, 1, 'RIGHT1', 1000],
        [1, 9, 'RIGHT6', 6000],
        [2, 14, 'RIGHT7', 7000],
        [1, 4, 'RIGHT8', 8000],
      ],
      `t1.rowtime > t2.rowtime - INTERVAL '5' SECOND AND
         t1.rowtime < t2.rowtime - INTERVAL '1' SECOND AND
       t1.b < t2.b AND
       t1.b > 2`,
    );
    expect(rows).toEqual(
      sorted(['1,LEFT3,RIGHT6', '1,LEFT1.1,RIGHT6', '2,LEFT4,RIGHT7', '1,LEFT4.9,RIGHT6']),
    );
  }, 60_000);

  it('testRowTimeInnerJoinWithOtherTimeCondition: QUARTER of a rowtime in the condition', async () => {
    const rows = await abcJoin(
      [
        [1, 4, 'LEFT1', 1000],
        [1, 2, 'LEFT2', 2000],
        [1, 7, 'LEFT3', 3000],
        [2, 5, 'LEFT4', 4000],
        [1, 4, 'LEFT5', 5000],
        [1, 10, 'LEFT6', 6000],
      ],
      [
        [1, 1, 'RIGHT1', 1000],
        [1, 9, 'RIGHT6', 6000],
        [2, 8, 'RIGHT7', 7000],
        [1, 4, 'RIGHT8', 8000],
      ],
      `t1.rowtime > t2.rowtime - INTERVAL '4' SECOND AND t1.rowtime < t2.rowtime AND
       QUARTER(t1.rowtime) = t2.a`,
    );
    expect(rows).toEqual(
      sorted(['1,LEFT3,RIGHT6', '1,LEFT5,RIGHT6', '1,LEFT5,RIGHT8', '1,LEFT6,RIGHT8']),
    );
  }, 60_000);
});

/** Flink's `(a, b, c)` tables, each row given a PROCTIME() column by the views of `setup`. */
const abc = (type: string, rows: readonly (readonly [unknown, number, string])[]): TestTable => ({
  columns: [
    ['a', type],
    ['b', 'BIGINT'],
    ['c', 'STRING'],
  ],
  rows,
});

// The rows of testProcessTimeInnerJoin and testProcessTimeJoinWithIsNotDistinctFrom.
const PROC_LEFT = abc('INT', [
  [1, 1, 'Hi1'],
  [1, 2, 'Hi2'],
  [1, 5, 'Hi3'],
  [2, 7, 'Hi5'],
  [1, 9, 'Hi6'],
  [1, 8, 'Hi8'],
]);
const PROC_RIGHT = abc('INT', [
  [1, 1, 'HiHi'],
  [2, 2, 'HeHe'],
]);

/** Views `V1` and `V2` over T1 and T2 with a PROCTIME() column (`a` as `select` gives it). */
const procViews = (select = 'a') => `
  CREATE TEMPORARY VIEW V1 AS SELECT ${select} AS a, b, c, PROCTIME() AS proctime FROM T1;
  CREATE TEMPORARY VIEW V2 AS SELECT ${select} AS a, b, c, PROCTIME() AS proctime FROM T2;`;

describe("Flink's IntervalJoinITCase: joins by processing time", () => {
  // Flink's ITCases check no rows here (they depend on when rows arrive); on a clock that
  // stands still every row arrives at one instant, and these are the rows Flink gives then.
  it('testProcessTimeInnerJoin and ...JoinWithIsNotDistinctFrom: the NULL keys of IF(a = 1, NULL, a)', async () => {
    const join = (on: string) =>
      `SELECT t2.a, t2.c, t1.c FROM V1 AS t1 JOIN V2 AS t2 ON
         ${on} AND
         t1.proctime BETWEEN t2.proctime - INTERVAL '5' SECOND AND
           t2.proctime + INTERVAL '5' SECOND`;
    const [byKey, nullSafe] = await run(
      PROC_LEFT,
      PROC_RIGHT,
      [join('t1.a = t2.a'), join('t1.a IS NOT DISTINCT FROM t2.a')],
      { parallelism: 1, setup: procViews('IF(a = 1, CAST(NULL AS INT), a)') },
    );
    expect(byKey?.rows).toEqual(['2,HeHe,Hi5']);
    expect(nullSafe?.rows).toEqual(
      sorted(['2,HeHe,Hi5', ...['Hi1', 'Hi2', 'Hi3', 'Hi6', 'Hi8'].map((l) => `null,HiHi,${l}`)]),
    );
    expect(byKey?.insertOnly).toBe(true);
  }, 60_000);

  it('testProcessTimeInnerJoinWithOtherConditions: a further equality, no row of a NULL key', async () => {
    const [result] = await run(
      abc('STRING', [
        ['1', 1, 'Hi1'],
        ['1', 2, 'Hi2'],
        ['1', 5, 'Hi3'],
        ['2', 7, 'Hi5'],
        ['1', 9, 'Hi6'],
        ['1', 8, 'Hi8'],
        [null, 20, 'leftNull'],
      ]),
      abc('STRING', [
        ['1', 5, 'HiHi'],
        ['2', 2, 'HeHe'],
        [null, 20, 'rightNull'],
      ]),
      [
        `SELECT t2.a, t2.c, t1.c FROM V1 AS t1 JOIN V2 AS t2 ON
           t1.a = t2.a AND
           t1.proctime BETWEEN t2.proctime - interval '5' SECOND AND
             t2.proctime + interval '5' second AND
           t1.b = t2.b`,
      ],
      { parallelism: 2, setup: procViews() },
    );
    expect(result?.rows).toEqual(['1,HiHi,Hi3']);
  }, 60_000);

  it('testProcTimeLeftOuterJoin, ...RightOuterJoin: every row met a partner, none padded', async () => {
    const left = abc('INT', [
      [1, 1, 'Hi1'],
      [1, 2, 'Hi2'],
      [1, 5, 'Hi3'],
      [2, 7, 'Hi5'],
    ]);
    const join = (type: string) =>
      `SELECT t2.a, t2.c, t1.c FROM V1 AS t1 ${type} OUTER JOIN V2 AS t2 ON
         t1.a = t2.a AND
         t1.proctime BETWEEN t2.proctime - INTERVAL '5' SECOND AND
           t2.proctime + INTERVAL '3' SECOND`;
    const [leftJoin, rightJoin] = await run(left, PROC_RIGHT, [join('LEFT'), join('RIGHT')], {
      parallelism: 1,
      setup: procViews(),
    });
    const pairs = sorted(['1,HiHi,Hi1', '1,HiHi,Hi2', '1,HiHi,Hi3', '2,HeHe,Hi5']);
    expect(leftJoin?.rows).toEqual(pairs);
    expect(rightJoin?.rows).toEqual(pairs);
    expect(leftJoin?.insertOnly).toBe(true);
  }, 60_000);
});

/** A row for `T1` or `T2`: `[table, a, c]`; or a processing time to move the clock to. */
type Step = ClockStep<readonly ['T1' | 'T2', number, string]>;

/** Runs each query over the script's `T1` and `T2` (with PROCTIME() columns); final rows, sorted. */
async function scripted(steps: readonly Step[], queries: readonly string[]): Promise<string[][]> {
  const clock = new ManualClock(1_000);
  const results = await runScenario(
    `CREATE TEMPORARY VIEW T1 AS SELECT a, c, PROCTIME() AS proctime FROM script WHERE t = 'T1';
     CREATE TEMPORARY VIEW T2 AS SELECT a, c, PROCTIME() AS proctime FROM script WHERE t = 'T2';`,
    queries,
    {
      parallelism: 1,
      batchSize: 1,
      clock,
      tables: (env, tEnv) =>
        tEnv.fromDataStream(
          'script',
          env.fromSource(new ClockScript(clock, steps)),
          schemaOf({
            columns: [
              ['t', 'STRING'],
              ['a', 'INT'],
              ['c', 'STRING'],
            ],
          }),
        ),
    },
  );
  return results.map((r) => [...r.changes].sort());
}

const inserts = (rows: readonly string[]) => rows.map((r) => `+I(${r})`).sort();

describe('interval joins by processing time: rows expire by the clock', () => {
  it("testProcTimeFullOuterJoin: Flink's rows, the right rows arriving a second after the left ones", async () => {
    // Bounds [-5 s, 0]: a right row meets only the left rows before it, and does not wait.
    const [full] = await scripted(
      [
        ['T1', 1, 'Hi1'],
        ['T1', 1, 'Hi2'],
        ['T1', 1, 'Hi3'],
        ['T1', 2, 'Hi5'],
        2_000,
        ['T2', 1, 'HiHi'],
        ['T2', 2, 'HeHe'],
        10_000,
      ],
      [
        `SELECT t2.a, t2.c, t1.c FROM T1 AS t1 FULL OUTER JOIN T2 AS t2 ON
           t1.a = t2.a AND
           t1.proctime BETWEEN t2.proctime - INTERVAL '5' SECOND AND t2.proctime`,
      ],
    );
    expect(full).toEqual(inserts(['1,HiHi,Hi1', '1,HiHi,Hi2', '1,HiHi,Hi3', '2,HeHe,Hi5']));
  }, 60_000);

  it('pads the rows of an outer side that met nothing once the clock passes their interval, and forgets the rest', async () => {
    // t1 - t2 in [-5 s, 3 s]: a left row waits 5 s for right rows, a right row 3 s for left rows.
    const steps: Step[] = [
      ['T1', 1, 'L1'], // at 1 s
      3_000,
      ['T2', 1, 'R1'], // meets L1 (2 s later)
      ['T2', 2, 'R2'], // meets nothing
      // The timers due at 6 s ran: L1, R1 and R2 are gone, R2 padded (RIGHT, FULL).
      8_000,
      ['T1', 2, 'L2'], // R2 is gone: meets nothing, padded at 13 s (LEFT, FULL)
      ['T1', 1, 'L3'], // R1 is gone: meets nothing yet
      ['T2', 1, 'R3'], // meets L3 (the same instant)
      20_000,
    ];
    const join = (type: string) =>
      `SELECT t1.c, t2.c FROM T1 AS t1 ${type} JOIN T2 AS t2 ON
         t1.a = t2.a AND
         t1.proctime BETWEEN t2.proctime - INTERVAL '5' SECOND AND t2.proctime + INTERVAL '3' SECOND`;
    const [inner, left, right, full] = await scripted(steps, [
      join('INNER'),
      join('LEFT'),
      join('RIGHT'),
      join('FULL'),
    ]);
    expect(inner).toEqual(inserts(['L1,R1', 'L3,R3']));
    expect(left).toEqual(inserts(['L1,R1', 'L3,R3', 'L2,null']));
    expect(right).toEqual(inserts(['L1,R1', 'L3,R3', 'null,R2']));
    expect(full).toEqual(inserts(['L1,R1', 'L3,R3', 'L2,null', 'null,R2']));
  }, 60_000);
});

/** A row of the harness tests: its key and name, as Flink's ProcTimeIntervalJoinTest has them. */
type KeyedRow = readonly [number, string];
type Pair = readonly [number | null, string | null, number | null, string | null];

/** The processing-time operator of `type` for `left.proctime BETWEEN right.proctime + from AND right.proctime + to`. */
function procHarness(type: 'inner' | 'left' | 'right' | 'full', from: number, to: number) {
  const fn = new TimeIntervalJoinFunction<number, KeyedRow, KeyedRow, Pair>({
    type,
    timeDomain: 'processing-time',
    lower: -to,
    upper: -from,
    leftTime: () => null,
    rightTime: () => null,
    test: undefined,
    combine: (l, r) => [...(l ?? [null, null]), ...(r ?? [null, null])] as unknown as Pair,
    stamp: type === 'right' ? 'right' : 'left',
  });
  return new TwoInputHarness<KeyedRow, KeyedRow, Pair>(new TimeIntervalJoinOperator(fn, 0), {
    keySelector1: (r) => r[0],
    keySelector2: (r) => r[0],
  });
}

const pairs = (h: TwoInputHarness<KeyedRow, KeyedRow, Pair>) =>
  h.outputValues().map((p) => p.join(','));

/**
 * Plays `[processing time, input, key]` steps: each moves the clock there (timers due fire), then
 * a row of the key arrives on the input, named as Flink names them (`1a3`: key 1, left, at 3).
 */
function play(
  h: TwoInputHarness<KeyedRow, KeyedRow, Pair>,
  steps: readonly (readonly [number, 1 | 2, number])[],
): void {
  for (const [time, input, key] of steps) {
    if (time > h.processingTime) h.setProcessingTime(time);
    if (input === 1) h.processElement1([key, `${key}a${time}`]);
    else h.processElement2([key, `${key}b${time}`]);
  }
}

describe("the processing-time operator, as Flink's ProcTimeIntervalJoinTest drives it", () => {
  it('testProcTimeInnerJoinWithCommonBounds: a.proctime BETWEEN b.proctime - 10 AND b.proctime + 20', () => {
    const h = procHarness('inner', -10, 20);
    // 1a1 can meet right rows up to 11: gone when 1b13 comes.
    play(h, [
      [1, 1, 1],
      [2, 1, 2],
      [3, 1, 1],
      [3, 2, 1],
      [4, 2, 2],
      [13, 2, 1],
      [33, 1, 1],
      [33, 1, 2],
      [33, 2, 2],
    ]);
    expect(pairs(h)).toEqual([
      '1,1a1,1,1b3',
      '1,1a3,1,1b3',
      '2,2a2,2,2b4',
      '1,1a3,1,1b13',
      '1,1a33,1,1b13',
      '2,2a33,2,2b33',
    ]);
  });

  it('testProcTimeInnerJoinWithNegativeBounds: right rows never wait; the left ones leave by their timers', () => {
    const h = procHarness('inner', -10, -5);
    play(h, [
      [1, 1, 1],
      [2, 1, 2],
      [3, 1, 1],
      [3, 2, 1],
      [7, 2, 2],
      [12, 2, 1],
    ]);
    expect(pairs(h)).toEqual(['2,2a2,2,2b7', '1,1a3,1,1b12']);
    // The last left row (3) can meet right rows up to 13: its timer clears the state at 14.
    h.setProcessingTime(13);
    expect(h.metric('weir_timers_pending')).toBeGreaterThan(0);
    h.setProcessingTime(14);
    expect(h.metric('weir_timers_pending')).toBe(0);
  });

  it('a left outer join pads a row by its timer, at the processing time its interval ends', () => {
    const h = procHarness('left', -10, -5);
    play(h, [[1, 1, 1]]);
    // 1a1 can meet right rows up to 11.
    h.setProcessingTime(11);
    expect(pairs(h)).toEqual([]);
    h.setProcessingTime(12);
    expect(pairs(h)).toEqual(['1,1a1,,']);
  });
});

/** Flink's MyTable/MyTable2 of IntervalJoinTest: (a, b, c), a PROCTIME() column and a rowtime. */
function planOf(query: string): string {
  const env = new StreamEnvironment();
  const tEnv = TableEnvironment.create(env);
  const schema = schemaOf({
    columns: [
      ['a', 'INT'],
      ['b', 'STRING'],
      ['c', 'BIGINT'],
      ['rowtime', 'TIMESTAMP(3)'],
    ],
    rowtime: { column: 'rowtime', delayMs: 0 },
  });
  tEnv.fromDataStream('Raw1', env.fromArray([]), schema);
  tEnv.fromDataStream('Raw2', env.fromArray([]), schema);
  tEnv.executeSql(`
    CREATE TEMPORARY VIEW MyTable AS SELECT *, PROCTIME() AS proctime FROM Raw1;
    CREATE TEMPORARY VIEW MyTable2 AS SELECT *, PROCTIME() AS proctime FROM Raw2;`);
  return tEnv.explainSql(query);
}

describe("Flink's IntervalJoinTest: which joins are interval joins, and their bounds", () => {
  it('EXPLAIN shows an interval join by processing time, with its time domain and state', () => {
    const plan = planOf(
      `SELECT t1.a, t2.b FROM MyTable t1 LEFT OUTER JOIN MyTable2 t2 ON
         t1.a = t2.a AND
         t1.proctime BETWEEN t2.proctime - INTERVAL '1' HOUR AND t2.proctime + INTERVAL '1' HOUR`,
    );
    expect(plan).toMatch(/#\d+ time-interval-join "interval join"/);
    expect(plan).toContain(
      'left join, processing time, left proctime - right proctime between -3600000ms and 3600000ms',
    );
    expect(plan).not.toContain('watermark held back');
    expect(plan).toContain(
      'state: each input row until the processing-time clock passes its interval (a row of an outer side that met nothing leaves then, padded)',
    );
    expect(plan).toContain('changelog mode: insert-only');
    expect(plan).not.toContain('regular-join');
  });

  it.each([
    // testJoinTimeBoundary: Flink's bounds on t1's time minus t2's.
    [
      "t1.proctime BETWEEN t2.proctime - INTERVAL '1' HOUR AND t2.proctime + INTERVAL '1' HOUR",
      'processing time, left proctime - right proctime between -3600000ms and 3600000ms',
    ],
    [
      "t1.proctime > t2.proctime - INTERVAL '1' SECOND AND t1.proctime < t2.proctime + INTERVAL '1' SECOND",
      'processing time, left proctime - right proctime between -999ms and 999ms',
    ],
    [
      "t1.rowtime >= t2.rowtime - INTERVAL '1' SECOND AND t1.rowtime <= t2.rowtime + INTERVAL '1' SECOND",
      'left rowtime - right rowtime between -1000ms and 1000ms',
    ],
    [
      "t1.rowtime >= t2.rowtime AND t1.rowtime <= t2.rowtime + INTERVAL '1' SECOND",
      'left rowtime - right rowtime between 0ms and 1000ms',
    ],
    [
      "t1.rowtime >= t2.rowtime + INTERVAL '1' SECOND AND t1.rowtime <= t2.rowtime + INTERVAL '10' SECOND",
      'left rowtime - right rowtime between 1000ms and 10000ms',
    ],
    [
      "t2.rowtime - INTERVAL '1' SECOND <= t1.rowtime AND t2.rowtime + INTERVAL '10' SECOND >= t1.rowtime",
      'left rowtime - right rowtime between -1000ms and 10000ms',
    ],
    [
      "t1.rowtime - INTERVAL '2' SECOND >= t2.rowtime + INTERVAL '1' SECOND - INTERVAL '10' SECOND AND t1.rowtime <= t2.rowtime + INTERVAL '10' SECOND",
      'left rowtime - right rowtime between -7000ms and 10000ms',
    ],
    [
      "t1.rowtime >= t2.rowtime - INTERVAL '10' SECOND AND t1.rowtime <= t2.rowtime - INTERVAL '5' SECOND",
      'left rowtime - right rowtime between -10000ms and -5000ms',
    ],
    // testJoinWithEquiRowTime and testJoinWithEquiProcTime: equal times are the interval [0, 0].
    ['t1.rowtime = t2.rowtime', 'left rowtime - right rowtime between 0ms and 0ms'],
    [
      't1.proctime = t2.proctime',
      'processing time, left proctime - right proctime between 0ms and 0ms',
    ],
  ])('%s', (condition, bounds) => {
    expect(
      planOf(`SELECT t1.a, t2.b FROM MyTable t1 JOIN MyTable2 t2 ON t1.a = t2.a AND ${condition}`),
    ).toContain(`inner join, ${bounds}`);
  });

  it('testProcessingTimeInnerJoinWithWhereClause, testRowTimeInnerJoinWithWhereClause, ...WithoutEqualCondition', () => {
    expect(
      planOf(`SELECT t1.a, t2.b FROM MyTable t1, MyTable2 t2 WHERE t1.a = t2.a AND
        t1.proctime BETWEEN t2.proctime - INTERVAL '1' HOUR AND t2.proctime + INTERVAL '1' HOUR`),
    ).toContain('inner join, processing time, left proctime - right proctime between');
    expect(
      planOf(`SELECT t1.a, t2.b FROM MyTable t1, MyTable2 t2 WHERE t1.a = t2.a AND
        t1.rowtime BETWEEN t2.rowtime - INTERVAL '10' MINUTE AND t2.rowtime + INTERVAL '1' HOUR`),
    ).toContain('inner join, left rowtime - right rowtime between -600000ms and 3600000ms');
    for (const time of ['proctime', 'rowtime'])
      expect(
        planOf(`SELECT t1.a, t2.b FROM MyTable t1 JOIN MyTable2 t2 ON
          t1.${time} BETWEEN t2.${time} - INTERVAL '1' HOUR AND t2.${time} + INTERVAL '1' HOUR`),
      ).toMatch(/time-interval-join "interval join"/);
  });

  it('a join without an equality and with a time bound on one side only is a regular join, not an interval join', () => {
    const plan = planOf(`SELECT t1.a FROM MyTable t1 JOIN MyTable2 t2 ON
        t1.proctime > t2.proctime - INTERVAL '5' SECOND`);
    expect(plan).not.toMatch(/interval join/);
    expect(plan).toMatch(/join/i);
  });
});
