/**
 * The upsert sink: batched `INSERT ... ON CONFLICT (key) DO UPDATE` and
 * `DELETE`, each flush in one transaction. Idempotent: replaying records
 * after a restore (at-least-once) leaves the table as if they were written
 * once, since each key ends with its last mutation.
 *
 * Records are flushed as they arrive and the writer holds its task while
 * anything is unflushed, so a checkpoint barrier never passes records that
 * are not yet in the table.
 */
import type pg from 'pg';
import { type Change, type ChangeKind, isChange } from '../../../core/changelog.js';
import { userFunctionFailed, WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { ReconcilableSink, ReconcileTarget } from '../../../core/replay.js';
import type { SinkContext, SinkWriter, TwoPhaseCommitWriter } from '../../../core/sink.js';
import type { Json } from '../../../core/snapshot.js';
import type { Counter, MetricGroup } from '../../../metrics/registry.js';
import { parseOptions } from '../../shared/config.js';
import { upsertSinkSchema } from '../config.js';
import { connect, sessionFailure } from '../connection.js';
import { isConnectionLost, PostgresReconnector, reconnectCounter } from '../reconnect.js';
import { PostgresTableTarget } from './reconcile-target.js';
import {
  loadSinkTable,
  type PostgresSinkOptions,
  type RejectedRecord,
  rejectedError,
  type SinkConfig,
  sinkConfig,
} from './sink-config.js';
import { applyMutations, type Rejection, type SinkMutation, type SinkTable } from './sink-table.js';

/** Counter: rows written (upserted or deleted) by a PostgreSQL sink. */
export const SINK_ROWS_METRIC = 'weir_postgres_sink_rows_total';
/** Counter: records a PostgreSQL sink's table rejected (failed the job or went to the dead letter). */
export const SINK_REJECTED_METRIC = 'weir_postgres_sink_rejected_total';

/** The row and rejection counters every PostgreSQL sink writer keeps. */
export function sinkRowCounters(metrics: MetricGroup): { rows: Counter; rejected: Counter } {
  return {
    rows: metrics.counter(SINK_ROWS_METRIC, 'Rows written to PostgreSQL'),
    rejected: metrics.counter(SINK_REJECTED_METRIC, 'Records PostgreSQL rejected'),
  };
}

/** A record and the change it makes. */
export interface PendingMutation<T> {
  readonly record: T;
  readonly mutation: SinkMutation;
}

/**
 * Converts a batch to mutations, naming the record when the user's
 * function throws. With `changes`, `Change` records are applied by kind: the
 * row of `+I`/`+U` is upserted, the row of `-D` deleted by its key, and `-U`
 * skipped (the `+U` that follows replaces the row).
 */
export function mutationsOf<T>(
  config: SinkConfig<T>,
  batch: RecordBatch<T>,
  operatorId: string,
  into: PendingMutation<T>[],
  changes = false,
): void {
  for (const input of batch.values) {
    let record = input;
    let kind: ChangeKind = '+I';
    if (changes && isChange(input)) {
      kind = input.kind;
      if (kind === '-U') continue;
      record = input.value as T;
    }
    let mutation: SinkMutation | null | undefined;
    try {
      mutation = config.toMutation(record);
    } catch (cause) {
      throw userFunctionFailed(operatorId, 'toMutation', record, cause);
    }
    if (mutation === null || mutation === undefined) continue;
    if (kind === '-D' && mutation.kind === 'upsert')
      mutation = { kind: 'delete', key: mutation.row };
    into.push({ record, mutation });
  }
}

/** The row type of a sink's records: the changed row for `Change` records. */
export type RowOf<T> = T extends Change<infer R> ? R : T;

/**
 * Hands rejected records to the dead letter, or returns the
 * job's failure under the `'fail'` policy.
 */
export function disposeRejections<T>(
  config: SinkConfig<T>,
  table: SinkTable,
  batch: readonly PendingMutation<T>[],
  rejections: readonly Rejection[],
  operatorId: string,
  counter: Counter,
): WeirError | undefined {
  if (rejections.length === 0) return undefined;
  counter.inc(rejections.length);
  for (const r of rejections) {
    const p = batch[r.index]!;
    const rejected: RejectedRecord<T> = {
      record: p.record,
      mutation: p.mutation,
      error: r.message,
      code: r.code,
      table: `${table.schema}.${table.table}`,
    };
    const policy = config.onRejected;
    if (policy === 'fail') return rejectedError(operatorId, rejected);
    try {
      policy.deadLetter(rejected);
    } catch (cause) {
      return userFunctionFailed(operatorId, 'deadLetter', p.record, cause);
    }
  }
  return undefined;
}

const RETRIES = 5;

function retriable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '40001' || code === '40P01';
}

/**
 * Implements the two-phase-commit interface only to be told about barriers:
 * `preCommit` fails the checkpoint if a flush failed (so no checkpoint
 * completes past records that never reached the table); it has nothing to
 * commit.
 */
class UpsertWriter<T> implements TwoPhaseCommitWriter<T> {
  private client: pg.Client | undefined;
  private table: SinkTable | undefined;
  private ready: Promise<void> | undefined;
  private pending: PendingMutation<T>[] = [];
  private flushing: Promise<void> | undefined;
  private failure: unknown;
  private readonly rows: Counter;
  private readonly rejected: Counter;
  private readonly operatorId: string;
  private readonly reconnect: PostgresReconnector;

