import { describeRecord, invalidArgument } from '../../../core/errors.js';
import type { WatermarkStrategy } from '../../../core/watermarks.js';
import {
  checkTopic,
  connectionOf,
  type KafkaConnection,
  type KafkaConnectionOptions,
  nonNegativeMs,
  positiveInt,
  positiveMs,
} from '../config.js';
import { checkBadRecordPolicy, type KafkaBadRecordPolicy } from '../dead-letter.js';
import type { KafkaFormat } from '../formats.js';
import type { KafkaConsumerRecord } from '../records.js';

/**
 * Where partitions start when the job starts fresh (a restored job resumes
 * from its checkpoint instead; partitions that appear later start at the
 * earliest offset).
 *
 * - `'earliest'` / `'latest'`
 * - `{ committed: fallback }`: the group's committed offsets (needs `groupId`),
 *   `fallback` for partitions without one
 * - `{ timestamp }`: the first record with a timestamp >= it (the end if none)
 * - `{ offsets: { topic: { partition: offset } }, fallback? }`: exact offsets;
 *   other partitions use `fallback` (default earliest)
 */
export type StartingOffsets =
  | 'earliest'
  | 'latest'
  | { readonly committed: 'earliest' | 'latest' }
  | { readonly timestamp: number }
  | {
      readonly offsets: Readonly<Record<string, Readonly<Record<number, number>>>>;
      readonly fallback?: 'earliest' | 'latest';
    };

interface CommonSourceOptions<T> extends KafkaConnectionOptions {
  /** Topics to read. Give `topics` or `topicPattern`. */
  readonly topics?: readonly string[];
  /** Read every topic whose whole name matches (new matching topics are discovered). */
  readonly topicPattern?: RegExp;
  /** Where to start without a checkpoint. Default `'earliest'`. */
  readonly startFrom?: StartingOffsets;
  /** Bounded mode: stop at the end offsets seen when the reader opens. */
  readonly stopAt?: 'latest';
  /**
   * Consumer group: committed offsets for `startFrom: { committed }`, where
   * offsets are committed after every completed checkpoint (so lag shows in
   * standard tooling), and the group of `mode: 'group'`.
   */
  readonly groupId?: string;
  /**
   * `'assign'` (default): Weir assigns partitions to subtasks
   * deterministically and keeps offsets in its checkpoints (exactly-once
   * with a transactional sink). `'group'`: Kafka's group protocol spreads the
   * partitions over every consumer of `groupId`, also in other processes;
   * for stateless jobs scaled out across processes (at-least-once, offsets
   * come from the group).
   */
  readonly mode?: 'assign' | 'group';
  /** Commit offsets to `groupId` when a checkpoint completes. Default true when `groupId` is set. */
  readonly commitOffsets?: boolean;
  /** Group mode: also commit polled offsets every this many ms (for jobs without checkpoints). Default 0 (off). */
  readonly autoCommitIntervalMs?: number;
  /**
   * Per-partition event time: the assigner runs per record (its second
   * argument is the Kafka timestamp), one generator per partition, and the
   * source's watermark is the minimum over active partitions. With
   * `withIdleness(ms)`, a partition that is caught up and has had no records
   * for `ms` stops holding the watermark back until data arrives again.
   * Without a strategy, records carry their Kafka timestamps and no watermarks.
   */
  readonly watermarks?: WatermarkStrategy<T>;
  /** Bad record policy. Default `'fail'`. */
  readonly onError?: KafkaBadRecordPolicy;
  /** Default `'read_committed'`: records of aborted or open transactions are never read. */
  readonly isolationLevel?: 'read_committed' | 'read_uncommitted';
  /** How often to look for new partitions and topics. Default 10 s; 0 turns discovery off. */
  readonly partitionDiscoveryIntervalMs?: number;
  /** Records buffered per reader before fetching pauses. Default 20 000. */
  readonly maxBufferedRecords?: number;
  /** Longest wait of a fetch request for new data. Default 200 ms. */
  readonly fetchMaxWaitMs?: number;
  /** Shown in plans and metrics. Default `kafka`. */
  readonly name?: string;
}

