/**
 * Writing mutations (upserts and deletes) to a table: what the table looks
 * like, values as statement parameters, batched statements, and isolation
 * of the rows the database rejects. Shared by the upsert sink (on the main
 * thread) and the transactional sink (in its worker thread), so every
 * value here is plain data.
 */
import { describeRecord } from '../../../core/errors.js';
import { quoteIdent } from '../connection.js';
import { formatDate, formatTimeLiteral, formatTimestampLiteral } from '../temporal.js';
import type { PgValue, Row } from '../values.js';

/** A change a sink makes to its table. */
export type SinkMutation =
  | { readonly kind: 'upsert'; readonly row: Row }
  | { readonly kind: 'delete'; readonly key: Row };

/** A column of the sink's table. */
export interface SinkColumn {
  readonly name: string;
  /** `format_type` of the column, e.g. `numeric(12,2)`. */
  readonly type: string;
  /** The type without modifiers, usable in casts of parameter arrays, e.g. `numeric`. */
  readonly baseType: string;
  /** `pg_type.typcategory`: `A` array, `D` date/time, `N` numeric, `S` string, `U` user-defined, ... */
  readonly category: string;
  /** Type name without schema, e.g. `date`, `timestamptz`, `jsonb`, `_int4` for arrays. */
  readonly typeName: string;
  /** Fractional second precision of time types (-1: default 6). */
  readonly typeMod: number;
  readonly notNull: boolean;
}

/** The sink's table, as loaded from the catalog. */
export interface SinkTable {
  readonly schema: string;
  readonly table: string;
  /** `"schema"."table"`. */
  readonly qualified: string;
  readonly columns: readonly SinkColumn[];
  /** Columns of the conflict target (primary key or the given unique key). */
  readonly keyColumns: readonly string[];
}

/** SQL describing the columns of a table; `$1` is its qualified name. */
export const COLUMNS_QUERY = `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
  format_type(a.atttypid, NULL) AS base, t.typcategory::text AS category, t.typname AS typname,
  a.atttypmod AS typmod, a.attnotnull AS notnull
  FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
  WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`;

/** SQL listing the unique indexes of a table as column-name arrays; `$1` is its qualified name. */
export const UNIQUE_KEYS_QUERY = `SELECT i.indisprimary AS primary, array_agg(a.attname::text ORDER BY k.ord) AS columns
  FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
  WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL
  GROUP BY i.indexrelid, i.indisprimary`;

/** Something that runs a statement: a `pg` client. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** A mutation the database (or validation) rejected. */
export interface Rejection {
  /** Index of the mutation in the list given to {@link applyMutations}. */
  readonly index: number;
  readonly message: string;
  /** SQLSTATE, when the database rejected it. */
  readonly code: string | undefined;
}

/** Errors caused by the data of a row (not by the connection or the server). */
export function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return false;
  return code.startsWith('22') || code.startsWith('23') || code === '42804' || code === '42846';
}

/** A readable reason from a database error: message, detail, and the constraint or column it names. */
export function describeDatabaseError(
  error: unknown,
  params?: readonly unknown[],
  columns?: readonly string[],
): string {
  const e = error as {
    message?: string;
    detail?: string;
    constraint?: string;
    column?: string;
    code?: string;
  };
  let text = e.message ?? String(error);
  if (e.detail) text += ` (${e.detail})`;
  if (e.constraint && !text.includes(e.constraint)) text += ` [constraint ${e.constraint}]`;
  if (e.column && !text.includes(e.column)) text += ` [column ${e.column}]`;
  // A value the server could not read: say which column it was given for.
  const quoted = /: "([^"]*)"$/.exec(e.message ?? '');
  if (quoted !== null && params !== undefined && columns !== undefined) {
    const i = params.findIndex((p) => typeof p === 'string' && p === quoted[1]);
    if (i >= 0 && columns[i] !== undefined) text += ` [column ${columns[i]}]`;
  }
  return text;
}

// ---- values to parameters ----

/** Debezium's adaptive rule: precision <= 3 means milliseconds, else microseconds. */
function toMicros(value: number, typeMod: number): number {
  return (typeMod < 0 ? 6 : typeMod) <= 3 ? value * 1000 : value;
}

function hstoreLiteral(map: { readonly [k: string]: PgValue }): string {
  const q = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return Object.entries(map)
    .map(([k, v]) => `${q(k)}=>${v === null ? 'NULL' : q(String(v))}`)
    .join(', ');
}

/** Bytes of Debezium's `Bits` (least significant byte first) as a bit string of `length` bits. */
function bitString(bytes: Uint8Array, length: number): string {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n.toString(2).padStart(length, '0');
}

