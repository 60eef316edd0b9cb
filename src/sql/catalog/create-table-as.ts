/**
 * `CREATE TABLE t [(columns)] WITH (...) AS query` (CTAS), by Flink's rules: the table takes
 * the query's columns, after the columns the CREATE part declares; a column declared there
 * and named by the query keeps the declared position (and the declared type, to which the
 * query's value is cast as INSERT INTO would); a column only the CREATE part declares is
 * written as NULL; a column list of names alone reorders the query's columns. PRIMARY KEY,
 * WATERMARK and PARTITIONED BY are the CREATE part's. The query is then inserted into the
 * table, as `CREATE TABLE` followed by `INSERT INTO ... SELECT` would.
 */
import type { ColumnDefinition, Query, Statement } from '../parser/ast.js';
import { sqlError } from '../sql-error.js';
import type { LogicalType } from '../types/logical-type.js';

type CreateTable = Extract<Statement, { kind: 'create-table' }>;

/** The query's result columns, as the planner types them. */
export interface QueryColumn {
  readonly name: string;
  readonly type: LogicalType;
}

/** Refuses what Flink's CTAS refuses before the query is planned. */
export function checkCreateTableAs(s: CreateTable): void {
  if (s.temporary)
    sqlError('CREATE TEMPORARY TABLE ... AS SELECT is not supported (Flink refuses it too)', s.at);
}

/**
 * The table definition (no query left) from the CTAS statement and its query's columns, and
 * which query column fills each column INSERT INTO writes (undefined: NULL), when that is not
 * simply the query's order.
 */
export function splitCreateTableAs(
  s: CreateTable,
  queryColumns: readonly QueryColumn[],
): { table: CreateTable; columnOf?: readonly (number | undefined)[] } {
  const query = s.asQuery as Query;
  const byName = new Map(queryColumns.map((c) => [c.name, c]));
  if (byName.size !== queryColumns.length) {
    const seen = new Set<string>();
    const twice = queryColumns.find((c) => seen.has(c.name) || !seen.add(c.name));
    sqlError(
      `the query of CREATE TABLE ${s.name} ... AS has two columns named '${twice?.name}': give them aliases`,
      query.at,
    );
  }
  const declared = new Set<string>();
  const columns: ColumnDefinition[] = s.columns.map((c) => {
    declared.add(c.name);
    if (c.kind !== 'name-only') return c;
    const from = byName.get(c.name);
    if (from === undefined)
      sqlError(
        `column '${c.name}' of CREATE TABLE ${s.name} needs a type: the query has no column of that name (it has ${queryColumns.map((q) => q.name).join(', ')})`,
        c.at,
      );
    return { kind: 'physical', name: c.name, type: from.type, at: c.at };
  });
  const nameOnly = s.columns.filter((c) => c.kind === 'name-only');
  if (nameOnly.length > 0 && nameOnly.length === s.columns.length) {
    // A list of names alone reorders the query's columns: it must name each once.
    const missing = queryColumns.filter((q) => !declared.has(q.name)).map((q) => q.name);
    if (missing.length > 0)
      sqlError(
        `the column list of CREATE TABLE ${s.name} ... AS names ${nameOnly.length} of the query's ${queryColumns.length} columns (not ${missing.join(', ')})`,
        s.at,
      );
  }
  for (const q of queryColumns)
    if (!declared.has(q.name))
      columns.push({ kind: 'physical', name: q.name, type: q.type, at: s.at });

  const { asQuery: _query, ...rest } = s;
  const table: CreateTable = { ...rest, columns };
  // INSERT INTO writes physical and non-virtual metadata columns, in the table's order.
  const written = columns.filter(
    (c) => c.kind === 'physical' || (c.kind === 'metadata' && !c.virtual),
  );
  const index = new Map(queryColumns.map((c, i) => [c.name, i]));
  const columnOf = written.map((c) => index.get(c.name));
  const identity = columnOf.length === queryColumns.length && columnOf.every((j, i) => j === i);
  return { table, ...(identity ? {} : { columnOf }) };
}
