/**
 * A PostgreSQL table as a lookup-join table: one parameterized
 * `SELECT ... WHERE key = ANY($1)` per batch of keys, on a connection pool
 * per subtask.
 */
import pg from 'pg';
import type { AsyncRuntimeContext } from '../../../core/async-io.js';
import { describeRecord } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type { LookupTable } from '../../../core/lookup.js';
import { type OptionsOf, parseOptions } from '../../shared/config.js';
import { lookupTableSchema } from '../config.js';
import {
  clientConfig,
  type PostgresConnection,
  parseTableName,
  qualified,
  quoteIdent,
} from '../connection.js';
import { PostgresReconnector, type ReconnectSettings, reconnectCounter } from '../reconnect.js';

/** A row as `pg` returns it: column name to value. */
export type PostgresLookupRow = Record<string, unknown>;

/** Options of {@link PostgresLookupTable}. */
export type PostgresLookupTableOptions<V = PostgresLookupRow> = Omit<
  OptionsOf<typeof lookupTableSchema>,
  'row'
> & {
  /** Turns a row into the value joined. Default: the row object as `pg` returns it. */
  readonly row?: (row: PostgresLookupRow) => V;
};

/** Alias of the key column's text form in the query, to match rows to the keys asked for. */
const KEY_ALIAS = '__weir_lookup_key';

/**
 * Reads rows of a PostgreSQL table by key for `lookupJoin`. Keys are matched
 * by their text form (`String(key)` against `key_column::text`), so number,
 * bigint, string, boolean and uuid keys work as they are.
 */
export class PostgresLookupTable<K extends Key, V = PostgresLookupRow>
  implements LookupTable<K, V>
{
  readonly name: string;
  private readonly sql: string;
  private readonly toValue: ((row: PostgresLookupRow) => V) | undefined;
  private readonly connection: PostgresConnection;
  private readonly poolSize: number;
  private pool: pg.Pool | undefined;
  private readonly reconnectSettings: ReconnectSettings;
  private readonly onWarning: (message: string) => void;
  private reconnect: PostgresReconnector | undefined;

  constructor(options: PostgresLookupTableOptions<V>) {
    const config = parseOptions('PostgresLookupTable', lookupTableSchema, options);
    this.connection = config.connection;
    this.poolSize = config.poolSize;
    this.reconnectSettings = config.reconnect;
    this.onWarning = config.onWarning;
    const table = parseTableName(options.table);
    const key = quoteIdent(options.keyColumn);
    const columns =
      options.columns === undefined || options.columns.length === 0
        ? '*'
        : options.columns.map(quoteIdent).join(', ');
    this.name = `${table.schema}.${table.table}`;
    this.sql = `SELECT ${columns}, ${key}::text AS ${KEY_ALIAS} FROM ${qualified(table)} WHERE ${key} = ANY($1)`;
    this.toValue = options.row;
  }

  open(context: AsyncRuntimeContext): void {
    const pool = new pg.Pool({
      ...clientConfig(this.connection, {
        applicationName: `weir lookup ${context.operatorId}/${context.subtaskIndex}`,
      }),
      max: this.poolSize,
    });
    // An idle connection's error (server restart) surfaces through the next query instead.
    pool.on('error', () => {});
    this.pool = pool;
    this.reconnect = new PostgresReconnector(
      this.reconnectSettings,
      `PostgreSQL lookup table ${this.name} (${context.operatorId}, subtask ${context.subtaskIndex})`,
      this.onWarning,
      reconnectCounter(context.metrics),
    );
  }

  async lookup(keys: readonly K[]): Promise<ReadonlyMap<K, V>> {
    const pool = this.pool;
    if (pool === undefined) throw new Error('the lookup table was not opened');
    const byText = new Map<string, K>();
    for (const k of keys) byText.set(String(k), k);
    const params = keys.map((k) => (typeof k === 'bigint' ? k.toString() : k));
    // The pool drops sessions a restart ended; a query on a new one is safe to repeat.
    const { rows } = await this.reconnect!.run('look up keys', 'SOURCE_FAILED', () =>
      pool.query<PostgresLookupRow>(this.sql, [params]),
    );
    const found = new Map<K, V>();
    for (const row of rows) {
      const text = row[KEY_ALIAS] as string;
      const key = byText.get(text);
      if (key === undefined) continue; // text forms differ (e.g. numeric scale): no match
      if (found.has(key)) {
        throw new Error(
          `several rows for key ${describeRecord(key)}; the key column of a lookup table must be unique`,
        );
      }
      delete row[KEY_ALIAS];
      found.set(key, this.toValue === undefined ? (row as V) : this.toValue(row));
    }
    return found;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }
}
