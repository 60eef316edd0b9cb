import { Admin } from '@platformatic/kafka';
import { initTransactionalId, transactionCoordinator } from '../client.js';
import type { TransactionCommittable } from '../sink/sink-protocol.js';
import { type FenceFrom, familyOf } from '../sink/transaction-recovery.js';

/**
 * Where a fenced run starts aborting its own transactions, per family: after
 * the newest id its final seal names (those the fencers commit, which must
 * not be aborted), or from 1 for a family the final does not name. The
 * families are those of the run's pending committables and of its final.
 */
export function abortAfterFinal(
  pending: readonly TransactionCommittable[],
  final: readonly TransactionCommittable[],
): FenceFrom[] {
  const last = new Map<string, number>();
  for (const c of final) {
    const family = familyOf(c.transactionalId);
    last.set(family, Math.max(last.get(family) ?? 0, c.seq));
  }
  const families = new Set([...last.keys(), ...pending.map((c) => familyOf(c.transactionalId))]);
  return [...families].sort().map((family) => ({ family, fromSeq: (last.get(family) ?? 0) + 1 }));
}

/**
 * Aborts what a fenced run left open after its final seal: each family's ids
 * from {@link abortAfterFinal} upwards until one never used, by
 * InitProducerId (which aborts an id's open transaction and fences its
 * producer). Its successors fenced the ids that existed when they took over;
 * this reaches those the run opened after that, which would otherwise hold
 * read_committed readers back until the broker's transaction timeout.
 * Returns how many were aborted.
 */
export async function abortFencedRunTransactions(
  brokers: readonly string[],
  clientId: string,
  from: readonly FenceFrom[],
  transactionTimeoutMs: number,
): Promise<number> {
  if (from.length === 0) return 0;
  const admin = new Admin({
    clientId,
    bootstrapBrokers: [...brokers],
    retries: 5,
    retryDelay: 200,
  });
  let aborted = 0;
  try {
    for (const { family, fromSeq } of from) {
      for (let seq = fromSeq; ; seq++) {
        const id = `${family}-${seq}`;
        const connection = await transactionCoordinator(admin, id);
        const { producerEpoch } = await initTransactionalId(connection, id, transactionTimeoutMs);
        if (producerEpoch === 0) break;
        aborted++;
      }
    }
  } finally {
    await admin.close().catch(() => {});
  }
  return aborted;
}