/**
 * A value as a statement parameter for a column, undoing Debezium's
 * representations: numbers in date, time and timestamp columns are epoch
 * days / microseconds (milliseconds for precision <= 3), objects in json
 * columns are serialized, bigints become text.
 */
export function toParam(value: PgValue | undefined, column: SinkColumn, element = false): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  const name = element ? column.typeName.replace(/^_/, '') : column.typeName;
  if (typeof value === 'number') {
    if (name === 'date')
      return Number.isFinite(value) ? formatDate(value) : value > 0 ? 'infinity' : '-infinity';
    if (name === 'timestamp' || name === 'timestamptz')
      return formatTimestampLiteral(toMicros(value, column.typeMod));
    if (name === 'time') return formatTimeLiteral(toMicros(value, column.typeMod));
    if (name === 'interval') return `${value} microseconds`;
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return value;
  }
  if (typeof value === 'boolean') {
    if (name === 'bit' || name === 'varbit') return value ? '1' : '0';
    return value;
  }
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) {
    if (name === 'bit' || name === 'varbit')
      return bitString(value, name === 'bit' ? Math.max(column.typeMod, 1) : 0);
    return Buffer.isBuffer(value)
      ? value
      : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  if (Array.isArray(value)) {
    if (!element && column.category === 'A')
      return value.map((v: PgValue) => toParam(v, column, true));
    return JSON.stringify(value, jsonReplacer);
  }
  const obj = value as { readonly [k: string]: PgValue };
  if (name === 'hstore') return hstoreLiteral(obj);
  if (name === 'point' && typeof obj.x === 'number' && typeof obj.y === 'number')
    return `(${obj.x},${obj.y})`;
  return JSON.stringify(obj, jsonReplacer);
}

function jsonReplacer(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  return v;
}

// ---- statements ----

/** One statement and its parameters, with the column each parameter belongs to (for messages). */
interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/** Parameter arrays go through `unnest` unless a column is itself an array (unnest would flatten it). */
function canUnnest(columns: readonly SinkColumn[]): boolean {
  return columns.every((c) => c.category !== 'A');
}

const MAX_PARAMETERS = 65_535;

function upsertStatements(
  table: SinkTable,
  columns: readonly SinkColumn[],
  rows: readonly Row[],
): Statement[] {
  const names = columns.map((c) => quoteIdent(c.name)).join(', ');
  const keys = table.keyColumns.map(quoteIdent).join(', ');
  const updates = columns.filter((c) => !table.keyColumns.includes(c.name));
  const conflict =
    table.keyColumns.length === 0
      ? ''
      : updates.length === 0
        ? `ON CONFLICT (${keys}) DO NOTHING`
        : `ON CONFLICT (${keys}) DO UPDATE SET ${updates.map((c) => `${quoteIdent(c.name)} = EXCLUDED.${quoteIdent(c.name)}`).join(', ')}`;
  if (canUnnest(columns)) {
    const arrays = columns.map((c) => rows.map((r) => toParam(r[c.name], c)));
    const casts = columns.map((c, i) => `$${i + 1}::${c.baseType}[]`).join(', ');
    return [
      {
        text: `INSERT INTO ${table.qualified} (${names}) SELECT * FROM unnest(${casts}) ${conflict}`,
        values: arrays,
      },
    ];
  }
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const out: Statement[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const values: unknown[] = [];
    const tuples = chunk.map((r) => {
      const ps = columns.map((c) => {
        values.push(toParam(r[c.name], c));
        return `$${values.length}::${c.type}`;
      });
      return `(${ps.join(', ')})`;
    });
    out.push({
      text: `INSERT INTO ${table.qualified} (${names}) VALUES ${tuples.join(', ')} ${conflict}`,
      values,
    });
  }
  return out;
}

function deleteStatement(table: SinkTable, keys: readonly Row[]): Statement {
  const cols = table.keyColumns.map((k) => table.columns.find((c) => c.name === k)!);
  const arrays = cols.map((c) => keys.map((r) => toParam(r[c.name], c)));
  const casts = cols.map((c, i) => `$${i + 1}::${c.baseType}[]`).join(', ');
  const target = cols.map((c) => quoteIdent(c.name)).join(', ');
  return {
    text: `DELETE FROM ${table.qualified} WHERE (${target}) IN (SELECT * FROM unnest(${casts}))`,
    values: arrays,
  };
}

/** The statements applying the mutations (which must touch distinct keys). */
function statementsFor(table: SinkTable, mutations: readonly SinkMutation[]): Statement[] {
  const deletes: Row[] = [];
  const upserts = new Map<string, { columns: SinkColumn[]; rows: Row[] }>();
  for (const m of mutations) {
    if (m.kind === 'delete') {
      deletes.push(m.key);
      continue;
    }
    const names = Object.keys(m.row).filter((n) => n !== '__deleted');
    const signature = names.join('\u0000');
    let group = upserts.get(signature);
    if (group === undefined) {
      group = { columns: names.map((n) => table.columns.find((c) => c.name === n)!), rows: [] };
      upserts.set(signature, group);
    }
    group.rows.push(m.row);
  }
  const out: Statement[] = [];
  if (deletes.length > 0) out.push(deleteStatement(table, deletes));
  for (const g of upserts.values()) out.push(...upsertStatements(table, g.columns, g.rows));
  return out;
}

