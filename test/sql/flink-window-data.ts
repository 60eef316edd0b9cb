/**
 * The tables of Flink's window TVF ITCases (WindowAggregateITCase, WindowRankITCase,
 * WindowDeduplicateITCase, WindowJoinITCase, WindowTableFunctionITCase): `T1` and `T2` from
 * `TestData.windowDataWithTimestamp` and `windowData2WithTimestamp`, a TIMESTAMP(3) rowtime
 * with a watermark one second behind, the session zone Asia/Shanghai, and Flink's
 * `concat_distinct_agg`. Rows are read one at a time (batch size 1, one source subtask), so
 * the watermark passes each row before the next, as Flink's source does with this data: the
 * row at 00:00:04 after 00:00:08 is late for the windows that ended by 00:00:07.
 */
import { expect } from 'vitest';
import {
  defineAggregateFunction,
  type StreamEnvironment,
  type TableEnvironment,
} from '../../src/index.js';
import { runScenario, type ScenarioOptions } from './flink-scenario-runner.js';

/** ts, int, double, float, bigdec, string, name. */
type WindowRow = readonly [
  string,
  number,
  number | null,
  number | null,
  string | null,
  string | null,
  string | null,
];

/** Flink's `TestData.windowDataWithTimestamp`, in its order (one row out of order, one late). */
export const WINDOW_DATA: readonly WindowRow[] = [
  ['2020-10-10 00:00:01', 1, 1, 1, '1.11', 'Hi', 'a'],
  ['2020-10-10 00:00:02', 2, 2, 2, '2.22', 'Comment#1', 'a'],
  ['2020-10-10 00:00:03', 2, 2, 2, '2.22', 'Comment#1', 'a'],
  ['2020-10-10 00:00:04', 5, 5, 5, '5.55', null, 'a'],
  ['2020-10-10 00:00:07', 3, 3, 3, null, 'Hello', 'b'],
  ['2020-10-10 00:00:06', 6, 6, 6, '6.66', 'Hi', 'b'],
  ['2020-10-10 00:00:08', 3, null, 3, '3.33', 'Comment#2', 'a'],
  ['2020-10-10 00:00:04', 5, 5, null, '5.55', 'Hi', 'a'],
  ['2020-10-10 00:00:16', 4, 4, 4, '4.44', 'Hi', 'b'],
  ['2020-10-10 00:00:32', 7, 7, 7, '7.77', null, null],
  ['2020-10-10 00:00:34', 1, 3, 3, '3.33', 'Comment#3', 'b'],
];

/** Flink's `TestData.windowData2WithTimestamp`: the same rows with `a1` where T1 has `a`. */
export const WINDOW_DATA_2: readonly WindowRow[] = WINDOW_DATA.map(
  ([ts, i, d, f, dec, s, name]) => [ts, i, d, f, dec, s, name === 'a' ? 'a1' : name],
);

const COLUMNS = [
  { name: 'ts', type: 'STRING' },
  { name: 'int', type: 'INT' },
  { name: 'double', type: 'DOUBLE' },
  { name: 'float', type: 'FLOAT' },
  { name: 'bigdec', type: 'DECIMAL(10, 2)' },
  { name: 'string', type: 'STRING' },
  { name: 'name', type: 'STRING' },
  { name: 'rowtime', type: 'TIMESTAMP(3)' },
];

/** Flink's ConcatDistinctAggFunction: the distinct non-NULL values in first-seen order, `|`-joined. */
export const concatDistinctAgg = defineAggregateFunction<string[]>({
  arguments: ['STRING'],
  result: 'STRING',
  createAccumulator: () => [],
  accumulate(acc, v: string | null) {
    if (v !== null && !acc.includes(v)) acc.push(v);
    return acc;
  },
  merge: (a, b) => [...a, ...b.filter((v) => !a.includes(v))],
  getValue: (acc) => (acc.length === 0 ? null : acc.join('|')),
});

function register(
  env: StreamEnvironment,
  tEnv: TableEnvironment,
  name: string,
  rows: readonly WindowRow[],
) {
  tEnv.fromDataStream(
    name,
    env.fromArray(rows.map((r) => [...r, Date.parse(`${r[0].replace(' ', 'T')}Z`)])),
    {
      columns: COLUMNS,
      watermark: { column: 'rowtime', expression: "rowtime - INTERVAL '1' SECOND" },
    },
  );
}

