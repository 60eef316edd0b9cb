/**
 * Window TVFs read without aggregation, from Flink's WindowTableFunctionITCase (streaming):
 * each row of `TestData.windowDataWithTimestamp` with the TUMBLE (with offsets), HOP and
 * CUMULATE windows it falls in. The TVF alone drops no row, the late one included, as in
 * Flink. A SESSION TVF read without aggregation holds each row until its session closes, then
 * emits it with its merged session's window columns.
 */
import { describe, expect, it } from 'vitest';
import { normalized, windowRows, windowScenario } from './flink-window-data.js';

const ROW_COLUMNS =
  'TO_TIMESTAMP(`ts`), `int`, `double`, `float`, `bigdec`, `string`, `name`, CAST(`rowtime` AS STRING), window_start, window_end, window_time';
const select = (tvf: string) => `SELECT ${ROW_COLUMNS} FROM TABLE(${tvf})`;

/** Flink's T1 rows as its sinks print them (ts, int, double, float, bigdec, string, name). */
const ROWS = [
  '00:00:01,1,1.0,1.0,1.11,Hi,a',
  '00:00:02,2,2.0,2.0,2.22,Comment#1,a',
  '00:00:03,2,2.0,2.0,2.22,Comment#1,a',
  '00:00:04,5,5.0,5.0,5.55,null,a',
  '00:00:04,5,5.0,null,5.55,Hi,a',
  '00:00:06,6,6.0,6.0,6.66,Hi,b',
  '00:00:07,3,3.0,3.0,null,Hello,b',
  '00:00:08,3,null,3.0,3.33,Comment#2,a',
  '00:00:16,4,4.0,4.0,4.44,Hi,b',
  '00:00:32,7,7.0,7.0,7.77,null,null',
  '00:00:34,1,3.0,3.0,3.33,Comment#3,b',
];

/**
 * Flink's expected rows: each row (by its index in ROWS) with the windows listed for it, a
 * window as its start and end (`HH:MM:SS` on 2020-10-10, or a full date-time).
 */
function expected(windows: readonly (readonly (readonly [string, string])[])[]): string[] {
  const at = (t: string) => (t.includes('T') ? t : `2020-10-10T${t}`);
  return windows.flatMap((ws, i) => {
    const row = ROWS[i] ?? '';
    const ts = row.slice(0, 8);
    return ws.map(([start, end]) => {
      const wt = new Date(Date.parse(`${at(end)}Z`) - 1).toISOString().slice(0, 23);
      return `2020-10-10T${ts},${row.slice(9)},2020-10-10 ${ts}.000,${at(start)},${at(end)},${wt}`;
    });
  });
}
const one = (start: string, end: string) => [[start, end]] as const;

