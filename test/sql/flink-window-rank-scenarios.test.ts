/**
 * Window Top-N of Flink's WindowRankITCase (streaming): ROW_NUMBER() partitioned by the window
 * over TUMBLE, HOP and CUMULATE aggregations (with a rank offset, without the rank number, a
 * Top-1) and over the window TVFs themselves (with offsets, with a projection). Flink's data
 * (`TestData.windowDataWithTimestamp`, the late row included) and expected rows.
 */
import { describe, it } from 'vitest';
import { expectWindowRows, ROW, withWindow } from './flink-window-data.js';

const AGG = (tvf: string) => `SELECT \`name\`, window_start, window_end, COUNT(*) AS cnt,
    SUM(\`bigdec\`) AS sum_b, MAX(\`double\`) AS max_d, MIN(\`float\`) AS min_f,
    COUNT(DISTINCT \`string\`) AS uv, concat_distinct_agg(\`string\`) AS distinct_str
  FROM TABLE(${tvf}) GROUP BY \`name\`, window_start, window_end`;
const overAgg = (tvf: string, filter: string, select = '*') =>
  `SELECT ${select} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end
    ORDER BY sum_b DESC) AS rownum FROM (${AGG(tvf)})) WHERE ${filter}`;
const WITHOUT_RN = '`name`, window_start, window_end, cnt, sum_b, max_d, min_f, uv, distinct_str';
const ROW_COLUMNS =
  'TO_TIMESTAMP(`ts`), `int`, `double`, `float`, `bigdec`, `string`, `name`, CAST(`rowtime` AS STRING), window_start, window_end, window_time';
const overTvf = (tvf: string, select = ROW_COLUMNS) =>
  `SELECT ${select} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end,
    \`name\` ORDER BY \`int\` DESC) AS rownum FROM TABLE(${tvf})) WHERE rownum <= 2`;

const TUMBLE = "TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)";
const HOP = "HOP(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '10' SECOND)";
const CUMULATE =
  "CUMULATE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '15' SECOND)";

const W0 = ['2020-10-10T00:00', '2020-10-10T00:00:05'] as const;
const W5 = ['2020-10-10T00:00:05', '2020-10-10T00:00:10'] as const;
const W15 = ['2020-10-10T00:00:15', '2020-10-10T00:00:20'] as const;
const W30 = ['2020-10-10T00:00:30', '2020-10-10T00:00:35'] as const;