/** Options of a source that deserializes record values with a {@link KafkaFormat}. */
export interface KafkaFormatSourceOptions<T> extends CommonSourceOptions<T> {
  readonly format: KafkaFormat<T>;
}

/** Options of a source that turns whole records (key, headers, offset, ...) into values. */
export interface KafkaDeserializerSourceOptions<T> extends CommonSourceOptions<T> {
  /** Turns a record into a value; a throw is a bad record. */
  readonly deserializer: (record: KafkaConsumerRecord) => T;
}

export type KafkaSourceOptions<T> = KafkaFormatSourceOptions<T> | KafkaDeserializerSourceOptions<T>;

/** @internal Validated source options. */
export interface SourceConfig<T> {
  readonly connection: KafkaConnection;
  readonly topics: readonly string[] | undefined;
  readonly topicPattern: RegExp | undefined;
  readonly startFrom: StartingOffsets;
  readonly bounded: boolean;
  readonly groupId: string | undefined;
  readonly mode: 'assign' | 'group';
  readonly commitOffsets: boolean;
  readonly autoCommitIntervalMs: number;
  readonly watermarks: WatermarkStrategy<T> | undefined;
  readonly onError: KafkaBadRecordPolicy;
  readonly readCommitted: boolean;
  readonly discoveryIntervalMs: number;
  readonly maxBufferedRecords: number;
  readonly fetchMaxWaitMs: number;
  readonly name: string;
  /** Decodes a record; only called when `decodeValue` is undefined. */
  readonly decodeRecord: ((record: KafkaConsumerRecord) => T) | undefined;
  /** Decodes a record's value bytes (the fast path). */
  readonly decodeValue: ((bytes: Buffer | undefined) => T) | undefined;
}

/** @internal */
export function sourceConfig<T>(options: KafkaSourceOptions<T>): SourceConfig<T> {
  const what = 'KafkaSource';
  if (options === null || typeof options !== 'object')
    throw invalidArgument(`${what}: options are required`);
  const connection = connectionOf(options, what);
  const hasTopics = options.topics !== undefined;
  const hasPattern = options.topicPattern !== undefined;
  if (hasTopics === hasPattern) {
    throw invalidArgument(`${what}: give exactly one of topics and topicPattern`);
  }
  if (hasTopics) {
    if (!Array.isArray(options.topics) || options.topics.length === 0) {
      throw invalidArgument(`${what}: topics must be a non-empty list`);
    }
    for (const t of options.topics) checkTopic(what, t);
  }
  if (hasPattern && !(options.topicPattern instanceof RegExp)) {
    throw invalidArgument(`${what}: topicPattern must be a RegExp`);
  }
  const format = 'format' in options ? options.format : undefined;
  const deserializer = 'deserializer' in options ? options.deserializer : undefined;
  if ((format === undefined) === (deserializer === undefined)) {
    throw invalidArgument(`${what}: give exactly one of format and deserializer`);
  }
  if (format !== undefined && typeof format.deserialize !== 'function') {
    throw invalidArgument(`${what}: format must be a KafkaFormat (see KafkaFormats)`);
  }
  if (deserializer !== undefined && typeof deserializer !== 'function') {
    throw invalidArgument(`${what}: deserializer must be a function`);
  }
  const startFrom = options.startFrom ?? 'earliest';
  checkStartingOffsets(what, startFrom, options.groupId);
  const mode = options.mode ?? 'assign';
  if (mode !== 'assign' && mode !== 'group') {
    throw invalidArgument(`${what}: mode must be 'assign' or 'group', got ${describeRecord(mode)}`);
  }
  if (
    options.groupId !== undefined &&
    (typeof options.groupId !== 'string' || options.groupId.length === 0)
  ) {
    throw invalidArgument(`${what}: groupId must be a non-empty string`);
  }
  if (mode === 'group' && options.groupId === undefined) {
    throw invalidArgument(`${what}: mode 'group' needs a groupId`);
  }
  if (mode === 'group' && options.stopAt !== undefined) {
    throw invalidArgument(`${what}: stopAt is not supported in mode 'group'`);
  }
  if (options.stopAt !== undefined && options.stopAt !== 'latest') {
    throw invalidArgument(`${what}: stopAt must be 'latest'`);
  }
  const isolation = options.isolationLevel ?? 'read_committed';
  if (isolation !== 'read_committed' && isolation !== 'read_uncommitted') {
    throw invalidArgument(`${what}: isolationLevel must be 'read_committed' or 'read_uncommitted'`);
  }
  return {
    connection,
    topics: options.topics,
    topicPattern: options.topicPattern,
    startFrom,
    bounded: options.stopAt === 'latest',
    groupId: options.groupId,
    mode,
    commitOffsets: options.groupId !== undefined && (options.commitOffsets ?? true),
    autoCommitIntervalMs: nonNegativeMs(
      what,
      'autoCommitIntervalMs',
      options.autoCommitIntervalMs,
      0,
    ),
    watermarks: options.watermarks,
    onError: checkBadRecordPolicy(what, options.onError ?? 'fail'),
    readCommitted: isolation === 'read_committed',
    discoveryIntervalMs: nonNegativeMs(
      what,
      'partitionDiscoveryIntervalMs',
      options.partitionDiscoveryIntervalMs,
      10_000,
    ),
    maxBufferedRecords: positiveInt(what, 'maxBufferedRecords', options.maxBufferedRecords, 20_000),
    fetchMaxWaitMs: positiveMs(what, 'fetchMaxWaitMs', options.fetchMaxWaitMs, 200),
    name: options.name ?? 'kafka',
    decodeValue: format === undefined ? undefined : (bytes) => format.deserialize(bytes),
    decodeRecord: deserializer,
  };
}

