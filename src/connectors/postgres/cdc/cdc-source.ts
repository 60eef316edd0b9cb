/**
 * PostgreSQL change data capture: an initial snapshot, then the changes of a
 * logical replication slot (pgoutput), as Debezium-style change records with
 * the commit time as event time. Exactly-once with checkpoints: a checkpoint
 * stores the WAL position after the records emitted so far, the slot is
 * confirmed up to a position only once the checkpoint holding it has
 * completed, and a restored reader resumes from the checkpoint's position.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { ReplayableSource, ReplayRange } from '../../../core/replay.js';
import type { Json } from '../../../core/snapshot.js';
import type { Source, SourceContext, SourceReader } from '../../../core/source.js';
import { checkTimestamps } from '../../../core/timestamps.js';
import { bytesReadCounter } from '../../../metrics/connector-metrics.js';
import type { Counter } from '../../../metrics/registry.js';
import { connect, sessionFailure } from '../connection.js';
import { isConnectionLost, PostgresReconnector, reconnectCounter } from '../reconnect.js';
import { TypeMapper } from '../type-mapping.js';
import {
  dropSlot,
  ensurePublication,
  loadTables,
  loadTypes,
  type TableInfo,
  waitForSlotRelease,
} from './catalog.js';
import { type CdcConfig, cdcConfig, type PostgresCdcOptions } from './cdc-config.js';
import { ChangeDecoder } from './change-decoder.js';
import type { EventContext, RecordOptions } from './changes.js';
import type { ChangeEvent, ChangeRecord, FlatRow } from './envelope.js';
import { formatLsn, type Lsn, lsnToNumber } from './lsn.js';
import type { ReplicationMessage } from './pgoutput.js';
import { type CdcPosition, decodePosition, encodePosition } from './position.js';
import { checkSnapshotRange, PostgresSnapshotReplay } from './replay-source.js';
import { createSlot, ReplicationStream } from './replication-stream.js';
import { SlotMonitor } from './slot-monitor.js';
import { beginSnapshot, SnapshotLoader, type SnapshotStart } from './snapshot.js';
import { SnapshotReads } from './snapshot-reads.js';

type Phase = 'snapshot' | 'starting' | 'streaming';

/** Reads the changes of one slot (the source is not parallel: one reader). */
class CdcReader implements SourceReader<ChangeRecord<unknown>> {
  /** Present once the reader can say where it is (not during the initial snapshot). */
  snapshot?: () => Json;

  private readonly types: TypeMapper;
  private readonly recordOptions: RecordOptions;
  private query: pg.Client | undefined;
  private db = '';
  private tables = new Map<string, TableInfo>();
  private phase: Phase = 'starting';
  private loader: SnapshotLoader | undefined;
  private snapshotStart: SnapshotStart | undefined;
  private consistentPoint: Lsn = 0n;
  private readonly snapshotReads: SnapshotReads;
  private stream: ReplicationStream | undefined;
  private starting: Promise<void> | undefined;
  private monitor: SlotMonitor | undefined;
  private failure: unknown;
  /** Decodes the stream; created when streaming is about to start. */
  private decoder: ChangeDecoder | undefined;
  private confirmedLsn: Lsn = 0n;
  private readonly pendingConfirmations: Lsn[] = [];
  private deferred: ReplicationMessage | undefined;
  private lastActivity: number;
  private readonly bytesRead: Counter;
  private readonly reconnect: PostgresReconnector;
  /** Aborts a wait before reconnecting when the reader closes. */
  private readonly closing = new AbortController();

  private out: unknown[] = [];
  private outTimes: number[] = [];
  private readonly push = (record: ChangeRecord<unknown>, timestamp: number): void => {
    this.out.push(record);
    this.outTimes.push(timestamp);
  };

