/**
 * Window joins of Flink's WindowJoinITCase (streaming): INNER, LEFT, RIGHT and FULL joins of two
 * TUMBLE aggregations on their windows and name (also with IS NOT DISTINCT FROM), joins of the
 * TUMBLE TVFs themselves (with offsets); the window semi and anti joins Flink writes with
 * EXISTS, IN, NOT EXISTS and NOT IN (null-aware) correlated on the windows. Flink's data (`windowDataWithTimestamp`, `windowData2WithTimestamp`, where `a1` stands
 * for `a`) and expected rows.
 */
import { describe, it } from 'vitest';
import { expectWindowRows, ROW, withWindow } from './flink-window-data.js';

const uv = (table: string, alias: string) => `SELECT \`name\`, window_start, window_end,
    COUNT(DISTINCT \`string\`) AS ${alias}
  FROM TABLE(TUMBLE(TABLE ${table}, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
  GROUP BY \`name\`, window_start, window_end`;
const ON_WINDOW = 'L.window_start = R.window_start AND L.window_end = R.window_end';
const aggJoin = (select: string, type: string, name = 'L.`name` = R.`name`') =>
  `SELECT ${select} FROM (${uv('T1', 'uv1')}) L ${type} (${uv('T2', 'uv2')}) R
    ON ${ON_WINDOW} AND ${name}`;
const NOT_DISTINCT = 'L.`name` IS NOT DISTINCT FROM R.`name`';
const L_COLUMNS =
  'TO_TIMESTAMP(L.`ts`), L.`int`, L.`double`, L.`float`, L.`bigdec`, L.`string`, L.`name`, CAST(L.`rowtime` AS STRING), L.window_start, L.window_end, L.window_time';
const tvf = (table: string, args = '') =>
  `TABLE(TUMBLE(TABLE ${table}, DESCRIPTOR(rowtime), INTERVAL '5' SECOND${args}))`;
const tvfJoin = (args = '', name = 'L.`name` = R.`name`') =>
  `SELECT ${L_COLUMNS}, R.\`int\`, R.\`string\`, R.\`name\`
    FROM (SELECT * FROM ${tvf('T1', args)}) L JOIN (SELECT * FROM ${tvf('T2', args)}) R
    ON ${ON_WINDOW} AND ${name}`;

const t = (s: string) => `2020-10-10T00:00:${s}`;
/** The pairs of testInnerJoinOnWTF with the windows starting at `s` (b's rows in them). */
const bPairs = (w5: [string, string], w15: [string, string], w30: [string, string]) => [
  `${withWindow(ROW.r06, ...w5)},3,Hello,b`,
  `${withWindow(ROW.r06, ...w5)},6,Hi,b`,
  `${withWindow(ROW.r07, ...w5)},3,Hello,b`,
  `${withWindow(ROW.r07, ...w5)},6,Hi,b`,
  `${withWindow(ROW.r16, ...w15)},4,Hi,b`,
  `${withWindow(ROW.r34, ...w30)},1,Comment#3,b`,
];
/** The b rows of T1 with their windows (the semi joins on the TVFs keep them). */
const B_ROWS = [
  withWindow(ROW.r06, t('05'), t('10')),
  withWindow(ROW.r07, t('05'), t('10')),
  withWindow(ROW.r16, t('15'), t('20')),
  withWindow(ROW.r34, t('30'), t('35')),
];
/** The a rows of T1 that are not late (T2 has a1 where T1 has a: no match for them). */
const A_ROWS = [
  ...[ROW.r01, ROW.r02, ROW.r03, ROW.r04].map((r) => withWindow(r, t('00'), t('05'))),
  withWindow(ROW.r08, t('05'), t('10')),
];
const A_WINDOWS = [
  'a,2020-10-10T00:00,2020-10-10T00:00:05,2',
  'a,2020-10-10T00:00:05,2020-10-10T00:00:10,1',
];
const B_WINDOWS = [
  'b,2020-10-10T00:00:05,2020-10-10T00:00:10',
  'b,2020-10-10T00:00:15,2020-10-10T00:00:20',
  'b,2020-10-10T00:00:30,2020-10-10T00:00:35',
];