describe("Flink's WindowTableFunctionITCase", () => {
  const cases: [string, string, string[]][] = [
    [
      'testTumbleWindow',
      select("TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)"),
      expected([
        ...Array.from({ length: 5 }, () => one('00:00:00', '00:00:05')),
        ...Array.from({ length: 3 }, () => one('00:00:05', '00:00:10')),
        one('00:00:15', '00:00:20'),
        one('00:00:30', '00:00:35'),
        one('00:00:30', '00:00:35'),
      ]),
    ],
    [
      'testTumbleWindowTVFWithOffset',
      select("TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '1' SECOND)"),
      expected([
        ...Array.from({ length: 5 }, () => one('00:00:01', '00:00:06')),
        ...Array.from({ length: 3 }, () => one('00:00:06', '00:00:11')),
        one('00:00:16', '00:00:21'),
        one('00:00:31', '00:00:36'),
        one('00:00:31', '00:00:36'),
      ]),
    ],
    [
      'testTumbleWindowTVFWithNegativeOffset',
      select("TUMBLE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '-1' SECOND)"),
      expected([
        ...Array.from({ length: 3 }, () => one('2020-10-09T23:59:59', '00:00:04')),
        ...Array.from({ length: 5 }, () => one('00:00:04', '00:00:09')),
        one('00:00:14', '00:00:19'),
        one('00:00:29', '00:00:34'),
        one('00:00:34', '00:00:39'),
      ]),
    ],
    [
      'testHopWindow',
      select("HOP(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '10' SECOND)"),
      expected([
        ...Array.from({ length: 5 }, () => [
          ['2020-10-09T23:59:55', '00:00:05'] as const,
          ['00:00:00', '00:00:10'] as const,
        ]),
        ...Array.from({ length: 3 }, () => [
          ['00:00:00', '00:00:10'] as const,
          ['00:00:05', '00:00:15'] as const,
        ]),
        [
          ['00:00:10', '00:00:20'],
          ['00:00:15', '00:00:25'],
        ],
        ...Array.from({ length: 2 }, () => [
          ['00:00:25', '00:00:35'] as const,
          ['00:00:30', '00:00:40'] as const,
        ]),
      ]),
    ],
    [
      'testCumulateWindow',
      select("CUMULATE(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '15' SECOND)"),
      expected([
        ...Array.from({ length: 5 }, () => [
          ['00:00:00', '00:00:05'] as const,
          ['00:00:00', '00:00:10'] as const,
          ['00:00:00', '00:00:15'] as const,
        ]),
        ...Array.from({ length: 3 }, () => [
          ['00:00:00', '00:00:10'] as const,
          ['00:00:00', '00:00:15'] as const,
        ]),
        [
          ['00:00:15', '00:00:20'],
          ['00:00:15', '00:00:25'],
          ['00:00:15', '00:00:30'],
        ],
        ...Array.from({ length: 2 }, () => [
          ['00:00:30', '00:00:35'] as const,
          ['00:00:30', '00:00:40'] as const,
          ['00:00:30', '00:00:45'] as const,
        ]),
      ]),
    ],
  ];

  it.each(cases)('%s', async (_, sql, rows) => {
    expect(await windowRows(sql)).toEqual(normalized(rows));
  });

  // SESSION TVFs read without an aggregation directly over them: each row with its merged
  // session, emitted when the session closes (T1's late row at 00:00:04 still joins the open
  // session of a, [00:00:01, 00:00:13)).
  const A_SESSION = one('00:00:01', '00:00:13');
  const sessions: [string, string, string[]][] = [
    [
      'SESSION TVF with PARTITION BY',
      select("SESSION(TABLE T1 PARTITION BY `name`, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)"),
      expected([
        ...Array.from({ length: 5 }, () => A_SESSION),
        one('00:00:06', '00:00:12'),
        one('00:00:06', '00:00:12'),
        A_SESSION,
        one('00:00:16', '00:00:21'),
        one('00:00:32', '00:00:37'),
        one('00:00:34', '00:00:39'),
      ]),
    ],
    [
      'SESSION TVF without PARTITION BY',
      select("SESSION(TABLE T1, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)"),
      expected([
        ...Array.from({ length: 8 }, () => A_SESSION),
        one('00:00:16', '00:00:21'),
        one('00:00:32', '00:00:39'),
        one('00:00:32', '00:00:39'),
      ]),
    ],
  ];

  it.each(sessions)('%s', async (_, sql, rows) => {
    const [result] = await windowScenario([sql]);
    expect(result?.rows).toEqual(normalized(rows));
    expect(result?.changes.every((c) => c.startsWith('+I'))).toBe(true);
  });

  // WindowAggregateITCase's testEventTimeSessionWindowWithTVFNotPullUpIntoWindowAgg: a filter
  // between the SESSION TVF and its aggregation. Flink's final rows; Weir aggregates the
  // sessions' rows as an updating GROUP BY (Flink's result is insert-only).
  it('testEventTimeSessionWindowWithTVFNotPullUpIntoWindowAgg', async () => {
    const sql = `SELECT \`name\`, window_start, window_end, COUNT(*), SUM(\`bigdec\`),
        MAX(\`double\`), MIN(\`float\`), COUNT(DISTINCT \`string\`), concat_distinct_agg(\`string\`)
      FROM (
        SELECT * FROM TABLE(
          SESSION(TABLE T1 PARTITION BY \`name\`, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
        WHERE window_start > TIMESTAMP '2000-01-01 10:10:00.000'
      ) GROUP BY \`name\`, window_start, window_end`;
    expect(await windowRows(sql)).toEqual(
      normalized([
        'a,2020-10-10T00:00:01,2020-10-10T00:00:13,6,19.98,5.0,1.0,3,Hi|Comment#1|Comment#2',
        'b,2020-10-10T00:00:06,2020-10-10T00:00:12,2,6.66,6.0,3.0,2,Hello|Hi',
        'b,2020-10-10T00:00:16,2020-10-10T00:00:21,1,4.44,4.0,4.0,1,Hi',
        'b,2020-10-10T00:00:34,2020-10-10T00:00:39,1,3.33,3.0,3.0,1,Comment#3',
        'null,2020-10-10T00:00:32,2020-10-10T00:00:37,1,7.77,7.0,7.0,0,null',
      ]),
    );
  });
});
