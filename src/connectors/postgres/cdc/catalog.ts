/**
 * What the source asks the database's catalog: types, captured tables and
 * their keys, the publication, the slot.
 */
import type pg from 'pg';
import { WeirError } from '../../../core/errors.js';
import { qualified, quoteIdent, type TableName } from '../connection.js';
import { TYPE_QUERY, type TypeInfo, typeInfoFromRow } from '../type-mapping.js';
import { type Lsn, parseLsn } from './lsn.js';

/** A captured table as the catalog describes it. */
export interface TableInfo extends TableName {
  readonly relationId: number;
  /** Primary-key columns in key order (empty if the table has none). */
  readonly primaryKey: readonly string[];
  /** `d` default, `n` nothing, `f` full, `i` index. */
  readonly replicaIdentity: string;
}

export async function loadTypes(client: pg.Client): Promise<TypeInfo[]> {
  const result = await client.query({ text: TYPE_QUERY, rowMode: 'array' });
  return (result.rows as unknown[][]).map(typeInfoFromRow);
}

const TABLE_QUERY = `SELECT c.oid::int8 AS oid, n.nspname AS schema, c.relname AS table,
  c.relreplident::text AS identity,
  coalesce((SELECT array_agg(a.attname::text ORDER BY k.ord)
    FROM pg_index i
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = c.oid AND i.indisprimary), '{}'::text[]) AS pk
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace`;

interface TableRow {
  oid: string;
  schema: string;
  table: string;
  identity: string;
  pk: string[];
}

function tableInfo(row: TableRow): TableInfo {
  return {
    relationId: Number(row.oid),
    schema: row.schema,
    table: row.table,
    primaryKey: row.pk,
    replicaIdentity: row.identity,
  };
}

/** Describes the given tables; fails naming every one that does not exist. */
export async function loadTables(
  client: pg.Client,
  tables: readonly TableName[],
): Promise<TableInfo[]> {
  const result = await client.query<TableRow>(
    `${TABLE_QUERY} WHERE c.relkind IN ('r', 'p') AND (n.nspname, c.relname) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [tables.map((t) => t.schema), tables.map((t) => t.table)],
  );
  const found = result.rows.map(tableInfo);
  const missing = tables.filter(
    (t) => !found.some((f) => f.schema === t.schema && f.table === t.table),
  );
  if (missing.length > 0) {
    throw new WeirError(
      'SOURCE_FAILED',
      `cannot capture changes: table${missing.length > 1 ? 's' : ''} ${missing.map((t) => `${t.schema}.${t.table}`).join(', ')} not found`,
      { domain: 'user' },
    );
  }
  return found;
}

/** Describes one table by its relation id (a table the publication covers that the source was not told about). */
export async function loadTableById(
  client: pg.Client,
  relationId: number,
): Promise<TableInfo | undefined> {
  const result = await client.query<TableRow>(`${TABLE_QUERY} WHERE c.oid = $1`, [relationId]);
  const row = result.rows[0];
  return row === undefined ? undefined : tableInfo(row);
}

/**
 * Makes sure the publication exists and covers the tables: creates it, or
 * adds the tables it lacks; with `create` false, fails instead.
 */
export async function ensurePublication(
  client: pg.Client,
  name: string,
  tables: readonly TableName[],
  create: boolean,
): Promise<void> {
  const pub = await client.query<{ all: boolean }>(
    'SELECT puballtables AS all FROM pg_publication WHERE pubname = $1',
    [name],
  );
  if (pub.rows.length === 0) {
    if (!create) {
      throw new WeirError(
        'SOURCE_FAILED',
        `publication '${name}' does not exist (and createPublication is false)`,
        {
          domain: 'user',
        },
      );
    }
    try {
      await client.query(
        `CREATE PUBLICATION ${quoteIdent(name)} FOR TABLE ${tables.map(qualified).join(', ')}`,
      );
      return;
    } catch (cause) {
      // Created concurrently by another source? Then check it like an existing one.
      if ((cause as { code?: string }).code !== '42710') throw cause;
    }
  } else if (pub.rows[0]!.all) {
    return;
  }
  const covered = await client.query<{ schemaname: string; tablename: string }>(
    'SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = $1',
    [name],
  );
  const missing = tables.filter(
    (t) => !covered.rows.some((r) => r.schemaname === t.schema && r.tablename === t.table),
  );
  if (missing.length === 0) return;
  if (!create) {
    throw new WeirError(
      'SOURCE_FAILED',
      `publication '${name}' does not include ${missing.map((t) => `${t.schema}.${t.table}`).join(', ')} (and createPublication is false)`,
      { domain: 'user' },
    );
  }
  await client.query(
    `ALTER PUBLICATION ${quoteIdent(name)} ADD TABLE ${missing.map(qualified).join(', ')}`,
  );
}

/** A replication slot as `pg_replication_slots` shows it. */
export interface SlotInfo {
  readonly plugin: string | null;
  readonly database: string | null;
  readonly active: boolean;
  readonly activePid: number | null;
  readonly confirmedFlush: Lsn | undefined;
}

export async function slotInfo(client: pg.Client, slotName: string): Promise<SlotInfo | undefined> {
  const result = await client.query<{
    plugin: string | null;
    database: string | null;
    active: boolean;
    active_pid: number | null;
    confirmed_flush_lsn: string | null;
  }>(
    'SELECT plugin, database, active, active_pid, confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1',
    [slotName],
  );
  const row = result.rows[0];
  if (row === undefined) return undefined;
  return {
    plugin: row.plugin,
    database: row.database,
    active: row.active,
    activePid: row.active_pid,
    confirmedFlush:
      row.confirmed_flush_lsn === null ? undefined : parseLsn(row.confirmed_flush_lsn),
  };
}

/**
 * Drops a slot, waiting (up to `timeoutMs`) for a session that still holds
 * it to go away, as happens right after a process was killed.
 */
export async function dropSlot(
  client: pg.Client,
  slotName: string,
  timeoutMs = 10_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await slotInfo(client, slotName);
    if (info === undefined) return false;
    if (!info.active) {
      try {
        await client.query('SELECT pg_drop_replication_slot($1)', [slotName]);
        return true;
      } catch (cause) {
        const code = (cause as { code?: string }).code;
        if (code === '42704') return false; // dropped meanwhile
        if (code !== '55006' || Date.now() > deadline) throw cause; // 55006: in use
      }
    } else if (Date.now() > deadline) {
      throw new WeirError(
        'SOURCE_FAILED',
        `replication slot '${slotName}' is in use by server process ${info.activePid}: another source (or pg_recvlogical) is reading it`,
        { domain: 'user' },
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits (up to `timeoutMs`) until no session holds the slot: a killed predecessor's walsender may linger briefly. */
export async function waitForSlotRelease(
  client: pg.Client,
  slotName: string,
  timeoutMs = 10_000,
): Promise<SlotInfo | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await slotInfo(client, slotName);
    if (info === undefined || !info.active) return info;
    if (Date.now() > deadline) {
      throw new WeirError(
        'SOURCE_FAILED',
        `replication slot '${slotName}' is in use by server process ${info.activePid}: another source (or pg_recvlogical) is reading it`,
        { domain: 'user', retriable: true },
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
