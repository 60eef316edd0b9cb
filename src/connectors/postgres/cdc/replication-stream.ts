/**
 * A logical replication session: slot creation with an exported snapshot,
 * and streaming with pgoutput. Built directly on `pg`'s connection (CopyBoth
 * after START_REPLICATION) rather than on a replication library, because
 * the source must control exactly what it confirms to the server: only
 * positions of completed checkpoints, never merely received ones, including
 * in keepalive replies.
 *
 * Flow control: received messages are decoded and queued; while the queue
 * holds more than `maxBufferedBytes` the socket is paused (the server then
 * waits), and it resumes once the reader has drained half of it. Status
 * updates go out every `statusIntervalMs` and whenever the server asks, so
 * the walsender never times out, even while paused.
 */
import type pg from 'pg';
import { WeirError } from '../../../core/errors.js';
import type { Counter } from '../../../metrics/registry.js';
import { connect, type PostgresConnection, quoteIdent, quoteLiteral } from '../connection.js';
import { formatLsn, type Lsn, maxLsn, parseLsn } from './lsn.js';
import {
  decodeReplicationMessage,
  encodeStatusUpdate,
  type ReplicationMessage,
} from './pgoutput.js';
import { Queue, Signal } from './signal.js';

/** The parts of `pg`'s internal connection a replication session uses. */
interface CopyBothConnection {
  on(event: 'copyData', listener: (message: { chunk: Buffer }) => void): void;
  /** CopyBothResponse: the server accepted START_REPLICATION. */
  on(event: 'replicationStart', listener: () => void): void;
  sendCopyFromChunk(chunk: Buffer): void;
  readonly stream: { pause(): void; resume(): void };
}

function copyConnection(client: pg.Client): CopyBothConnection {
  return (client as unknown as { connection: CopyBothConnection }).connection;
}

/** A slot just created. */
export interface CreatedSlot {
  /** From here on, the slot delivers every transaction that commits. */
  readonly consistentPoint: Lsn;
  /** Snapshot of the database exactly at the consistent point; importable while the creating session is open and idle. */
  readonly snapshotName: string | undefined;
}

/** Opens a replication session and creates a logical slot for pgoutput; the caller closes the session. */
export async function createSlot(
  connection: PostgresConnection,
  slotName: string,
  exportSnapshot: boolean,
): Promise<{ session: pg.Client; slot: CreatedSlot }> {
  const session = await connect(connection, {
    replication: true,
    applicationName: `weir-cdc-${slotName}`,
  });
  try {
    const result = await session.query(
      `CREATE_REPLICATION_SLOT ${quoteIdent(slotName)} LOGICAL pgoutput ${exportSnapshot ? 'EXPORT_SNAPSHOT' : 'NOEXPORT_SNAPSHOT'}`,
    );
    const row = result.rows[0] as { consistent_point: string; snapshot_name: string | null };
    return {
      session,
      slot: {
        consistentPoint: parseLsn(row.consistent_point),
        snapshotName: row.snapshot_name ?? undefined,
      },
    };
  } catch (cause) {
    await session.end().catch(() => {});
    throw cause;
  }
}

export interface StreamOptions {
  readonly connection: PostgresConnection;
  readonly slotName: string;
  readonly publicationName: string;
  readonly startLsn: Lsn;
  readonly maxBufferedBytes: number;
  readonly statusIntervalMs: number;
  /** The position to confirm to the server (the last completed checkpoint's). */
  readonly confirmed: () => Lsn;
  readonly now: () => number;
  /** Counts the bytes of the pgoutput messages received (without the XLogData header). */
  readonly bytesRead: Counter;
  /** Called once the server has accepted START_REPLICATION (the slot is acquired). */
  readonly onStarted?: () => void;
}

/** XLogData's header before the pgoutput message: 'w', start, end and send time. */
const XLOG_HEADER_BYTES = 25;

/** A queued message and its size on the wire. */
interface Queued {
  readonly message: ReplicationMessage;
  readonly bytes: number;
}

