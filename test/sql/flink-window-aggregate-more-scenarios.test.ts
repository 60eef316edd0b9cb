/**
 * More of Flink's window TVF aggregation ITCases (streaming), with Flink's queries and expected
 * rows over `TestData.windowDataWithTimestamp` (see flink-window-data.ts), beyond those in
 * flink-window-aggregate-scenarios.test.ts, grouping-sets.test.ts and
 * flink-window-changelog-scenarios.test.ts.
 *
 * Ported, from WindowAggregateITCase, under each of its parameters: the aggregate phase
 * strategy (ONE_PHASE, TWO_PHASE, as `SET 'table.optimizer.agg-phase-strategy'`) and
 * `useTimestampLtz` (T1's rowtime a TIMESTAMP_LTZ(3) from epoch milliseconds,
 * `TestData.windowDataWithLtzInShanghai`, instead of a TIMESTAMP(3)):
 * - testEventTimeTumbleWindow_GroupingSets / _Cube / _Rollup with all of Flink's columns
 *   (SUM of the DECIMAL(10, 2), concat_distinct_agg); grouping-sets.test.ts has a reduced form;
 * - testEventTimeHopWindow_GroupingSets / _Cube / _Rollup;
 * - testEventTimeCumulateWindow_GroupingSets / _Cube / _Rollup;
 * - over the TIMESTAMP_LTZ rowtime (the TIMESTAMP forms are in the other file):
 *   testTumbleWindowOutputWindowTime and testFieldNameConflict (window_time and the rowtime
 *   are TIMESTAMP_LTZ, Flink's rows print them as UTC instants), testEventTimeTumbleWindow,
 *   ...WithOffset, ...WithNegativeOffset, testCascadeEventTimeTumbleWindowWithOffset,
 *   testEventTimeHopWindowWithOffset, testEventTimeCumulateWindow(WithNegativeOffset) and
 *   testEventTimeSessionWindow: windows are aligned on Asia/Shanghai wall-clock time;
 * - testRelaxFormProctimeCascadeWindowAgg: as in Flink, only that it plans and runs (its rows
 *   depend on the processing time).
 *
 * From WindowDistinctAggregateITCase, with the distinct split off and on
 * (`SET 'table.optimizer.distinct-agg.split.enabled'`): testTumbleWindow_GroupingSets /
 * _Cube / _Rollup, testHopWindow and its _GroupingSets / _Cube / _Rollup, testCumulateWindow
 * and its _GroupingSets / _Cube / _Rollup, testCascadingTumbleWindow_GroupingSets / _Cube /
 * _Rollup. (Its testTumbleWindow and testCascadingTumbleWindow are in
 * flink-window-aggregate-scenarios.test.ts.) WindowTableFunctionITCase is all ported in
 * flink-window-tvf-scenarios.test.ts.
 *
 * Differs from Flink: testCascadeEventTimeTumbleWindowWithOffset over TIMESTAMP_LTZ gives
 * Flink's rows, but as an updating aggregation (see the test).
 *
 * Not ported:
 * - the state backend parameter (HEAP / ROCKSDB) and Flink's failing source with its restore
 *   from a checkpoint: Weir's state and restore are tested in window-changelog-restore.test.ts;
 * - concat_distinct_agg's order over HOP and CUMULATE windows: Flink's text shows the order in
 *   which its slices merged (`Comment#2|Hi|Comment#1`), an implementation detail; those
 *   columns are compared as sets of strings.
 */
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { runScenario } from './flink-scenario-runner.js';
import { concatDistinctAgg, normalized, WINDOW_DATA, windowTables } from './flink-window-data.js';

type Phase = 'ONE_PHASE' | 'TWO_PHASE';

/**
 * T1 of `TestData.windowDataWithLtzInShanghai`: `ts` the epoch milliseconds of each row's
 * Shanghai wall-clock time, the rowtime `TO_TIMESTAMP_LTZ(ts, 3)`.
 */