  constructor(
    private readonly config: CdcConfig,
    flatten: boolean,
    private readonly context: SourceContext,
  ) {
    this.types = new TypeMapper(config.types);
    this.recordOptions = { flatten, tombstonesOnDelete: config.tombstonesOnDelete };
    this.snapshotReads = new SnapshotReads(
      config.name,
      this.types,
      config.types.unavailableValuePlaceholder,
      this.recordOptions,
    );
    this.lastActivity = context.clock.now();
    this.bytesRead = bytesReadCounter(context.metrics);
    this.reconnect = new PostgresReconnector(
      config.reconnect,
      `PostgreSQL CDC source '${config.slotName}'`,
      config.onWarning,
      reconnectCounter(context.metrics),
    );
  }

  /**
   * Runs `work` on the query session, opening it first if needed; after a
   * lost connection the session is opened anew and `work` repeated, within
   * the reconnect budget.
   */
  private withQuery<T>(action: string, work: (query: pg.Client) => Promise<T>): Promise<T> {
    return this.reconnect.run(action, 'SOURCE_FAILED', async () => {
      this.query ??= await connect(this.config.connection, {
        applicationName: `weir-cdc-${this.config.slotName}`,
      });
      const query = this.query;
      try {
        return await work(query);
      } catch (error) {
        const cause = sessionFailure(query, error);
        if (isConnectionLost(cause) && this.query === query) {
          this.query = undefined;
          await query.end().catch(() => {});
        }
        throw cause;
      }
    });
  }

