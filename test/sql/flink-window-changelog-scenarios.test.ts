/**
 * Window TVF aggregations over a changelog, from Flink's WindowAggregateITCase (its
 * `...WithCDCSource` cases and testRetractPreviousSlicingStateWithSlicingWindow) with Flink's
 * queries and expected rows: retractions take rows back out of their windows before they fire,
 * results stay insert-only, and a window whose rows all cancel out emits nothing.
 *
 * T1_CDC: `TestData.windowChangelogDataWithTimestamp` could not be read here, so its changes are
 * rebuilt from T1's rows to give every one of Flink's expected rows: the row at 00:00:01 is
 * deleted and the one at 00:00:04 updated before the watermark passes 00:00:05, and the rows
 * at 00:00:32 and 00:00:34 are deleted at the end.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from './flink-scenario-runner.js';
import {
  registerValues,
  registerValuesConnector,
  ts,
  type ValuesChange,
} from './flink-values-connector.js';
import { normalized, WINDOW_DATA } from './flink-window-data.js';

beforeAll(registerValuesConnector);

/** A DECIMAL(10, 2) as the rows hold it: its unscaled value. */
const cents = (text: string | null): bigint | null =>
  text === null ? null : BigInt(text.replace('.', ''));

/** T1's rows (WINDOW_DATA, in its order) as the connector's rows hold them. */
const T1 = WINDOW_DATA.map(([ts, i, d, f, dec, str, name]): unknown[] => [
  ts,
  i,
  d,
  f,
  cents(dec),
  str,
  name,
]);
/** A change of T1's row `at` (0: 00:00:01, 3: 00:00:04, 4: 00:00:07, 9: 00:00:32, 10: 00:00:34). */
const change = (kind: ValuesChange[0], at: number): ValuesChange => [
  kind,
  ...(T1[at] as unknown[]),
];

const CDC: ValuesChange[] = [
  ...[0, 1, 2, 3].map((at) => change('+I', at)),
  change('-D', 0),
  change('-U', 3),
  ['+U', '2020-10-10 00:00:04', 22, 22, 22, cents('25.55'), 'Comment#22', 'a'],
  // 00:00:07, 06, 08, the late 00:00:04, 16, 32 and 34.
  ...[4, 5, 6, 7, 8, 9, 10].map((at) => change('+I', at)),
  change('-D', 9),
  change('-D', 10),
];

const cdcTable = (name: string, columns: string, data: string) => `
  CREATE TABLE ${name} (
    ${columns},
    \`rowtime\` AS TO_TIMESTAMP(\`ts\`),
    WATERMARK FOR \`rowtime\` AS \`rowtime\` - INTERVAL '1' SECOND
  ) WITH ('connector' = 'flink-values', 'changelog-mode' = 'I,UA,UB,D', 'data-id' = '${data}');`;

/** Runs `query` over T1_CDC (and MyTable): its final rows and whether they came insert-only. */
async function cdcRows(
  query: string,
  changes: readonly ValuesChange[] = CDC,
): Promise<{ rows: string[]; insertOnly: boolean }> {
  const setup = `SET 'table.local-time-zone' = 'Asia/Shanghai';
    ${cdcTable(
      'T1_CDC',
      '`ts` STRING, `int` INT, `double` DOUBLE, `float` FLOAT, `bigdec` DECIMAL(10, 2), `string` STRING, `name` STRING',
      registerValues(changes),
    )}
    ${cdcTable(
      'MyTable',
      '`ts` STRING, `int` INT, `string` STRING, `name` STRING',
      registerValues([
        ['+I', '2020-10-10 00:00:01', 1, 's1', 'a'],
        ['+I', '2020-10-10 00:00:04', 1, 's2', 'a'],
        ['-D', '2020-10-10 00:00:06', 3, 's3', 'a'],
      ]),
    )}`;
  const [result] = await runScenario(setup, [query], { parallelism: 1, batchSize: 1 });
  return {
    rows: normalized(result?.rows ?? []),
    insertOnly: result?.changes.every((c) => c.startsWith('+I')) ?? false,
  };
}

const AGGS = 'COUNT(*), SUM(`bigdec`), MAX(`double`), MIN(`float`), COUNT(DISTINCT `string`)';
const byName = (tvf: string) => `SELECT \`name\`, window_start, window_end, ${AGGS}
  FROM TABLE(${tvf}) GROUP BY \`name\`, window_start, window_end`;