/** A running START_REPLICATION session. */
export class ReplicationStream {
  private readonly queue = new Queue<Queued>();
  private queuedBytes = 0;
  private paused = false;
  private received: Lsn;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Set when the session failed or ended; the reader raises it. */
  failure: WeirError | undefined;
  /** Woken when messages arrive or the session fails. */
  readonly arrived = new Signal();

  private constructor(
    private readonly client: pg.Client,
    private readonly connection: CopyBothConnection,
    private readonly options: StreamOptions,
  ) {
    this.received = options.startLsn;
  }

  /** Starts streaming the slot's changes from `startLsn` (the server starts at the slot's confirmed position if that is later). */
  static async start(options: StreamOptions): Promise<ReplicationStream> {
    const client = await connect(options.connection, {
      replication: true,
      applicationName: `weir-cdc-${options.slotName}`,
    });
    const stream = new ReplicationStream(client, copyConnection(client), options);
    stream.connection.on('copyData', ({ chunk }) => stream.onData(chunk));
    stream.connection.on('replicationStart', () => options.onStarted?.());
    client.on('error', (cause) => stream.fail(cause));
    client.on('end', () => stream.fail(new Error('the replication connection was closed')));
    const publications = quoteLiteral(quoteIdent(options.publicationName));
    const sql = `START_REPLICATION SLOT ${quoteIdent(options.slotName)} LOGICAL ${formatLsn(options.startLsn)} ("proto_version" '1', "publication_names" ${publications}, "messages" 'true')`;
    // Resolves only when streaming ends; errors (such as a missing slot) reject it.
    client.query(sql).then(
      () => stream.fail(new Error('the server ended replication')),
      (cause: unknown) => stream.fail(cause),
    );
    stream.timer = setInterval(() => stream.sendStatus(false), options.statusIntervalMs);
    stream.timer.unref();
    return stream;
  }

  private onData(chunk: Buffer): void {
    let message: ReplicationMessage;
    try {
      message = decodeReplicationMessage(chunk);
    } catch (cause) {
      this.fail(cause);
      return;
    }
    if (message.kind === 'keepalive') {
      if (message.walEnd > this.received) this.received = message.walEnd;
      if (message.replyRequested) this.sendStatus(false);
    } else {
      if (message.walEnd > this.received) this.received = message.walEnd;
      this.options.bytesRead.inc(chunk.length - XLOG_HEADER_BYTES);
    }
    this.queue.push({ message, bytes: chunk.length });
    this.queuedBytes += chunk.length;
    if (!this.paused && this.queuedBytes > this.options.maxBufferedBytes) {
      this.paused = true;
      this.connection.stream.pause();
    }
    this.arrived.wake();
  }

  /** Number of messages waiting to be processed. */
  get pending(): number {
    return this.queue.length;
  }

  /** The next message, or undefined when none is waiting. */
  next(): ReplicationMessage | undefined {
    const q = this.queue.shift();
    if (q === undefined) return undefined;
    this.queuedBytes -= q.bytes;
    if (this.paused && this.queuedBytes <= this.options.maxBufferedBytes / 2) {
      this.paused = false;
      this.connection.stream.resume();
    }
    return q.message;
  }

  /** Sends a standby status update confirming `options.confirmed()`. */
  sendStatus(replyRequested: boolean): void {
    if (this.closed || this.failure !== undefined) return;
    const confirmed = this.options.confirmed();
    try {
      this.connection.sendCopyFromChunk(
        encodeStatusUpdate(
          maxLsn(this.received, confirmed),
          confirmed,
          this.options.now(),
          replyRequested,
        ),
      );
    } catch (cause) {
      this.fail(cause);
    }
  }

  private fail(cause: unknown): void {
    if (this.closed || this.failure !== undefined) return;
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.failure = new WeirError(
      'SOURCE_FAILED',
      `replication from slot '${this.options.slotName}' failed: ${reason}`,
      { domain: 'external', cause, retriable: true },
    );
    this.arrived.wake();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.queue.clear();
    await this.client.end().catch(() => {});
  }
}
