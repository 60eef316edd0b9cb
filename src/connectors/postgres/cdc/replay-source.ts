/**
 * `weir replay` of the CDC source: a bounded source reading the captured
 * tables as they are now, in one REPEATABLE READ transaction (so every
 * table is read at the same point), and emitting exactly the read records
 * the streaming source's initial snapshot would. It never creates, reads or
 * touches a replication slot or publication: replaying must not disturb the
 * production slot. Rows come in primary-key order and batches hold exactly
 * `batchSize` records, so two replays of unchanged tables emit the same
 * records in the same batches.
 */
import type pg from 'pg';
import { invalidArgument, WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { ReplayRange } from '../../../core/replay.js';
import type { Source, SourceContext, SourceReader } from '../../../core/source.js';
import { checkTimestamps } from '../../../core/timestamps.js';
import { connect, qualified, quoteIdent } from '../connection.js';
import { TypeMapper } from '../type-mapping.js';
import { loadTables, loadTypes, type TableInfo } from './catalog.js';
import type { CdcConfig } from './cdc-config.js';
import type { EventContext } from './changes.js';
import type { ChangeRecord } from './envelope.js';
import { lsnToNumber, parseLsn } from './lsn.js';
import { SnapshotLoader } from './snapshot.js';
import { SnapshotReads } from './snapshot-reads.js';

/**
 * Refuses the parts of a replay range a snapshot cannot honour: a snapshot
 * is the tables as they are now, with no history to select from.
 */
export function checkSnapshotRange(range: ReplayRange, source: string): void {
  const given = (['from', 'to', 'positions', 'files'] as const).filter(
    (k) => range[k] !== undefined,
  );
  if (given.length === 0) return;
  throw invalidArgument(
    `${source}: a replay reads a snapshot of the tables as they are now, so it cannot take ${given.join(', ')} (PostgreSQL keeps no history of past rows to replay from); replay it without a range`,
  );
}

/** Reads one table in a fixed order: by primary key, or by the whole row's text for a table without one. */
function orderedSelect(table: TableInfo): string {
  const alias = 'weir_row';
  const order =
    table.primaryKey.length > 0
      ? table.primaryKey.map((c) => `${alias}.${quoteIdent(c)}`).join(', ')
      : `${alias}::text COLLATE "C"`;
  return `SELECT * FROM ${qualified(table)} AS ${alias} ORDER BY ${order}`;
}

/** What the streaming snapshot stamps, taken from the replay's own transaction. */
interface ReplayStart {
  /** Transaction start time, microseconds since the epoch: the records' event time. */
  readonly timeUs: number;
  /** First transaction id the snapshot does not see. */
  readonly txId: number;
  /** The server's WAL position when the snapshot was taken (on a standby: the position replayed). */
  readonly lsn: number;
}

/**
 * Starts the snapshot: a read-only REPEATABLE READ transaction takes its
 * snapshot at its first statement, which also reads the facts the records
 * carry. Read-only, so a replay can also run against a standby.
 */
async function beginReplaySnapshot(client: pg.Client): Promise<ReplayStart> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  const r = await client.query<{ us: string; xid: string; lsn: string }>(
    `SELECT (extract(epoch FROM now()) * 1000000)::int8::text AS us,
      txid_snapshot_xmax(txid_current_snapshot())::text AS xid,
      (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn`,
  );
  const row = r.rows[0]!;
  return {
    timeUs: Number(row.us),
    txId: Number(row.xid),
    lsn: lsnToNumber(parseLsn(row.lsn)),
  };
}

class SnapshotReplayReader implements SourceReader<ChangeRecord<unknown>> {
  private client: pg.Client | undefined;
  private loader: SnapshotLoader | undefined;
  private readonly types: TypeMapper;
  private readonly reads: SnapshotReads;
  private ctx: Omit<EventContext, 'now'> | undefined;
  private lsn = 0;
  private time = 0;

