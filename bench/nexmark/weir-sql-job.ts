/**
 * Runs a Nexmark query's SQL text (the Flink peer's source.sql and queries/q*.sql, verbatim) on
 * Weir SQL over the generated events, and measures how long planning took.
 */
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { type Sink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { nexmarkQueryPartsForWeir, nexmarkSourceSql } from './sql-texts.js';

/**
 * The table options the Flink peer's harness sets (the reference benchmark's configuration),
 * so both engines plan the texts alike. `miniBatch: false` leaves them out.
 */
export function nexmarkTableOptions(miniBatch: boolean): string {
  if (!miniBatch) return '';
  return [
    "SET 'table.exec.mini-batch.enabled' = 'true';",
    "SET 'table.exec.mini-batch.allow-latency' = '2s';",
    "SET 'table.exec.mini-batch.size' = '50000';",
  ].join('\n');
}

/** The sink the `nexmark-blackhole` tables of this process write to. */
let currentSink: Sink<unknown> | undefined;

const sinkOf = <T>(): Sink<T> => {
  if (currentSink === undefined) throw new Error('no benchmark sink set');
  return currentSink as Sink<T>;
};

/**
 * `nexmark-blackhole`: the benchmark sink as a SQL table that, like Flink's `blackhole` (where
 * the peer's harness inserts), takes an updating query's changes without update-befores;
 * `nexmark-blackhole-retract` takes them with (as a `print` table would).
 */
registerSqlConnectors([
  {
    name: 'nexmark-blackhole',
    options: [],
    sink: sinkOf,
    changelogSink: sinkOf,
    ignoresUpdateBefore: true,
  },
  { name: 'nexmark-blackhole-retract', options: [], sink: sinkOf, changelogSink: sinkOf },
]);

/** How an updating query's changes reach the sink. */
export type UpdateBefore = 'ignored' | 'kept';

async function tableEnvironment(
  env: StreamEnvironment,
  setup: string,
  config: Partial<NexmarkConfig>,
  miniBatch: boolean,
): Promise<TableEnvironment> {
  const tEnv = TableEnvironment.create(env);
  const options = nexmarkTableOptions(miniBatch);
  if (options !== '') tEnv.executeSql(options);
  tEnv.executeSql(nexmarkSourceSql(config));
  await tEnv.loadFunctionModules(setup);
  if (setup !== '') tEnv.executeSql(setup);
  return tEnv;
}

/**
 * Plans query `name` into `sink` (`INSERT INTO` a table of the sink, as the peer's harness
 * inserts into Flink's blackhole), runs it, and returns the planning time (parse to physical
 * plan, not counting the scratch planning that finds the result's columns). With
 * `updateBefore: 'kept'` an updating query's operators keep their update-befores, as before
 * the changelog-mode inference dropped them for such a sink.
 */
export async function runSqlOnWeir(
  name: string,
  config: Partial<NexmarkConfig>,
  parallelism: number,
  sink: Sink<unknown>,
  miniBatch = true,
  updateBefore: UpdateBefore = 'ignored',
): Promise<{ planningMs: number }> {
  const { setup, query } = nexmarkQueryPartsForWeir(name);
  currentSink = sink;
  const scratch = await tableEnvironment(new StreamEnvironment(), setup, config, miniBatch);
  const columns = scratch.sqlQuery(query).columns;
  const connector = updateBefore === 'ignored' ? 'nexmark-blackhole' : 'nexmark-blackhole-retract';
  const started = performance.now();
  const env = new StreamEnvironment({ parallelism });
  const tEnv = await tableEnvironment(env, setup, config, miniBatch);
  tEnv.executeSql(
    `CREATE TABLE nexmark_results (${uniqueNames(columns.map((c) => c.name))
      .map((n, i) => `\`${n}\` ${columns[i]?.type}`)
      .join(', ')})
       WITH ('connector' = '${connector}')`,
  );
  // The INSERT plans the query and starts the job (whose physical plan is built as it starts).
  const { job } = tEnv.executeSql(`INSERT INTO nexmark_results ${query}`, {
    jobName: `nexmark sql ${name}`,
  });
  const planningMs = performance.now() - started;
  await job?.result;
  return { planningMs };
}

/**
 * A result's column names made unique for the sink table, as Flink derives them (`dateTime`,
 * `dateTime0`): q20 selects `B.dateTime` and `A.dateTime`. INSERT INTO maps by position.
 */
function uniqueNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const n = seen.get(name);
    seen.set(name, (n ?? -1) + 1);
    return n === undefined ? name : `${name}${n}`;
  });
}
