/**
 * The few things Weir needs from the Kafka client
 * (@platformatic/kafka), in one place: metadata, offsets, group offsets,
 * broker configuration, and the raw transaction-coordinator requests used to
 * resume a transaction after a crash.
 */
import {
  Admin,
  ConfigResourceTypes,
  type Connection,
  Consumer,
  type ConsumerOptions,
  endTxnV4,
  FindCoordinatorKeyTypes,
  initProducerIdV5,
} from '@platformatic/kafka';
import type { KafkaConnection } from './config.js';
import { clientSecurity } from './security.js';
import { filterAbortedTransactions } from './source/aborted-transactions.js';

/** A topic partition with its current leader. */
export interface PartitionInfo {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly leader: number;
  readonly leaderEpoch: number;
}

/**
 * The options every client of a connection shares: brokers, client id,
 * request timeout, and its `tls` and `sasl` settings (certificate files are
 * read now). `what` names the connector in the error a missing file raises.
 */
export function clientBase(conn: KafkaConnection, what = 'Kafka connector') {
  return {
    clientId: conn.clientId,
    bootstrapBrokers: conn.brokers,
    timeout: conn.requestTimeoutMs,
    ...clientSecurity(conn, what),
  };
}

export function newAdmin(conn: KafkaConnection, what?: string): Admin {
  return new Admin({ ...clientBase(conn, what), retries: 5, retryDelay: 200 });
}

/** A consumer used only for fetching and listing offsets; it never joins its group. */
export function newFetcher(conn: KafkaConnection, isolationLevel: 0 | 1, what?: string): Consumer {
  return newConsumer({
    ...clientBase(conn, what),
    groupId: `${conn.clientId}-weir-fetcher`,
    retries: 3,
    retryDelay: 200,
    isolationLevel,
    autocreateTopics: false,
  });
}

/** Every consumer Weir makes: read_committed fetches are filtered by Kafka's algorithm first. */
export function newConsumer(options: ConsumerOptions<Buffer, Buffer, Buffer, Buffer>): Consumer {
  const consumer = new Consumer(options);
  filterAbortedTransactions(consumer);
  return consumer;
}

/** Partitions of the given topics (those that exist), leaders included. */
export async function describePartitions(
  client: Consumer | Admin,
  topics: readonly string[],
): Promise<PartitionInfo[]> {
  if (topics.length === 0) return [];
  const md = await client.metadata({
    topics: [...topics],
    forceUpdate: true,
    autocreateTopics: false,
  });
  const out: PartitionInfo[] = [];
  for (const topic of topics) {
    const t = md.topics.get(topic);
    if (t === undefined) continue;
    t.partitions.forEach((p, partition) => {
      if (p === undefined) return;
      out.push({ topic, topicId: t.id, partition, leader: p.leader, leaderEpoch: p.leaderEpoch });
    });
  }
  return out;
}

/** Names of all non-internal topics matching `pattern` (a full match, as in Kafka's pattern subscription). */
export async function topicsMatching(admin: Admin, pattern: RegExp): Promise<string[]> {
  const all = await admin.listTopics({ includeInternals: false });
  const full = new RegExp(`^(?:${pattern.source})$`, pattern.flags.replace('g', ''));
  return all.filter((t) => full.test(t)).sort();
}

/** Special timestamps of the ListOffsets request. */
export const LATEST = -1n;
export const EARLIEST = -2n;

/** Offsets per partition for a timestamp (or EARLIEST / LATEST); keys `topic:partition`. */
export async function listOffsets(
  fetcher: Consumer,
  partitions: readonly { topic: string; partition: number }[],
  timestamp: bigint,
  isolationLevel: 0 | 1,
): Promise<Map<string, bigint>> {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    const list = byTopic.get(topic) ?? [];
    list.push(partition);
    byTopic.set(topic, list);
  }
  const out = new Map<string, bigint>();
  if (byTopic.size === 0) return out;
  const result = await fetcher.listOffsetsWithTimestamps({
    topics: [...byTopic.keys()],
    partitions: Object.fromEntries(byTopic),
    timestamp,
    isolationLevel,
  });
  for (const [topic, parts] of result) {
    for (const [partition, { offset }] of parts) out.set(`${topic}:${partition}`, offset);
  }
  return out;
}

/** The group's committed offsets (absent when the group has none for a partition). */
export async function committedOffsets(
  admin: Admin,
  groupId: string,
  partitions: readonly { topic: string; partition: number }[],
): Promise<Map<string, bigint>> {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    const list = byTopic.get(topic) ?? [];
    list.push(partition);
    byTopic.set(topic, list);
  }
  const out = new Map<string, bigint>();
  if (byTopic.size === 0) return out;
  const groups = await admin.listConsumerGroupOffsets({
    groups: [
      {
        groupId,
        topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      },
    ],
  });
  for (const g of groups) {
    for (const t of g.topics) {
      for (const p of t.partitions) {
        if (p.committedOffset >= 0n) out.set(`${t.name}:${p.partitionIndex}`, p.committedOffset);
      }
    }
  }
  return out;
}