describe("Flink's WindowAggregateITCase over a CDC source", () => {
  const cases: [string, string, string[]][] = [
    [
      'testEventTimeTumbleWindowWithCDCSource',
      byName("TUMBLE(TABLE T1_CDC, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)"),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,3,29.99,22.0,2.0,2',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:10,1,3.33,null,3.0,1',
        'b,2020-10-10T00:00:05,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
      ],
    ],
    [
      'testEventTimeHopWindowWithCDCSource',
      byName("HOP(TABLE T1_CDC, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '10' SECOND)"),
      [
        'a,2020-10-09T23:59:55,2020-10-10T00:00:05,3,29.99,22.0,2.0,2',
        'a,2020-10-10T00:00,2020-10-10T00:00:10,5,38.87,22.0,2.0,4',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:15,1,3.33,null,3.0,1',
        'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
        'b,2020-10-10T00:00:05,2020-10-10T00:00:15,2,6.66,6.0,3.0,2',
        'b,2020-10-10T00:00:10,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1',
      ],
    ],
    [
      'testEventTimeCumulateWindowWithCDCSource',
      byName(
        "CUMULATE(TABLE T1_CDC, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '15' SECOND)",
      ),
      [
        'a,2020-10-10T00:00,2020-10-10T00:00:05,3,29.99,22.0,2.0,2',
        'a,2020-10-10T00:00,2020-10-10T00:00:10,5,38.87,22.0,2.0,4',
        'a,2020-10-10T00:00,2020-10-10T00:00:15,5,38.87,22.0,2.0,4',
        'b,2020-10-10T00:00,2020-10-10T00:00:10,2,6.66,6.0,3.0,2',
        'b,2020-10-10T00:00,2020-10-10T00:00:15,2,6.66,6.0,3.0,2',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:20,1,4.44,4.0,4.0,1',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:25,1,4.44,4.0,4.0,1',
        'b,2020-10-10T00:00:15,2020-10-10T00:00:30,1,4.44,4.0,4.0,1',
      ],
    ],
    [
      'testEventTimeSessionWindowWithCDCSource',
      byName("SESSION(TABLE T1_CDC PARTITION BY `name`, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)"),
      [
        'a,2020-10-10T00:00:01,2020-10-10T00:00:13,5,38.87,22.0,2.0,4',
        'b,2020-10-10T00:00:06,2020-10-10T00:00:12,2,6.66,6.0,3.0,2',
        'b,2020-10-10T00:00:16,2020-10-10T00:00:21,1,4.44,4.0,4.0,1',
      ],
    ],
    [
      // A delete whose insert the job never saw: the windows it falls in count -1 (Flink keeps
      // that until FLINK-33760), and COUNT(DISTINCT) has no value to take out.
      'testRetractPreviousSlicingStateWithSlicingWindow',
      `SELECT \`name\`, window_start, window_end, COUNT(*), SUM(\`int\`), COUNT(DISTINCT \`string\`)
        FROM TABLE(HOP(TABLE MyTable, DESCRIPTOR(rowtime), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
        GROUP BY \`name\`, window_start, window_end`,
      [
        'a,2020-10-09T23:59:55,2020-10-10T00:00:05,2,2,2',
        'a,2020-10-10T00:00,2020-10-10T00:00:10,1,-1,2',
        'a,2020-10-10T00:00:05,2020-10-10T00:00:15,-1,-3,0',
      ],
    ],
  ];
  it.each(cases)('%s', async (_, sql, expected) => {
    const { rows, insertOnly } = await cdcRows(sql);
    expect(rows).toEqual(normalized(expected));
    expect(insertOnly).toBe(true);
  });

  it('drops a retraction late for its window, as a late insert', async () => {
    // The -D of the row at 00:00:01 comes after the watermark passed 00:00:05: [0, 5) fired.
    const late = [change('+I', 0), change('+I', 4), change('-D', 0)];
    const { rows } = await cdcRows(
      `SELECT window_start, COUNT(*), SUM(\`int\`)
        FROM TABLE(TUMBLE(TABLE T1_CDC, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
        GROUP BY window_start, window_end`,
      late,
    );
    expect(rows).toEqual(normalized(['2020-10-10T00:00,1,1', '2020-10-10T00:00:05,1,3']));
  });

  it('retracts the row an upsert replaces from the windows of its own time', async () => {
    // Key 1 moves from 00:00:01 to 00:00:03, then to 00:00:06: its update-befores, made by
    // the upsert normalization, arrive with the new row's time but leave the old row's window.
    const setup = `CREATE TABLE u (id INT, v INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED
      ) WITH ('connector' = 'flink-values', 'changelog-mode' = 'UA,D', 'data-id' = '${registerValues(
        [
          ['+U', 1, 10, ts('2020-10-10T00:00:01')],
          ['+U', 2, 20, ts('2020-10-10T00:00:02')],
          ['+U', 1, 11, ts('2020-10-10T00:00:03')],
          ['+U', 1, 12, ts('2020-10-10T00:00:06')],
        ],
      )}');`;
    const [result] = await runScenario(
      setup,
      [
        `SELECT window_start, COUNT(*), SUM(v)
          FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ts), INTERVAL '5' SECOND))
          GROUP BY window_start, window_end`,
      ],
      { parallelism: 1, batchSize: 1 },
    );
    expect(normalized(result?.rows ?? [])).toEqual(
      normalized(['2020-10-10T00:00,1,20', '2020-10-10T00:00:05,1,12']),
    );
  });

  it('refuses an aggregate that cannot retract', async () => {
    await expect(
      cdcRows(
        `SELECT window_start, LISTAGG(\`string\`)
          FROM TABLE(TUMBLE(TABLE T1_CDC, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))
          GROUP BY window_start, window_end`,
      ),
    ).rejects.toThrow(/LISTAGG cannot retract/);
  });

  it('refuses the TVF over a changelog without a window aggregation', async () => {
    await expect(
      cdcRows(
        `SELECT * FROM TABLE(TUMBLE(TABLE T1_CDC, DESCRIPTOR(rowtime), INTERVAL '5' SECOND))`,
      ),
    ).rejects.toThrow(/updating input/);
  });
});
