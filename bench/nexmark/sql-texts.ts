/** The Nexmark SQL texts of the Flink peer (its source.sql and queries/*.sql), for Weir SQL. */
import { readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitStatements } from '../../src/cli/sql-client/statement-splitter.js';
import type { NexmarkConfig } from '../../src/connectors/nexmark/index.js';
import { flinkPeerDir } from './flink-peer.js';
import { sideInputFile } from './side-input.js';

/** Where the harness splices in the generator options. */
const OPTIONS_MARK = ['$', '{OPTIONS}'].join('');

const resources = () => join(flinkPeerDir(), 'src', 'main', 'resources', 'weir-nexmark');

/** The peer's source.sql with the generator options appended to its WITH clause, as its harness does. */
export function nexmarkSourceSql(config: Partial<NexmarkConfig>): string {
  let options = '';
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    options += `,\n  '${key === 'maxEvents' ? 'events' : key}' = '${value}'`;
  }
  return readFileSync(join(resources(), 'source.sql'), 'utf8').replace(OPTIONS_MARK, options);
}

export function nexmarkQuerySql(name: string): string {
  return readFileSync(join(resources(), 'queries', `${name}.sql`), 'utf8');
}

/** The peer's side input table options (a connector of the peer's own) and Weir's for the file. */
const SIDE_INPUT_OPTIONS = /'connector' = 'weir-side-input',\s*'path' = '\$\{SIDE_INPUT\}'/;
/** q14's UDF: a Java class on the peer, the same function in TypeScript on Weir. */
const COUNT_CHAR_CLASS = "'weir.nexmark.CountChar'";

/**
 * A query file as Weir runs it: the peer's text with two references to the peer's own Java
 * code replaced. q13's side input table reads the same CSV file with Weir's `filesystem`
 * connector (only its WITH options differ), and q14's `count_char` names a TypeScript module
 * instead of a Java class.
 */
export function nexmarkQueryScriptForWeir(name: string): string {
  const text = nexmarkQuerySql(name);
  // count-char.ts beside this file, or count-char.js when the benchmark runs compiled.
  const here = fileURLToPath(import.meta.url);
  const countChar = join(dirname(here), `count-char${extname(here)}`);
  return text
    .replace(
      SIDE_INPUT_OPTIONS,
      `'connector' = 'filesystem', 'path' = '${sideInputFile()}', 'format' = 'csv'`,
    )
    .replace(COUNT_CHAR_CLASS, `'${countChar}#countChar'`);
}

/**
 * {@link nexmarkQueryScriptForWeir} split into what sets the query up (views, tables and
 * functions, as a script; empty for most queries) and the final SELECT.
 */
export function nexmarkQueryPartsForWeir(name: string): { setup: string; query: string } {
  const split = splitStatements(nexmarkQueryScriptForWeir(name));
  const statements = [...split.statements];
  const query = split.rest.trim() !== '' ? split.rest : (statements.pop() ?? '');
  return { setup: statements.map((s) => `${s};`).join('\n'), query };
}
