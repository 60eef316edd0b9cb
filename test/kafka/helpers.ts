import { Admin, Consumer, Producer } from '@platformatic/kafka';
import type { KafkaConsumerRecord } from '../../src/connectors/kafka/consumer-record.js';
import { type KafkaFormat, KafkaFormats, KafkaSource } from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment } from '../../src/index.js';

export const BROKERS = ['127.0.0.1:9092'];

let counter = 0;
/** A topic name no other test (or earlier run) uses. */
export function uniqueTopic(prefix: string): string {
  counter++;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export async function createTopic(topic: string, partitions: number): Promise<void> {
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
  try {
    await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
  } finally {
    await admin.close();
  }
}

export async function addPartitions(topic: string, count: number): Promise<void> {
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
  try {
    await admin.createPartitions({ topics: [{ name: topic, count, assignments: null }] });
  } finally {
    await admin.close();
  }
}

export interface TestMessage {
  readonly value: string | Buffer | null;
  readonly key?: string;
  readonly partition?: number;
  readonly timestamp?: number;
}

/** Writes messages (acknowledged by the broker) in order. */
export async function produce(topic: string, messages: readonly TestMessage[]): Promise<void> {
  const producer = new Producer({
    clientId: 'weir-test',
    bootstrapBrokers: BROKERS,
    idempotent: true,
  });
  try {
    for (let i = 0; i < messages.length; i += 500) {
      await producer.send({
        messages: messages.slice(i, i + 500).map((m) => ({
          topic,
          ...(m.value === null
            ? {}
            : { value: typeof m.value === 'string' ? Buffer.from(m.value) : m.value }),
          ...(m.key === undefined ? {} : { key: Buffer.from(m.key) }),
          ...(m.partition === undefined ? {} : { partition: m.partition }),
          ...(m.timestamp === undefined ? {} : { timestamp: BigInt(m.timestamp) }),
        })) as never,
      });
    }
  } finally {
    await producer.close();
  }
}

/** Everything committed in a topic now (a bounded read_committed source). */
export async function readAll<T>(topic: string, format: KafkaFormat<T>): Promise<T[]> {
  return readWith(topic, { format });
}

/**
 * Every committed message of a topic, whole (partition, offset, key, value, headers), in offset
 * order per partition. `awaitMarkers: false` reads at once, without first waiting up to 5 s for
 * the markers of transactions just ended: for polls of a topic whose writers always have a
 * transaction open (a process group's repartition topics), where that wait never ends early.
 */
export async function readRecords(
  topic: string,
  { awaitMarkers = true }: { awaitMarkers?: boolean } = {},
): Promise<KafkaConsumerRecord[]> {
  return readWith(topic, { deserializer: (r: KafkaConsumerRecord) => r }, awaitMarkers);
}

async function readWith<T>(
  topic: string,
  read: { format: KafkaFormat<T> } | { deserializer: (r: KafkaConsumerRecord) => T },
  awaitMarkers = true,
): Promise<T[]> {
  // 'latest' is the last stable offset: let markers of transactions just ended land first.
  if (awaitMarkers) await waitForStableEnd(topic, { timeoutMs: 5_000, bestEffort: true });
  const env = new StreamEnvironment();
  const sink = new CollectSink<T>();
  env
    .fromSource(
      new KafkaSource<T>({ brokers: BROKERS, topics: [topic], ...read, stopAt: 'latest' }),
    )
    .sinkTo(sink);
  await env.execute('read all');
  return sink.values;
}

export const json = KafkaFormats.json;

/**
 * Polls `check` until it returns true (or fails after `timeoutMs`). A check
 * that itself hangs fails at the deadline too, saying so: the test's own
 * timeout would name neither the wait nor what the diagnosis shows.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  diagnose?: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const fail = (how: string) =>
    new Error(`${how} ${what}${diagnose === undefined ? '' : `; ${diagnose()}`}`);
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(fail('a check hung while waiting for')),
        Math.max(deadline - Date.now(), 0) + 1_000,
      );
    });
    try {
      if (await Promise.race([check(), hung])) break;
    } finally {
      clearTimeout(timer);
    }
    if (Date.now() > deadline) throw fail('timed out waiting for');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until every transaction marker of `topic` is written: the last stable offset (read_committed
 * "latest") equals the high watermark on every partition. EndTxn returns before the coordinator has
 * written its markers, so a bounded read started right after a commit or abort may otherwise stop early.
 * With `bestEffort`, gives up quietly after `timeoutMs` (a transaction may be open on purpose).
 */
export async function waitForStableEnd(
  topic: string,
  { timeoutMs = 60_000, bestEffort = false }: { timeoutMs?: number; bestEffort?: boolean } = {},
): Promise<void> {
  const consumer = new Consumer({
    clientId: 'weir-test',
    bootstrapBrokers: BROKERS,
    groupId: `${topic}-stable-end`,
  });
  try {
    const md = await consumer.metadata({ topics: [topic], forceUpdate: true });
    const partitions = md.topics.get(topic)?.partitions.length ?? 0;
    if (partitions === 0) return;
    const ends = async (isolationLevel: 0 | 1) => {
      const res = await consumer.listOffsetsWithTimestamps({
        topics: [topic],
        partitions: { [topic]: Array.from({ length: partitions }, (_, p) => p) },
        timestamp: -1n,
        isolationLevel,
      });
      return [...(res.get(topic) ?? new Map()).entries()]
        .sort(([a], [b]) => a - b)
        .map(([, v]) => String(v.offset))
        .join(',');
    };
    let committed = '';
    let all = '';
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      [committed, all] = await Promise.all([ends(1), ends(0)]);
      if (committed === all) return;
      if (Date.now() > deadline) {
        if (bestEffort) return;
        throw new Error(
          `timed out waiting for the stable end of ${topic}: last stable offsets ${committed}, high watermarks ${all}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await consumer.close();
  }
}

export async function commitOffsets(
  groupId: string,
  topic: string,
  offsets: Record<number, number>,
): Promise<void> {
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
  try {
    await admin.alterConsumerGroupOffsets({
      groupId,
      topics: [
        {
          name: topic,
          partitionOffsets: Object.entries(offsets).map(([p, o]) => ({
            partition: Number(p),
            offset: BigInt(o),
          })),
        },
      ],
    });
  } finally {
    await admin.close();
  }
}

export async function groupOffsets(
  groupId: string,
  topic: string,
): Promise<Record<number, number>> {
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
  try {
    const groups = await admin.listConsumerGroupOffsets({ groups: [groupId] });
    const out: Record<number, number> = {};
    for (const g of groups)
      for (const t of g.topics)
        if (t.name === topic)
          for (const p of t.partitions) out[p.partitionIndex] = Number(p.committedOffset);
    return out;
  } finally {
    await admin.close();
  }
}
