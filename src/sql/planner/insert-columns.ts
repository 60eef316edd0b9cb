/**
 * Which query column fills each written column of an INSERT INTO, as Flink maps them:
 *
 * - a column list (`INSERT INTO t (x, y) SELECT ...`): the query's columns fill the named
 *   columns in the list's order, the columns left out are written NULL;
 * - a static partition spec (`INSERT INTO t PARTITION (a = '1') SELECT ...`): the named
 *   partition columns are written the spec's values (read as the column's type, as a partition
 *   directory's name is read back), and the query gives the other columns in the table's order
 *   (or the column list's).
 */
import type { CatalogTable, TableColumn } from '../catalog/catalog.js';
import { parseText } from '../connectors/formats/field-values.js';
import type { StaticPartitionValue } from '../parser/ast.js';
import { type SourcePosition, sqlError } from '../sql-error.js';

export interface InsertColumns {
  /** For each written column, the query column that fills it; undefined: a constant or NULL. */
  readonly columnOf: readonly (number | undefined)[];
  /** The written columns given by the PARTITION spec (by position), with their values. */
  readonly constants: ReadonlyMap<number, unknown>;
  /** The names of the columns the query fills, in the query's order. */
  readonly filled: readonly string[];
}

export function insertColumns(
  statement: {
    readonly table: string;
    readonly partition?: readonly StaticPartitionValue[];
    readonly columns: readonly string[] | undefined;
    readonly at: SourcePosition;
  },
  target: CatalogTable,
  sinkColumns: readonly TableColumn[],
): InsertColumns {
  const { table, at } = statement;
  const positionOf = (name: string, what: string, where: SourcePosition): number => {
    const i = sinkColumns.findIndex((c) => c.name === name);
    if (i < 0)
      sqlError(
        `INSERT INTO ${table}: ${what} '${name}' is not a written column of the table (${sinkColumns.map((c) => c.name).join(', ')})`,
        where,
      );
    return i;
  };
  const constants = new Map<number, unknown>();
  const keys = target.partitionKeys ?? [];
  for (const p of statement.partition ?? []) {
    if (!keys.includes(p.column))
      sqlError(
        `INSERT INTO ${table} PARTITION: '${p.column}' is not a partition column of the table (${keys.length === 0 ? 'it has none' : keys.join(', ')})`,
        p.at,
      );
    const i = positionOf(p.column, 'partition column', p.at);
    if (constants.has(i))
      sqlError(`INSERT INTO ${table} PARTITION: '${p.column}' is given twice`, p.at);
    const c = sinkColumns[i] as TableColumn;
    constants.set(i, parseText(p.value, c.type, c.name));
  }
  // The columns the query fills, in its order: the list's, or the table's but the static ones.
  let targets: number[];
  if (statement.columns === undefined) {
    targets = sinkColumns.flatMap((_c, i) => (constants.has(i) ? [] : [i]));
  } else {
    targets = statement.columns.map((name) => positionOf(name, 'column', at));
    const twice = targets.find((t, k) => targets.indexOf(t) !== k);
    if (twice !== undefined)
      sqlError(
        `INSERT INTO ${table}: column '${sinkColumns[twice]?.name}' is listed twice`,
        statement.at,
      );
    const fixed = targets.find((t) => constants.has(t));
    if (fixed !== undefined)
      sqlError(
        `INSERT INTO ${table}: column '${sinkColumns[fixed]?.name}' has a static PARTITION value and cannot be listed too`,
        statement.at,
      );
  }
  const columnOf = sinkColumns.map((_c, i) => {
    const j = targets.indexOf(i);
    return j < 0 ? undefined : j;
  });
  return {
    columnOf,
    constants,
    filled: targets.map((i) => (sinkColumns[i] as TableColumn).name),
  };
}
