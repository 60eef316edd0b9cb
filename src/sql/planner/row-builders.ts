/**
 * Rows built from other rows of known widths, as generated code: `[r[0], r[1], ..., x]`
 * writes each slot once into an array of the final size, where `[...r.slice(0, n), x]` and
 * `[...l, ...d]` copy through an intermediate array and the iteration protocol (about four
 * times the cost per row; a Top-N emits a row for every change of every rank).
 */
import type { Row } from '../connectors/connector.js';

const slots = (name: string, width: number): string[] =>
  Array.from({ length: width }, (_, i) => `${name}[${i}]`);

/** `(row, value) => [row[0], ..., row[width - 1], value]`; built once per query. */
export function prefixAndValue(width: number): (row: Row, value: unknown) => Row {
  return new Function('r', 'x', `return [${[...slots('r', width), 'x'].join(', ')}];`) as (
    row: Row,
    value: unknown,
  ) => Row;
}

/**
 * `(row, value) => [...]` writing the given positions of `[...row.slice(0, width), value]`
 * (`width` is the value): a projection of a Top-N's rows with their row number, in one array.
 */
export function pickWithValue(
  width: number,
  positions: readonly number[],
): (row: Row, value: unknown) => Row {
  const slots = positions.map((p) => (p === width ? 'x' : `r[${p}]`));
  return new Function('r', 'x', `return [${slots.join(', ')}];`) as (
    row: Row,
    value: unknown,
  ) => Row;
}

/** `(left, right) => [...left, ...right]` for rows of the given widths; built once per query. */
export function concatenation(
  leftWidth: number,
  rightWidth: number,
): (left: Row, right: Row) => Row {
  return new Function(
    'l',
    'd',
    `return [${[...slots('l', leftWidth), ...slots('d', rightWidth)].join(', ')}];`,
  ) as (left: Row, right: Row) => Row;
}
