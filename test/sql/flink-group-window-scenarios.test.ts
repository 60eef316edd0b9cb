/**
 * Legacy group windows of Flink's GroupWindowITCase (streaming): `GROUP BY TUMBLE/HOP/SESSION`
 * with their `_START`, `_END` and `_ROWTIME` functions, COUNT(DISTINCT), a user aggregate,
 * cascaded windows, a constant group key, windows over an upsert source and over a retracting
 * Top-1, and session windows that merge. Flink's data (`TestData.timestampData`, read through
 * the values connector with a watermark 10 ms behind) and its expected rows; the TIMESTAMP
 * variant of each case (Flink also runs each over TIMESTAMP_LTZ).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenario, type ScenarioOptions } from './flink-scenario-runner.js';
import {
  registerValues,
  registerValuesConnector,
  type ValuesChange,
} from './flink-values-connector.js';
import { concatDistinctAgg, normalized, weightedAvg } from './flink-window-data.js';

beforeAll(registerValuesConnector);

/** Flink's `TestData.timestampData`: ts, int, double, float, bigdec, string, name. */
const TIMESTAMP_DATA: readonly (readonly unknown[])[] = [
  ['1970-01-01 00:00:00.001', 1, 1, 1, 1, 'Hi', 'a'],
  ['1970-01-01 00:00:00.002', 2, 2, 2, 2, 'Hallo', 'a'],
  ['1970-01-01 00:00:00.003', 2, 2, 2, 2, 'Hello', 'a'],
  ['1970-01-01 00:00:00.004', 5, 5, 5, 5, 'Hello', 'a'],
  ['1970-01-01 00:00:00.007', 3, 3, 3, 3, 'Hello', 'b'],
  ['1970-01-01 00:00:00.006', 5, 5, 5, 5, 'Hello', 'a'],
  ['1970-01-01 00:00:00.008', 3, 3, 3, 3, 'Hello world', 'a'],
  ['1970-01-01 00:00:00.016', 4, 4, 4, 4, 'Hello world', 'b'],
  ['1970-01-01 00:00:00.032', 4, 4, 4, 4, null, null],
];

/** The ITCase's `testTable`, its rowtime computed from `ts`. */
function testTable(): string {
  // DECIMAL values cross the values connector as their unscaled bigint.
  const rows = TIMESTAMP_DATA.map((r) =>
    r.map((v, i) => (i === 4 ? BigInt(v as number) * 100n : v)),
  );
  return `CREATE TABLE testTable (
    \`ts\` STRING, \`int\` INT, \`double\` DOUBLE, \`float\` FLOAT, \`bigdec\` DECIMAL(10, 2),
    \`string\` STRING, \`name\` STRING,
    \`rowtime\` AS TO_TIMESTAMP(\`ts\`),
    WATERMARK FOR \`rowtime\` AS \`rowtime\` - INTERVAL '0.01' SECOND
  ) WITH ('connector' = 'flink-values', 'data-id' = '${registerValues(rows)}');`;
}

async function rowsOf(sql: string, options: ScenarioOptions & { readonly setup?: string } = {}) {
  const [result] = await runScenario(`${options.setup ?? ''}\n${testTable()}`, [sql], {
    parallelism: 1,
    batchSize: 1,
    ...options,
    tables: (env, tEnv) => {
      tEnv.createTemporarySystemFunction('concat_distinct_agg', concatDistinctAgg);
      options.tables?.(env, tEnv);
    },
  });
  return { rows: normalized(result?.rows ?? []), changes: result?.changes ?? [] };
}

async function expectAppend(sql: string, expected: readonly string[], options?: ScenarioOptions) {
  const { rows, changes } = await rowsOf(sql, options);
  expect(rows).toEqual(normalized(expected));
  expect(changes.every((c) => c.startsWith('+I'))).toBe(true);
}