  async open(): Promise<void> {
    const c = this.config;
    const tables = await this.withQuery('read the catalog', async (query) => {
      this.db = (await query.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
      this.types.load(await loadTypes(query));
      const found = await loadTables(query, c.tables);
      await ensurePublication(query, c.publicationName, c.tables, c.createPublication);
      return found;
    });
    this.tables = new Map(tables.map((t) => [`${t.schema}.${t.table}`, t]));

    const restored = this.context.restoredPosition;
    if (restored !== undefined) {
      await this.resume(decodePosition(restored, c.slotName));
    } else if (c.snapshot === 'initial') {
      await this.beginInitialSnapshot(tables);
    } else {
      const start = await this.withQuery('find the slot', async (query): Promise<Lsn> => {
        const info = await waitForSlotRelease(query, c.slotName);
        if (info !== undefined) return info.confirmedFlush ?? 0n;
        const { session, slot } = await createSlot(c.connection, c.slotName, false);
        await session.end().catch(() => {});
        return slot.consistentPoint;
      });
      this.confirmedLsn = start;
      this.beginStreaming({
        slot: c.slotName,
        lsn: start,
        lastCommitLsn: undefined,
        partial: undefined,
        watermark: Number.NEGATIVE_INFINITY,
      });
    }
    this.monitor = new SlotMonitor(
      {
        connection: c.connection,
        slotName: c.slotName,
        lagIntervalMs: c.slotLagIntervalMs,
        warningBytes: c.slotLagWarningBytes,
        heartbeatIntervalMs: c.heartbeatIntervalMs,
        heartbeatQuery: c.heartbeatQuery,
        onWarning: c.onWarning,
      },
      this.context.metrics,
    );
    await this.reconnect.run('watch the slot', 'SOURCE_FAILED', () => this.monitor!.start());
  }

  /** Restarts from a checkpoint: the slot must still exist and must not have moved past the position. */
  private async resume(position: CdcPosition): Promise<void> {
    const c = this.config;
    const info = await this.withQuery('find the slot', (query) =>
      waitForSlotRelease(query, c.slotName),
    );
    if (info === undefined) {
      throw new WeirError(
        'SOURCE_FAILED',
        `cannot resume: replication slot '${c.slotName}' no longer exists, so the changes since the checkpoint are gone; start without restoring to take a new snapshot`,
        { domain: 'external' },
      );
    }
    if (info.confirmedFlush !== undefined && info.confirmedFlush > position.lsn) {
      throw new WeirError(
        'SOURCE_FAILED',
        `cannot resume: slot '${c.slotName}' was confirmed up to ${formatLsn(info.confirmedFlush)}, past the checkpoint's position ${formatLsn(position.lsn)} (was a newer checkpoint completed?); the changes in between are no longer available`,
        { domain: 'external' },
      );
    }
    this.confirmedLsn = info.confirmedFlush ?? position.lsn;
    this.beginStreaming(position);
  }

  /**
   * Fresh start: (re)creates the slot with an exported snapshot, imports it
   * into a REPEATABLE READ transaction, then reads the tables in the
   * background. The reader cannot be checkpointed until the last snapshot
   * record is emitted (a crash before that starts over with a new snapshot).
   */
  private async beginInitialSnapshot(tables: readonly TableInfo[]): Promise<void> {
    const c = this.config;
    this.query ??= await connect(c.connection, { applicationName: `weir-cdc-${c.slotName}` });
    const query = this.query;
    await dropSlot(query, c.slotName);
    const { session, slot } = await createSlot(c.connection, c.slotName, true);
    try {
      this.snapshotStart = await beginSnapshot(query, slot.snapshotName!);
    } finally {
      await session.end().catch(() => {});
    }
    this.consistentPoint = slot.consistentPoint;
    this.confirmedLsn = slot.consistentPoint;
    const fetchSize = c.snapshotFetchSize;
    this.loader = new SnapshotLoader(
      query,
      tables,
      fetchSize,
      Math.max(fetchSize * 2, this.context.batchSize * 4),
    );
    this.loader.start();
    this.phase = 'snapshot';
  }

  /** From here on the reader has a position: checkpoints may include it. */
  private beginStreaming(from: CdcPosition): void {
    this.decoder = this.createDecoder(from);
    this.snapshot = () => this.position();
    this.openStream(from.lsn, 0);
  }

  private createDecoder(from: CdcPosition): ChangeDecoder {
    const c = this.config;
    return new ChangeDecoder(
      {
        name: c.name,
        db: this.db,
        tables: this.tables,
        types: this.types,
        records: this.recordOptions,
        placeholder: c.types.unavailableValuePlaceholder,
        truncateEvents: c.truncateEvents,
        watermarkDelayMs: c.watermarkDelayMs,
        now: () => this.context.clock.now(),
        reloadTypes: async () =>
          this.types.load(await this.withQuery('reload types', (query) => loadTypes(query))),
      },
      from,
      this.push,
    );
  }

  /**
   * Starts replication from `startLsn` after `delayMs`; a lost connection
   * is retried within the reconnect budget. The stream counts as recovered
   * once the server has accepted START_REPLICATION (the slot is ours again).
   */
  private openStream(startLsn: Lsn, delayMs: number): void {
    const c = this.config;
    this.phase = 'starting';
    const signal = this.closing.signal;
    this.starting = (delayMs > 0 ? sleep(delayMs, undefined, { signal }) : Promise.resolve())
      .then(() =>
        ReplicationStream.start({
          connection: c.connection,
          slotName: c.slotName,
          publicationName: c.publicationName,
          startLsn,
          maxBufferedBytes: c.maxBufferedBytes,
          statusIntervalMs: c.statusIntervalMs,
          confirmed: () => this.confirmedLsn,
          now: () => Date.now(),
          bytesRead: this.bytesRead,
          onStarted: () => this.reconnect.recovered(),
        }),
      )
      .then(
        (stream) => {
          this.starting = undefined;
          if (signal.aborted) {
            void stream.close();
            return;
          }
          this.stream = stream;
          this.phase = 'streaming';
        },
        (cause: unknown) => {
          this.starting = undefined;
          if (signal.aborted) return;
          try {
            this.openStream(
              startLsn,
              this.reconnect.failed(cause, 'start replication', 'SOURCE_FAILED'),
            );
          } catch (failure) {
            this.failure = failure;
          }
        },
      );
  }

  /**
   * The replication session was lost: drop what it had queued and stream
   * again from the position after the last record emitted (the decoder
   * skips the part of a transaction already emitted), after a backoff.
   * Throws once the outage has outlasted the reconnect budget.
   */
  private restartStream(failure: WeirError): void {
    if (!isConnectionLost(failure)) throw failure;
    const stream = this.stream!;
    this.stream = undefined;
    this.deferred = undefined;
    void stream.close();
    // Report the session's own error, not the wrapper naming the slot.
    const delay = this.reconnect.failed(
      failure.cause ?? failure,
      'stream changes',
      'SOURCE_FAILED',
    );
    const old = this.decoder!;
    const from: CdcPosition = {
      slot: this.config.slotName,
      lsn: old.resumeLsn,
      lastCommitLsn: old.lastCommitLsn,
      partial: old.partial(),
      watermark: old.watermark,
    };
    this.decoder = this.createDecoder(from);
    this.openStream(from.lsn, delay);
  }

  poll(): RecordBatch<ChangeRecord<unknown>> | 'wait' {
    const failure = this.failure ?? this.decoder?.failure;
    if (failure !== undefined) throw this.failed(failure);
    if (this.phase === 'snapshot') return this.pollSnapshot();
    if (this.phase === 'starting') return 'wait';
    return this.pollStream();
  }

  private failed(cause: unknown): WeirError {
    if (cause instanceof WeirError) return cause;
    return new WeirError(
      'SOURCE_FAILED',
      `PostgreSQL source '${this.config.slotName}' failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { domain: 'external', cause, retriable: true, operatorId: this.context.operatorId },
    );
  }

  private takeBatch(): RecordBatch<ChangeRecord<unknown>> | 'wait' {
    if (this.out.length === 0) return 'wait';
    const batch = {
      values: this.out as ChangeRecord<unknown>[],
      timestamps: this.outTimes,
      keys: undefined,
    };
    this.out = [];
    this.outTimes = [];
    this.lastActivity = this.context.clock.now();
    return checkTimestamps(batch, this.context.operatorId, 'commit time');
  }

  private pollSnapshot(): RecordBatch<ChangeRecord<unknown>> | 'wait' {
    const loader = this.loader!;
    if (loader.failure !== undefined) throw loader.failure;
    const start = this.snapshotStart!;
    const available = loader.rows.length - (loader.done ? 0 : 1);
    const n = Math.min(this.context.batchSize, available);
    if (n > 0) {
      const ctx: EventContext = {
        name: this.config.name,
        db: this.db,
        commitTimeUs: start.timeUs,
        txId: start.txId,
        snapshot: 'true',
        lastCommitLsn: null,
        now: this.context.clock.now(),
      };
      const lsn = lsnToNumber(this.consistentPoint);
      const time = Math.floor(start.timeUs / 1000);
      const emit = (record: ChangeRecord<unknown>) => this.push(record, time);
      for (let i = 0; i < n; i++) {
        const row = loader.rows.shift()!;
        this.snapshotReads.emit(emit, row, ctx, lsn, loader.done && loader.rows.length === 0);
      }
      loader.taken();
    }
    if (loader.done && loader.rows.length === 0) {
      // Every snapshot record is out: from here on the position is the consistent point.
      this.loader = undefined;
      this.beginStreaming({
        slot: this.config.slotName,
        lsn: this.consistentPoint,
        lastCommitLsn: undefined,
        partial: undefined,
        watermark: Number.NEGATIVE_INFINITY,
      });
    }
    return this.takeBatch();
  }

  private pollStream(): RecordBatch<ChangeRecord<unknown>> | 'wait' {
    const stream = this.stream!;
    const decoder = this.decoder!;
    if (stream.failure !== undefined) {
      this.restartStream(stream.failure);
      return this.takeBatch();
    }
    const limit = this.context.batchSize;
    while (this.out.length < limit && decoder.waitingFor === undefined) {
      const m = this.deferred ?? stream.next();
      this.deferred = undefined;
      if (m === undefined) break;
      if (!decoder.handle(m)) {
        this.deferred = m;
        break;
      }
    }
    return this.takeBatch();
  }

  available(): Promise<void> {
    if (this.failure !== undefined || this.decoder?.failure !== undefined) return Promise.resolve();
    const waiting = this.decoder?.waitingFor;
    if (waiting !== undefined) return waiting;
    if (this.phase === 'snapshot') {
      const loader = this.loader;
      if (
        loader === undefined ||
        loader.done ||
        loader.failure !== undefined ||
        loader.rows.length > 1
      ) {
        return Promise.resolve();
      }
      return loader.arrived.wait();
    }
    if (this.phase === 'starting') return this.starting ?? Promise.resolve();
    const stream = this.stream!;
    if (stream.pending > 0 || this.deferred !== undefined || stream.failure !== undefined)
      return Promise.resolve();
    return stream.arrived.wait();
  }

  /** False during the initial snapshot: a crash there starts over, so there is no position to record. */
  canSnapshot(): boolean {
    return this.snapshot !== undefined;
  }

  private position(): Json {
    const d = this.decoder!;
    this.pendingConfirmations.push(d.resumeLsn);
    return encodePosition({
      slot: this.config.slotName,
      lsn: d.resumeLsn,
      lastCommitLsn: d.lastCommitLsn,
      partial: d.partial(),
      watermark: d.watermark,
    });
  }

  /**
   * A checkpoint completed: confirm its position to the server, which may
   * then recycle the WAL before it. Checkpoints complete in the order they
   * were taken, one position each.
   */
  notifyCheckpointComplete(): void {
    const lsn = this.pendingConfirmations.shift();
    if (lsn === undefined || lsn <= this.confirmedLsn) return;
    this.confirmedLsn = lsn;
    this.stream?.sendStatus(false);
  }

  currentWatermark(): number {
    return this.decoder?.watermark ?? Number.NEGATIVE_INFINITY;
  }

  isIdle(): boolean {
    if (this.phase !== 'streaming' || this.decoder!.inTransaction || this.out.length > 0)
      return false;
    if ((this.stream?.pending ?? 0) > 0) return false;
    return this.context.clock.now() - this.lastActivity >= this.config.idleTimeoutMs;
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.loader?.stop();
    await this.starting;
    await this.stream?.close();
    await this.monitor?.close();
    await this.query?.end().catch(() => {});
  }
}

/** A PostgreSQL CDC source; see {@link postgresCdc}. */
export class PostgresCdcSource<V> implements ReplayableSource<ChangeRecord<V>> {
  readonly bounded = false;
  readonly parallelizable = false;
  readonly name: string;
  private readonly config: CdcConfig;

  constructor(
    options: PostgresCdcOptions,
    private readonly flat: boolean,
  ) {
    this.config = cdcConfig(options);
    this.name = `postgres-cdc ${this.config.slotName}`;
  }

  createReader(context: SourceContext): SourceReader<ChangeRecord<V>> {
    return new CdcReader(this.config, this.flat, context) as unknown as SourceReader<
      ChangeRecord<V>
    >;
  }

  /**
   * A bounded snapshot of the captured tables as they are now: the read
   * records of the initial snapshot, in primary-key order, from one
   * REPEATABLE READ transaction. Creates and touches no slot or publication.
   * A snapshot has no history, so `range` must be empty.
   */
  replay(range: ReplayRange): Source<ChangeRecord<V>> {
    checkSnapshotRange(range, this.name);
    return new PostgresSnapshotReplay<V>(this.config, this.flat);
  }
}

/**
 * A source of the changes of PostgreSQL tables, through logical replication
 * (pgoutput). Records are {@link ChangeRecord}s: the primary key, and the
 * change in Debezium's envelope (or, with `flatten`, the row after the change
 * plus `__deleted`). Event time is the commit time; the source emits
 * watermarks itself. Needs `wal_level=logical` and a role with REPLICATION.
 *
 * ```ts
 * env.fromSource(postgresCdc({ connection, tables: ['orders'], slotName: 'orders_cdc' }))
 *   .filter((r) => r.value !== null)
 *   .keyBy((r) => String(r.key?.id));
 * ```
 */
export function postgresCdc(
  options: PostgresCdcOptions & { readonly flatten?: false },
): PostgresCdcSource<ChangeEvent>;
export function postgresCdc(
  options: PostgresCdcOptions & { readonly flatten: true },
): PostgresCdcSource<FlatRow>;
export function postgresCdc(
  options: PostgresCdcOptions & { readonly flatten?: boolean },
): PostgresCdcSource<ChangeEvent> | PostgresCdcSource<FlatRow> {
  return options.flatten === true
    ? new PostgresCdcSource<FlatRow>(options, true)
    : new PostgresCdcSource<ChangeEvent>(options, false);
}