function ltzTables(env: StreamEnvironment, tEnv: TableEnvironment): void {
  tEnv.fromDataStream(
    'T1',
    env.fromArray(
      WINDOW_DATA.map(([ts, ...rest]) => {
        const ms = Date.parse(`${ts.replace(' ', 'T')}+08:00`);
        return [ms, ...rest, ms];
      }),
    ),
    {
      columns: [
        { name: 'ts', type: 'BIGINT' },
        { name: 'int', type: 'INT' },
        { name: 'double', type: 'DOUBLE' },
        { name: 'float', type: 'FLOAT' },
        { name: 'bigdec', type: 'DECIMAL(10, 2)' },
        { name: 'string', type: 'STRING' },
        { name: 'name', type: 'STRING' },
        { name: 'rowtime', type: 'TIMESTAMP_LTZ(3)' },
      ],
      watermark: { column: 'rowtime', expression: "rowtime - INTERVAL '1' SECOND" },
    },
  );
  tEnv.createTemporarySystemFunction('concat_distinct_agg', concatDistinctAgg);
}

interface Run {
  /** Statements (a view) run before the query. */
  readonly setup?: string;
  readonly ltz?: boolean;
  readonly phase?: Phase;
  readonly split?: boolean;
}

/** One query's final rows (time cells normalized) and its changes, over Flink's T1. */
async function run(sql: string, options: Run = {}): Promise<{ rows: string[]; changes: string[] }> {
  const settings = [
    "SET 'table.local-time-zone' = 'Asia/Shanghai';",
    options.phase === undefined
      ? ''
      : `SET 'table.optimizer.agg-phase-strategy' = '${options.phase}';`,
    options.split === undefined
      ? ''
      : `SET 'table.optimizer.distinct-agg.split.enabled' = '${options.split}';`,
    options.setup ?? '',
  ].join('\n');
  const [result] = await runScenario(settings, [sql], {
    parallelism: 1,
    batchSize: 1,
    tables: options.ltz === true ? ltzTables : windowTables,
  });
  return { rows: normalized(result?.rows ?? []), changes: result?.changes ?? [] };
}

/** Runs one query and checks Flink's rows, and that they came insert-only. */
async function expectRows(
  sql: string,
  expected: readonly string[],
  options: Run = {},
  cell: (row: string) => string = (row) => row,
): Promise<void> {
  const { rows, changes } = await run(sql, options);
  expect(rows.map(cell).sort()).toEqual(normalized(expected).map(cell).sort());
  expect(changes.every((c) => c.startsWith('+I'))).toBe(true);
}

/** A row with its last cell (a concat_distinct_agg) as the sorted set of its strings. */
const lastAsSet = (row: string): string => {
  const cells = row.split(',');
  const last = cells.pop() ?? '';
  return [...cells, last.split('|').sort().join('|')].join(',');
};

/**
 * A TIMESTAMP_LTZ as Flink's `Row.toString` prints it (a UTC instant, `2020-10-09T16:00:04.999Z`)
 * in the form Weir shows it, the session zone's wall-clock time (Asia/Shanghai, UTC+8).
 */
const shanghai = (instant: string): string =>
  new Date(Date.parse(instant) + 8 * 3_600_000).toISOString().slice(0, 23).replace('T', ' ');
const ltzRow = (row: string): string =>
  row
    .split(',')
    .map((c) => (c.endsWith('Z') ? shanghai(c) : c))
    .join(',');

const PHASES: readonly Phase[] = ['ONE_PHASE', 'TWO_PHASE'];
/** Flink's parameters of WindowAggregateITCase: each phase strategy, over TIMESTAMP and LTZ. */
const PARAMS = PHASES.flatMap((phase) => [false, true].map((ltz) => ({ phase, ltz })));

