/**
 * Whether two rows are equal as data (JSON-equal), so that an update that
 * does not change a row is not emitted. Rows in state are JSON data anyway,
 * except for SQL DECIMAL values, which rows hold as bigints.
 */
export function sameRow(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return jsonText(a) === jsonText(b);
}

/** The text a row is stored under in map state (rows compare by their JSON). */
export function rowText(row: unknown): string {
  return typeof row === 'string' ? `s${row}` : `j${jsonText(row)}`;
}

const bigintAsText = (_key: string, v: unknown): unknown =>
  typeof v === 'bigint' ? { bigint: v.toString() } : v;

/** JSON.stringify, with bigints as `{"bigint": "<digits>"}` (JSON has none; it throws on them). */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (e) {
    // Only rows with a bigint pay for the replacer.
    if (e instanceof TypeError) return JSON.stringify(value, bigintAsText);
    throw e;
  }
}
