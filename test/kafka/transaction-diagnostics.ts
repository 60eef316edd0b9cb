import {
  Admin,
  Consumer,
  describeProducersV0,
  describeTransactionsV0,
  listTransactionsV1,
} from '@platformatic/kafka';
import { BROKERS } from './helpers.js';

/**
 * What holds read_committed readers back, for a stalled test's message:
 * the partitions whose last stable offset (LSO) is behind their high
 * watermark, with the producers whose open transaction starts there (by
 * producer id: one the coordinator does not list as open is a hanging
 * transaction), and the open transactions whose ids start with one of
 * `prefixes` (state, age, and the partitions each has written to).
 */
export async function transactionReport(
  topics: readonly string[],
  prefixes: readonly string[],
): Promise<string> {
  const held = await heldBack(topics);
  const [holders, open] = await Promise.all([
    openProducers(held.map((h) => h.partition)),
    openTransactions(prefixes),
  ]);
  const lines = held.map(
    (h) =>
      `${h.partition.topic}:${h.partition.partition} ${h.lso}<${h.high} (${holders.get(`${h.partition.topic}:${h.partition.partition}`) ?? '?'})`,
  );
  return `LSO behind the high watermark: ${lines.join(', ') || 'none'}; open transactions: ${open.join(', ') || 'none'}`;
}

interface Held {
  readonly partition: { readonly topic: string; readonly partition: number };
  readonly lso: bigint | undefined;
  readonly high: bigint;
}

/** Per partition: `producer <id> epoch <e> from <offset>` for each producer with a transaction open in it. */
async function openProducers(
  partitions: readonly { topic: string; partition: number }[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (partitions.length === 0) return out;
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
  try {
    const byTopic = new Map<string, number[]>();
    for (const p of partitions)
      byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
    const request = [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
    for (const connection of (await admin.connectToBrokers(null)).values()) {
      const r = await describeProducersV0.api.async(connection, request);
      for (const t of r.topics)
        for (const p of t.partitions) {
          const open = p.activeProducers
            .filter((a) => a.currentTxnStartOffset >= 0n)
            .map(
              (a) =>
                `producer ${a.producerId} epoch ${a.producerEpoch} from ${a.currentTxnStartOffset}`,
            );
          if (open.length > 0) out.set(`${t.name}:${p.partitionIndex}`, open.join(' '));
        }
    }
    return out;
  } finally {
    await admin.close();
  }
}

async function heldBack(topics: readonly string[]): Promise<Held[]> {
  const consumer = new Consumer({ clientId: 'weir-test', bootstrapBrokers: BROKERS, groupId: 'x' });
  try {
    const md = await consumer.metadata({ topics: [...topics], forceUpdate: true });
    const partitions: Record<string, number[]> = {};
    for (const t of topics) {
      const n = md.topics.get(t)?.partitions.length ?? 0;
      if (n > 0) partitions[t] = Array.from({ length: n }, (_, p) => p);
    }
    const names = Object.keys(partitions);
    if (names.length === 0) return [];
    const ends = (isolationLevel: 0 | 1) =>
      consumer.listOffsetsWithTimestamps({
        topics: names,
        partitions,
        timestamp: -1n,
        isolationLevel,
      });
    const [stable, high] = await Promise.all([ends(1), ends(0)]);
    const out: Held[] = [];
    for (const [topic, parts] of high)
      for (const [p, { offset }] of parts) {
        const lso = stable.get(topic)?.get(p)?.offset;
        if (lso !== offset) out.push({ partition: { topic, partition: p }, lso, high: offset });
      }
    return out;
  } finally {
    await consumer.close();
  }
}

async function openTransactions(prefixes: readonly string[]): Promise<string[]> {
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
  try {
    const connections = await admin.connectToBrokers(null);
    const out: string[] = [];
    for (const connection of connections.values()) {
      // Every state (the filter takes the broker's names, not the client's constants).
      const listed = await listTransactionsV1.api.async(connection, [], [], -1n, null);
      const ids = listed.transactionStates
        .filter((t) => !/^(Empty|CompleteCommit|CompleteAbort|Dead)$/.test(t.transactionState))
        .map((t) => t.transactionalId)
        .filter((id) => prefixes.some((p) => id.startsWith(p)));
      if (ids.length === 0) continue;
      const described = await describeTransactionsV0.api.async(connection, ids);
      const now = Date.now();
      for (const t of described.transactionStates) {
        const age = Math.round((now - Number(t.transactionStartTimeMs)) / 1000);
        const parts = t.topics.map((x) => `${x.topic}[${x.partitions.join(',')}]`).join(' ');
        out.push(
          `${t.transactionalId} (producer ${t.producerId} epoch ${t.producerEpoch}) ${t.transactionState} for ${age} s on ${parts}`,
        );
      }
    }
    return out;
  } finally {
    await admin.close();
  }
}

/** Polls {@link transactionReport} every few seconds; `text()` is the latest, for a synchronous diagnose. */
export function watchTransactions(
  topics: () => readonly string[],
  prefixes: readonly string[],
  everyMs = 10_000,
): { text(): string; stop(): void } {
  let last = 'no transaction report yet';
  const poll = () =>
    transactionReport(topics(), prefixes).then(
      (r) => {
        last = `${new Date().toISOString().slice(11, 19)} ${r}`;
      },
      (e: unknown) => {
        last = `transaction report failed: ${String(e)}`;
      },
    );
  const timer = setInterval(() => void poll(), everyMs);
  timer.unref();
  void poll();
  return { text: () => last, stop: () => clearInterval(timer) };
}