describe("Flink's WindowAggregateITCase, grouping sets", () => {
  const select = (tvf: string, groupBy: string) => `SELECT GROUPING_ID(\`name\`), \`name\`,
      window_start, window_end, COUNT(*), SUM(\`bigdec\`), MAX(\`double\`), MIN(\`float\`),
      COUNT(DISTINCT \`string\`), concat_distinct_agg(\`string\`)
    FROM TABLE(${tvf})
    GROUP BY ${groupBy}, window_start, window_end`;
  const GROUPINGS = [
    ['GroupingSets', 'GROUPING SETS((`name`),())'],
    ['Cube', 'CUBE(`name`)'],
    ['Rollup', 'ROLLUP(`name`)'],
  ] as const;

  const TUMBLE = [
    '0,a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
    '0,a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,3.33,null,3.0,1,Comment#2',
    '0,b,2020-10-10T00:00:05,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi',
    '0,b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
    '0,b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3',
    '0,null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0,null',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
    '1,null,2020-10-10T00:00:05,2020-10-10T00:00:10,3,9.99,6.0,3.0,3,Hello|Hi|Comment#2',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:35,2,11.10,7.0,3.0,1,Comment#3',
  ];
  const HOP = [
    '0,a,2020-10-09T23:59:55,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
    '0,a,2020-10-10T00:00,2020-10-10T00:00:10,6,19.98,5.0,1.0,3,Comment#2|Hi|Comment#1',
    '0,a,2020-10-10T00:00:05,2020-10-10T00:00:15,1,3.33,null,3.0,1,Comment#2',
    '0,b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi',
    '0,b,2020-10-10T00:00:05,2020-10-10T00:00:15,2,6.66,6.0,3.0,2,Hello|Hi',
    '0,b,2020-10-10T00:00:10,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
    '0,b,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1,Hi',
    '0,b,2020-10-10T00:00:25,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3',
    '0,b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1,Comment#3',
    '0,null,2020-10-10T00:00:25,2020-10-10T00:00:35,1,7.77,7.0,7.0,0,null',
    '0,null,2020-10-10T00:00:30,2020-10-10T00:00:40,1,7.77,7.0,7.0,0,null',
    '1,null,2020-10-09T23:59:55,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:10,8,26.64,6.0,1.0,4,Hello|Hi|Comment#2|Comment#1',
    '1,null,2020-10-10T00:00:05,2020-10-10T00:00:15,3,9.99,6.0,3.0,3,Hello|Hi|Comment#2',
    '1,null,2020-10-10T00:00:10,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1,Hi',
    '1,null,2020-10-10T00:00:25,2020-10-10T00:00:35,2,11.10,7.0,3.0,1,Comment#3',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:40,2,11.10,7.0,3.0,1,Comment#3',
  ];
  const CUMULATE = [
    '0,a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
    '0,a,2020-10-10T00:00,2020-10-10T00:00:10,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
    '0,a,2020-10-10T00:00,2020-10-10T00:00:15,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
    '0,b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi',
    '0,b,2020-10-10T00:00,2020-10-10T00:00:15,2,6.66,6.0,3.0,2,Hello|Hi',
    '0,b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
    '0,b,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1,Hi',
    '0,b,2020-10-10T00:00:15,2020-10-10T00:00:30,1,4.44,4.0,4.0,1,Hi',
    '0,b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3',
    '0,b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1,Comment#3',
    '0,b,2020-10-10T00:00:30,2020-10-10T00:00:45,1,3.33,3.0,3.0,1,Comment#3',
    '0,null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0,null',
    '0,null,2020-10-10T00:00:30,2020-10-10T00:00:40,1,7.77,7.0,7.0,0,null',
    '0,null,2020-10-10T00:00:30,2020-10-10T00:00:45,1,7.77,7.0,7.0,0,null',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:10,8,26.64,6.0,1.0,4,Hi|Comment#1|Hello|Comment#2',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:15,8,26.64,6.0,1.0,4,Hi|Comment#1|Hello|Comment#2',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1,Hi',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:30,1,4.44,4.0,4.0,1,Hi',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:35,2,11.10,7.0,3.0,1,Comment#3',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:40,2,11.10,7.0,3.0,1,Comment#3',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:45,2,11.10,7.0,3.0,1,Comment#3',
  ];
  const WINDOWS = [
    [
      'testEventTimeTumbleWindow',
      "TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)",
      TUMBLE,
    ],
    [
      'testEventTimeHopWindow',
      "HOP(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '10' SECOND)",
      HOP,
    ],
    [
      'testEventTimeCumulateWindow',
      "CUMULATE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '15' SECOND)",
      CUMULATE,
    ],
  ] as const;

  it.each(
    WINDOWS.flatMap(([test, tvf, rows]) =>
      GROUPINGS.flatMap(([suffix, groupBy]) =>
        PARAMS.map(
          ({ phase, ltz }) => [`${test}_${suffix}`, phase, ltz, tvf, groupBy, rows] as const,
        ),
      ),
    ),
  )('%s (%s, TIMESTAMP_LTZ %s)', (_, phase, ltz, tvf, groupBy, rows) =>
    expectRows(select(tvf, groupBy), rows, { phase, ltz }, lastAsSet),
  );
});

