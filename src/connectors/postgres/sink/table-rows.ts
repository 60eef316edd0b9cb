/**
 * Reading a sink's table back for `weir reconcile`: every column, ordered by
 * the sink's key, each value normalised to JSON by one function. What the
 * streaming job wrote and what a replay would write are both read by
 * {@link readTableRows}, so they differ only where the rows do.
 */
import type pg from 'pg';
import type { WrittenRow } from '../../../core/replay.js';
import type { Json } from '../../../core/snapshot.js';
import { quoteIdent } from '../connection.js';
import { parseArrayLiteral } from '../type-mapping.js';

/** A column of the table read back, with the type its values are normalised by. */
export interface ReadColumn {
  readonly name: string;
  /** Type name with domains resolved to their base type, e.g. `numeric`, `_int4`. */
  readonly type: string;
  /** `pg_type.typcategory` of that type (`A` for arrays). */
  readonly category: string;
  /** For arrays: the element's type name (domains resolved). */
  readonly element: string;
  /** For arrays: the element type's delimiter in array literals. */
  readonly delimiter: string;
}

/** What {@link readTableRows} needs to know of a table: its columns and its key. */
export interface TableShape {
  readonly columns: readonly ReadColumn[];
  readonly keyColumns: readonly string[];
}

/** The columns of a table (`$1`: its qualified name) in table order, domains resolved one level. */
const READ_COLUMNS_QUERY = `SELECT a.attname AS name, rt.typname AS type, rt.typcategory::text AS category,
    coalesce(ert.typname, '') AS element, coalesce(et.typdelim::text, ',') AS delimiter
  FROM pg_attribute a
  JOIN pg_type t ON t.oid = a.atttypid
  JOIN pg_type rt ON rt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
  LEFT JOIN pg_type et ON et.oid = rt.typelem AND rt.typcategory = 'A'
  LEFT JOIN pg_type ert ON ert.oid = CASE WHEN et.typtype = 'd' THEN et.typbasetype ELSE et.oid END
  WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`;

export async function loadReadColumns(client: pg.Client, qualified: string): Promise<ReadColumn[]> {
  return (await client.query<ReadColumn>(READ_COLUMNS_QUERY, [qualified])).rows;
}

// ---- normalisation ----

/** Turns a value's text (the session's fixed output settings, see `SESSION_OPTIONS`) into JSON. */
type Normalize = (text: string) => Json;

/** A decimal without trailing fractional zeros: `12.50` and `12.5` are the same number. */
function canonicalDecimal(text: string): string {
  if (!text.includes('.') || /[eE]/.test(text)) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

/** `2024-02-29 10:34:56.789+00` (TimeZone=UTC) as ISO 8601: `2024-02-29T10:34:56.789Z`. */
function isoTimestamp(text: string): string {
  const bc = text.endsWith(' BC');
  const t = (bc ? text.slice(0, -3) : text).replace(' ', 'T').replace(/\+00$/, 'Z');
  return bc ? `${t} BC` : t;
}

/** JSON with object keys in sorted order, so equal documents compare equal whatever order they were written in. */
function sortedJson(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortedJson);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = {};
  for (const k of Object.keys(value).sort()) out[k] = sortedJson(value[k]!);
  return out;
}

function scalarNormalizer(type: string): Normalize {
  switch (type) {
    case 'bool':
      return (t) => t === 't';
    case 'int2':
    case 'int4':
      return Number;
    case 'float4':
    case 'float8':
      // NaN and ±Infinity are not JSON numbers: they stay text.
      return (t) => {
        const n = Number(t);
        return Number.isFinite(n) ? n : t;
      };
    case 'numeric':
      return canonicalDecimal;
    case 'bytea':
      return (t) => (t.startsWith('\\x') ? t.slice(2) : t);
    case 'json':
    case 'jsonb':
      return (t) => sortedJson(JSON.parse(t) as Json);
    case 'timestamp':
    case 'timestamptz':
      return isoTimestamp;
    default:
      // int8, oid and money stay text (no digits lost), as do dates, times,
      // intervals, uuids, enums and everything else.
      return (t) => t;
  }
}

/**
 * How a column's values become JSON, for both sides of a reconciliation:
 * booleans and 4-byte integers as JSON, bigint and numeric as strings
 * (numeric without trailing fractional zeros), floats as numbers (NaN and
 * infinities as text), timestamps as ISO 8601 strings (`Z` for timestamptz),
 * bytea as lower-case hex, json and jsonb parsed (keys sorted), arrays as
 * arrays of their elements normalised the same way, anything else as its text.
 */
export function columnNormalizer(column: ReadColumn): Normalize {
  if (column.category !== 'A' || column.element === '') return scalarNormalizer(column.type);
  const element = scalarNormalizer(column.element);
  const convert = (items: unknown[]): Json[] =>
    items.map((v) => (v === null ? null : Array.isArray(v) ? convert(v) : element(v as string)));
  return (t) => convert(parseArrayLiteral(t, column.delimiter));
}

// ---- reading ----

/** Values as text: the normalisers convert them. */
const RAW_TYPES = { getTypeParser: () => (value: string) => value };

const FETCH_SIZE = 1000;

/**
 * Every row of `relation` (a qualified table name), ordered by the key, as
 * {@link WrittenRow}s: the key's values as a JSON array, the columns by name.
 * Reads through a cursor in one REPEATABLE READ transaction of `client`
 * (one consistent view, bounded memory).
 */
export async function* readTableRows(
  client: pg.Client,
  relation: string,
  shape: TableShape,
  origin: string,
): AsyncGenerator<WrittenRow> {
  const columns = shape.columns;
  const normalize = columns.map(columnNormalizer);
  const names = columns.map((c) => quoteIdent(c.name)).join(', ');
  const order = shape.keyColumns.map(quoteIdent).join(', ');
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  let open = true;
  try {
    await client.query(
      `DECLARE weir_rows NO SCROLL CURSOR FOR SELECT ${names} FROM ${relation} ORDER BY ${order}`,
    );
    for (;;) {
      const result = await client.query({
        text: `FETCH FORWARD ${FETCH_SIZE} FROM weir_rows`,
        rowMode: 'array',
        types: RAW_TYPES,
      });
      for (const values of result.rows as (string | null)[][]) {
        const row: { [column: string]: Json } = {};
        for (let i = 0; i < columns.length; i++) {
          const text = values[i];
          row[columns[i]!.name] = text === null || text === undefined ? null : normalize[i]!(text);
        }
        yield {
          key: JSON.stringify(shape.keyColumns.map((k) => row[k] ?? null)),
          value: row,
          origin,
        };
      }
      if (result.rows.length < FETCH_SIZE) break;
    }
    open = false;
    await client.query('COMMIT');
  } finally {
    // Left early (the consumer stopped) or failed: end the transaction, keep the session usable.
    if (open) await client.query('ROLLBACK').catch(() => {});
  }
}
