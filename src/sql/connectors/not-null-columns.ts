/**
 * NOT NULL columns of a table as its sources read them. A PRIMARY KEY column is NOT NULL, as
 * declared ones are, and the compiled expressions over such a column take its value to be
 * there. Flink's sources do not check; Weir's do, so that a record missing such a value is a
 * bad record named as such (its format's bad-record policy: fail naming the record, or skip
 * and count it) rather than a NULL that expressions over the column do not expect.
 */

import type { Change } from '../../core/changelog.js';
import type { CatalogTable, TableColumn } from '../catalog/catalog.js';
import { formatType, type LogicalType } from '../types/logical-type.js';
import type { Row } from './connector.js';
import { FieldError } from './formats/field-values.js';

/**
 * The error of a NULL read for a NOT NULL column: a {@link FieldError}, so the formats' bad
 * records name it, worded as the formats word it (`field 'id' is null but the column is INT
 * NOT NULL`).
 */
export function notNullError(column: string, type: LogicalType): FieldError {
  return new FieldError(column, `is null but the column is ${formatType(type)}`);
}

/**
 * A check of rows of `columns` (the table's stored columns, in row order) that throws
 * {@link notNullError} for the first NOT NULL column at `positions` (all by default) that
 * holds NULL; undefined when there is no such column.
 */
export function notNullCheck(
  columns: readonly Pick<TableColumn, 'name' | 'type'>[],
  positions?: readonly number[],
): ((row: Row) => void) | undefined {
  const at = (positions ?? columns.map((_, i) => i)).filter(
    (i) => columns[i]?.type.nullable === false,
  );
  if (at.length === 0) return undefined;
  const named = at.map((i) => columns[i] as Pick<TableColumn, 'name' | 'type'>);
  return (row) => {
    for (let k = 0; k < at.length; k++) {
      const v = row[at[k] as number];
      if (v === null || v === undefined) {
        const c = named[k] as Pick<TableColumn, 'name' | 'type'>;
        throw notNullError(c.name, c.type);
      }
    }
  };
}

/** The stored columns (physical and METADATA) of a table, in the order its rows hold them. */
function storedColumns(table: CatalogTable): TableColumn[] {
  return table.columns.filter((c) => c.computed === undefined);
}

/** The error of a source row with NULL in a NOT NULL column, naming the table. */
function sourceError(table: CatalogTable, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`table '${table.name}': a row of connector '${table.connector}': ${reason}`);
}

/**
 * For sources without a bad-record policy of their own: a check of each row the connector
 * gives, failing the job naming the table and the column; undefined when no stored column is
 * NOT NULL.
 */
export function sourceRowCheck(table: CatalogTable): ((row: Row) => Row) | undefined {
  const check = notNullCheck(storedColumns(table));
  if (check === undefined) return undefined;
  return (row) => {
    try {
      check(row);
    } catch (error) {
      throw sourceError(table, error);
    }
    return row;
  };
}

/**
 * The same for a changelog source: a delete may carry only its key (a tombstone, a CDC delete
 * of a table without full replica identity), so of a delete or an update-before only the
 * PRIMARY KEY columns are checked.
 */
export function sourceChangeCheck(
  table: CatalogTable,
): ((change: Change<Row>) => Change<Row>) | undefined {
  const columns = storedColumns(table);
  const all = notNullCheck(columns);
  if (all === undefined) return undefined;
  const keyPositions = (table.primaryKey ?? []).map((k) => columns.findIndex((c) => c.name === k));
  const key = notNullCheck(columns, keyPositions);
  return (change) => {
    try {
      if (change.kind === '-D' || change.kind === '-U') key?.(change.value);
      else all(change.value);
    } catch (error) {
      throw sourceError(table, error);
    }
    return change;
  };
}
