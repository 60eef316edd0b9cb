/** Keys of rows by some of their columns: a primary key, an upsert key, a join key. */
import type { Key } from '../../core/key-groups.js';
import type { Row } from '../connectors/connector.js';
import { type SourcePosition, sqlError } from '../sql-error.js';

/** The positions of `names` among `columns`, or an error naming the missing column. */
export function columnPositions(
  names: readonly string[],
  columns: readonly { readonly name: string }[],
  what: string,
  at?: SourcePosition,
): number[] {
  return names.map((name) => {
    const i = columns.findIndex((c) => c.name === name);
    if (i < 0) sqlError(`${what} column '${name}' is not a column`, at);
    return i;
  });
}

/**
 * The key of a row by the values at `positions`: one text per row, so that equal values give
 * equal keys whatever their JavaScript type (1 and 1n differ in type, so in key).
 */
export function rowKeyOf(positions: readonly number[]): (row: Row) => Key {
  return (row) => valuesKey(positions.map((p) => row[p]));
}

/** The key of some values, as {@link rowKeyOf} makes it. */
export function valuesKey(values: readonly unknown[]): string {
  let key = '';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) key += '\u0001';
    key += v === null ? '\u0000' : `${typeof v}:${String(v)}`;
  }
  return key;
}

/** The key of a table's rows by its PRIMARY KEY (undefined without one). */
export function primaryKeyOf(
  table: { readonly name: string; readonly primaryKey: readonly string[] | undefined },
  columns: readonly { readonly name: string }[],
  at?: SourcePosition,
): ((row: Row) => Key) | undefined {
  if (table.primaryKey === undefined || table.primaryKey.length === 0) return undefined;
  return rowKeyOf(
    columnPositions(table.primaryKey, columns, `PRIMARY KEY of '${table.name}':`, at),
  );
}
