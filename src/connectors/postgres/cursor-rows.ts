import type pg from 'pg';
import type { WeirError } from '../../core/errors.js';
import { Queue, Signal } from './cdc/signal.js';

/** Query results as PostgreSQL's text: the reader converts values itself. */
export const TEXT_TYPES = { getTypeParser: () => (value: string) => value };

/** A query a cursor reads: its text and, if it has parameters, their values. */
export interface CursorQuery {
  readonly text: string;
  readonly values?: readonly string[];
}

/**
 * Rows read through cursors in the background into a bounded buffer, for a source's poll to take:
 * the CDC source's initial snapshot and replay, and the bounded scan of a SQL `jdbc` table. The
 * read pauses while the buffer holds `maxBufferedRows`, and `arrived` wakes a waiting poll when
 * rows come, when the read ends and when it fails.
 */
export class CursorRows<R> {
  readonly rows = new Queue<R>();
  done = false;
  failure: WeirError | undefined;
  /** Woken when rows arrive, the read ends, or it fails. */
  readonly arrived = new Signal();
  private readonly drained = new Signal();
  private stopped = false;

  constructor(private readonly maxBufferedRows: number) {}

  /** Runs `read` in the background; a failure becomes `failed(cause)` unless the read was stopped. */
  startReading(read: () => Promise<void>, failed: (cause: unknown) => WeirError): void {
    read().then(
      () => {
        this.done = true;
        this.arrived.wake();
      },
      (cause: unknown) => {
        if (this.stopped) return;
        this.failure = failed(cause);
        this.arrived.wake();
      },
    );
  }

  /** Tells the reader rows were taken (it may fetch more). */
  taken(): void {
    if (this.rows.length < this.maxBufferedRows) this.drained.wake();
  }

  stop(): void {
    this.stopped = true;
    this.drained.wake();
  }

  /**
   * Reads `query` through cursor `cursor` on `client` (inside its transaction), `fetchSize`
   * rows a FETCH, values as text, handing each FETCH's result to `add`, which fills `rows`. Resolves false when
   * stopped before the end.
   */
  async readCursor(
    client: pg.Client,
    cursor: string,
    query: CursorQuery,
    fetchSize: number,
    add: (result: pg.QueryResult) => void,
  ): Promise<boolean> {
    const declare = `DECLARE ${cursor} NO SCROLL CURSOR FOR ${query.text}`;
    await (query.values === undefined
      ? client.query(declare)
      : client.query(declare, [...query.values]));
    for (;;) {
      while (this.rows.length >= this.maxBufferedRows && !this.stopped) await this.drained.wait();
      if (this.stopped) return false;
      const result = await client.query({
        text: `FETCH FORWARD ${fetchSize} FROM ${cursor}`,
        rowMode: 'array',
        types: TEXT_TYPES,
      });
      add(result);
      if (result.rows.length > 0) this.arrived.wake();
      if (result.rows.length < fetchSize) break;
    }
    await client.query(`CLOSE ${cursor}`);
    return true;
  }
}
