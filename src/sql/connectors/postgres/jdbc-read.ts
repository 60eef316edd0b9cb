/**
 * Reading a PostgreSQL table for the `jdbc` SQL connector: the bounded scan (Flink's
 * `scan.partition.*` splits it into ranges of a numeric column, read by the subtasks in turn,
 * `scan.fetch-size` rows per round trip) and the lookup of rows by several key columns. Values
 * are read in PostgreSQL's text form and converted by the SQL column's type, so a TIMESTAMP(6)
 * keeps its microseconds and a BIGINT or DECIMAL every digit.
 */
import pg from 'pg';
import {
  clientConfig,
  connect,
  type PostgresConnection,
  parseTableName,
  qualified,
  quoteIdent,
} from '../../../connectors/postgres/connection.js';
import {
  type CursorQuery,
  CursorRows,
  TEXT_TYPES,
} from '../../../connectors/postgres/cursor-rows.js';
import {
  emitPostgresWarning,
  POSTGRES_RECONNECT,
  PostgresReconnector,
  reconnectCounter,
} from '../../../connectors/postgres/reconnect.js';
import type { AsyncRuntimeContext } from '../../../core/async-io.js';
import { WeirError } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type { LookupTable } from '../../../core/lookup.js';
import { batchOf, NO_TIMESTAMP, type RecordBatch } from '../../../core/record-batch.js';
import type { PollStatus, Source, SourceContext, SourceReader } from '../../../core/source.js';
import type { TableColumn } from '../../catalog/catalog.js';
import type { LogicalType } from '../../types/logical-type.js';
import type { Row } from '../connector.js';
import { fromJson, parseJsonRecord, parseText } from '../formats/field-values.js';

/** A PostgreSQL value's text form (the session's ISO dates, hex bytea) as a SQL value. */
export function fromPgText(text: string | null, type: LogicalType, field: string): unknown {
  if (text === null) return null;
  switch (type.kind) {
    case 'BOOLEAN':
      return text === 't';
    case 'BINARY':
    case 'VARBINARY':
      return new Uint8Array(Buffer.from(text.slice(2), 'hex'));
    case 'ARRAY':
      // Selected as array_to_json (see selectList): JSON has one reading of nested arrays.
      return fromJson(parseJsonRecord(text), type, field);
    default:
      return parseText(text, type, field);
  }
}

/** The columns as a select list; an ARRAY column comes as its JSON text. */
function selectList(columns: readonly TableColumn[]): string {
  return columns
    .map((c) =>
      c.type.kind === 'ARRAY'
        ? `array_to_json(${quoteIdent(c.name)}) AS ${quoteIdent(c.name)}`
        : quoteIdent(c.name),
    )
    .join(', ');
}

function rowOf(columns: readonly TableColumn[], raw: readonly (string | null)[]): Row {
  const row: Row = new Array(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i] as TableColumn;
    row[i] = fromPgText(raw[i] ?? null, c.type, c.name);
  }
  return row;
}

/** Flink's `scan.partition.*`: the column, and the range of its values split `num` ways. */
export interface ScanPartitioning {
  readonly column: string;
  readonly num: number;
  readonly lowerBound: bigint;
  readonly upperBound: bigint;
}

/**
 * The ranges `[start, end]` of the partitions, as Flink's JdbcNumericBetweenParametersProvider
 * makes them: equal sizes, the first ones one larger when they do not divide evenly.
 */
export function partitionRanges(p: ScanPartitioning): [bigint, bigint][] {
  const count = p.upperBound - p.lowerBound + 1n;
  const batches = BigInt(p.num) > count ? count : BigInt(p.num);
  const size = (count + batches - 1n) / batches;
  const big = count - (size - 1n) * batches;
  const out: [bigint, bigint][] = [];
  let start = p.lowerBound;
  for (let i = 0n; i < batches; i++) {
    const end = start + size - 1n - (i >= big ? 1n : 0n);
    out.push([start, end]);
    start = end + 1n;
  }
  return out;
}