/** Commits offsets for a group that has no active members (the source's partitions are assigned by Weir). */
export async function commitGroupOffsets(
  admin: Admin,
  groupId: string,
  offsets: ReadonlyMap<string, bigint>,
): Promise<void> {
  const byTopic = new Map<string, { partition: number; offset: bigint }[]>();
  for (const [key, offset] of offsets) {
    const i = key.lastIndexOf(':');
    const topic = key.slice(0, i);
    const list = byTopic.get(topic) ?? [];
    list.push({ partition: Number(key.slice(i + 1)), offset });
    byTopic.set(topic, list);
  }
  if (byTopic.size === 0) return;
  await admin.alterConsumerGroupOffsets({
    groupId,
    topics: [...byTopic].map(([name, partitionOffsets]) => ({ name, partitionOffsets })),
  });
}

/** A broker configuration value (from any broker of the cluster), or undefined. */
export async function brokerConfig(admin: Admin, name: string): Promise<string | undefined> {
  const md = await admin.metadata({ topics: [] });
  const brokerId = [...md.brokers.keys()][0];
  if (brokerId === undefined) return undefined;
  const described = await admin.describeConfigs({
    resources: [
      {
        resourceType: ConfigResourceTypes.BROKER,
        resourceName: String(brokerId),
        configurationKeys: [name],
      },
    ],
  });
  for (const r of described)
    for (const c of r.configs) if (c.name === name) return c.value ?? undefined;
  return undefined;
}

/** Creates topics that do not exist yet, with topic `configs` (existing ones are left alone). */
export async function ensureTopics(
  admin: Admin,
  topics: readonly string[],
  partitions: number,
  configs: readonly { readonly name: string; readonly value: string }[] = [],
): Promise<void> {
  const existing = new Set(await admin.listTopics({ includeInternals: false }));
  const missing = topics.filter((t) => !existing.has(t));
  if (missing.length === 0) return;
  try {
    await admin.createTopics({
      topics: missing,
      partitions,
      replicas: -1,
      ...(configs.length === 0 ? {} : { configs: [...configs] }),
    });
  } catch (error) {
    if (!hasApiError(error, 'TOPIC_ALREADY_EXISTS')) throw error;
  }
}

/** The connection to the transaction coordinator of `transactionalId`. */
export async function transactionCoordinator(
  admin: Admin,
  transactionalId: string,
): Promise<Connection> {
  const found = await admin.findCoordinator({
    keyType: FindCoordinatorKeyTypes.TRANSACTION,
    keys: [transactionalId],
  });
  const nodeId = found[0]?.nodeId;
  if (nodeId === undefined) throw new Error(`no transaction coordinator for '${transactionalId}'`);
  const connections = await admin.connectToBrokers([nodeId]);
  const connection = connections.get(nodeId);
  if (connection === undefined) throw new Error(`cannot connect to broker ${nodeId}`);
  return connection;
}

/**
 * Ends a transaction of another producer session: the one identified by the
 * saved producer id and epoch. This is how a transaction pre-committed before
 * a crash is committed after the restart (Flink's "resume transaction").
 */
export async function endTransaction(
  connection: Connection,
  transactionalId: string,
  producerId: bigint,
  producerEpoch: number,
  commit: boolean,
): Promise<void> {
  await endTxnV4.api.async(connection, transactionalId, producerId, producerEpoch, commit);
}

/**
 * InitProducerId for a transactional id: aborts any transaction it left open
 * and fences older sessions. Returns the new epoch: 0 means the id was never
 * used before.
 */
export async function initTransactionalId(
  connection: Connection,
  transactionalId: string,
  transactionTimeoutMs: number,
): Promise<{ producerId: bigint; producerEpoch: number }> {
  const r = await initProducerIdV5.api.async(
    connection,
    transactionalId,
    transactionTimeoutMs,
    -1n,
    -1,
  );
  return { producerId: r.producerId, producerEpoch: r.producerEpoch };
}

/** Whether an error (or one of its nested errors) carries the Kafka error `apiId`. */
export function hasApiError(error: unknown, apiId: string): boolean {
  if (error === null || typeof error !== 'object') return false;
  const e = error as { apiId?: unknown; errors?: unknown };
  if (e.apiId === apiId) return true;
  if (Array.isArray(e.errors)) return e.errors.some((inner) => hasApiError(inner, apiId));
  return false;
}

/** Kafka error names found in an error tree, for messages. */
export function apiErrors(error: unknown): string[] {
  const out = new Set<string>();
  const walk = (x: unknown) => {
    if (x === null || typeof x !== 'object') return;
    const e = x as { apiId?: unknown; errors?: unknown };
    if (typeof e.apiId === 'string') out.add(e.apiId);
    if (Array.isArray(e.errors)) e.errors.forEach(walk);
  };
  walk(error);
  return [...out];
}
