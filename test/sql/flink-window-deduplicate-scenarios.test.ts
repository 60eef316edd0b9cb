/**
 * Window deduplication of Flink's WindowDeduplicateITCase (streaming): the first or last row
 * per name and window by rowtime, over TUMBLE and CUMULATE TVFs, and with a projection. Flink's
 * data (`TestData.windowDataWithTimestamp`: the late row at 00:00:04 is dropped from the
 * window [00:00, 00:05), which had fired) and expected rows.
 */
import { describe, it } from 'vitest';
import { expectWindowRows, ROW, withWindow } from './flink-window-data.js';

const ROW_COLUMNS =
  'TO_TIMESTAMP(`ts`), `int`, `double`, `float`, `bigdec`, `string`, `name`, CAST(`rowtime` AS STRING), window_start, window_end, window_time';
const dedup = (tvf: string, order: string, select = ROW_COLUMNS) =>
  `SELECT ${select} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end,
    \`name\` ORDER BY ${order}) AS rownum FROM TABLE(${tvf})) WHERE rownum <= 1`;
const TUMBLE = "TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)";

const t = (s: string) => `2020-10-10T00:00:${s}`;

describe("Flink's WindowDeduplicateITCase", () => {
  const cases: [string, string, string[]][] = [
    [
      'testTumbleWindowKeepLastRow',
      dedup(TUMBLE, 'rowtime DESC'),
      [
        withWindow(ROW.r04, t('00'), t('05')),
        withWindow(ROW.r08, t('05'), t('10')),
        withWindow(ROW.r07, t('05'), t('10')),
        withWindow(ROW.r16, t('15'), t('20')),
        withWindow(ROW.r32, t('30'), t('35')),
        withWindow(ROW.r34, t('30'), t('35')),
      ],
    ],
    [
      'testTumbleWindowKeepFirstRow',
      dedup(TUMBLE, 'rowtime'),
      [
        withWindow(ROW.r01, t('00'), t('05')),
        withWindow(ROW.r08, t('05'), t('10')),
        withWindow(ROW.r06, t('05'), t('10')),
        withWindow(ROW.r16, t('15'), t('20')),
        withWindow(ROW.r32, t('30'), t('35')),
        withWindow(ROW.r34, t('30'), t('35')),
      ],
    ],
    [
      'testTumbleWindowKeepLastRowWithCalc',
      dedup(
        TUMBLE,
        'rowtime DESC',
        '`int`, `string`, `name`, window_start, window_end, window_time',
      ),
      [
        '5,null,a,2020-10-10T00:00,2020-10-10T00:00:05,2020-10-10T00:00:04.999',
        '3,Comment#2,a,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '3,Hello,b,2020-10-10T00:00:05,2020-10-10T00:00:10,2020-10-10T00:00:09.999',
        '4,Hi,b,2020-10-10T00:00:15,2020-10-10T00:00:20,2020-10-10T00:00:19.999',
        '7,null,null,2020-10-10T00:00:30,2020-10-10T00:00:35,2020-10-10T00:00:34.999',
        '1,Comment#3,b,2020-10-10T00:00:30,2020-10-10T00:00:35,2020-10-10T00:00:34.999',
      ],
    ],
    [
      'testCumulateWindowKeepLastRow',
      dedup(
        "CUMULATE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '15' SECOND)",
        'rowtime DESC',
      ),
      [
        withWindow(ROW.r04, t('00'), t('05')),
        withWindow(ROW.r08, t('00'), t('10')),
        withWindow(ROW.r08, t('00'), t('15')),
        withWindow(ROW.r07, t('00'), t('10')),
        withWindow(ROW.r07, t('00'), t('15')),
        withWindow(ROW.r16, t('15'), t('20')),
        withWindow(ROW.r16, t('15'), t('25')),
        withWindow(ROW.r16, t('15'), t('30')),
        withWindow(ROW.r32, t('30'), t('35')),
        withWindow(ROW.r32, t('30'), t('40')),
        withWindow(ROW.r32, t('30'), t('45')),
        withWindow(ROW.r34, t('30'), t('35')),
        withWindow(ROW.r34, t('30'), t('40')),
        withWindow(ROW.r34, t('30'), t('45')),
      ],
    ],
  ];

  it.each(cases)('%s', (_, sql, expected) => expectWindowRows(sql, expected));
});
