/**
 * Whether two rows are equal as data (JSON-equal), so that an update that
 * does not change a row is not emitted. Rows in state are JSON data anyway.
 */
export function sameRow(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The text a row is stored under in map state (rows compare by their JSON). */
export function rowText(row: unknown): string {
  return typeof row === 'string' ? `s${row}` : `j${JSON.stringify(row)}`;
}
