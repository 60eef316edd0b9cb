/** Housekeeping for replication slots, for operators and tests. */
import { dropSlot } from './cdc/catalog.js';
import { measureSlotLag, type SlotLag } from './cdc/slot-monitor.js';
import { connect, type PostgresConnection, quoteIdent, quoteLiteral } from './connection.js';

/**
 * Drops a replication slot (waiting briefly for a reader that just went
 * away to release it) and, if given, a publication. A slot that nobody
 * reads keeps WAL forever: drop the slot of a retired pipeline.
 * Resolves true if the slot existed.
 */
export async function dropReplicationSlot(
  connection: PostgresConnection,
  slotName: string,
  publicationName?: string,
): Promise<boolean> {
  const client = await connect(connection, { applicationName: 'weir-admin' });
  try {
    const dropped = await dropSlot(client, slotName);
    if (publicationName !== undefined)
      await client.query(`DROP PUBLICATION IF EXISTS ${quoteIdent(publicationName)}`);
    return dropped;
  } finally {
    await client.end().catch(() => {});
  }
}

/** How far a slot is behind (undefined if it does not exist). */
export async function replicationSlotLag(
  connection: PostgresConnection,
  slotName: string,
): Promise<SlotLag | undefined> {
  const client = await connect(connection, { applicationName: 'weir-admin' });
  try {
    return await measureSlotLag(client, slotName);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Rolls back the prepared transactions of a transactional sink (names
 * starting with `prefix:`), for a job that will not be restored: until then
 * they hold their row locks and hold back VACUUM. Resolves with their names.
 */
export async function rollbackPreparedTransactions(
  connection: PostgresConnection,
  prefix: string,
): Promise<string[]> {
  const client = await connect(connection, { applicationName: 'weir-admin' });
  try {
    const rows = await client.query<{ gid: string }>(
      'SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1)',
      [`${prefix}:`],
    );
    for (const { gid } of rows.rows) await client.query(`ROLLBACK PREPARED ${quoteLiteral(gid)}`);
    return rows.rows.map((r) => r.gid);
  } finally {
    await client.end().catch(() => {});
  }
}