describe("Flink's WindowRankITCase", () => {
  const cases: [string, string, string[]][] = [
    [
      'testTumbleWindow',
      overAgg(TUMBLE, 'rownum <= 2'),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1,1',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,3.33,null,3.0,1,Comment#2,2',
        'b,2020-10-10T00:00:05,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi,1',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi,1',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3,2',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0,null,1',
      ],
    ],
    [
      'testTumbleWindowWithRankOffset',
      overAgg(TUMBLE, 'rownum > 1 AND rownum <= 2'),
      [
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,3.33,null,3.0,1,Comment#2,2',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3,2',
      ],
    ],
    [
      'testTumbleWindowWithoutRankNumber',
      overAgg(TUMBLE, 'rownum > 1 AND rownum <= 2', WITHOUT_RN),
      [
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,3.33,null,3.0,1,Comment#2',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3',
      ],
    ],
    [
      'testTumbleWindowTVF',
      overTvf(TUMBLE),
      [
        withWindow(ROW.r04, ...W0),
        withWindow(ROW.r02, ...W0),
        withWindow(ROW.r08, ...W5),
        withWindow(ROW.r06, ...W5),
        withWindow(ROW.r07, ...W5),
        withWindow(ROW.r16, ...W15),
        withWindow(ROW.r32, ...W30),
        withWindow(ROW.r34, ...W30),
      ],
    ],
    [
      'testTumbleWindowTVFWithOffset',
      overTvf("TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '1' SECOND)"),
      [
        withWindow(ROW.r04, '2020-10-10T00:00:01', '2020-10-10T00:00:06'),
        withWindow(ROW.r02, '2020-10-10T00:00:01', '2020-10-10T00:00:06'),
        withWindow(ROW.r08, '2020-10-10T00:00:06', '2020-10-10T00:00:11'),
        withWindow(ROW.r06, '2020-10-10T00:00:06', '2020-10-10T00:00:11'),
        withWindow(ROW.r07, '2020-10-10T00:00:06', '2020-10-10T00:00:11'),
        withWindow(ROW.r16, '2020-10-10T00:00:16', '2020-10-10T00:00:21'),
        withWindow(ROW.r32, '2020-10-10T00:00:31', '2020-10-10T00:00:36'),
        withWindow(ROW.r34, '2020-10-10T00:00:31', '2020-10-10T00:00:36'),
      ],
    ],
    [
      'testTumbleWindowTVFWithNegativeOffset',
      overTvf("TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '-1' SECOND)"),
      [
        withWindow(ROW.r02, '2020-10-09T23:59:59', '2020-10-10T00:00:04'),
        withWindow(ROW.r03, '2020-10-09T23:59:59', '2020-10-10T00:00:04'),
        withWindow(ROW.r04, '2020-10-10T00:00:04', '2020-10-10T00:00:09'),
        withWindow(ROW.r04late, '2020-10-10T00:00:04', '2020-10-10T00:00:09'),
        withWindow(ROW.r06, '2020-10-10T00:00:04', '2020-10-10T00:00:09'),
        withWindow(ROW.r07, '2020-10-10T00:00:04', '2020-10-10T00:00:09'),
        withWindow(ROW.r16, '2020-10-10T00:00:14', '2020-10-10T00:00:19'),
        withWindow(ROW.r32, '2020-10-10T00:00:29', '2020-10-10T00:00:34'),
        withWindow(ROW.r34, '2020-10-10T00:00:34', '2020-10-10T00:00:39'),
      ],
    ],
    [
      'testTumbleWindowTVFWithCalc',
      overTvf(TUMBLE, '`int`, `string`, `name`, window_start, window_end, window_time'),
      [
        '5,null,a,2020-10-10T00:00,2020-10-10T00:00:05,2020-10-10T00:00:04.999',
        '2,Comment#1,a,2020-10-10T00:00,2020-10-10T00:00:05,2020-10-10T00:00:04.999',
        '3,Comment#2,a,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '6,Hi,b,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '3,Hello,b,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '4,Hi,b,2020-10-10T00:00:15,2020-10-10T00:00:20,2020-10-10T00:00:19.999',
        '7,null,null,2020-10-10T00:00:30,2020-10-10T00:00:35,2020-10-10T00:00:34.999',
        '1,Comment#3,b,2020-10-10T00:00:30,2020-10-10T00:00:35,2020-10-10T00:00:34.999',
      ],
    ],
    [
      'testHopWindowWithoutRankNumber',
      overAgg(HOP, 'rownum > 1 AND rownum <= 2', WITHOUT_RN),
      [
        'a,2020-10-10T00:00:05,2020-10-10T00:00:15,1,3.33,null,3.0,1,Comment#2',
        'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi',
        'b,2020-10-10T00:00:25,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1,Comment#3',
      ],
    ],
    [
      'testHopWindowTVFWithCalc',
      overTvf(HOP, '`int`, `string`, `name`, window_start, window_end, window_time'),
      [
        '5,null,a,2020-10-09T23:59:55,2020-10-10T00:00:05,2020-10-10T00:00:04.999',
        '2,Comment#1,a,2020-10-09T23:59:55,2020-10-10T00:00:05,2020-10-10T00:00:04.999',
        '5,null,a,2020-10-10T00:00,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '5,Hi,a,2020-10-10T00:00,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '6,Hi,b,2020-10-10T00:00,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '6,Hi,b,2020-10-10T00:00:05,2020-10-10T00:00:15,2020-10-10T00:00:14.999',
        '3,Hello,b,2020-10-10T00:00,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '3,Comment#2,a,2020-10-10T00:00:05,2020-10-10T00:00:15,2020-10-10T00:00:14.999',
        '3,Hello,b,2020-10-10T00:00:05,2020-10-10T00:00:15,2020-10-10T00:00:14.999',
        '4,Hi,b,2020-10-10T00:00:10,2020-10-10T00:00:20,2020-10-10T00:00:19.999',
        '4,Hi,b,2020-10-10T00:00:15,2020-10-10T00:00:25,2020-10-10T00:00:24.999',
        '7,null,null,2020-10-10T00:00:25,2020-10-10T00:00:35,2020-10-10T00:00:34.999',
        '7,null,null,2020-10-10T00:00:30,2020-10-10T00:00:40,2020-10-10T00:00:39.999',
        '1,Comment#3,b,2020-10-10T00:00:25,2020-10-10T00:00:35,2020-10-10T00:00:34.999',
        '1,Comment#3,b,2020-10-10T00:00:30,2020-10-10T00:00:40,2020-10-10T00:00:39.999',
      ],
    ],
    [
      'testCumulateWindow',
      overAgg(CUMULATE, 'rownum <= 2'),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,5.0,1.0,2,Hi|Comment#1,1',
        'a,2020-10-10T00:00,2020-10-10T00:00:10,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2,1',
        'a,2020-10-10T00:00,2020-10-10T00:00:15,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2,1',
        'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi,2',
        'b,2020-10-10T00:00,2020-10-10T00:00:15,2,6.66,6.0,3.0,2,Hello|Hi,2',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1,Hi,1',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1,Hi,1',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:30,1,4.44,4.0,4.0,1,Hi,1',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3,2',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1,Comment#3,2',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:45,1,3.33,3.0,3.0,1,Comment#3,2',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,7.0,7.0,0,null,1',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:40,1,7.77,7.0,7.0,0,null,1',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:45,1,7.77,7.0,7.0,0,null,1',
      ],
    ],
    [
      'testCumulateWindowWithRankOffset',
      overAgg(CUMULATE, 'rownum > 1 AND rownum <= 2'),
      [
        'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2,Hello|Hi,2',
        'b,2020-10-10T00:00,2020-10-10T00:00:15,2,6.66,6.0,3.0,2,Hello|Hi,2',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:35,1,3.33,3.0,3.0,1,Comment#3,2',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:40,1,3.33,3.0,3.0,1,Comment#3,2',
        'b,2020-10-10T00:00:30,2020-10-10T00:00:45,1,3.33,3.0,3.0,1,Comment#3,2',
      ],
    ],
    [
      'testTop1',
      `SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end
        ORDER BY sum_b DESC) AS rownum FROM (
          SELECT \`name\`, window_start, window_end, COUNT(*) AS cnt, SUM(\`bigdec\`) AS sum_b
          FROM TABLE(${TUMBLE}) GROUP BY \`name\`, window_start, window_end))
      WHERE rownum <= 1`,
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,4,11.10,1',
        'b,2020-10-10T00:00:05,2020-10-10T00:00:10,2,6.66,1',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,1',
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,1,7.77,1',
      ],
    ],
  ];

  it.each(cases)('%s', (_, sql, expected) => expectWindowRows(sql, expected));
});