/** Canonical text of a key, for grouping mutations of the same row. */
function keyText(table: SinkTable, row: Row): string {
  const keys = table.keyColumns;
  if (keys.length === 1) {
    const v = row[keys[0]!];
    if (typeof v === 'number') return `n${v}`;
    if (typeof v === 'string') return `s${v}`;
  }
  return JSON.stringify(
    keys.map((k) => row[k] ?? null),
    (_k, v: unknown) =>
      typeof v === 'bigint'
        ? `${v}n`
        : v instanceof Uint8Array
          ? Buffer.from(v).toString('hex')
          : v,
  );
}

/** Checks a mutation against the table; a reason when it cannot be written. */
function invalid(table: SinkTable, m: SinkMutation): string | undefined {
  const values = m.kind === 'upsert' ? m.row : m.key;
  if (values === null || typeof values !== 'object')
    return `the ${m.kind} has no ${m.kind === 'upsert' ? 'row' : 'key'}`;
  if (m.kind === 'delete' && table.keyColumns.length === 0)
    return `table ${table.schema}.${table.table} is written without a key, so a row cannot be deleted`;
  for (const k of table.keyColumns) {
    const v = values[k];
    if (v === null || v === undefined) return `key column "${k}" is missing or null`;
  }
  if (m.kind === 'upsert') {
    for (const name of Object.keys(values)) {
      if (name === '__deleted') continue;
      if (!table.columns.some((c) => c.name === name)) {
        return `table ${table.schema}.${table.table} has no column "${name}"`;
      }
    }
  }
  return undefined;
}

/**
 * Applies mutations inside the caller's transaction: invalid ones are
 * rejected up front; the rest, reduced to the last mutation per key, go in
 * a few batched statements. If the database rejects the batch because of
 * some row's data, each row is retried alone (under savepoints) to find the
 * culprits, which are returned; the others are applied.
 */
export async function applyMutations(
  q: Queryable,
  table: SinkTable,
  mutations: readonly SinkMutation[],
): Promise<Rejection[]> {
  const rejections: Rejection[] = [];
  const last = new Map<string, number>();
  for (let i = 0; i < mutations.length; i++) {
    const m = mutations[i]!;
    const reason = invalid(table, m);
    if (reason !== undefined) {
      rejections.push({ index: i, message: reason, code: undefined });
      continue;
    }
    // Without a key every row is its own (appended), so none replaces another.
    last.set(
      table.keyColumns.length === 0 ? `${i}` : keyText(table, m.kind === 'upsert' ? m.row : m.key),
      i,
    );
  }
  const indexes = [...last.values()];
  if (indexes.length === 0) return rejections;
  const batch = indexes.map((i) => mutations[i]!);
  await q.query('SAVEPOINT weir_batch');
  try {
    for (const s of statementsFor(table, batch)) await q.query(s.text, s.values);
    await q.query('RELEASE SAVEPOINT weir_batch');
    return rejections;
  } catch (error) {
    if (!isDataError(error)) throw error;
    await q.query('ROLLBACK TO SAVEPOINT weir_batch');
  }
  for (const i of indexes) {
    const m = mutations[i]!;
    await q.query('SAVEPOINT weir_row');
    let values: unknown[] | undefined;
    let names: string[] | undefined;
    try {
      for (const s of statementsFor(table, [m])) {
        values = s.values.map((v) => (Array.isArray(v) && v.length === 1 ? v[0] : v));
        names =
          m.kind === 'upsert'
            ? Object.keys(m.row).filter((n) => n !== '__deleted')
            : [...table.keyColumns];
        await q.query(s.text, s.values);
      }
      await q.query('RELEASE SAVEPOINT weir_row');
    } catch (error) {
      if (!isDataError(error)) throw error;
      await q.query('ROLLBACK TO SAVEPOINT weir_row');
      rejections.push({
        index: i,
        message: describeDatabaseError(error, values, names),
        code: (error as { code?: string }).code,
      });
    }
  }
  await q.query('RELEASE SAVEPOINT weir_batch');
  return rejections.sort((a, b) => a.index - b.index);
}

/** Renders a mutation for messages. */
export function describeMutation(m: SinkMutation): string {
  return `${m.kind} ${describeRecord(m.kind === 'upsert' ? m.row : m.key)}`;
}