  constructor(
    private readonly config: CdcConfig,
    flatten: boolean,
    private readonly context: SourceContext,
  ) {
    this.types = new TypeMapper(config.types);
    this.reads = new SnapshotReads(
      config.name,
      this.types,
      config.types.unavailableValuePlaceholder,
      { flatten, tombstonesOnDelete: config.tombstonesOnDelete },
    );
  }

  async open(): Promise<void> {
    const c = this.config;
    try {
      this.client = await connect(c.connection, { applicationName: `weir-replay-${c.slotName}` });
      const client = this.client;
      const db = (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!
        .db;
      this.types.load(await loadTypes(client));
      const found = await loadTables(client, c.tables);
      // The order the tables were configured in, not the catalog's.
      const tables = c.tables.map(
        (t) => found.find((f) => f.schema === t.schema && f.table === t.table)!,
      );
      const start = await beginReplaySnapshot(client);
      this.ctx = {
        name: c.name,
        db,
        commitTimeUs: start.timeUs,
        txId: start.txId,
        snapshot: 'true',
        lastCommitLsn: null,
      };
      this.lsn = start.lsn;
      this.time = Math.floor(start.timeUs / 1000);
      const fetchSize = c.snapshotFetchSize;
      // More than a batch must fit, since a batch waits for the row after it (to mark the last).
      const buffered = Math.max(fetchSize * 2, this.context.batchSize * 4);
      this.loader = new SnapshotLoader(client, tables, fetchSize, buffered, orderedSelect);
      this.loader.start();
    } catch (cause) {
      throw this.failed(cause);
    }
  }

  private failed(cause: unknown): WeirError {
    if (cause instanceof WeirError) return cause;
    return new WeirError(
      'SOURCE_FAILED',
      `replay of PostgreSQL source '${this.config.slotName}' failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { domain: 'external', cause, operatorId: this.context.operatorId },
    );
  }

  poll(): RecordBatch<ChangeRecord<unknown>> | 'wait' | 'end' {
    const loader = this.loader!;
    if (loader.failure !== undefined) throw this.failed(loader.failure);
    const size = this.context.batchSize;
    const rows = loader.rows;
    if (loader.done && rows.length === 0) return 'end';
    // A full batch, and one row more unless the snapshot is complete (the last row is marked).
    if (!loader.done && rows.length <= size) return 'wait';
    const n = Math.min(size, rows.length);
    const values: ChangeRecord<unknown>[] = [];
    const emit = (record: ChangeRecord<unknown>) => values.push(record);
    const ctx: EventContext = { ...this.ctx!, now: this.context.clock.now() };
    for (let i = 0; i < n; i++) {
      const row = rows.shift()!;
      this.reads.emit(emit, row, ctx, this.lsn, loader.done && rows.length === 0);
    }
    loader.taken();
    const batch = { values, timestamps: values.map(() => this.time), keys: undefined };
    return checkTimestamps(batch, this.context.operatorId, 'snapshot time');
  }

  available(): Promise<void> {
    const loader = this.loader;
    if (
      loader === undefined ||
      loader.done ||
      loader.failure !== undefined ||
      loader.rows.length > this.context.batchSize
    ) {
      return Promise.resolve();
    }
    return loader.arrived.wait();
  }

  async close(): Promise<void> {
    this.loader?.stop();
    await this.client?.end().catch(() => {});
  }
}

/** A bounded snapshot of a CDC source's tables; see {@link PostgresCdcSource.replay}. */
export class PostgresSnapshotReplay<V> implements Source<ChangeRecord<V>> {
  readonly bounded = true;
  readonly parallelizable = false;
  readonly name: string;

  constructor(
    private readonly config: CdcConfig,
    private readonly flat: boolean,
  ) {
    this.name = `postgres-cdc ${config.slotName} (replay snapshot)`;
  }

  createReader(context: SourceContext): SourceReader<ChangeRecord<V>> {
    return new SnapshotReplayReader(this.config, this.flat, context) as unknown as SourceReader<
      ChangeRecord<V>
    >;
  }
}
