/**
 * The exactly-once sink: the writes between two checkpoints form one
 * database transaction, sealed with PREPARE TRANSACTION at the checkpoint
 * barrier and committed (COMMIT PREPARED) when the checkpoint completes. A
 * prepared transaction survives crashes of Weir and of the server, so a
 * restore commits exactly the transactions its checkpoint names and rolls
 * back the ones prepared for checkpoints that never completed.
 *
 * `preCommit` is synchronous (a barrier must not pass before its data is
 * sealed), and a session lives on one thread; so the session holding the
 * open transaction lives in a worker thread, which this thread waits on
 * (`Atomics.wait`) for the PREPARE. Writes are sent ahead as records arrive
 * and the writer holds its task until they are done, so at a barrier the
 * wait is one round trip.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { ReconcilableSink, ReconcileTarget } from '../../../core/replay.js';
import type { SinkContext, TwoPhaseCommitWriter } from '../../../core/sink.js';
import type { Json } from '../../../core/snapshot.js';
import type { Counter } from '../../../metrics/registry.js';
import { siblingModule } from '../../../util/threads/start-worker.js';
import { parseOptions } from '../../shared/config.js';
import { transactionalSinkSchema } from '../config.js';
import { connect, quoteLiteral, sessionFailure } from '../connection.js';
import { isConnectionLost, PostgresReconnector, reconnectCounter } from '../reconnect.js';
import { PostgresTableTarget } from './reconcile-target.js';
import {
  loadSinkTable,
  type PostgresSinkOptions,
  type SinkConfig,
  sinkConfig,
} from './sink-config.js';
import type { SinkTable } from './sink-table.js';
import { SyncWorker } from './sync-worker.js';
import type { TransactionRequest, TransactionResponse } from './transaction-protocol.js';
import {
  disposeRejections,
  mutationsOf,
  type PendingMutation,
  type RowOf,
  sinkRowCounters,
} from './upsert-sink.js';

/** Options of {@link PostgresTransactionalSink}. */
export interface PostgresTransactionalSinkOptions<T> extends PostgresSinkOptions<T> {
  /**
   * Prefix of the prepared transactions' names (`<prefix>:<subtask>:<checkpoint>:<token>`).
   * Recovery rolls back prepared transactions with this prefix that no
   * checkpoint names, so no two jobs may share it. Default
   * `weir:<schema>.<table>:<operator id>`.
   */
  readonly transactionPrefix?: string;
  /** Longest wait for the database while sealing a transaction at a barrier. Default 60,000 ms. */
  readonly prepareTimeoutMs?: number;
}

interface Committable {
  readonly gid: string;
  readonly subtask: number;
}

function isCommittable(json: Json): json is Json & Committable {
  return (
    json !== null &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    typeof json.gid === 'string' &&
    typeof json.subtask === 'number'
  );
}

/** `<prefix>:<subtask>:<checkpoint>:<token>` into its parts (the prefix may contain ':'). */
function parseGid(gid: string): { prefix: string; subtask: number; token: string } | undefined {
  const parts = gid.split(':');
  if (parts.length < 4) return undefined;
  const token = parts.pop()!;
  parts.pop();
  const subtask = Number(parts.pop());
  if (!Number.isInteger(subtask)) return undefined;
  return { prefix: parts.join(':'), subtask, token };
}

let writers = 0;

/** The default prefix, shortened (keeping it unique) if transaction names would grow past 200 bytes. */
function defaultPrefix(full: string): string {
  if (Buffer.byteLength(full) <= 150) return full;
  return `weir:${createHash('sha256').update(full).digest('hex').slice(0, 32)}`;
}

/** How long closing waits for writes in flight before it ends the session under them (ms). */
const CLOSE_GRACE_MS = 1000;

/** A flight of mutations sent to the worker and not yet accounted for. */
interface Flight<T> {
  readonly id: number;
  readonly batch: PendingMutation<T>[];
  settled: boolean;
}

