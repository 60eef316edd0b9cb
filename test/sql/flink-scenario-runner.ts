/**
 * Runs SQL scenarios ported from Flink's ITCases: a setup script (views over VALUES, SET), then
 * queries in one job; gives each query's final rows (its changelog applied) and its changes as
 * Flink's test sinks print them (`book,2,19,1`, `+U(book,2,19,1)`, `null` for NULL).
 */
import { materialize } from '../../bench/nexmark/weir-job.js';
import {
  type Change,
  type Clock,
  CollectSink,
  type Row,
  StreamEnvironment,
  type Table,
  TableEnvironment,
} from '../../src/index.js';

export interface ScenarioResult {
  /** Final rows, sorted. */
  readonly rows: string[];
  /** Every change in arrival order, `+I(...)`, `-U(...)`, `+U(...)`, `-D(...)`. */
  readonly changes: string[];
}

/** A row's cells as Flink's `Row.toString` shows them. */
export function flinkText(table: Table, row: Row): string {
  return table
    .display(row)
    .map((cell, i) => {
      if (cell === '<NULL>') return 'null';
      return table.columns[i]?.type.startsWith('BOOLEAN') ? cell.toLowerCase() : cell;
    })
    .join(',');
}

export interface ScenarioOptions {
  readonly parallelism?: number;
  readonly batchSize?: number;
  /** Registers tables (e.g. a DataStream with a rowtime) before the setup script runs. */
  readonly tables?: (env: StreamEnvironment, tEnv: TableEnvironment) => void;
  /** The processing-time clock (a manual one, for tests by processing time). */
  readonly clock?: Clock;
}

export async function runScenario(
  setup: string,
  queries: readonly string[],
  options: ScenarioOptions = {},
): Promise<ScenarioResult[]> {
  const env = new StreamEnvironment({
    parallelism: options.parallelism ?? 2,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const tEnv = TableEnvironment.create(env);
  options.tables?.(env, tEnv);
  if (setup.trim() !== '') tEnv.executeSql(setup);
  const sinks = queries.map((sql) => {
    const table = tEnv.sqlQuery(sql);
    const sink = new CollectSink<Change<Row>>();
    table.toChangelogStream().sinkTo(sink);
    return { table, sink };
  });
  await env.execute('flink scenario');
  return sinks.map(({ table, sink }) => ({
    rows: materialize(sink.values, (row) => flinkText(table, row)).sort(),
    changes: sink.values.map((c) => `${c.kind}(${flinkText(table, c.value)})`),
  }));
}

/** The final rows of one query. */
export async function scenarioRows(
  setup: string,
  query: string,
  options: ScenarioOptions = {},
): Promise<string[]> {
  const [result] = await runScenario(setup, [query], options);
  return (result as ScenarioResult).rows;
}

/** Literal text of a cell for a VALUES row. */
function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  return String(value);
}

/**
 * `CREATE TEMPORARY VIEW name AS SELECT ... FROM (VALUES ...)` with each column cast to its
 * type (as Flink's test data sets are typed by their Scala tuples).
 */
export function valuesView(
  name: string,
  columns: readonly (readonly [string, string])[],
  rows: readonly (readonly unknown[])[],
): string {
  const values = rows.map((r) => `(${r.map(literal).join(', ')})`).join(',\n  ');
  const select = columns
    .map(([column, type], i) => `CAST(EXPR$${i} AS ${type}) AS ${column}`)
    .join(', ');
  return `CREATE TEMPORARY VIEW ${name} AS SELECT ${select} FROM (VALUES\n  ${values});`;
}

/**
 * Flink's `TestData.tupleData3`: (a INT, b BIGINT, c STRING), 21 rows, b = 1..6 in runs of
 * 1, 2, 3, ... rows.
 */
export const TUPLE_DATA_3: readonly (readonly [number, number, string])[] = [
  [1, 1, 'Hi'],
  [2, 2, 'Hello'],
  [3, 2, 'Hello world'],
  [4, 3, 'Hello world, how are you?'],
  [5, 3, 'I am fine.'],
  [6, 3, 'Luke Skywalker'],
  ...Array.from({ length: 15 }, (_, i): readonly [number, number, string] => [
    7 + i,
    i < 4 ? 4 : i < 9 ? 5 : 6,
    `Comment#${i + 1}`,
  ]),
];

/** Flink's `TestData.tupleData5`: (a INT, b BIGINT, c INT, d STRING, e BIGINT), 15 rows. */
export const TUPLE_DATA_5: readonly (readonly [number, number, number, string, number])[] = [
  [1, 1, 0, 'Hallo', 1],
  [2, 2, 1, 'Hallo Welt', 2],
  [2, 3, 2, 'Hallo Welt wie', 1],
  [3, 4, 3, 'Hallo Welt wie gehts?', 2],
  [3, 5, 4, 'ABC', 2],
  [3, 6, 5, 'BCD', 3],
  [4, 7, 6, 'CDE', 2],
  [4, 8, 7, 'DEF', 1],
  [4, 9, 8, 'EFG', 1],
  [4, 10, 9, 'FGH', 2],
  [5, 11, 10, 'GHI', 1],
  [5, 12, 11, 'HIJ', 3],
  [5, 13, 12, 'IJK', 3],
  [5, 14, 13, 'JKL', 2],
  [5, 15, 14, 'KLM', 2],
];

/** Sorted copy. */
export const sorted = (rows: readonly string[]): string[] => [...rows].sort();

/** A `(key, id, rowtime)` row of Flink's IntervalJoinITCase (the rowtime in epoch ms). */
export type KeyIdRowtime = readonly [string | null, string, number];

/**
 * The left rows of Flink's IntervalJoinITCase.testRowTimeInnerJoin (and of its variants with
 * IS NOT DISTINCT FROM, without an equality, and with an aggregation after the join): a row at
 * the bound's edge (999) and one of a NULL key.
 */
export const INTERVAL_JOIN_LEFT: readonly KeyIdRowtime[] = [
  ['A', 'LEFT0.999', 999],
  ['A', 'LEFT1', 1000],
  ['A', 'LEFT2', 2000],
  ['A', 'LEFT3', 3000],
  ['B', 'LEFT4', 4000],
  ['A', 'LEFT5', 5000],
  ['A', 'LEFT6', 6000],
  [null, 'LEFT8', 8000],
];

/** The right rows of the same tests. */
export const INTERVAL_JOIN_RIGHT: readonly KeyIdRowtime[] = [
  ['A', 'RIGHT6', 6000],
  ['B', 'RIGHT7', 7000],
  [null, 'RIGHT10', 10000],
];

/** A row at its timestamp, or (a number) a watermark, as Flink's explicit-watermark test sources emit them. */
export type Timed = readonly [number, readonly unknown[]] | number;

/**
 * The rows of a timed sequence, each with the watermark to emit right after it (the one that
 * follows it in the sequence, else the last one before): the watermark column `wm` makes the
 * source emit Flink's explicit watermarks at the same places.
 */
export function withWatermarks(items: readonly Timed[]): unknown[][] {
  const rows: unknown[][] = [];
  let wm = 0;
  items.forEach((item, i) => {
    if (typeof item === 'number') return;
    const next = items[i + 1];
    if (typeof next === 'number') wm = next;
    rows.push([...item[1], item[0], wm]);
  });
  return rows;
}
