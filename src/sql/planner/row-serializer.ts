/**
 * Rows in keyed state: JSON has no bigint (DECIMAL values) and no NaN or infinities (DOUBLE
 * values), so those are tagged as objects, which no other SQL value is.
 */
import type { Json } from '../../core/snapshot.js';
import type { StateSerializer } from '../../core/state.js';
import type { Row } from '../connectors/connector.js';

function encode(v: unknown): Json {
  if (typeof v === 'bigint') return { b: v.toString() };
  if (typeof v === 'number' && !Number.isFinite(v)) return { n: String(v) };
  if (Array.isArray(v)) return v.map(encode);
  return v as Json;
}

function decode(json: Json): unknown {
  if (Array.isArray(json)) return json.map(decode);
  if (json !== null && typeof json === 'object') {
    const tagged = json as { b?: string; n?: string };
    if (tagged.b !== undefined) return BigInt(tagged.b);
    return Number(tagged.n);
  }
  return json;
}

/** Encodes a list of rows. */
export const ROWS_SERIALIZER: StateSerializer<Row[]> = {
  id: 'weir-sql-rows',
  version: 1,
  toJson: (rows) => rows.map(encode),
  fromJson: (json) => decode(json) as Row[],
};
