/** `weir sql -f script.sql`: a SQL script's statements applied to the job's environment. */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StreamEnvironment } from '../index.js';
import { TableEnvironment } from '../index.js';
import { externalSqlConnectors } from '../sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../sql/connectors/registry.js';
import { UsageError } from './failure.js';
import { statementResultText } from './sql-client/statement-result-text.js';

/**
 * Reads the script and adds its INSERT INTO, CTAS and SELECT statements to `env`'s job;
 * refuses a script without one. Returns what its SHOW, DESCRIBE and EXPLAIN statements answered.
 */
export async function buildSqlJob(
  env: StreamEnvironment,
  path: string,
): Promise<readonly string[]> {
  let script: string;
  try {
    script = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the SQL script ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  registerSqlConnectors(externalSqlConnectors);
  const tEnv = TableEnvironment.create(env);
  // CREATE FUNCTION modules load first: the statements themselves run synchronously.
  await tEnv.loadFunctionModules(script);
  // A SELECT prints its changes, as Flink's SQL client runs one from a file.
  const built = tEnv.buildScript(script, { printSelects: true });
  if (built.inserts === 0) {
    throw new UsageError(
      `${path} has no INSERT INTO, CREATE TABLE ... AS SELECT or SELECT statement: nothing to run`,
    );
  }
  // What SHOW and DESCRIBE answered, then the plans EXPLAIN asked for.
  return [...built.results.map(statementResultText), ...built.explained];
}

/** The job module worker threads load to build a script's job (`.ts` under tsx, `.js` when built). */
export function sqlJobModulePath(): string {
  const here = fileURLToPath(import.meta.url);
  return fileURLToPath(new URL(`./sql-job-module${extname(here)}`, import.meta.url));
}