describe("Flink's WindowAggregateITCase over a TIMESTAMP_LTZ rowtime", () => {
  const AGGS = `COUNT(*), SUM(\`bigdec\`), MAX(\`double\`), MIN(\`float\`), COUNT(DISTINCT \`string\`),
    concat_distinct_agg(\`string\`)`;
  const byName = (tvf: string) => `SELECT \`name\`, window_start, window_end, ${AGGS}
    FROM TABLE(${tvf}) GROUP BY \`name\`, window_start, window_end`;
  const cases: [string, string, string[]][] = [
    [
      'testTumbleWindowOutputWindowTime',
      `SELECT \`name\`, window_start, window_end, window_time, COUNT(*)
        FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
        GROUP BY \`name\`, window_start, window_end, window_time`,
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,2020-10-09T16:00:04.999Z,4',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-09T16:00:09.999Z,1',
        'b,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-09T16:00:09.999Z,2',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,2020-10-09T16:00:19.999Z,1',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,2020-10-09T16:00:34.999Z,1',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,2020-10-09T16:00:34.999Z,1',
      ],
    ],
    [
      'testFieldNameConflict',
      `SELECT window_time, MIN(rowtime) AS start_time, MAX(rowtime) AS end_time
        FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
        GROUP BY window_start, window_end, window_time`,
      [
        '2020-10-09T16:00:04.999Z,2020-10-09T16:00:01Z,2020-10-09T16:00:04Z',
        '2020-10-09T16:00:09.999Z,2020-10-09T16:00:06Z,2020-10-09T16:00:08Z',
        '2020-10-09T16:00:19.999Z,2020-10-09T16:00:16Z,2020-10-09T16:00:16Z',
        '2020-10-09T16:00:34.999Z,2020-10-09T16:00:32Z,2020-10-09T16:00:34Z',
      ],
    ],
    [
      'testEventTimeTumbleWindow',
      byName("TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)"),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,3.33,null,3.0,1,Comment#2',
        'b,2020-10-10T00:00:05,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0,null',
      ],
    ],
    [
      'testEventTimeTumbleWindowWithOffset',
      byName("TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '1' DAY, INTERVAL '8' HOUR)"),
      [
        'a,2020-10-09T08:00,2020-10-10T08:00,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'b,2020-10-09T08:00,2020-10-10T08:00,4,14.43,6.0,3.0,3,Hello|Hi|Comment#3',
        'null,2020-10-09T08:00,2020-10-10T08:00,1,7.77,7.0,7.0,0,null',
      ],
    ],
    [
      'testEventTimeTumbleWindowWithNegativeOffset',
      byName("TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '1' DAY, INTERVAL '-8' HOUR)"),
      [
        'a,2020-10-09T16:00,2020-10-10T16:00,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'b,2020-10-09T16:00,2020-10-10T16:00,4,14.43,6.0,3.0,3,Hello|Hi|Comment#3',
        'null,2020-10-09T16:00,2020-10-10T16:00,1,7.77,7.0,7.0,0,null',
      ],
    ],
    [
      'testEventTimeHopWindowWithOffset',
      byName(
        "HOP(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '12' HOUR, INTERVAL '1' DAY, INTERVAL '8' HOUR)",
      ),
      [
        'a,2020-10-09T08:00,2020-10-10T08:00,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'a,2020-10-09T20:00,2020-10-10T20:00,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'b,2020-10-09T08:00,2020-10-10T08:00,4,14.43,6.0,3.0,3,Hello|Hi|Comment#3',
        'b,2020-10-09T20:00,2020-10-10T20:00,4,14.43,6.0,3.0,3,Hello|Hi|Comment#3',
        'null,2020-10-09T08:00,2020-10-10T08:00,1,7.77,7.0,7.0,0,null',
        'null,2020-10-09T20:00,2020-10-10T20:00,1,7.77,7.0,7.0,0,null',
      ],
    ],
    [
      'testEventTimeCumulateWindow',
      byName("CUMULATE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '15' SECOND)"),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
        'a,2020-10-10T00:00,2020-10-10T00:00:10,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'a,2020-10-10T00:00,2020-10-10T00:00:15,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi',
        'b,2020-10-10T00:00,2020-10-10T00:00:15,2,6.66,6.0,3.0,2,Hello|Hi',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1,Hi',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:30,1,4.44,4.0,4.0,1,Hi',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1,Comment#3',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:45,1,3.33,3.0,3.0,1,Comment#3',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0,null',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:40,1,7.77,7.0,7.0,0,null',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:45,1,7.77,7.0,7.0,0,null',
      ],
    ],
    [
      'testEventTimeCumulateWindowWithNegativeOffset',
      byName(
        "CUMULATE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '12' HOUR, INTERVAL '1' DAY, INTERVAL '-8' HOUR)",
      ),
      [
        'a,2020-10-09T16:00,2020-10-10T04:00,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'a,2020-10-09T16:00,2020-10-10T16:00,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'b,2020-10-09T16:00,2020-10-10T04:00,4,14.43,6.0,3.0,3,Hello|Hi|Comment#3',
        'b,2020-10-09T16:00,2020-10-10T16:00,4,14.43,6.0,3.0,3,Hello|Hi|Comment#3',
        'null,2020-10-09T16:00,2020-10-10T04:00,1,7.77,7.0,7.0,0,null',
        'null,2020-10-09T16:00,2020-10-10T16:00,1,7.77,7.0,7.0,0,null',
      ],
    ],
    [
      'testEventTimeSessionWindow',
      byName("SESSION(TABLE T1 PARTITION BY `name`, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)"),
      [
        'a,2020-10-10T00:00:01,2020-10-10T00:00:13,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'b,2020-10-10T00:00:06,2020-10-10T00:00:12,2,6.66,6.0,3.0,2,Hello|Hi',
        'b,2020-10-10T00:00:16,2020-10-10T00:00:21,1,4.44,4.0,4.0,1,Hi',
        'b,2020-10-10T00:00:34,2020-10-10T00:00:39,1,3.33,3.0,3.0,1,Comment#3',
        'null,2020-10-10T00:00:32,2020-10-10T00:00:37,1,7.77,7.0,7.0,0,null',
      ],
    ],
  ];

  it.each(
    cases.flatMap(([test, sql, rows]) => PHASES.map((phase) => [test, phase, sql, rows] as const)),
  )('%s (%s)', (_, phase, sql, rows) => expectRows(sql, rows.map(ltzRow), { phase, ltz: true }));

  it.each(PHASES)('testCascadeEventTimeTumbleWindowWithOffset (%s)', async (phase) => {
    // Flink's rows. Over TIMESTAMP_LTZ windows are on the session zone's wall clock, and the
    // planner (query-planner.ts) gives their results no window properties ("local windows do
    // not end at a fixed spacing of UTC event time"), so the outer GROUP BY window_start,
    // window_end is an updating aggregation here, where Flink's is a window aggregation
    // (insert-only): only the final rows are compared.
    const { rows } = await run(
      `SELECT cnt, window_start, window_end, COUNT(*) FROM (
        SELECT \`name\`, window_start, window_end, COUNT(DISTINCT \`string\`) AS cnt
        FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '1' DAY, INTERVAL '8' HOUR))
        GROUP BY \`name\`, window_start, window_end
      ) GROUP BY cnt, window_start, window_end`,
      { phase, ltz: true },
    );
    expect(rows).toEqual(
      normalized([
        '0,2020-10-09T08:00,2020-10-10T08:00,1',
        '3,2020-10-09T08:00,2020-10-10T08:00,2',
      ]),
    );
  });

  it('testTumbleWindowOutputWindowTime: window_time keeps the rowtime type', () => {
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    ltzTables(env, tEnv);
    const table = tEnv.sqlQuery(`SELECT window_start, window_end, window_time, MIN(rowtime)
      FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
      GROUP BY window_start, window_end, window_time`);
    expect(table.columns.map((c) => c.type)).toEqual([
      expect.stringMatching(/^TIMESTAMP\(3\)/),
      expect.stringMatching(/^TIMESTAMP\(3\)/),
      expect.stringMatching(/^TIMESTAMP_LTZ\(3\)/),
      expect.stringMatching(/^TIMESTAMP_LTZ\(3\)/),
    ]);
  });
});

