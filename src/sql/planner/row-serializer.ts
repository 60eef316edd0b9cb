/**
 * Rows in keyed state. JSON has no bigint (DECIMAL, large BIGINT values), no NaN or infinities
 * (DOUBLE values) and no -0, no Map (MAP values) and no bytes (BINARY values), so those are tagged as
 * one-field objects, which no other SQL value is: `{b: digits}`, `{n: 'NaN'}` (or `'-0'`),
 * `{m: [[key, value], ...]}`, `{y: base64}`. Tags nest (a MAP in an ARRAY in a ROW).
 */
import type { Json } from '../../core/snapshot.js';
import type { StateSerializer } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';

/** Whether every field is already JSON as it is: most rows, which then are not copied. */
function plain(row: readonly unknown[]): boolean {
  for (const v of row) {
    if (typeof v === 'string' || typeof v === 'boolean' || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || Object.is(v, -0)) return false;
  }
  return true;
}

function encode(v: unknown): Json {
  // Strings, finite numbers, booleans and null (most fields) leave at the first test.
  if (typeof v !== 'object' || v === null) {
    if (typeof v === 'bigint') return { b: v.toString() };
    if (typeof v === 'number') {
      if (v === 0 && Object.is(v, -0)) return { n: '-0' };
      return Number.isFinite(v) ? v : { n: String(v) };
    }
    return v as Json;
  }
  if (Array.isArray(v)) return plain(v) ? (v as Json[]) : v.map(encode);
  if (v instanceof Map) return { m: [...v].map(([key, value]) => [encode(key), encode(value)]) };
  if (v instanceof Uint8Array) return { y: Buffer.from(v).toString('base64') };
  return v as Json;
}

function decode(json: Json): unknown {
  if (json === null || typeof json !== 'object') return json;
  if (Array.isArray(json)) return json.map(decode);
  const tagged = json as { b?: string; n?: string; m?: [Json, Json][]; y?: string };
  if (tagged.b !== undefined) return BigInt(tagged.b);
  if (tagged.m !== undefined) return new Map(tagged.m.map(([k, v]) => [decode(k), decode(v)]));
  if (tagged.y !== undefined) return new Uint8Array(Buffer.from(tagged.y, 'base64'));
  return Number(tagged.n);
}

/** Encodes one SQL value (a row, an array, a map or a scalar). */
export const SQL_VALUE_SERIALIZER: StateSerializer<unknown> = {
  id: 'weir-sql-value',
  version: 1,
  toJson: encode,
  fromJson: decode,
};

/** Encodes one row. */
export const ROW_SERIALIZER = SQL_VALUE_SERIALIZER as StateSerializer<Row>;

/**
 * Encodes a row as an operator emits it, where its state keeps that instead of the row it read
 * (ROW_NUMBER() deduplication): an id of its own, so that a savepoint whose state kept the input
 * rows is refused by name, never read as output rows of another shape.
 */
export const OUTPUT_ROW_SERIALIZER: StateSerializer<Row> = {
  ...ROW_SERIALIZER,
  id: 'weir-sql-output-row',
};

/** Encodes a list of rows. Version 1 had no MAP or BINARY tags; it reads the same. */
export const ROWS_SERIALIZER: StateSerializer<Row[]> = {
  id: 'weir-sql-rows',
  version: 1,
  toJson: (rows) => rows.map(encode),
  fromJson: (json) => decode(json) as Row[],
};
