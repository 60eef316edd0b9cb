/**
 * The SQL differential suite: its tables, its queries (hand-written families and random
 * expressions), where Flink's answers are recorded, and how two answers are compared.
 */
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { handWrittenCases, type SuiteCase } from './families.js';
import { jsonAggregateCases } from './json-aggregate-cases.js';
import { preciseTimestampCases } from './precise-timestamp-cases.js';
import {
  randomAggregateCases,
  randomExpressionCases,
  randomOperatorCases,
} from './random-expressions.js';
import { joinTable, mainTable, type SuiteTable, zonedTable } from './tables.js';
import { zonedWindowCases } from './zoned-window-cases.js';
import { zonedWindowOperatorCases } from './zoned-window-operator-cases.js';

export type { SuiteCase } from './families.js';

export const GOLDEN_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'sql-differential-flink.jsonl',
);

const SEED = 14;
export const RANDOM_QUERIES = 187;
export const RANDOM_AGGREGATIONS = 45;
export const RANDOM_OPERATOR_QUERIES = 37;

export function suiteTables(): SuiteTable[] {
  return [mainTable(SEED, 48), joinTable(SEED + 1, 30, 48), zonedTable(SEED + 2)];
}

export function suiteCases(): SuiteCase[] {
  return [
    ...handWrittenCases(),
    ...randomExpressionCases(SEED, RANDOM_QUERIES),
    ...randomAggregateCases(SEED, RANDOM_AGGREGATIONS),
    ...randomOperatorCases(SEED, RANDOM_OPERATOR_QUERIES),
    ...zonedWindowCases(),
    ...zonedWindowOperatorCases(),
    ...jsonAggregateCases(),
    ...preciseTimestampCases(),
  ];
}

/** The tables every query's answer is taken to depend on; the others only where a query names them. */
const SHARED_TABLES = new Set(['t', 'u']);

/**
 * What a golden answer is for: the query's text, its zone and every input row of the shared
 * tables and of the other tables it names (a changed generator shows; a table added for new
 * queries leaves the answers recorded before it as they are).
 */
export function caseHash(c: SuiteCase, tables: readonly SuiteTable[]): string {
  const read = tables.filter(
    (t) => SHARED_TABLES.has(t.name) || new RegExp(`\\b${t.name}\\b`, 'i').test(c.sql),
  );
  return createHash('sha256')
    .update(JSON.stringify(read))
    .update('\n')
    .update(c.sql)
    .update(c.zone === undefined ? '' : `\n${c.zone}`)
    .digest('hex')
    .slice(0, 16);
}

/** An engine's answer: the final rows (as JSON texts, sorted) or that it refused the query. */
export type Answer =
  | { readonly updating: boolean; readonly rows: readonly string[] }
  | { readonly error: string };

/**
 * One cell as the comparison sees it. DOUBLE results are rounded to 12 significant digits
 * (both engines compute IEEE doubles, but an aggregate may add them in another order; the
 * inputs are multiples of 1/4, so sums are exact anyway); infinities and NaN as Java prints
 * them. Everything else (DECIMAL text, integers, strings, times in ms) compares exactly.
 */
function normalCell(v: unknown): unknown {
  if (typeof v !== 'number') return Array.isArray(v) ? v.map(normalCell) : v;
  if (!Number.isFinite(v)) return String(v);
  return Number.isInteger(v) ? v : Number(v.toPrecision(12));
}

/** Rows as sorted JSON texts of normalized cells. */
export function normalRows(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map((r) => JSON.stringify(r.map(normalCell))).sort();
}
