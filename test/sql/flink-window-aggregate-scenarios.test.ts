/**
 * Window TVF aggregations of Flink's WindowAggregateITCase (streaming): TUMBLE, HOP, CUMULATE
 * (with offsets) and SESSION (with PARTITION BY) over `TestData.windowDataWithTimestamp`, with
 * COUNT(DISTINCT), a user aggregate, window_time, a window aggregation over one, and the late
 * row dropped by the windows it is late for. Flink's expected rows. (Its grouping-set cases are
 * in grouping-sets.test.ts; its SESSION TVF under a filter, refused, in
 * flink-window-tvf-scenarios.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { scenarioRows } from './flink-scenario-runner.js';
import { expectWindowRows, normalized, windowRows, windowScenario } from './flink-window-data.js';

const AGGS = `COUNT(*), SUM(\`bigdec\`), MAX(\`double\`), MIN(\`float\`), COUNT(DISTINCT \`string\`),
  concat_distinct_agg(\`string\`)`;
const byName = (tvf: string) => `SELECT \`name\`, window_start, window_end, ${AGGS}
  FROM TABLE(${tvf}) GROUP BY \`name\`, window_start, window_end`;

describe("Flink's WindowAggregateITCase", () => {
  const cases: [string, string, string[]][] = [
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
      'testCascadeEventTimeTumbleWindowWithOffset',
      `SELECT cnt, window_start, window_end, COUNT(*) FROM (
        SELECT \`name\`, window_start, window_end, COUNT(DISTINCT \`string\`) AS cnt
        FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '1' DAY, INTERVAL '8' HOUR))
        GROUP BY \`name\`, window_start, window_end
      ) GROUP BY cnt, window_start, window_end`,
      ['0,2020-10-09T08:00,2020-10-10T08:00,1', '3,2020-10-09T08:00,2020-10-10T08:00,2'],
    ],
    [
      'testTumbleWindowOutputWindowTime',
      `SELECT \`name\`, window_start, window_end, window_time, COUNT(*)
        FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
        GROUP BY \`name\`, window_start, window_end, window_time`,
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,2020-10-10T00:00:04.999,4',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-10T00:00:09.999,1',
        'b,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-10T00:00:09.999,2',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,2020-10-10T00:00:19.999,1',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,2020-10-10T00:00:34.999,1',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,2020-10-10T00:00:34.999,1',
      ],
    ],
    [
      'testTumbleWindowGroupOnWindowOnly',
      `SELECT window_start, window_end, ${AGGS}
        FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
        GROUP BY window_start, window_end`,
      [
        '2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1',
        '2020-10-10T00:00:05,2020-10-10T00:00:10,3,9.99,6.0,3.0,3,Hello|Hi|Comment#2',
        '2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi',
        '2020-10-10T00:00:30,2020-10-10T00:00:35,2,11.10,7.0,3.0,1,Comment#3',
      ],
    ],
    [
      'testTumbleWindowWithoutOutputWindowColumns',
      `SELECT ${AGGS}
        FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
        GROUP BY window_start, window_end`,
      [
        '4,11.10,5.0,1.0,2,Hi|Comment#1',
        '3,9.99,6.0,3.0,3,Hello|Hi|Comment#2',
        '1,4.44,4.0,4.0,1,Hi',
        '2,11.10,7.0,3.0,1,Comment#3',
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
      'testEventTimeCumulateWindowWithOffset',
      byName(
        "CUMULATE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '12' HOUR, INTERVAL '1' DAY, INTERVAL '8' HOUR)",
      ),
      [
        'a,2020-10-09T08:00,2020-10-10T08:00,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'b,2020-10-09T08:00,2020-10-10T08:00,4,14.43,6.0,3.0,3,Hello|Hi|Comment#3',
        'null,2020-10-09T08:00,2020-10-10T08:00,1,7.77,7.0,7.0,0,null',
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
      'testFieldNameConflict',
      `SELECT window_time, MIN(rowtime) AS start_time, MAX(rowtime) AS end_time
        FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
        GROUP BY window_start, window_end, window_time`,
      [
        '2020-10-10T00:00:04.999,2020-10-10T00:00:01,2020-10-10T00:00:04',
        '2020-10-10T00:00:09.999,2020-10-10T00:00:06,2020-10-10T00:00:08',
        '2020-10-10T00:00:19.999,2020-10-10T00:00:16,2020-10-10T00:00:16',
        '2020-10-10T00:00:34.999,2020-10-10T00:00:32,2020-10-10T00:00:34',
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

  it.each(cases)('%s', (_, sql, expected) => expectWindowRows(sql, expected));

  // HOP merges the slices of a window in an order of Flink's own, which its concat_distinct_agg
  // output shows; the other columns do not depend on it, so they are compared without it.
  const HOP_AGGS = `COUNT(*), SUM(\`bigdec\`), MAX(\`double\`), MIN(\`float\`), COUNT(DISTINCT \`string\`)`;
  const hop = (args: string) => `SELECT \`name\`, window_start, window_end, ${HOP_AGGS}
    FROM TABLE(HOP(TABLE T1, DESCRIPTOR(rowtime), ${args})) GROUP BY \`name\`, window_start, window_end`;
  it.each([
    [
      'testEventTimeHopWindow',
      "INTERVAL '5' SECOND, INTERVAL '10' SECOND",
      [
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
      ],
    ],
    [
      'testEventTimeHopWindowWithOffset',
      "INTERVAL '12' HOUR, INTERVAL '1' DAY, INTERVAL '8' HOUR",
      [
        'a,2020-10-09T08:00,2020-10-10T08:00,6,19.98,5.0,1.0,3',
        'a,2020-10-09T20:00,2020-10-10T20:00,6,19.98,5.0,1.0,3',
        'b,2020-10-09T08:00,2020-10-10T08:00,4,14.43,6.0,3.0,3',
        'b,2020-10-09T20:00,2020-10-10T20:00,4,14.43,6.0,3.0,3',
        'null,2020-10-09T08:00,2020-10-10T08:00,1,7.77,7.0,7.0,0',
        'null,2020-10-09T20:00,2020-10-10T20:00,1,7.77,7.0,7.0,0',
      ],
    ],
    [
      'testEventTimeHopWindowWithNegativeOffset',
      "INTERVAL '12' HOUR, INTERVAL '1' DAY, INTERVAL '-8' HOUR",
      [
        'a,2020-10-09T04:00,2020-10-10T04:00,6,19.98,5.0,1.0,3',
        'a,2020-10-09T16:00,2020-10-10T16:00,6,19.98,5.0,1.0,3',
        'b,2020-10-09T04:00,2020-10-10T04:00,4,14.43,6.0,3.0,3',
        'b,2020-10-09T16:00,2020-10-10T16:00,4,14.43,6.0,3.0,3',
        'null,2020-10-09T04:00,2020-10-10T04:00,1,7.77,7.0,7.0,0',
        'null,2020-10-09T16:00,2020-10-10T16:00,1,7.77,7.0,7.0,0',
      ],
    ],
  ])('%s', async (_, args, expected) => {
    expect(await windowRows(hop(args))).toEqual(normalized(expected));
  });

  it('HOP: the distinct strings of each window, whatever the order of its slices', async () => {
    const rows = await windowRows(`SELECT \`name\`, window_start, concat_distinct_agg(\`string\`)
      FROM TABLE(HOP(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
      GROUP BY \`name\`, window_start, window_end`);
    const sets = (rs: readonly string[]) =>
      rs.map((r) => {
        const [name, start, strings = ''] = r.split(',');
        return `${name},${start},${strings.split('|').sort().join('|')}`;
      });
    // Flink's last column of testEventTimeHopWindow.
    expect(sets(rows)).toEqual(
      sets(
        normalized([
          'a,2020-10-09T23:59:55,Hi|Comment#1',
          'a,2020-10-10T00:00,Comment#2|Hi|Comment#1',
          'a,2020-10-10T00:00:05,Comment#2',
          'b,2020-10-10T00:00,Hello|Hi',
          'b,2020-10-10T00:00:05,Hello|Hi',
          'b,2020-10-10T00:00:10,Hi',
          'b,2020-10-10T00:00:15,Hi',
          'b,2020-10-10T00:00:25,Comment#3',
          'b,2020-10-10T00:00:30,Comment#3',
          'null,2020-10-10T00:00:25,null',
          'null,2020-10-10T00:00:30,null',
        ]),
      ),
    );
  });

  it('testDistinctAggWithMergeOnEventTimeSessionWindow', async () => {
    // (rowtime ms, b, c) in arrival order; the watermark is 10 ms behind, so 4 merges the
    // sessions [1, 7) and [8, 15) before either fires.
    const data = [
      [1, 2, 'Hello'],
      [2, 2, 'Hello'],
      [8, 2, 'Hello'],
      [10, 3, 'Hello'],
      [9, 9, 'Hello World'],
      [4, 1, 'Hello'],
      [16, 16, 'Hello'],
    ] as const;
    const rows = await scenarioRows(
      '',
      `SELECT c, COUNT(DISTINCT b), window_end FROM TABLE(
        SESSION(TABLE MyTable PARTITION BY c, DESCRIPTOR(rowtime), INTERVAL '0.005' SECOND))
      GROUP BY c, window_start, window_end`,
      {
        parallelism: 1,
        batchSize: 1,
        tables: (env, tEnv) =>
          tEnv.fromDataStream('MyTable', env.fromArray(data.map(([t, b, c]) => [t, b, c, t])), {
            columns: [
              { name: 'a', type: 'BIGINT' },
              { name: 'b', type: 'INT' },
              { name: 'c', type: 'STRING' },
              { name: 'rowtime', type: 'TIMESTAMP(3)' },
            ],
            watermark: { column: 'rowtime', expression: "rowtime - INTERVAL '0.01' SECOND" },
          }),
      },
    );
    expect(normalized(rows)).toEqual(
      normalized([
        'Hello World,1,1970-01-01T00:00:00.014',
        'Hello,1,1970-01-01T00:00:00.021',
        'Hello,3,1970-01-01T00:00:00.015',
      ]),
    );
  });
});

describe("Flink's WindowDistinctAggregateITCase", () => {
  // Flink runs each case with the distinct split off and on; so does this.
  const split = (on: boolean) => `SET 'table.optimizer.distinct-agg.split.enabled' = '${on}';`;
  const cases: [string, string, string[]][] = [
    [
      'testTumbleWindow',
      `SELECT window_start, window_end, COUNT(*), SUM(\`bigdec\`), MAX(\`double\`), MIN(\`float\`),
        COUNT(DISTINCT \`string\`)
      FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
      GROUP BY window_start, window_end`,
      [
        '2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2',
        '2020-10-10T00:00:05,2020-10-10T00:00:10,3,9.99,6.0,3.0,3',
        '2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
        '2020-10-10T00:00:30,2020-10-10T00:00:35,2,11.10,7.0,3.0,1',
      ],
    ],
    [
      // A TUMBLE over a view whose time attribute is the window_time of a window aggregation.
      'testCascadingTumbleWindow',
      `SELECT \`name\`, window_start, window_end, SUM(cnt), SUM(sum_bigdec), MAX(max_double),
        MIN(min_float), SUM(uv)
      FROM TABLE(TUMBLE(TABLE V1, DESCRIPTOR(rowtime), INTERVAL '10' SECOND))
      GROUP BY \`name\`, window_start, window_end`,
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:10,5,14.43,5.0,1.0,3',
        'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
        'b,2020-10-10T00:00:10,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:40,1,7.77,7.0,7.0,0',
      ],
    ],
  ];
  const V1 = `CREATE TEMPORARY VIEW V1 AS SELECT \`name\`, window_time AS rowtime, COUNT(*) AS cnt,
      SUM(\`bigdec\`) AS sum_bigdec, MAX(\`double\`) AS max_double, MIN(\`float\`) AS min_float,
      COUNT(DISTINCT \`string\`) AS uv
    FROM TABLE(TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
    GROUP BY \`name\`, window_start, window_end, window_time;`;

  it.each(
    cases.flatMap(([name, sql, rows]) => [false, true].map((on) => [name, on, sql, rows] as const)),
  )('%s (distinct split %s)', async (_, on, sql, expected) => {
    const [result] = await windowScenario([sql], {
      tables: (_env, tEnv) => {
        tEnv.executeSql(split(on));
        tEnv.executeSql(V1);
      },
    });
    expect(result?.rows).toEqual(normalized(expected));
    expect(result?.changes.every((c) => c.startsWith('+I'))).toBe(true);
  });
});