class TransactionalWriter<T> implements TwoPhaseCommitWriter<T> {
  private worker: SyncWorker<TransactionRequest, TransactionResponse> | undefined;
  private control: pg.Client | undefined;
  private table: SinkTable | undefined;
  private ready: Promise<void> | undefined;
  private pending: PendingMutation<T>[] = [];
  private flight: Flight<T> | undefined;
  private flightDone: Promise<void> | undefined;
  private written = false;
  private failure: unknown;
  private readonly token: string;
  private readonly prefix: string;
  private readonly rows: Counter;
  private readonly rejected: Counter;
  private readonly operatorId: string;
  private readonly subtask: number;
  private readonly parallelism: number;
  private readonly reconnects: Counter;
  private readonly reconnect: PostgresReconnector;
  private readonly what: string;

  constructor(
    private readonly config: SinkConfig<T>,
    private readonly prepareTimeoutMs: number,
    prefix: string | undefined,
    context: SinkContext,
  ) {
    this.operatorId = context.operatorId;
    this.subtask = context.subtaskIndex;
    this.parallelism = context.parallelism;
    this.prefix =
      prefix ??
      defaultPrefix(`weir:${config.table.schema}.${config.table.table}:${context.operatorId}`);
    writers++;
    this.token = `${process.pid.toString(36)}${Date.now().toString(36)}${writers.toString(36)}`;
    ({ rows: this.rows, rejected: this.rejected } = sinkRowCounters(context.metrics));
    this.reconnects = reconnectCounter(context.metrics);
    this.what = `PostgreSQL transactional sink '${this.operatorId}' (subtask ${this.subtask})`;
    this.reconnect = new PostgresReconnector(
      config.reconnect,
      this.what,
      config.onWarning,
      this.reconnects,
    );
    this.ready = this.open().then(
      () => {
        this.ready = undefined;
      },
      (cause: unknown) => {
        this.failure = cause;
        this.ready = undefined;
      },
    );
  }

  private async open(): Promise<void> {
    const c = this.config;
    const name = `weir-sink-${this.operatorId}-${this.subtask}`;
    this.table = await this.withControl('open a session', (control) =>
      loadSinkTable(control, c.table, c.keyColumns, this.operatorId),
    );
    this.worker = new SyncWorker(siblingModule('transaction-worker', import.meta.url), name);
    this.answer(
      await this.worker.request({
        op: 'open',
        connection: c.connection,
        applicationName: name,
        table: this.table,
        reconnect: c.reconnect,
        what: `${this.what}, writing session`,
      }),
    );
  }

  /**
   * Runs `work` on the control session (commits, recovery), opening it
   * again after a lost connection and repeating `work`, within the
   * reconnect budget.
   */
  private withControl<R>(action: string, work: (control: pg.Client) => Promise<R>): Promise<R> {
    return this.reconnect.run(action, 'SINK_FAILED', async () => {
      this.control ??= await connect(this.config.connection, {
        applicationName: `weir-sink-${this.operatorId}-${this.subtask}`,
      });
      const control = this.control;
      try {
        return await work(control);
      } catch (error) {
        const cause = sessionFailure(control, error);
        if (isConnectionLost(cause) && this.control === control) {
          this.control = undefined;
          await control.end().catch(() => {});
        }
        throw cause;
      }
    });
  }

  /** Logs and counts the retries the writing session went through for a request. */
  private noteRetries(res: TransactionResponse): void {
    for (const w of res.warnings ?? []) this.config.onWarning(w);
    if ((res.retries ?? 0) > 0) this.reconnects.inc(res.retries);
  }

  /** A successful response, or the sink's failure. */
  private answer(res: TransactionResponse): TransactionResponse & { ok: true } {
    this.noteRetries(res);
    if (res.ok) return res;
    throw new WeirError('SINK_FAILED', `sink '${this.operatorId}': ${res.message}`, {
      operatorId: this.operatorId,
      domain: 'external',
      retriable: true,
    });
  }

  private check(): void {
    const f = this.failure;
    if (f === undefined) return;
    if (f instanceof WeirError) throw f;
    throw new WeirError(
      'SINK_FAILED',
      `sink '${this.operatorId}' failed: ${f instanceof Error ? f.message : String(f)}`,
      {
        operatorId: this.operatorId,
        cause: f,
        domain: 'external',
        retriable: true,
      },
    );
  }