function checkStartingOffsets(what: string, s: StartingOffsets, groupId: string | undefined): void {
  if (s === 'earliest' || s === 'latest') return;
  if (typeof s === 'object' && s !== null) {
    if ('committed' in s) {
      if (s.committed !== 'earliest' && s.committed !== 'latest') {
        throw invalidArgument(
          `${what}: startFrom.committed is the fallback, 'earliest' or 'latest'`,
        );
      }
      if (groupId === undefined)
        throw invalidArgument(`${what}: startFrom { committed } needs a groupId`);
      return;
    }
    if ('timestamp' in s) {
      if (!Number.isFinite(s.timestamp) || s.timestamp < 0) {
        throw invalidArgument(`${what}: startFrom.timestamp must be epoch milliseconds >= 0`);
      }
      return;
    }
    if ('offsets' in s) {
      for (const [topic, parts] of Object.entries(s.offsets)) {
        checkTopic(what, topic);
        for (const [p, o] of Object.entries(parts)) {
          if (!/^\d+$/.test(p) || !Number.isSafeInteger(o) || o < 0) {
            throw invalidArgument(
              `${what}: startFrom.offsets.${topic}[${p}] must be an offset >= 0, got ${describeRecord(o)}`,
            );
          }
        }
      }
      if (s.fallback !== undefined && s.fallback !== 'earliest' && s.fallback !== 'latest') {
        throw invalidArgument(`${what}: startFrom.fallback must be 'earliest' or 'latest'`);
      }
      return;
    }
  }
  throw invalidArgument(`${what}: invalid startFrom ${describeRecord(s)}`);
}

/** Java's String.hashCode, so partition ownership matches Flink's KafkaTopicPartitionAssigner. */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** The subtask that reads a partition: deterministic, spreading each topic's partitions round-robin. */
export function ownerOf(topic: string, partition: number, parallelism: number): number {
  const start = ((Math.imul(javaHash(topic), 31) & 0x7fffffff) >>> 0) % parallelism;
  return (start + partition) % parallelism;
}