/** Flink's WeightedAvg (its BIGINT overload): a truncated weighted mean. */
export const weightedAvg = defineAggregateFunction<{ sum: number; count: number }>({
  arguments: ['BIGINT', 'BIGINT'],
  result: 'BIGINT',
  createAccumulator: () => ({ sum: 0, count: 0 }),
  accumulate(acc, value: number | null, weight: number | null) {
    if (value !== null && weight !== null) {
      acc.sum += value * weight;
      acc.count += weight;
    }
    return acc;
  },
  getValue: (acc) => (acc.count === 0 ? null : Math.trunc(acc.sum / acc.count)),
});

/** Registers T1, T2 and concat_distinct_agg, as the ITCases' set-up does. */
export function windowTables(env: StreamEnvironment, tEnv: TableEnvironment): void {
  register(env, tEnv, 'T1', WINDOW_DATA);
  register(env, tEnv, 'T2', WINDOW_DATA_2);
  tEnv.createTemporarySystemFunction('concat_distinct_agg', concatDistinctAgg);
}

/**
 * A cell in one form whichever side printed it: Flink's `LocalDateTime` text
 * (`2020-10-10T00:00`, `...T00:00:04.999`) and Weir's (`2020-10-10 00:00:00.000`) both become
 * `2020-10-10 00:00:00.000`.
 */
function sameTime(cell: string): string {
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(:\d\d)?(\.\d+)?$/.exec(cell);
  if (m === null) return cell;
  const fraction = (m[4] ?? '.').slice(1).padEnd(3, '0');
  return `${m[1]} ${m[2]}${m[3] ?? ':00'}.${fraction}`;
}

/** Rows with their time cells in one form, sorted. */
export function normalized(rows: readonly string[]): string[] {
  return rows.map((r) => r.split(',').map(sameTime).join(',')).sort();
}

/** The final rows of each query over T1 and T2, time cells normalized, and its changes. */
export async function windowScenario(
  queries: readonly string[],
  options: ScenarioOptions = {},
): Promise<{ rows: string[]; changes: string[] }[]> {
  const results = await runScenario("SET 'table.local-time-zone' = 'Asia/Shanghai';", queries, {
    parallelism: 1,
    batchSize: 1,
    ...options,
    tables: (env, tEnv) => {
      windowTables(env, tEnv);
      options.tables?.(env, tEnv);
    },
  });
  return results.map((r) => ({ rows: normalized(r.rows), changes: r.changes }));
}

/** The final rows of one query over T1 and T2. */
export async function windowRows(query: string, options: ScenarioOptions = {}): Promise<string[]> {
  const [result] = await windowScenario([query], options);
  return result?.rows ?? [];
}

/** T1's rows as Flink's sinks print them (ts, int, double, float, bigdec, string, name). */
export const ROW = {
  r01: '00:00:01,1,1.0,1.0,1.11,Hi,a',
  r02: '00:00:02,2,2.0,2.0,2.22,Comment#1,a',
  r03: '00:00:03,2,2.0,2.0,2.22,Comment#1,a',
  r04: '00:00:04,5,5.0,5.0,5.55,null,a',
  r04late: '00:00:04,5,5.0,null,5.55,Hi,a',
  r06: '00:00:06,6,6.0,6.0,6.66,Hi,b',
  r07: '00:00:07,3,3.0,3.0,null,Hello,b',
  r08: '00:00:08,3,null,3.0,3.33,Comment#2,a',
  r16: '00:00:16,4,4.0,4.0,4.44,Hi,b',
  r32: '00:00:32,7,7.0,7.0,7.77,null,null',
  r34: '00:00:34,1,3.0,3.0,3.33,Comment#3,b',
} as const;

/**
 * A row of ROW as the TVF cases print it: TO_TIMESTAMP(ts), the columns, CAST(rowtime AS
 * STRING), then its window's start, end (`2020-10-10T00:00:05`) and window_time (end - 1 ms).
 */
export function withWindow(row: string, start: string, end: string): string {
  const ts = row.slice(0, 8);
  const time = new Date(Date.parse(`${end}Z`) - 1).toISOString().slice(0, 23);
  return `2020-10-10T${ts},${row.slice(9)},2020-10-10 ${ts}.000,${start},${end},${time}`;
}

/** Runs one query and checks Flink's rows, and that they came insert-only, each once. */
export async function expectWindowRows(sql: string, expected: readonly string[]): Promise<void> {
  const [result] = await windowScenario([sql]);
  expect(result?.rows).toEqual(normalized(expected));
  expect(result?.changes.every((c) => c.startsWith('+I'))).toBe(true);
}