export interface JdbcScanOptions {
  readonly name: string;
  readonly connection: PostgresConnection;
  readonly table: string;
  readonly columns: readonly TableColumn[];
  readonly fetchSize: number;
  readonly partitioning: ScanPartitioning | undefined;
}

/** Reads its share of the scan's queries through a cursor, in the background, into a bounded buffer. */
class JdbcScanReader implements SourceReader<Row> {
  private readonly buffer: CursorRows<Row>;
  private client: pg.Client | undefined;

  constructor(
    private readonly options: JdbcScanOptions,
    private readonly queries: readonly CursorQuery[],
    private readonly context: SourceContext,
  ) {
    this.buffer = new CursorRows(Math.max(options.fetchSize * 2, context.batchSize * 2));
  }

  open(): void {
    this.buffer.startReading(
      () => this.read(),
      (cause) =>
        new WeirError(
          'SOURCE_FAILED',
          `jdbc table '${this.options.name}': reading ${this.options.table} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
          { domain: 'external', cause, operatorId: this.context.operatorId },
        ),
    );
  }

  private async read(): Promise<void> {
    if (this.queries.length === 0) return;
    const o = this.options;
    const client = await connect(o.connection, {
      applicationName: `weir jdbc scan ${this.context.operatorId}/${this.context.subtaskIndex}`,
    });
    this.client = client;
    // A cursor lives in a transaction; read-only, the scan holds no locks but its snapshot.
    await client.query('BEGIN READ ONLY');
    for (const q of this.queries) {
      const read = await this.buffer.readCursor(client, 'weir_scan', q, o.fetchSize, (result) => {
        for (const raw of result.rows as (string | null)[][])
          this.buffer.rows.push(rowOf(o.columns, raw));
      });
      if (!read) return;
    }
    await client.query('COMMIT');
  }

  poll(): RecordBatch<Row> | PollStatus {
    const { rows, failure, done } = this.buffer;
    if (failure !== undefined) throw failure;
    if (rows.length === 0) return done ? 'end' : 'wait';
    const n = Math.min(this.context.batchSize, rows.length);
    const values: Row[] = [];
    for (let i = 0; i < n; i++) values.push(rows.shift() as Row);
    this.buffer.taken();
    return batchOf(
      values,
      values.map(() => NO_TIMESTAMP),
    );
  }

  available(): Promise<void> {
    const { rows, failure, done } = this.buffer;
    if (done || failure !== undefined || rows.length > 0) return Promise.resolve();
    return this.buffer.arrived.wait();
  }

  async close(): Promise<void> {
    this.buffer.stop();
    await this.client?.end().catch(() => {});
  }
}

/**
 * The bounded scan of a table. Partitioned, its ranges go to the subtasks in turn (range `i` to
 * subtask `i % parallelism`); rows outside the bounds are not read, as in Flink.
 */
export class JdbcScanSource implements Source<Row> {
  readonly bounded = true;
  readonly parallelizable: boolean;
  readonly name: string;
  private readonly queries: CursorQuery[];

  constructor(private readonly options: JdbcScanOptions) {
    this.name = `jdbc ${options.name}`;
    const p = options.partitioning;
    this.parallelizable = p !== undefined;
    const select = `SELECT ${selectList(options.columns)} FROM ${qualified(parseTableName(options.table))}`;
    this.queries =
      p === undefined
        ? [{ text: select, values: [] }]
        : partitionRanges(p).map(([start, end]) => ({
            text: `${select} WHERE ${quoteIdent(p.column)} BETWEEN $1 AND $2`,
            values: [start.toString(), end.toString()],
          }));
  }

  createReader(context: SourceContext): SourceReader<Row> {
    const mine = this.queries.filter((_, i) => i % context.parallelism === context.subtaskIndex);
    return new JdbcScanReader(this.options, mine, context);
  }
}

/** The text of one key value as the lookup join gives it (`valuesKey`: `type:value` parts). */
function keyTexts(key: Key): string[] {
  return String(key)
    .split('\u0001')
    .map((part) => part.slice(part.indexOf(':') + 1));
}

/**
 * A table's rows by the values of several columns, any number per key (Flink's lookup of a
 * jdbc table: `WHERE k1 = ? AND k2 = ?`). Keys are matched by their text form, as PostgreSQL
 * prints the key columns.
 */
export class JdbcRowsLookup implements LookupTable<Key, Row[]> {
  readonly name: string;
  private readonly select: string;
  private readonly keyPositions: number[];
  private pool: pg.Pool | undefined;
  private reconnect: PostgresReconnector | undefined;

  constructor(
    private readonly connection: PostgresConnection,
    table: string,
    private readonly columns: readonly TableColumn[],
    private readonly keyColumns: readonly string[],
  ) {
    const name = parseTableName(table);
    this.name = `${name.schema}.${name.table}`;
    this.select = `SELECT ${selectList(columns)} FROM ${qualified(name)}`;
    this.keyPositions = keyColumns.map((k) => columns.findIndex((c) => c.name === k));
  }

  open(context: AsyncRuntimeContext): void {
    const pool = new pg.Pool({
      ...clientConfig(this.connection, {
        applicationName: `weir jdbc lookup ${context.operatorId}/${context.subtaskIndex}`,
      }),
      max: 4,
    });
    // An idle connection's error (server restart) surfaces through the next query instead.
    pool.on('error', () => {});
    this.pool = pool;
    // A lost connection is waited out (up to a minute, as every PostgreSQL connector does),
    // not counted against `lookup.max-retries`, which is for failed queries.
    this.reconnect = new PostgresReconnector(
      POSTGRES_RECONNECT,
      `jdbc lookup table ${this.name} (${context.operatorId}, subtask ${context.subtaskIndex})`,
      emitPostgresWarning,
      reconnectCounter(context.metrics),
    );
  }

  async lookup(keys: readonly Key[]): Promise<ReadonlyMap<Key, Row[]>> {
    const pool = this.pool;
    if (pool === undefined) throw new Error('the lookup table was not opened');
    if (keys.length === 0) return new Map();
    const byText = new Map<string, Key>();
    const values: string[] = [];
    const alternatives: string[] = [];
    for (const key of keys) {
      const texts = keyTexts(key);
      byText.set(texts.join('\u0001'), key);
      const terms = this.keyColumns.map((c, i) => {
        values.push(texts[i] as string);
        return `${quoteIdent(c)} = $${values.length}`;
      });
      alternatives.push(`(${terms.join(' AND ')})`);
    }
    // Parameters take the key columns' types from the comparisons, so indexes serve them.
    // The pool drops sessions a restart ended; a query on a new one is safe to repeat.
    const result = await (this.reconnect as PostgresReconnector).run(
      'look up keys',
      'SOURCE_FAILED',
      () =>
        pool.query({
          text: `${this.select} WHERE ${alternatives.join(' OR ')}`,
          values,
          rowMode: 'array',
          types: TEXT_TYPES,
        }),
    );
    const found = new Map<Key, Row[]>();
    for (const raw of result.rows as (string | null)[][]) {
      const text = this.keyPositions
        .map((p) => {
          const v = raw[p] ?? null;
          // valuesKey prints a BOOLEAN as `true` / `false`, PostgreSQL as `t` / `f`.
          return this.columns[p]?.type.kind === 'BOOLEAN' ? String(v === 't') : v;
        })
        .join('\u0001');
      const key = byText.get(text);
      if (key === undefined) continue;
      const rows = found.get(key);
      const row = rowOf(this.columns, raw);
      if (rows === undefined) found.set(key, [row]);
      else rows.push(row);
    }
    return found;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }
}