describe("Flink's WindowJoinITCase", () => {
  const cases: [string, string, string[]][] = [
    [
      'testInnerJoin',
      aggJoin('L.`name`, L.window_start, L.window_end, uv1, uv2', 'JOIN'),
      [`${B_WINDOWS[0]},2,2`, `${B_WINDOWS[1]},1,1`, `${B_WINDOWS[2]},1,1`],
    ],
    [
      'testInnerJoinWithIsNotDistinctFrom',
      aggJoin('L.`name`, L.window_start, L.window_end, uv1, uv2', 'JOIN', NOT_DISTINCT),
      [
        `${B_WINDOWS[0]},2,2`,
        `${B_WINDOWS[1]},1,1`,
        `${B_WINDOWS[2]},1,1`,
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,0,0',
      ],
    ],
    [
      'testInnerJoinOnWTF',
      tvfJoin(),
      bPairs([t('05'), t('10')], [t('15'), t('20')], [t('30'), t('35')]),
    ],
    [
      'testInnerJoinOnWTFWithOffset',
      tvfJoin(", INTERVAL '1' SECOND"),
      bPairs([t('06'), t('11')], [t('16'), t('21')], [t('31'), t('36')]),
    ],
    [
      'testInnerJoinOnWTFWithNegativeOffset',
      tvfJoin(", INTERVAL '-1' SECOND"),
      bPairs([t('04'), t('09')], [t('14'), t('19')], [t('34'), t('39')]),
    ],
    [
      'testInnerJoinWithIsNotDistinctFromOnWTF',
      tvfJoin('', NOT_DISTINCT),
      [
        ...bPairs([t('05'), t('10')], [t('15'), t('20')], [t('30'), t('35')]),
        `${withWindow(ROW.r32, t('30'), t('35'))},7,null,null`,
      ],
    ],
    [
      'testLeftJoin',
      aggJoin('L.`name`, L.window_start, L.window_end, uv1, uv2', 'LEFT JOIN'),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,2,null',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,null',
        `${B_WINDOWS[0]},2,2`,
        `${B_WINDOWS[1]},1,1`,
        `${B_WINDOWS[2]},1,1`,
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,0,null',
      ],
    ],
    [
      'testLeftJoinWithIsNotDistinctFrom',
      aggJoin('L.`name`, L.window_start, L.window_end, uv1, uv2', 'LEFT JOIN', NOT_DISTINCT),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,2,null',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,null',
        `${B_WINDOWS[0]},2,2`,
        `${B_WINDOWS[1]},1,1`,
        `${B_WINDOWS[2]},1,1`,
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,0,0',
      ],
    ],
    [
      'testRightJoin',
      aggJoin('L.`name`, R.window_start, R.window_end, uv1, uv2', 'RIGHT JOIN'),
      [
        'null,2020-10-10T00:00,2020-10-10T00:00:05,null,2',
        'null,2020-10-10T00:00:05,2020-10-10T00:00:10,null,1',
        `${B_WINDOWS[0]},2,2`,
        `${B_WINDOWS[1]},1,1`,
        `${B_WINDOWS[2]},1,1`,
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,null,0',
      ],
    ],
    [
      'testRightJoinWithIsNotDistinctFrom',
      aggJoin('L.`name`, R.window_start, R.window_end, uv1, uv2', 'RIGHT JOIN', NOT_DISTINCT),
      [
        'null,2020-10-10T00:00,2020-10-10T00:00:05,null,2',
        'null,2020-10-10T00:00:05,2020-10-10T00:00:10,null,1',
        `${B_WINDOWS[0]},2,2`,
        `${B_WINDOWS[1]},1,1`,
        `${B_WINDOWS[2]},1,1`,
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,0,0',
      ],
    ],
    [
      'testOuterJoin',
      aggJoin(
        'L.`name`, L.window_start, L.window_end, R.`name`, R.window_start, R.window_end, uv1, uv2',
        'FULL OUTER JOIN',
      ),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,null,null,null,2,null',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,null,null,null,1,null',
        `${B_WINDOWS[0]},${B_WINDOWS[0]},2,2`,
        `${B_WINDOWS[1]},${B_WINDOWS[1]},1,1`,
        `${B_WINDOWS[2]},${B_WINDOWS[2]},1,1`,
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,null,null,null,0,null',
        'null,null,null,a1,2020-10-10T00:00,2020-10-10T00:00:05,null,2',
        'null,null,null,a1,2020-10-10T00:00:05,2020-10-10T00:00:10,null,1',
        'null,null,null,null,2020-10-10T00:00:30,2020-10-10T00:00:35,null,0',
      ],
    ],
    [
      'testOuterJoinWithIsNotDistinctFrom',
      aggJoin(
        'L.`name`, L.window_start, L.window_end, R.`name`, R.window_start, R.window_end, uv1, uv2',
        'FULL OUTER JOIN',
        NOT_DISTINCT,
      ),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,null,null,null,2,null',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,null,null,null,1,null',
        `${B_WINDOWS[0]},${B_WINDOWS[0]},2,2`,
        `${B_WINDOWS[1]},${B_WINDOWS[1]},1,1`,
        `${B_WINDOWS[2]},${B_WINDOWS[2]},1,1`,
        'null,2020-10-10T00:00:30,2020-10-10T00:00:35,null,2020-10-10T00:00:30,2020-10-10T00:00:35,0,0',
        'null,null,null,a1,2020-10-10T00:00,2020-10-10T00:00:05,null,2',
        'null,null,null,a1,2020-10-10T00:00:05,2020-10-10T00:00:10,null,1',
      ],
    ],
  ];

  it.each(cases)('%s', (_, sql, expected) => expectWindowRows(sql, expected));

  // Window semi and anti joins: the left rows with (or without) a match in their window.
  const semiAnti: [string, string, string[]][] = [
    [
      'testSemiJoinExists',
      `SELECT * FROM (${uv('T1', 'uv1')}) L WHERE EXISTS (
        SELECT * FROM (${uv('T2', 'uv2')}) R WHERE ${ON_WINDOW} AND L.\`name\` = R.\`name\`)`,
      [`${B_WINDOWS[0]},2`, `${B_WINDOWS[1]},1`, `${B_WINDOWS[2]},1`],
    ],
    [
      'testSemiJoinExistsWTF',
      `SELECT ${L_COLUMNS} FROM (SELECT * FROM ${tvf('T1')}) L WHERE EXISTS (
        SELECT * FROM ${tvf('T2')} R WHERE ${ON_WINDOW} AND L.\`name\` = R.\`name\`)`,
      B_ROWS,
    ],
    [
      'testSemiJoinIN',
      `SELECT * FROM (${uv('T1', 'uv1')}) L WHERE L.\`name\` IN (
        SELECT \`name\` FROM (${uv('T2', 'uv2')}) R WHERE ${ON_WINDOW})`,
      [`${B_WINDOWS[0]},2`, `${B_WINDOWS[1]},1`, `${B_WINDOWS[2]},1`],
    ],
    [
      'testSemiJoinIN_WTF',
      `SELECT ${L_COLUMNS} FROM (SELECT * FROM ${tvf('T1')}) L WHERE L.\`name\` IN (
        SELECT \`name\` FROM ${tvf('T2')} R WHERE ${ON_WINDOW} AND L.\`name\` = R.\`name\`)`,
      B_ROWS,
    ],
    [
      'testAntiJoinNotExists',
      `SELECT * FROM (${uv('T1', 'uv1')}) L WHERE NOT EXISTS (
        SELECT * FROM (${uv('T2', 'uv2')}) R WHERE ${ON_WINDOW} AND L.\`name\` = R.\`name\`)`,
      [...A_WINDOWS, 'null,2020-10-10T00:00:30,2020-10-10T00:00:35,0'],
    ],
    [
      'testAntiJoinNotExistsWTF',
      `SELECT ${L_COLUMNS} FROM (SELECT * FROM ${tvf('T1')}) L WHERE NOT EXISTS (
        SELECT * FROM ${tvf('T2')} R WHERE ${ON_WINDOW} AND L.\`name\` = R.\`name\`)
        AND L.\`float\` IS NOT NULL`,
      [...A_ROWS, withWindow(ROW.r32, t('30'), t('35'))],
    ],
    [
      'testAntiJoinNotIN',
      `SELECT * FROM (${uv('T1', 'uv1')}) L WHERE L.\`name\` NOT IN (
        SELECT \`name\` FROM (${uv('T2', 'uv2')}) R WHERE ${ON_WINDOW})`,
      A_WINDOWS,
    ],
    [
      'testAntiJoinNotIN_WTF',
      `SELECT ${L_COLUMNS} FROM (SELECT * FROM ${tvf('T1')}) L WHERE L.\`name\` NOT IN (
        SELECT \`name\` FROM ${tvf('T2')} R WHERE ${ON_WINDOW}) AND L.\`float\` IS NOT NULL`,
      A_ROWS,
    ],
  ];

  it.each(semiAnti)('%s', (_, sql, expected) => expectWindowRows(sql, expected));
});
