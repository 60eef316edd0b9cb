import type { Admin, MessageToProduce, Producer } from '@platformatic/kafka';
import { invalidArgument, WeirError } from '../../../core/errors.js';
import { type Key, keyGroupOf, subtaskForKeyGroup } from '../../../core/key-groups.js';
import type { KeyedStage } from '../../../core/process-group.js';
import { ensureTopics } from '../client.js';
import type { ProducerMark } from './repartition-watermarks.js';

/** Header of a watermark record; data records have none. */
export const WATERMARK_HEADER = 'weir-watermark';

/** A keyed record crossing processes. */
export interface RepartitionRecord<T> {
  readonly key: Key;
  readonly value: T;
  readonly timestamp: number;
}

/** What a repartition topic's consumer reads: a record, or a producer's watermark. */
export type RepartitionEntry<T> =
  | { readonly kind: 'record'; readonly record: RepartitionRecord<T> }
  | { readonly kind: 'mark'; readonly producer: string; readonly mark: ProducerMark };

/**
 * The topic carrying a keyed exchange between processes:
 * `weir-<job>-<operator uid>-repartition`, so it outlives a restart and an
 * upgrade that keeps the uid. Characters Kafka does not allow in a topic
 * name become `_`.
 */
export function repartitionTopicName(jobName: string, operatorUid: string): string {
  const safe = (s: string) => s.replace(/[^a-zA-Z0-9._-]/g, '_');
  const name = `weir-${safe(jobName)}-${safe(operatorUid)}-repartition`;
  if (name.length > 249)
    throw invalidArgument(
      `repartition topic name for job '${jobName}', operator '${operatorUid}' is longer than Kafka's 249 characters`,
    );
  return name;
}

/**
 * The partition a key goes to: key groups in contiguous ranges, as over
 * subtasks, so partition `p` of `P` holds exactly the key groups a subtask
 * `p` of parallelism `P` would own, and its state is whole key groups.
 */
export function partitionOfKey(key: Key, maxParallelism: number, partitions: number): number {
  return subtaskForKeyGroup(keyGroupOf(key, maxParallelism), maxParallelism, partitions);
}

/**
 * The task (`topic:partition`) of a keyed stage that holds `key`'s state:
 * the partition its records are written to, so a query for the key goes
 * where the key's records went.
 */
export function taskOfKey(key: Key, stage: KeyedStage, maxParallelism: number): string {
  return `${stage.topic}:${partitionOfKey(key, maxParallelism, stage.partitions)}`;
}

/** Creates the repartition topic with one partition per consuming task, unless it exists. */
export async function ensureRepartitionTopic(
  admin: Admin,
  topic: string,
  partitions: number,
  maxParallelism: number,
): Promise<void> {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > maxParallelism)
    throw invalidArgument(
      `repartition topic '${topic}': partitions must be from 1 to the max parallelism ${maxParallelism}, got ${partitions}`,
    );
  // Records carry their event time as the Kafka timestamp, often far in the
  // past: time-based retention would delete them unread (Kafka Streams keeps
  // its repartition topics without it too).
  await ensureTopics(admin, [topic], partitions, [{ name: 'retention.ms', value: '-1' }]);
}

/** Kafka messages of `records` from one producing task, each to its key's partition. */
export function recordMessages<T>(
  topic: string,
  records: readonly RepartitionRecord<T>[],
  maxParallelism: number,
  partitions: number,
): MessageToProduce<Buffer, Buffer, Buffer, Buffer>[] {
  return records.map((r) => ({
    topic,
    partition: partitionOfKey(r.key, maxParallelism, partitions),
    key: Buffer.from(String(r.key)),
    value: Buffer.from(encodeRecord(r)),
    timestamp: BigInt(Math.trunc(r.timestamp)),
  }));
}

/** One watermark record per partition: every consumer hears every producer. */
export function markMessages(
  topic: string,
  producer: string,
  mark: ProducerMark,
  partitions: number,
): MessageToProduce<Buffer, Buffer, Buffer, Buffer>[] {
  const header = Buffer.from(
    JSON.stringify(
      mark.kind === 'idle'
        ? { producer, idle: true }
        : { producer, watermark: encodeTime(mark.watermark) },
    ),
  );
  return Array.from({ length: partitions }, (_, partition) => ({
    topic,
    partition,
    headers: new Map([[Buffer.from(WATERMARK_HEADER), header]]),
  }));
}

/** Sends records and a watermark of one producing task; resolves when the broker has them. */
export async function sendToRepartition<T>(
  producer: Producer,
  topic: string,
  producerTask: string,
  records: readonly RepartitionRecord<T>[],
  mark: ProducerMark | undefined,
  maxParallelism: number,
  partitions: number,
): Promise<void> {
  const messages = recordMessages(topic, records, maxParallelism, partitions);
  if (mark !== undefined) messages.push(...markMessages(topic, producerTask, mark, partitions));
  if (messages.length > 0) await producer.send({ messages });
}

/**
 * Reads one message of a repartition topic; `where` (topic, partition,
 * offset) names it in the error a message Weir did not write raises.
 */
export function decodeEntry<T>(
  value: Buffer | null | undefined,
  headers: ReadonlyMap<Buffer, Buffer>,
  where: string,
): RepartitionEntry<T> {
  for (const [k, v] of headers) {
    if (k.toString() !== WATERMARK_HEADER) continue;
    const m = parse(v, where) as { producer?: unknown; watermark?: unknown; idle?: unknown };
    if (typeof m.producer !== 'string')
      throw badEntry(where, 'its watermark header names no producer');
    if (m.idle === true) return { kind: 'mark', producer: m.producer, mark: { kind: 'idle' } };
    const watermark = decodeTime(m.watermark);
    if (watermark === undefined)
      throw badEntry(
        where,
        `its watermark header has no watermark (${JSON.stringify(m.watermark)})`,
      );
    return { kind: 'mark', producer: m.producer, mark: { kind: 'watermark', watermark } };
  }
  if (value === null || value === undefined) throw badEntry(where, 'it has no value');
  const r = parse(value, where) as { k?: unknown; v?: unknown; t?: unknown };
  if (typeof r.t !== 'number' || !('v' in r) || !isJsonKey(r.k))
    throw badEntry(where, 'it is not a record written by Weir ({k, v, t})');
  return { kind: 'record', record: { key: r.k, value: r.v as T, timestamp: r.t } };
}

function encodeRecord<T>(r: RepartitionRecord<T>): string {
  if (typeof r.key === 'bigint')
    throw invalidArgument(`repartition: bigint key ${r.key} cannot cross processes yet`);
  return JSON.stringify({ k: r.key, v: r.value, t: r.timestamp });
}

/** JSON has no infinities: the start and the end of event time are written as text. */
function encodeTime(watermark: number): number | string {
  return Number.isFinite(watermark) ? watermark : watermark > 0 ? '+inf' : '-inf';
}

function decodeTime(t: unknown): number | undefined {
  if (typeof t === 'number') return t;
  if (t === '+inf') return Number.POSITIVE_INFINITY;
  if (t === '-inf') return Number.NEGATIVE_INFINITY;
  return undefined;
}

function isJsonKey(k: unknown): k is string | number | boolean {
  return typeof k === 'string' || typeof k === 'number' || typeof k === 'boolean';
}

function parse(bytes: Buffer, where: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw badEntry(where, `it is not JSON (${(cause as Error).message})`);
  }
}

function badEntry(where: string, why: string): WeirError {
  return new WeirError(
    'BAD_RECORD',
    `repartition topic message at ${where} is unreadable: ${why}`,
    {
      domain: 'internal',
    },
  );
}