  write(batch: RecordBatch<T>): void {
    this.check();
    mutationsOf(this.config, batch, this.operatorId, this.pending, true);
    this.send();
  }

  /** Sends the next batch of pending mutations unless one is in flight. */
  private send(): void {
    if (this.flight !== undefined || this.ready !== undefined || this.failure !== undefined) return;
    if (this.pending.length === 0) return;
    const batch = this.pending.splice(0, this.config.maxBatchSize);
    this.written = true;
    const { id, response } = this.worker!.send({
      op: 'apply',
      mutations: batch.map((p) => p.mutation),
    });
    const flight: Flight<T> = { id, batch, settled: false };
    this.flight = flight;
    this.flightDone = response.then(
      (res) => {
        this.land(flight, res);
        this.send();
      },
      (cause: unknown) => {
        this.failure ??= cause;
        this.flight = undefined;
      },
    );
  }

  /** Accounts for a flight's response (once, whichever of the async and sync paths sees it first). */
  private land(flight: Flight<T>, res: TransactionResponse): void {
    if (flight.settled) return;
    flight.settled = true;
    this.noteRetries(res);
    if (this.flight === flight) this.flight = undefined;
    if (!res.ok) {
      this.failure ??= new WeirError('SINK_FAILED', `sink '${this.operatorId}': ${res.message}`, {
        operatorId: this.operatorId,
        domain: 'external',
        retriable: true,
      });
      return;
    }
    const rejections = res.rejections ?? [];
    const failure = disposeRejections(
      this.config,
      this.table!,
      flight.batch,
      rejections,
      this.operatorId,
      this.rejected,
    );
    if (failure !== undefined) this.failure ??= failure;
    this.rows.inc(flight.batch.length - rejections.length);
  }

  blocked(): Promise<void> | undefined {
    if (this.ready !== undefined) return this.ready;
    if (this.flight === undefined) this.send();
    return this.flight === undefined ? undefined : this.flightDone;
  }

