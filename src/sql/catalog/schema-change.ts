/**
 * ALTER TABLE's changes of a table's schema (Flink 1.17's `ADD`, `MODIFY`, `DROP` and `RENAME`
 * of columns, the watermark and the primary key), as the CREATE TABLE statement that defines
 * the table afterwards: the table environment builds it as any CREATE TABLE, so a changed table
 * is checked as a new one is (column types, computed columns, the watermark's column).
 */
import type { ColumnDefinition, Expr, SchemaChange, Statement } from '../parser/ast.js';
import { contains } from '../planner/expr-tools.js';
import { type SourcePosition, sqlError } from '../sql-error.js';
import type { CatalogTable } from './catalog.js';
import { type CreateTable, definitionOf } from './table-like.js';

/** Whether `e` reads column `name`. */
const reads = (e: Expr, name: string): boolean =>
  contains(e, (x) => x.kind === 'column' && x.path[x.path.length - 1] === name);

/** The definition of `table` after `change`. */
export function alteredTable(
  table: CatalogTable,
  change: SchemaChange,
  at: SourcePosition,
): CreateTable {
  let columns: ColumnDefinition[] = table.columns.map((c) => definitionOf(c, table));
  let watermark: CreateTable['watermark'] =
    table.watermark === undefined
      ? undefined
      : {
          column: table.watermark.column,
          expr: table.watermark.expr,
          ...(table.watermark.text === undefined ? {} : { text: table.watermark.text }),
          at,
        };
  let primaryKey: readonly string[] | undefined = table.primaryKey;
  const has = (name: string): boolean => columns.some((c) => c.name === name);
  const need = (name: string): void => {
    if (!has(name)) sqlError(`table '${table.name}' has no column '${name}'`, at);
  };
  /** Refuses to take away a column something else reads. */
  const unused = (name: string, what: string): void => {
    for (const c of columns)
      if (c.kind === 'computed' && c.name !== name && reads(c.expr, name))
        sqlError(`cannot ${what} column '${name}': computed column '${c.name}' reads it`, at);
    if (watermark !== undefined && (watermark.column === name || reads(watermark.expr, name)))
      sqlError(
        `cannot ${what} column '${name}': the watermark reads it (DROP WATERMARK first)`,
        at,
      );
    if (primaryKey?.includes(name) === true)
      sqlError(`cannot ${what} column '${name}': it is in the primary key`, at);
  };
  switch (change.kind) {
    case 'rename-column': {
      need(change.from);
      if (has(change.to)) sqlError(`table '${table.name}' already has a column '${change.to}'`, at);
      unused(change.from, 'rename');
      columns = columns.map((c) => (c.name === change.from ? { ...c, name: change.to } : c));
      break;
    }
    case 'drop-columns':
      for (const name of change.columns) {
        need(name);
        columns = columns.filter((c) => c.name !== name);
        unused(name, 'drop');
      }
      if (columns.length === 0) sqlError(`cannot drop every column of '${table.name}'`, at);
      break;
    case 'drop-watermark':
      if (watermark === undefined) sqlError(`table '${table.name}' has no watermark to drop`, at);
      watermark = undefined;
      break;
    case 'drop-primary-key':
      if (primaryKey === undefined)
        sqlError(`table '${table.name}' has no primary key to drop`, at);
      primaryKey = undefined;
      break;
    default: {
      const adding = change.kind === 'add';
      for (const { definition, position } of change.columns) {
        if (adding && has(definition.name))
          sqlError(
            `table '${table.name}' already has a column '${definition.name}' (MODIFY changes it)`,
            definition.at,
          );
        if (!adding && !has(definition.name))
          sqlError(
            `table '${table.name}' has no column '${definition.name}' (ADD adds one)`,
            definition.at,
          );
        const at = adding ? columns.length : columns.findIndex((c) => c.name === definition.name);
        const rest = columns.filter((c) => c.name !== definition.name);
        let index = adding ? rest.length : at;
        if (position !== undefined) {
          if ('first' in position) index = 0;
          else {
            const after = rest.findIndex((c) => c.name === position.after);
            if (after < 0)
              sqlError(`table '${table.name}' has no column '${position.after}'`, definition.at);
            index = after + 1;
          }
        }
        columns = [...rest.slice(0, index), definition, ...rest.slice(index)];
      }
      if (change.watermark !== undefined) {
        if (adding && watermark !== undefined)
          sqlError(`table '${table.name}' has a watermark already (MODIFY changes it)`, at);
        if (!adding && watermark === undefined)
          sqlError(`table '${table.name}' has no watermark to modify (ADD adds one)`, at);
        watermark = change.watermark;
      }
      if (change.primaryKey !== undefined) {
        if (adding && primaryKey !== undefined)
          sqlError(`table '${table.name}' has a primary key already (MODIFY changes it)`, at);
        if (!adding && primaryKey === undefined)
          sqlError(`table '${table.name}' has no primary key to modify (ADD adds one)`, at);
        primaryKey = change.primaryKey;
      }
    }
  }
  const statement: Statement = {
    kind: 'create-table',
    name: table.name,
    temporary: false,
    ifNotExists: false,
    columns,
    watermark,
    primaryKey,
    options: [...table.options.values()],
    ...(table.partitionKeys === undefined ? {} : { partitionedBy: table.partitionKeys }),
    // ALTER TABLE keeps the table's COMMENT.
    ...(table.comment === undefined ? {} : { comment: table.comment }),
    at,
  };
  return statement;
}