/** A DataStream table with a watermark `offset` ms behind each row, as Flink's test assigner. */
function streamTable(
  name: string,
  columns: readonly (readonly [string, string])[],
  rows: readonly (readonly unknown[])[],
  offset: number,
): ScenarioOptions['tables'] {
  return (env, tEnv) =>
    tEnv.fromDataStream(name, env.fromArray(rows.map((r) => [...r])), {
      columns: columns.map(([n, type]) => ({ name: n, type })),
      watermark: { column: 'rowtime', expression: `rowtime - INTERVAL '${offset / 1000}' SECOND` },
    });
}

describe("Flink's GroupWindowITCase", () => {
  it('testEventTimeSlidingWindow', async () => {
    await expectAppend(
      `SELECT \`string\`,
        HOP_START(rowtime, INTERVAL '0.004' SECOND, INTERVAL '0.005' SECOND),
        HOP_ROWTIME(rowtime, INTERVAL '0.004' SECOND, INTERVAL '0.005' SECOND),
        COUNT(1), SUM(1), COUNT(\`int\`), COUNT(DISTINCT \`float\`), concat_distinct_agg(name)
      FROM testTable
      GROUP BY \`string\`, HOP(rowtime, INTERVAL '0.004' SECOND, INTERVAL '0.005' SECOND)`,
      [
        'Hallo,1970-01-01T00:00,1970-01-01T00:00:00.004,1,1,1,1,a',
        'Hello world,1970-01-01T00:00:00.004,1970-01-01T00:00:00.008,1,1,1,1,a',
        'Hello world,1970-01-01T00:00:00.008,1970-01-01T00:00:00.012,1,1,1,1,a',
        'Hello world,1970-01-01T00:00:00.012,1970-01-01T00:00:00.016,1,1,1,1,b',
        'Hello world,1970-01-01T00:00:00.016,1970-01-01T00:00:00.020,1,1,1,1,b',
        'Hello,1970-01-01T00:00,1970-01-01T00:00:00.004,2,2,2,2,a',
        'Hello,1970-01-01T00:00:00.004,1970-01-01T00:00:00.008,3,3,3,2,a|b',
        'Hi,1970-01-01T00:00,1970-01-01T00:00:00.004,1,1,1,1,a',
        'null,1970-01-01T00:00:00.028,1970-01-01T00:00:00.032,1,1,1,1,null',
        'null,1970-01-01T00:00:00.032,1970-01-01T00:00:00.036,1,1,1,1,null',
      ],
    );
  });

  it('testCascadingTumbleWindow', async () => {
    await expectAppend(
      `SELECT SUM(cnt) FROM (
        SELECT COUNT(1) AS cnt, TUMBLE_ROWTIME(rowtime, INTERVAL '10' SECOND) AS ts
        FROM testTable
        GROUP BY \`int\`, \`string\`, TUMBLE(rowtime, INTERVAL '10' SECOND)
      ) GROUP BY TUMBLE(ts, INTERVAL '10' SECOND)`,
      ['9'],
    );
  });

  it('testMinMaxWithTumblingWindow: early fires every second, an updating GROUP BY over them', async () => {
    const { rows } = await rowsOf(
      `SELECT MAX(max_ts), MIN(min_ts), \`string\` FROM (
        SELECT \`string\`, \`int\`, MAX(rowtime) AS max_ts, MIN(rowtime) AS min_ts
        FROM testTable GROUP BY \`string\`, \`int\`, TUMBLE(rowtime, INTERVAL '10' SECOND)
      ) GROUP BY \`string\``,
      {
        setup: `SET 'table.exec.emit.early-fire.enabled' = 'true';
          SET 'table.exec.emit.early-fire.delay' = '1000 ms';`,
      },
    );
    expect(rows).toEqual(
      normalized([
        '1970-01-01T00:00:00.001,1970-01-01T00:00:00.001,Hi',
        '1970-01-01T00:00:00.002,1970-01-01T00:00:00.002,Hallo',
        '1970-01-01T00:00:00.007,1970-01-01T00:00:00.003,Hello',
        '1970-01-01T00:00:00.016,1970-01-01T00:00:00.008,Hello world',
        '1970-01-01T00:00:00.032,1970-01-01T00:00:00.032,null',
      ]),
    );
  });

  it('testWindowAggregateOnConstantValue', async () => {
    await expectAppend(
      `SELECT TUMBLE_END(rowtime, INTERVAL '0.003' SECOND), COUNT(name)
      FROM testTable GROUP BY 'a', TUMBLE(rowtime, INTERVAL '0.003' SECOND)`,
      [
        '1970-01-01T00:00:00.003,2',
        '1970-01-01T00:00:00.006,2',
        '1970-01-01T00:00:00.009,3',
        '1970-01-01T00:00:00.018,1',
        '1970-01-01T00:00:00.033,0',
      ],
    );
  });

  it('testEventTimeSessionWindow', async () => {
    const data = [
      [1, 1, 'Hello', 'a'],
      [2, 2, 'Hello', 'b'],
      [8, 8, 'Hello', 'a'],
      [9, 9, 'Hello World', 'b'],
      [4, 4, 'Hello', 'c'],
      [16, 16, 'Hello', 'd'],
    ] as const;
    await expectAppend(
      `SELECT \`string\`,
        SESSION_START(rowtime, INTERVAL '0.005' SECOND),
        SESSION_ROWTIME(rowtime, INTERVAL '0.005' SECOND),
        COUNT(1), SUM(1), COUNT(\`int\`), SUM(\`int\`), COUNT(DISTINCT name)
      FROM T1 GROUP BY \`string\`, SESSION(rowtime, INTERVAL '0.005' SECOND)`,
      [
        'Hello World,1970-01-01T00:00:00.009,1970-01-01T00:00:00.013,1,1,1,9,1',
        'Hello,1970-01-01T00:00:00.016,1970-01-01T00:00:00.020,1,1,1,16,1',
        'Hello,1970-01-01T00:00:00.001,1970-01-01T00:00:00.012,4,4,4,15,3',
      ],
      {
        tables: streamTable(
          'T1',
          [
            ['rowtime', 'TIMESTAMP(3)'],
            ['int', 'INT'],
            ['string', 'STRING'],
            ['name', 'STRING'],
          ],
          data,
          10,
        ),
      },
    );
  });

  it('testDistinctAggWithMergeOnEventTimeSessionGroupWindow', async () => {
    const data = [
      [1, 2, 'Hello'],
      [2, 2, 'Hello'],
      [8, 2, 'Hello'],
      [10, 3, 'Hello'],
      [9, 9, 'Hello World'],
      [4, 1, 'Hello'],
      [16, 16, 'Hello'],
    ] as const;
    await expectAppend(
      `SELECT c, COUNT(DISTINCT b), SESSION_END(rowtime, INTERVAL '0.005' SECOND)
      FROM MyTable GROUP BY c, SESSION(rowtime, INTERVAL '0.005' SECOND)`,
      [
        'Hello World,1,1970-01-01T00:00:00.014',
        'Hello,1,1970-01-01T00:00:00.021',
        'Hello,3,1970-01-01T00:00:00.015',
      ],
      {
        tables: streamTable(
          'MyTable',
          [
            ['a', 'BIGINT'],
            ['b', 'INT'],
            ['c', 'STRING'],
            ['rowtime', 'TIMESTAMP(3)'],
          ],
          data.map(([a, b, c]) => [a, b, c, a]),
          10,
        ),
      },
    );
  });

  it('testWindowAggregateOnRetractStream', async () => {
    await expectAppend(
      `SELECT \`string\`,
        TUMBLE_START(rowtime, INTERVAL '0.005' SECOND) AS w_start,
        TUMBLE_END(rowtime, INTERVAL '0.005' SECOND) AS w_end,
        COUNT(1) AS cnt
      FROM (
        SELECT \`string\`, rowtime FROM (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY \`string\` ORDER BY rowtime DESC) AS rowNum
          FROM testTable
        ) WHERE rowNum = 1
      ) GROUP BY \`string\`, TUMBLE(rowtime, INTERVAL '0.005' SECOND)`,
      [
        'Hi,1970-01-01T00:00,1970-01-01T00:00:00.005,1',
        'Hallo,1970-01-01T00:00,1970-01-01T00:00:00.005,1',
        'Hello,1970-01-01T00:00:00.005,1970-01-01T00:00:00.010,1',
        'Hello world,1970-01-01T00:00:00.015,1970-01-01T00:00:00.020,1',
        'null,1970-01-01T00:00:00.030,1970-01-01T00:00:00.035,1',
      ],
    );
  });

  it('testEventTimeTumblingWindowWithAllowLateness: late rows within 10 ms update their windows', async () => {
    // Flink's data: a watermark at each row's time, two rows late within the allowed lateness,
    // (3, 1, Hi) after it (its window is gone: dropped).
    const data = [
      [1, 1, 'Hi'],
      [2, 2, 'Hello'],
      [4, 2, 'Hello'],
      [8, 3, 'Hello world'],
      [4, 3, 'Hello'],
      [16, 3, 'Hello world'],
      [9, 4, 'Hello world'],
      [3, 1, 'Hi'],
    ] as const;
    const sql = `SELECT \`string\`,
        TUMBLE_START(rowtime, INTERVAL '0.005' SECOND) AS w_start,
        TUMBLE_END(rowtime, INTERVAL '0.005' SECOND),
        COUNT(DISTINCT \`long\`), COUNT(\`int\`), CAST(AVG(\`int\`) AS INT),
        weightAvgFun(\`long\`, \`int\`), MIN(\`int\`), MAX(\`int\`), SUM(\`int\`)
      FROM T1 GROUP BY \`string\`, TUMBLE(rowtime, INTERVAL '0.005' SECOND)`;
    const [result] = await runScenario(
      `SET 'table.exec.emit.allow-lateness' = '10 ms';
       SET 'table.exec.emit.late-fire.enabled' = 'true';
       SET 'table.exec.emit.late-fire.delay' = '0 ms';`,
      [sql],
      {
        parallelism: 1,
        batchSize: 1,
        tables: (env, tEnv) => {
          tEnv.createTemporarySystemFunction('weightAvgFun', weightedAvg);
          streamTable(
            'T1',
            [
              ['long', 'BIGINT'],
              ['int', 'INT'],
              ['string', 'STRING'],
              ['rowtime', 'TIMESTAMP(3)'],
            ],
            data.map(([l, i, str]) => [l, i, str, l]),
            0,
          )?.(env, tEnv);
        },
      },
    );
    expect(normalized(result?.rows ?? [])).toEqual(
      normalized([
        'Hi,1970-01-01T00:00,1970-01-01T00:00:00.005,1,1,1,1,1,1,1',
        'Hello,1970-01-01T00:00,1970-01-01T00:00:00.005,2,3,2,3,2,3,7',
        'Hello world,1970-01-01T00:00:00.015,1970-01-01T00:00:00.020,1,1,3,16,3,3,3',
        'Hello world,1970-01-01T00:00:00.005,1970-01-01T00:00:00.010,2,2,3,8,3,4,7',
      ]),
    );
    // The late rows update what their windows emitted: retracted, then the new row.
    expect(result?.changes.filter((c) => c.startsWith('-U'))).toEqual([
      '-U(Hello,1970-01-01T00:00,1970-01-01T00:00:00.005,2,2,2,3,2,2,4)',
      '-U(Hello world,1970-01-01T00:00:00.005,1970-01-01T00:00:00.010,1,1,3,8,3,3,3)',
    ]);
  });

  it('emit options: checked at SET and when planned, as Flink checks them', async () => {
    const window = `SELECT COUNT(*) FROM testTable GROUP BY TUMBLE(rowtime, INTERVAL '0.005' SECOND)`;
    const session = `SELECT COUNT(*) FROM testTable GROUP BY SESSION(rowtime, INTERVAL '0.005' SECOND)`;
    await expect(runScenario("SET 'table.exec.emit.allow-lateness' = 'soon';", [])).rejects.toThrow(
      "'table.exec.emit.allow-lateness' is 'soon'; it must be a duration",
    );
    await expect(runScenario("SET 'table.exec.emit.unknown' = '1';", [])).rejects.toThrow(
      "SET 'table.exec.emit.unknown': not an emit option",
    );
    const late = `SET 'table.exec.emit.late-fire.enabled' = 'true';
      SET 'table.exec.emit.late-fire.delay' = '5 ms';`;
    await expect(rowsOf(window, { setup: late })).rejects.toThrow(
      "'table.exec.emit.late-fire.enabled' is 'true', so 'table.exec.emit.allow-lateness' must be positive",
    );
    await expect(
      rowsOf(window, { setup: `${late} SET 'table.exec.emit.allow-lateness' = '1 ms';` }),
    ).rejects.toThrow("'table.exec.emit.allow-lateness' (1 ms) must not be below");
    await expect(
      rowsOf(session, { setup: `${late} SET 'table.exec.emit.allow-lateness' = '10 ms';` }),
    ).rejects.toThrow('a session window takes no early or late fires');
  });

  it('early fires on every row: each row updates its window before it closes', async () => {
    const { rows, changes } = await rowsOf(
      `SELECT \`string\`, COUNT(*) AS n, TUMBLE_END(rowtime, INTERVAL '0.005' SECOND) AS w_end
      FROM testTable GROUP BY \`string\`, TUMBLE(rowtime, INTERVAL '0.005' SECOND)`,
      {
        setup: `SET 'table.exec.emit.early-fire.enabled' = 'true';
          SET 'table.exec.emit.early-fire.delay' = '0 ms';`,
      },
    );
    // The final rows are those without early fires (testTumble's counts).
    expect(rows).toEqual(
      normalized([
        'Hallo,1,1970-01-01T00:00:00.005',
        'Hello world,1,1970-01-01T00:00:00.010',
        'Hello world,1,1970-01-01T00:00:00.020',
        'Hello,2,1970-01-01T00:00:00.005',
        'Hello,2,1970-01-01T00:00:00.010',
        'Hi,1,1970-01-01T00:00:00.005',
        'null,1,1970-01-01T00:00:00.035',
      ]),
    );
    // The second Hello of [0, 5) updates the first at once.
    expect(changes).toContain('-U(Hello,1,1970-01-01T00:00:00.005)');
    expect(changes).toContain('+U(Hello,2,1970-01-01T00:00:00.005)');
  });

  describe('over an upsert source (changelog-mode UA,D)', () => {
    const sec = (s: number) => s * 1000;
    const CURRENCY: ValuesChange[] = [
      ['+U', 'Euro', 'no1', 114, sec(1)],
      ['+U', 'US Dollar', 'no1', 100, sec(1)],
      ['+U', 'US Dollar', 'no1', 102, sec(2)],
      ['+U', 'Yen', 'no1', 1, sec(3)],
      ['+U', 'RMB', 'no1', 702, sec(4)],
      ['+U', 'Euro', 'no1', 118, sec(18)],
      ['+U', 'US Dollar', 'no1', 104, sec(4)],
      ['-D', 'RMB', 'no1', 702, sec(4)],
    ];
    const upsertTable = () => `CREATE TABLE upsert_currency (
      currency STRING, currency_no STRING, rate BIGINT, currency_time TIMESTAMP(3),
      WATERMARK FOR currency_time AS currency_time - INTERVAL '5' SECOND,
      PRIMARY KEY (currency) NOT ENFORCED
    ) WITH ('connector' = 'flink-values', 'changelog-mode' = 'UA,D',
      'data-id' = '${registerValues(CURRENCY)}');`;
    const run = async (sql: string) => {
      const [result] = await runScenario(upsertTable(), [sql], { parallelism: 1, batchSize: 1 });
      return { rows: normalized(result?.rows ?? []), changes: result?.changes ?? [] };
    };

    it('testWindowAggregateOnUpsertSource', async () => {
      const { rows, changes } = await run(
        `SELECT currency, COUNT(1) AS cnt, MAX(rate),
          TUMBLE_START(currency_time, INTERVAL '5' SECOND) AS w_start,
          TUMBLE_END(currency_time, INTERVAL '5' SECOND) AS w_end
        FROM upsert_currency GROUP BY currency, TUMBLE(currency_time, INTERVAL '5' SECOND)`,
      );
      expect(rows).toEqual(
        normalized([
          'US Dollar,1,102,1970-01-01T00:00,1970-01-01T00:00:05',
          'Yen,1,1,1970-01-01T00:00,1970-01-01T00:00:05',
          'Euro,1,118,1970-01-01T00:00:15,1970-01-01T00:00:20',
          'RMB,1,702,1970-01-01T00:00,1970-01-01T00:00:05',
        ]),
      );
      expect(changes.every((c) => c.startsWith('+I'))).toBe(true);
    });

    it('testWindowAggregateOnUpsertSourceWithAllowLateness: late changes update and retract rows', async () => {
      const [result] = await runScenario(
        `SET 'table.exec.emit.allow-lateness' = '15 s';
         SET 'table.exec.emit.late-fire.enabled' = 'true';
         SET 'table.exec.emit.late-fire.delay' = '0 s';
         ${upsertTable()}`,
        [
          `SELECT currency, COUNT(1) AS cnt, MAX(rate),
            TUMBLE_START(currency_time, INTERVAL '5' SECOND) AS w_start,
            TUMBLE_END(currency_time, INTERVAL '5' SECOND) AS w_end
          FROM upsert_currency GROUP BY currency, TUMBLE(currency_time, INTERVAL '5' SECOND)`,
        ],
        { parallelism: 1, batchSize: 1 },
      );
      // US Dollar's late update replaces its row; RMB's late delete empties its window.
      expect(normalized(result?.rows ?? [])).toEqual(
        normalized([
          'US Dollar,1,104,1970-01-01T00:00,1970-01-01T00:00:05',
          'Yen,1,1,1970-01-01T00:00,1970-01-01T00:00:05',
          'Euro,1,118,1970-01-01T00:00:15,1970-01-01T00:00:20',
        ]),
      );
      // Each late change fires the window at once: US Dollar's update-before empties it (its
      // row retracted), its update-after fills it again.
      expect(result?.changes.slice(3)).toEqual([
        '-D(US Dollar,1,102,1970-01-01T00:00,1970-01-01T00:00:05)',
        '+I(US Dollar,1,104,1970-01-01T00:00,1970-01-01T00:00:05)',
        '-D(RMB,1,702,1970-01-01T00:00,1970-01-01T00:00:05)',
        '+I(Euro,1,118,1970-01-01T00:00:15,1970-01-01T00:00:20)',
      ]);
    });

    it('testWindowAggregateOnUpsertSourcePushdownWatermark', async () => {
      const { rows } = await run(
        `SELECT TUMBLE_START(currency_time, INTERVAL '5' SECOND) AS w_start,
          TUMBLE_END(currency_time, INTERVAL '5' SECOND) AS w_end, MAX(rate) AS max_rate
        FROM upsert_currency GROUP BY TUMBLE(currency_time, INTERVAL '5' SECOND)`,
      );
      expect(rows).toEqual(
        normalized([
          '1970-01-01T00:00,1970-01-01T00:00:05,702',
          '1970-01-01T00:00:15,1970-01-01T00:00:20,118',
        ]),
      );
    });
  });
});
