/**
 * Worker thread of the transactional sink: owns the session whose open
 * transaction collects the writes of one checkpoint, and prepares it on
 * request. Requests are served one at a time, in order.
 */
import { workerData } from 'node:worker_threads';
import type pg from 'pg';
import { type SyncChannelEnd, syncReplier } from '../../../util/threads/sync-channel.js';
import { connect, quoteLiteral } from '../connection.js';
import { applyMutations, type SinkTable } from './sink-table.js';
import type { TransactionRequest, TransactionResponse } from './transaction-protocol.js';

const channel = workerData as SyncChannelEnd;
const respond: (response: TransactionResponse) => void = syncReplier(channel);
let client: pg.Client | undefined;
let table: SinkTable | undefined;
let inTransaction = false;
let queue: Promise<void> = Promise.resolve();

async function serve(request: TransactionRequest): Promise<TransactionResponse> {
  switch (request.op) {
    case 'open':
      client = await connect(request.connection, { applicationName: request.applicationName });
      table = request.table;
      return { id: request.id, ok: true };
    case 'apply': {
      if (!inTransaction) {
        await client!.query('BEGIN');
        inTransaction = true;
      }
      const rejections = await applyMutations(client!, table!, request.mutations);
      return { id: request.id, ok: true, rejections };
    }
    case 'prepare': {
      if (!inTransaction) return { id: request.id, ok: true, prepared: false };
      inTransaction = false;
      await client!.query(`PREPARE TRANSACTION ${quoteLiteral(request.gid)}`);
      return { id: request.id, ok: true, prepared: true };
    }
    case 'close':
      // An open transaction is rolled back with the session: its records
      // belong to no completed checkpoint and will be replayed.
      await client?.end().catch(() => {});
      client = undefined;
      return { id: request.id, ok: true };
  }
}

channel.port.on('message', (request: TransactionRequest) => {
  queue = queue.then(async () => {
    try {
      respond(await serve(request));
    } catch (error) {
      const e = error as { message?: string; code?: string };
      if (request.op === 'apply' || request.op === 'prepare') inTransaction = false;
      await client?.query('ROLLBACK').catch(() => {});
      respond({ id: request.id, ok: false, message: e.message ?? String(error), code: e.code });
    }
  });
});