  preCommit(checkpointId: number): Json {
    this.check();
    if (this.ready !== undefined) {
      // Still opening: nothing can have been written yet (the task is held
      // until the writer is ready), so there is nothing to seal.
      if (this.pending.length === 0) return null;
      throw new WeirError(
        'SINK_FAILED',
        `sink '${this.operatorId}' received a checkpoint barrier with records before its session was open`,
        { operatorId: this.operatorId, domain: 'internal' },
      );
    }
    const worker = this.worker!;
    // Whatever is still in flight or pending belongs to this transaction.
    const flight = this.flight;
    if (flight !== undefined) this.land(flight, worker.awaitSync(flight.id, this.prepareTimeoutMs));
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.config.maxBatchSize);
      this.written = true;
      const { id, response } = worker.send({
        op: 'apply',
        mutations: batch.map((p) => p.mutation),
      });
      response.catch(() => {});
      const f: Flight<T> = { id, batch, settled: false };
      this.land(f, worker.awaitSync(id, this.prepareTimeoutMs));
    }
    this.check();
    if (!this.written) return null;
    this.written = false;
    const gid = `${this.prefix}:${this.subtask}:${checkpointId}:${this.token}`;
    const res = this.answer(worker.requestSync({ op: 'prepare', gid }, this.prepareTimeoutMs));
    if (res.prepared !== true) return null;
    const committable: Committable = { gid, subtask: this.subtask };
    return { ...committable };
  }

  async commit(committables: readonly Json[]): Promise<void> {
    await this.ready;
    for (const c of committables) if (c !== null && isCommittable(c)) await this.commitOne(c.gid);
  }

  /** COMMIT PREPARED, tolerating a transaction that is already committed (by an earlier attempt). */
  private async commitOne(gid: string): Promise<void> {
    try {
      await this.withControl('commit a prepared transaction', async (control) => {
        try {
          await control.query(`COMMIT PREPARED ${quoteLiteral(gid)}`);
        } catch (cause) {
          // No longer prepared: committed before (perhaps just before a lost answer).
          if ((cause as { code?: string }).code !== '42704') throw cause;
        }
      });
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw new WeirError(
        'SINK_FAILED',
        `sink '${this.operatorId}' cannot commit prepared transaction '${gid}': ${(cause as Error).message}`,
        {
          operatorId: this.operatorId,
          cause,
          domain: 'external',
          retriable: true,
        },
      );
    }
  }

  /**
   * After a restore: commits the prepared transactions the checkpoint names
   * (those of old subtasks this subtask now owns), and rolls back the other
   * prepared transactions of this sink that this subtask owns: leftovers of
   * checkpoints that never completed.
   */
  async recover(committables: readonly Json[]): Promise<void> {
    await this.ready;
    this.check();
    const mine = (oldSubtask: number) => oldSubtask % this.parallelism === this.subtask;
    const prepared = await this.withControl('list prepared transactions', (control) =>
      control.query<{ gid: string }>(
        'SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1)',
        [`${this.prefix}:`],
      ),
    );
    const present = new Set(prepared.rows.map((r) => r.gid));
    const keep = new Set<string>();
    for (const c of committables) {
      if (c === null || !isCommittable(c)) continue;
      keep.add(c.gid);
      if (mine(c.subtask) && present.has(c.gid)) await this.commitOne(c.gid);
    }
    for (const gid of present) {
      const parts = parseGid(gid);
      if (parts === undefined || parts.prefix !== this.prefix || keep.has(gid)) continue;
      if (parts.token === this.token || !mine(parts.subtask)) continue;
      await this.withControl('roll back a prepared transaction', async (control) => {
        try {
          await control.query(`ROLLBACK PREPARED ${quoteLiteral(gid)}`);
        } catch (cause) {
          if ((cause as { code?: string }).code !== '42704') throw cause;
        }
      });
    }
  }

  async close(): Promise<void> {
    await this.ready;
    // Writes still in flight after a failure may wait for row locks of a
    // transaction prepared for a checkpoint that never completed: only the
    // next restore resolves it, so waiting here would hang the failing job.
    // Past a short grace the worker is ended instead; its session goes with
    // it, and the server rolls back the open transaction.
    const landed =
      this.flightDone === undefined ||
      (await Promise.race([
        this.flightDone.then(
          () => true,
          () => true,
        ),
        sleep(CLOSE_GRACE_MS).then(() => false),
      ]));
    if (this.worker !== undefined) {
      if (landed) await this.worker.request({ op: 'close' }).catch(() => {});
      await this.worker.terminate();
    }
    await this.control?.end().catch(() => {});
  }
}

/**
 * Writes records to a PostgreSQL table exactly once, with checkpoints: each
 * checkpoint's writes are one transaction, prepared at the barrier and
 * committed when the checkpoint completes (needs `max_prepared_transactions`
 * > 0 on the server). Rows become visible when their checkpoint completes.
 * Upserts and deletes by key as {@link PostgresUpsertSink}, and so accepts upsert
 * changelogs as it does.
 */
export class PostgresTransactionalSink<T> implements ReconcilableSink<T> {
  readonly name: string;
  readonly commitsOnCheckpoint = true;
  readonly accepts = 'upsert';
  private readonly config: SinkConfig<T>;
  private readonly prepareTimeoutMs: number;
  private readonly prefix: string | undefined;

  constructor(options: PostgresTransactionalSinkOptions<RowOf<T>>) {
    const o = parseOptions('PostgresTransactionalSink', transactionalSinkSchema, options);
    this.config = sinkConfig(o, options as PostgresTransactionalSinkOptions<T>);
    this.prepareTimeoutMs = o.prepareTimeoutMs;
    // Transaction names are at most 200 bytes; the schema leaves the suffix room.
    this.prefix = o.transactionPrefix;
    this.name = `postgres transactional ${this.config.table.schema}.${this.config.table.table}`;
  }

  createWriter(context: SinkContext): TwoPhaseCommitWriter<T> {
    return new TransactionalWriter(this.config, this.prepareTimeoutMs, this.prefix, context);
  }

  /**
   * The table for `weir reconcile`: rows by key (mode `upsert`: the sink
   * upserts and deletes by key too), records turned into mutations as the
   * writer does.
   */
  reconcileTarget(): ReconcileTarget<T> {
    const config = this.config;
    return new PostgresTableTarget(config, (batch, into) =>
      mutationsOf(config, batch, this.name, into, true),
    );
  }
}
