/**
 * The PostgreSQL sinks' side of `weir reconcile`. `written()` reads the
 * target table. `expected()` writes the replayed values, with the sink's own
 * record-to-mutation rules, value conversion and statements, into a
 * temporary copy of the table (`LIKE ... INCLUDING ALL`: defaults, checks,
 * keys), then reads that copy with the same query. So both sides go through
 * the database's own type input and output, and compare equal exactly when
 * the sink would have left the same rows.
 */
import type pg from 'pg';
import { invalidArgument, WeirError } from '../../../core/errors.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { ReconcileTarget, ReplayedValue, WrittenRow } from '../../../core/replay.js';
import { connect, quoteIdent } from '../connection.js';
import { loadSinkTable, rejectedError, type SinkConfig } from './sink-config.js';
import { applyMutations, type SinkMutation, type SinkTable } from './sink-table.js';
import { loadReadColumns, readTableRows, type TableShape } from './table-rows.js';

/** A record and the mutation the sink makes of it. */
export interface RecordMutation<T> {
  readonly record: T;
  readonly mutation: SinkMutation;
}

/** The sink's own conversion of a batch of records to mutations (appended to `into`). */
export type ToMutations<T> = (batch: RecordBatch<T>, into: RecordMutation<T>[]) => void;

/** Name of the temporary copy of the target table (temporary tables are private to their session). */
const COPY = 'weir_reconcile_expected';

/** What a PostgreSQL sink wrote, opened for `weir reconcile`; see the module comment. */
export class PostgresTableTarget<T> implements ReconcileTarget<T> {
  readonly description: string;
  /** Both sinks keep the last row per key. */
  readonly mode = 'upsert';
  private readonly sessions = new Set<pg.Client>();
  private readonly display: string;
  private readonly what: string;

  constructor(
    private readonly config: SinkConfig<T>,
    private readonly toMutations: ToMutations<T>,
  ) {
    this.display = `${config.table.schema}.${config.table.table}`;
    this.description = `table ${this.display}`;
    this.what = `reconcile ${this.display}`;
  }

  private async session(): Promise<pg.Client> {
    const client = await connect(this.config.connection, { applicationName: 'weir-reconcile' });
    this.sessions.add(client);
    return client;
  }

  private async end(client: pg.Client): Promise<void> {
    this.sessions.delete(client);
    await client.end().catch(() => {});
  }

  /** The target table and its shape; fails as the sink does when it is missing or has no usable key. */
  private async describe(client: pg.Client): Promise<{ table: SinkTable; shape: TableShape }> {
    const table = await loadSinkTable(client, this.config.table, this.config.keyColumns, this.what);
    // Rows are compared by key; an appended row has none to be found by.
    if (table.keyColumns.length === 0)
      throw invalidArgument(
        `${this.what}: table ${table.schema}.${table.table} is appended to without a key, so its rows cannot be reconciled`,
      );
    const columns = await loadReadColumns(client, table.qualified);
    return { table, shape: { columns, keyColumns: table.keyColumns } };
  }

  async *written(): AsyncIterable<WrittenRow> {
    const client = await this.session();
    try {
      const { table, shape } = await this.describe(client);
      yield* readTableRows(client, table.qualified, shape, this.display);
    } catch (cause) {
      throw this.failed('read the table', cause);
    } finally {
      await this.end(client);
    }
  }

  async *expected(values: AsyncIterable<ReplayedValue<T>>): AsyncIterable<WrittenRow> {
    const client = await this.session();
    try {
      const { table, shape } = await this.describe(client);
      const copy: SinkTable = {
        ...table,
        schema: 'pg_temp',
        table: COPY,
        qualified: `pg_temp.${quoteIdent(COPY)}`,
      };
      await client.query(`DROP TABLE IF EXISTS ${copy.qualified}`);
      await client.query(`CREATE TEMPORARY TABLE ${COPY} (LIKE ${table.qualified} INCLUDING ALL)`);
      const pending: RecordMutation<T>[] = [];
      let records: T[] = [];
      const max = this.config.maxBatchSize;
      for await (const v of values) {
        records.push(v.value);
        if (records.length < max) continue;
        this.toMutations({ values: records, timestamps: [], keys: undefined }, pending);
        records = [];
        // Flushes of at most maxBatchSize mutations, in order, as the sink's writer makes them.
        while (pending.length >= max) await this.apply(client, copy, pending.splice(0, max));
      }
      this.toMutations({ values: records, timestamps: [], keys: undefined }, pending);
      while (pending.length > 0) await this.apply(client, copy, pending.splice(0, max));
      yield* readTableRows(client, copy.qualified, shape, this.display);
      await client.query(`DROP TABLE ${copy.qualified}`);
    } catch (cause) {
      throw this.failed('compute the expected rows', cause);
    } finally {
      await this.end(client);
    }
  }

  /**
   * One flush, as the sink writes it. A row the table rejects fails the
   * reconciliation under the `'fail'` policy (the job would have failed
   * there); with a dead letter it is left out, without calling the dead
   * letter (reconciling has no side effects).
   */
  private async apply(client: pg.Client, copy: SinkTable, batch: RecordMutation<T>[]) {
    await client.query('BEGIN');
    try {
      const rejections = await applyMutations(
        client,
        copy,
        batch.map((b) => b.mutation),
      );
      const first = rejections[0];
      if (first !== undefined && this.config.onRejected === 'fail') {
        const b = batch[first.index]!;
        throw rejectedError(this.what, {
          record: b.record,
          mutation: b.mutation,
          error: first.message,
          code: first.code,
          table: this.display,
        });
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  }

  private failed(action: string, cause: unknown): WeirError {
    if (cause instanceof WeirError) return cause;
    return new WeirError(
      'SINK_FAILED',
      `${this.what}: cannot ${action}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { domain: 'external', cause },
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((c) => this.end(c)));
  }
}
