/**
 * Worker thread of the transactional sink: owns the session whose open
 * transaction collects the writes of one checkpoint, and prepares it on
 * request. Requests are served one at a time, in order.
 *
 * The session can be lost under an open transaction (a database restart):
 * the server then rolls the transaction back. So the worker keeps the
 * mutations applied since the last PREPARE and, after a lost connection,
 * opens a new session, begins again and replays them before going on. A
 * PREPARE whose answer was lost may have happened: the new session looks
 * the transaction up in `pg_prepared_xacts` before preparing it again.
 */
import { workerData } from 'node:worker_threads';
import type pg from 'pg';
import { type SyncChannelEnd, syncReplier } from '../../../util/threads/sync-channel.js';
import { connect, type PostgresConnection, quoteLiteral, sessionFailure } from '../connection.js';
import { isConnectionLost, PostgresReconnector } from '../reconnect.js';
import { applyMutations, type SinkMutation, type SinkTable } from './sink-table.js';
import type { TransactionRequest, TransactionResponse } from './transaction-protocol.js';

const channel = workerData as SyncChannelEnd;
const respond: (response: TransactionResponse) => void = syncReplier(channel);

let client: pg.Client | undefined;
/** Whether `client` holds the open transaction (begun, and every mutation of it applied). */
let holdsTransaction = false;
let connection: PostgresConnection | undefined;
let applicationName = '';
let table: SinkTable | undefined;
let reconnector: PostgresReconnector | undefined;
/** Mutations of the open transaction, to replay in a new session; undefined when none is open. */
let transaction: (readonly SinkMutation[])[] | undefined;
let queue: Promise<void> = Promise.resolve();

/** Retry messages and retries of the request being served. */
let warnings: string[] = [];
let retries = 0;
const counter = {
  inc(): void {
    retries++;
  },
};

/** Runs `work` on the session; after a lost connection, on a new one, within the reconnect budget. */
function withSession<T>(action: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  return reconnector!.run(action, 'SINK_FAILED', async () => {
    client ??= await connect(connection!, { applicationName });
    const c = client;
    try {
      return await work(c);
    } catch (error) {
      const cause = sessionFailure(c, error);
      if (isConnectionLost(cause)) {
        client = undefined;
        holdsTransaction = false;
        await c.end().catch(() => {});
      }
      throw cause;
    }
  });
}

/** Begins the open transaction in session `c`, replaying what a lost session had applied. */
async function resumeTransaction(c: pg.Client): Promise<void> {
  if (holdsTransaction) return;
  await c.query('BEGIN');
  for (const mutations of transaction ?? []) await applyMutations(c, table!, mutations);
  transaction ??= [];
  holdsTransaction = true;
}

async function isPrepared(c: pg.Client, gid: string): Promise<boolean> {
  const r = await c.query('SELECT 1 FROM pg_prepared_xacts WHERE gid = $1', [gid]);
  return r.rows.length > 0;
}

async function serve(request: TransactionRequest): Promise<TransactionResponse> {
  switch (request.op) {
    case 'open':
      connection = request.connection;
      applicationName = request.applicationName;
      table = request.table;
      reconnector = new PostgresReconnector(
        request.reconnect,
        request.what,
        (message) => warnings.push(message),
        counter,
      );
      await withSession('open a session', async () => {});
      return { id: request.id, ok: true };
    case 'apply': {
      const rejections = await withSession('write a batch', async (c) => {
        await resumeTransaction(c);
        return applyMutations(c, table!, request.mutations);
      });
      transaction!.push(request.mutations);
      return { id: request.id, ok: true, rejections };
    }
    case 'prepare': {
      if (transaction === undefined) return { id: request.id, ok: true, prepared: false };
      let sent = false;
      await withSession('prepare a transaction', async (c) => {
        if (!holdsTransaction) {
          // The session was lost. If it went after PREPARE was sent, the
          // transaction may be prepared already: look before replaying it.
          if (sent && (await isPrepared(c, request.gid))) return;
          await resumeTransaction(c);
        }
        sent = true;
        await c.query(`PREPARE TRANSACTION ${quoteLiteral(request.gid)}`);
      });
      transaction = undefined;
      holdsTransaction = false;
      return { id: request.id, ok: true, prepared: true };
    }
    case 'close':
      // An open transaction is rolled back with the session: its records
      // belong to no completed checkpoint and will be replayed.
      transaction = undefined;
      holdsTransaction = false;
      await client?.end().catch(() => {});
      client = undefined;
      return { id: request.id, ok: true };
  }
}

channel.port.on('message', (request: TransactionRequest) => {
  queue = queue.then(async () => {
    warnings = [];
    retries = 0;
    let response: TransactionResponse;
    try {
      response = await serve(request);
    } catch (error) {
      const e = error as { message?: string; code?: string };
      if (request.op === 'apply' || request.op === 'prepare') {
        transaction = undefined;
        holdsTransaction = false;
      }
      await client?.query('ROLLBACK').catch(() => {});
      response = { id: request.id, ok: false, message: e.message ?? String(error), code: e.code };
    }
    respond({ ...response, warnings, retries });
  });
});