  constructor(
    private readonly config: SinkConfig<T>,
    context: SinkContext,
  ) {
    this.operatorId = context.operatorId;
    ({ rows: this.rows, rejected: this.rejected } = sinkRowCounters(context.metrics));
    this.reconnect = new PostgresReconnector(
      config.reconnect,
      `PostgreSQL upsert sink '${this.operatorId}' (subtask ${context.subtaskIndex})`,
      config.onWarning,
      reconnectCounter(context.metrics),
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
    this.table = await this.withSession('open a session', (client) =>
      loadSinkTable(client, c.table, c.keyColumns, this.operatorId),
    );
  }

  /**
   * Runs `work` on the session; after a lost connection, on a new session,
   * within the reconnect budget. A batch is one transaction and upserts are
   * idempotent, so writing a batch again whose COMMIT may or may not have
   * happened leaves the same rows.
   */
  private withSession<R>(action: string, work: (client: pg.Client) => Promise<R>): Promise<R> {
    return this.reconnect.run(action, 'SINK_FAILED', async () => {
      this.client ??= await connect(this.config.connection, {
        applicationName: `weir-sink-${this.operatorId}`,
      });
      const client = this.client;
      try {
        return await work(client);
      } catch (error) {
        const cause = sessionFailure(client, error);
        if (isConnectionLost(cause) && this.client === client) {
          this.client = undefined;
          await client.end().catch(() => {});
        }
        throw cause;
      }
    });
  }

  write(batch: RecordBatch<T>): void {
    this.check();
    mutationsOf(this.config, batch, this.operatorId, this.pending, true);
    this.startFlush();
  }

  private check(): void {
    const f = this.failure;
    if (f === undefined) return;
    if (f instanceof WeirError) throw f;
    throw new WeirError(
      'SINK_FAILED',
      `sink '${this.operatorId}' failed: ${f instanceof Error ? f.message : String(f)}`,
      { operatorId: this.operatorId, cause: f, domain: 'external', retriable: true },
    );
  }

  private startFlush(): void {
    if (this.flushing !== undefined || this.ready !== undefined || this.failure !== undefined)
      return;
    if (this.pending.length === 0) return;
    const batch = this.pending.splice(0, this.config.maxBatchSize);
    this.flushing = this.flush(batch).then(
      () => {
        this.flushing = undefined;
        this.startFlush();
      },
      (cause: unknown) => {
        this.failure ??= cause;
        this.flushing = undefined;
      },
    );
  }

  private flush(batch: PendingMutation<T>[]): Promise<void> {
    return this.withSession('write a batch', (client) => this.writeBatch(client, batch));
  }

  private async writeBatch(client: pg.Client, batch: PendingMutation<T>[]): Promise<void> {
    const table = this.table!;
    const mutations = batch.map((p) => p.mutation);
    for (let attempt = 1; ; attempt++) {
      await client.query('BEGIN');
      let rejections: Rejection[];
      try {
        rejections = await applyMutations(client, table, mutations);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        if (retriable(error) && attempt < RETRIES) continue;
        throw error;
      }
      const failure = disposeRejections(
        this.config,
        table,
        batch,
        rejections,
        this.operatorId,
        this.rejected,
      );
      if (failure !== undefined) {
        await client.query('ROLLBACK');
        throw failure;
      }
      await client.query('COMMIT');
      this.rows.inc(mutations.length - rejections.length);
      return;
    }
  }

  blocked(): Promise<void> | undefined {
    if (this.ready !== undefined) return this.ready;
    if (this.flushing === undefined) this.startFlush();
    return this.flushing;
  }

  preCommit(): Json {
    this.check();
    return null;
  }

  commit(): void {}

  recover(): void {}

  async close(): Promise<void> {
    await this.ready;
    while (this.failure === undefined && (this.flushing !== undefined || this.pending.length > 0)) {
      this.startFlush();
      await this.flushing;
    }
    await this.client?.end().catch(() => {});
    this.check();
  }
}

/**
 * Writes records to a PostgreSQL table by upserting (and deleting) rows by
 * key: at-least-once with checkpoints, and idempotent, so a restored job
 * leaves the same table. See {@link PostgresSinkOptions}.
 *
 * Accepts upsert changelogs: for `Change` records, `toMutation` receives the
 * changed row; `+I` and `+U` upsert it, `-D` deletes the row with its key.
 */
export class PostgresUpsertSink<T> implements ReconcilableSink<T> {
  readonly name: string;
  readonly accepts = 'upsert';
  private readonly config: SinkConfig<T>;

  constructor(options: PostgresSinkOptions<RowOf<T>>) {
    this.config = sinkConfig(
      parseOptions('PostgresUpsertSink', upsertSinkSchema, options),
      options as PostgresSinkOptions<T>,
    );
    this.name = `postgres upsert ${this.config.table.schema}.${this.config.table.table}`;
  }

  createWriter(context: SinkContext): SinkWriter<T> {
    return new UpsertWriter(this.config, context);
  }

  /** The table for `weir reconcile`: rows by key (mode `upsert`), changelogs applied as the writer does. */
  reconcileTarget(): ReconcileTarget<T> {
    const config = this.config;
    return new PostgresTableTarget(config, (batch, into) =>
      mutationsOf(config, batch, this.name, into, true),
    );
  }
}