describe("Flink's WindowAggregateITCase, processing time", () => {
  it('testRelaxFormProctimeCascadeWindowAgg', async () => {
    // Flink checks no rows: a processing-time window's rows depend on when they arrive.
    const [result] = await runScenario(
      `CREATE TEMPORARY VIEW proctime_src AS
        SELECT \`ts\`, \`int\`, \`double\`, \`float\`, \`bigdec\`, \`string\`, \`name\`,
          PROCTIME() AS proctime
        FROM T1;`,
      [
        `SELECT window_start, window_end, COUNT(*) FROM (
          SELECT \`name\`, window_start, window_end, COUNT(DISTINCT \`string\`) AS cnt
          FROM TABLE(TUMBLE(TABLE proctime_src, DESCRIPTOR(proctime), INTERVAL '1' SECOND))
          GROUP BY \`name\`, window_start, window_end
        ) GROUP BY window_start, window_end`,
      ],
      { parallelism: 1, tables: windowTables },
    );
    expect(result).toBeDefined();
  });
});

describe("Flink's WindowDistinctAggregateITCase", () => {
  const AGGS = `COUNT(*), SUM(\`bigdec\`), MAX(\`double\`), MIN(\`float\`), COUNT(DISTINCT \`string\`)`;
  const grouped = (tvf: string, groupBy: string) => `SELECT GROUPING_ID(\`name\`), \`name\`,
      window_start, window_end, ${AGGS}
    FROM TABLE(${tvf}) GROUP BY ${groupBy}, window_start, window_end`;
  const byName = (tvf: string) => `SELECT \`name\`, window_start, window_end, ${AGGS}
    FROM TABLE(${tvf}) GROUP BY \`name\`, window_start, window_end`;
  const GROUPINGS = [
    ['GroupingSets', 'GROUPING SETS((`name`),())'],
    ['Cube', 'CUBE(`name`)'],
    ['Rollup', 'ROLLUP(`name`)'],
  ] as const;
  const TUMBLE_TVF = "TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)";
  const HOP_TVF = "HOP(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '10' SECOND)";
  const CUMULATE_TVF =
    "CUMULATE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '15' SECOND)";

  const TUMBLE_SETS = [
    '0,a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
    '0,a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,3.33,null,3.0,1',
    '0,b,2020-10-10T00:00:05,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
    '0,b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    '0,b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1',
    '0,null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
    '1,null,2020-10-10T00:00:05,2020-10-10T00:00:10,3,9.99,6.0,3.0,3',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:35,2,11.10,7.0,3.0,1',
  ];
  const HOP_ROWS = [
    'a,2020-10-09T23:59:55,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
    'a,2020-10-10T00:00,2020-10-10T00:00:10,6,19.98,5.0,1.0,3',
    'a,2020-10-10T00:00:05,2020-10-10T00:00:15,1,3.33,null,3.0,1',
    'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
    'b,2020-10-10T00:00:05,2020-10-10T00:00:15,2,6.66,6.0,3.0,2',
    'b,2020-10-10T00:00:10,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    'b,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1',
    'b,2020-10-10T00:00:25,2020-10-10T00:00:35,1,3.33,3.0,3.0,1',
    'b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1',
    'null,2020-10-10T00:00:25,2020-10-10T00:00:35,1,7.77,7.0,7.0,0',
    'null,2020-10-10T00:00:30,2020-10-10T00:00:40,1,7.77,7.0,7.0,0',
  ];
  const HOP_SETS = [
    ...HOP_ROWS.map((r) => `0,${r}`),
    '1,null,2020-10-09T23:59:55,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:10,8,26.64,6.0,1.0,4',
    '1,null,2020-10-10T00:00:05,2020-10-10T00:00:15,3,9.99,6.0,3.0,3',
    '1,null,2020-10-10T00:00:10,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1',
    '1,null,2020-10-10T00:00:25,2020-10-10T00:00:35,2,11.10,7.0,3.0,1',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:40,2,11.10,7.0,3.0,1',
  ];
  const CUMULATE_ROWS = [
    'a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
    'a,2020-10-10T00:00,2020-10-10T00:00:10,6,19.98,5.0,1.0,3',
    'a,2020-10-10T00:00,2020-10-10T00:00:15,6,19.98,5.0,1.0,3',
    'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
    'b,2020-10-10T00:00,2020-10-10T00:00:15,2,6.66,6.0,3.0,2',
    'b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    'b,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1',
    'b,2020-10-10T00:00:15,2020-10-10T00:00:30,1,4.44,4.0,4.0,1',
    'b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1',
    'b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1',
    'b,2020-10-10T00:00:30,2020-10-10T00:00:45,1,3.33,3.0,3.0,1',
    'null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0',
    'null,2020-10-10T00:00:30,2020-10-10T00:00:40,1,7.77,7.0,7.0,0',
    'null,2020-10-10T00:00:30,2020-10-10T00:00:45,1,7.77,7.0,7.0,0',
  ];
  const CUMULATE_SETS = [
    ...CUMULATE_ROWS.map((r) => `0,${r}`),
    '1,null,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:10,8,26.64,6.0,1.0,4',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:15,8,26.64,6.0,1.0,4',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1',
    '1,null,2020-10-10T00:00:15,2020-10-10T00:00:30,1,4.44,4.0,4.0,1',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:35,2,11.10,7.0,3.0,1',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:40,2,11.10,7.0,3.0,1',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:45,2,11.10,7.0,3.0,1',
  ];

  const cases: (readonly [string, string, readonly string[]])[] = [
    ...GROUPINGS.map(
      ([suffix, groupBy]) =>
        [`testTumbleWindow_${suffix}`, grouped(TUMBLE_TVF, groupBy), TUMBLE_SETS] as const,
    ),
    ['testHopWindow', byName(HOP_TVF), HOP_ROWS],
    ...GROUPINGS.map(
      ([suffix, groupBy]) =>
        [`testHopWindow_${suffix}`, grouped(HOP_TVF, groupBy), HOP_SETS] as const,
    ),
    ['testCumulateWindow', byName(CUMULATE_TVF), CUMULATE_ROWS],
    ...GROUPINGS.map(
      ([suffix, groupBy]) =>
        [`testCumulateWindow_${suffix}`, grouped(CUMULATE_TVF, groupBy), CUMULATE_SETS] as const,
    ),
  ];

  it.each(
    cases.flatMap(([test, sql, rows]) =>
      [false, true].map((split) => [test, split, sql, rows] as const),
    ),
  )('%s (distinct split %s)', (_, split, sql, rows) => expectRows(sql, rows, { split }));

  const cascadingView = (groupBy: string) => `CREATE TEMPORARY VIEW V1 AS
    SELECT GROUPING_ID(\`name\`) AS group_id, \`name\`, window_time AS rowtime, COUNT(*) AS cnt,
      SUM(\`bigdec\`) AS sum_bigdec, MAX(\`double\`) AS max_double, MIN(\`float\`) AS min_float,
      COUNT(DISTINCT \`string\`) AS uv
    FROM TABLE(${TUMBLE_TVF})
    GROUP BY ${groupBy}, window_start, window_end, window_time;`;
  const CASCADING_SETS = [
    '0,a,2020-10-10T00:00,2020-10-10T00:00:10,5,14.43,5.0,1.0,3',
    '0,b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
    '0,b,2020-10-10T00:00:10,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    '0,b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1',
    '0,null,2020-10-10T00:00:30,2020-10-10T00:00:40,1,7.77,7.0,7.0,0',
    '1,null,2020-10-10T00:00,2020-10-10T00:00:10,7,21.09,6.0,1.0,5',
    '1,null,2020-10-10T00:00:10,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
    '1,null,2020-10-10T00:00:30,2020-10-10T00:00:40,2,11.10,7.0,3.0,1',
  ];
  it.each(
    GROUPINGS.flatMap(([suffix, groupBy]) =>
      [false, true].map((split) => [suffix, split, groupBy] as const),
    ),
  )('testCascadingTumbleWindow_%s (distinct split %s)', (_, split, groupBy) =>
    expectRows(
      `SELECT group_id, \`name\`, window_start, window_end, SUM(cnt), SUM(sum_bigdec),
         MAX(max_double), MIN(min_float), SUM(uv)
       FROM TABLE(TUMBLE(TABLE V1, DESCRIPTOR(rowtime), INTERVAL '10' SECOND))
       GROUP BY group_id, \`name\`, window_start, window_end`,
      CASCADING_SETS,
      { split, setup: cascadingView(groupBy) },
    ),
  );
});
