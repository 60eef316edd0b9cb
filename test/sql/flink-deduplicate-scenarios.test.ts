/**
 * Deduplication scenarios of Flink's DeduplicateITCase: the first or last row per key by a
 * processing-time attribute (a PROCTIME() column or PROCTIME() in the OVER clause) and by the
 * rowtime, with and without mini-batch, and a GROUP BY over a deduplication. Flink's expected
 * rows, and for the rowtime its changes.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { runScenario, sorted, TUPLE_DATA_3, valuesView } from './flink-scenario-runner.js';

const PROCTIME_T = `${valuesView(
  'T0',
  [
    ['a', 'INT'],
    ['b', 'BIGINT'],
    ['c', 'STRING'],
  ],
  TUPLE_DATA_3,
)}
CREATE TEMPORARY VIEW T AS SELECT *, PROCTIME() AS proctime FROM T0;`;

const dedup = (from: string, order: string, select = 'a, b, c', partition = 'b') =>
  `SELECT ${select} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY ${partition} ORDER BY ${order}) AS rowNum FROM ${from}) WHERE rowNum = 1`;

const FIRST_ROWS = [
  '1,1,Hi',
  '2,2,Hello',
  '4,3,Hello world, how are you?',
  '7,4,Comment#1',
  '11,5,Comment#5',
  '16,6,Comment#10',
];
const LAST_ROWS = [
  '1,1,Hi',
  '3,2,Hello world',
  '6,3,Luke Skywalker',
  '10,4,Comment#4',
  '15,5,Comment#9',
  '21,6,Comment#15',
];

/** Flink's rowtimeTestData: (a, b as the rowtime in ms, c), ascending watermarks. */
const ROWTIME_DATA: readonly (readonly [number, number, string])[] = [
  [1, 1, 'Hi'],
  [1, 3, 'Hello'],
  [1, 2, 'Hello world'],
  [2, 3, 'I am fine.'],
  [2, 6, 'Comment#1'],
  [3, 5, 'Comment#2'],
  [3, 4, 'Comment#2'],
  [4, 4, 'Comment#3'],
];

/** `T (a, b, c, rowtime)`, the rowtime from b, watermarks 1 ms behind the largest (Flink's ascending). */
function rowtimeTable(env: StreamEnvironment, tEnv: TableEnvironment): void {
  tEnv.fromDataStream('T', env.fromArray(ROWTIME_DATA.map(([a, b, c]) => [a, b, c, b])), {
    columns: [
      { name: 'a', type: 'INT' },
      { name: 'b', type: 'BIGINT' },
      { name: 'c', type: 'STRING' },
      { name: 'rowtime', type: 'TIMESTAMP(3)' },
    ],
    watermark: { column: 'rowtime', expression: "rowtime - INTERVAL '0.001' SECOND" },
  });
}

const MINI_BATCH = `SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';`;

describe("Flink's DeduplicateITCase", () => {
  it.each([
    ['off', ''],
    ['on', MINI_BATCH],
  ])('keeps the first and the last row by processing time (mini-batch %s)', async (_, set) => {
    const [first, firstBuiltin, last, lastBuiltin] = await runScenario(`${PROCTIME_T}\n${set}`, [
      dedup('T', 'proctime'),
      dedup('T0', 'proctime()'),
      dedup('T', 'proctime DESC'),
      dedup('T0', 'proctime() DESC'),
    ]);
    expect(first?.rows).toEqual(sorted(FIRST_ROWS));
    expect(firstBuiltin?.rows).toEqual(sorted(FIRST_ROWS));
    // The first row is never replaced: insert-only, as Flink's.
    expect(first?.changes.every((c) => c.startsWith('+I'))).toBe(true);
    expect(last?.rows).toEqual(sorted(LAST_ROWS));
    expect(lastBuiltin?.rows).toEqual(sorted(LAST_ROWS));
  });

  it.each([
    ['off', ''],
    ['on', MINI_BATCH],
  ])('keeps the first and the last row by the rowtime (mini-batch %s)', async (_, set) => {
    const [first, last, firstCount, lastCount] = await runScenario(
      set,
      [
        dedup('T', 'rowtime', 'a, b, c, rowtime', 'a'),
        dedup('T', 'rowtime DESC', 'a, b, c, rowtime', 'b'),
        `SELECT COUNT(b) FROM (${dedup('T', 'rowtime', 'a, b, c, rowtime', 'b')})`,
        `SELECT COUNT(b) FROM (${dedup('T', 'rowtime DESC', 'a, b, c, rowtime', 'b')})`,
      ],
      { parallelism: 1, tables: rowtimeTable },
    );
    expect(sorted(first?.changes ?? [])).toEqual(
      sorted([
        '+I(1,1,Hi,1970-01-01T00:00:00.001)',
        '+I(2,3,I am fine.,1970-01-01T00:00:00.003)',
        '+I(3,5,Comment#2,1970-01-01T00:00:00.005)',
        '-U(3,5,Comment#2,1970-01-01T00:00:00.005)',
        '+U(3,4,Comment#2,1970-01-01T00:00:00.004)',
        '+I(4,4,Comment#3,1970-01-01T00:00:00.004)',
      ]),
    );
    expect(sorted(last?.changes ?? [])).toEqual(
      sorted([
        '+I(1,1,Hi,1970-01-01T00:00:00.001)',
        '+I(1,3,Hello,1970-01-01T00:00:00.003)',
        '+I(1,2,Hello world,1970-01-01T00:00:00.002)',
        '-U(1,3,Hello,1970-01-01T00:00:00.003)',
        '+U(2,3,I am fine.,1970-01-01T00:00:00.003)',
        '+I(2,6,Comment#1,1970-01-01T00:00:00.006)',
        '+I(3,5,Comment#2,1970-01-01T00:00:00.005)',
        '+I(3,4,Comment#2,1970-01-01T00:00:00.004)',
        '-U(3,4,Comment#2,1970-01-01T00:00:00.004)',
        '+U(4,4,Comment#3,1970-01-01T00:00:00.004)',
      ]),
    );
    expect(firstCount?.rows).toEqual(['6']);
    expect(lastCount?.rows).toEqual(['6']);
  });
});
