import { invalidArgument } from '../../../core/errors.js';
import type { ProcessGroupObserver } from '../../../core/process-group.js';
import type { ReplayRange } from '../../../core/replay.js';
import type { ProcessGroupSpec } from '../../../core/source.js';
import type { WatermarkStrategy } from '../../../core/watermarks.js';
import { parseOptions } from '../../shared/config.js';
import {
  connectionOf,
  type KafkaBadRecordPolicy,
  type KafkaConnection,
  type KafkaSourceOptions,
  kafkaSourceSchema,
  type StartingOffsets,
} from '../config.js';
import type { KafkaConsumerRecord } from '../consumer-record.js';
import type { KafkaFormat } from '../formats.js';
import { type OffsetBound, stopBound } from './offset-bound.js';

export type {
  KafkaDeserializerSourceOptions,
  KafkaFormatSourceOptions,
  KafkaSourceOptions,
  StartingOffsets,
} from '../config.js';

/** Validated source options. */
export interface SourceConfig<T> {
  readonly connection: KafkaConnection;
  readonly topics: readonly string[] | undefined;
  readonly topicPattern: RegExp | undefined;
  readonly startFrom: StartingOffsets;
  readonly bounded: boolean;
  /** Bounded mode: where each partition ends (exclusive). */
  readonly stopAt: OffsetBound | undefined;
  /**
   * Replay: where each partition starts (instead of `startFrom`); also turns
   * on the deterministic merge of partitions (see replay-merge.ts).
   */
  readonly replayStart: OffsetBound | undefined;
  readonly groupId: string | undefined;
  readonly mode: 'assign' | 'group';
  /**
   * Group mode: the classic protocol (client-side assignment) for a
   * `mode: 'group'` source, or the consumer protocol (KIP-848, broker-side
   * sticky assignment) when the job runs as a process group.
   */
  readonly groupProtocol: 'classic' | 'consumer';
  /** In a process group: the session timeout it asks for (see `ProcessGroupSpec`). */
  readonly groupSessionTimeoutMs?: number | undefined;
  readonly commitOffsets: boolean;
  /**
   * Process group with keyed state: the tasks (`topic:partition`) the
   * process holds; the reader reads exactly these (of its subtask's share).
   */
  readonly fixedTasks?: (() => ReadonlySet<string>) | undefined;
  /** In a process group: told about the reader's tasks (see core/process-group.ts). */
  readonly groupObserver?: ProcessGroupObserver | undefined;
  readonly autoCommitIntervalMs: number;
  readonly watermarks: WatermarkStrategy<T> | undefined;
  readonly onError: KafkaBadRecordPolicy;
  readonly readCommitted: boolean;
  readonly discoveryIntervalMs: number;
  readonly maxBufferedRecords: number;
  readonly fetchMaxWaitMs: number;
  readonly name: string;
  readonly onWarning: (message: string) => void;
  /** Decodes a record; only called when `decodeValue` is undefined. */
  readonly decodeRecord: ((record: KafkaConsumerRecord) => T) | undefined;
  /** Decodes a record's value bytes (the fast path). */
  readonly decodeValue: ((bytes: Buffer | undefined) => T) | undefined;
  /** The format's `prepareToRead`, awaited before values are decoded (schema registry lookups). */
  readonly prepareValues:
    | ((values: readonly (Buffer | undefined)[]) => Promise<void> | undefined)
    | undefined;
}

/** Validates the options (once, when the source is created) and applies defaults. */
export function sourceConfig<T>(options: KafkaSourceOptions<T>): SourceConfig<T> {
  const o = parseOptions('KafkaSource', kafkaSourceSchema, options);
  const format = o.format as KafkaFormat<T> | undefined;
  return {
    connection: connectionOf(o),
    topics: o.topics,
    topicPattern: o.topicPattern,
    startFrom: o.startFrom,
    bounded: o.stopAt !== undefined,
    stopAt: o.stopAt === undefined ? undefined : stopBound(o.stopAt),
    replayStart: undefined,
    groupId: o.groupId,
    mode: o.mode,
    groupProtocol: 'classic',
    commitOffsets: o.groupId !== undefined && o.commitOffsets,
    autoCommitIntervalMs: o.autoCommitIntervalMs,
    watermarks: options.watermarks,
    onError: o.onError,
    readCommitted: o.isolationLevel === 'read_committed',
    discoveryIntervalMs: o.partitionDiscoveryIntervalMs,
    maxBufferedRecords: o.maxBufferedRecords,
    fetchMaxWaitMs: o.fetchMaxWaitMs,
    name: o.name,
    onWarning: o.onWarning,
    decodeValue: format === undefined ? undefined : (bytes) => format.deserialize(bytes),
    prepareValues:
      format?.prepareToRead === undefined
        ? o.prepareValues
        : (values) => format.prepareToRead!(values),
    decodeRecord: 'deserializer' in options ? options.deserializer : undefined,
  };
}

/**
 * The configuration of a replay of `range`: the same topics, decoding,
 * bad-record policy, event time and isolation level, read by one reader in
 * assign mode from each partition's start to its end in the range, with no
 * consumer group, no offset commits, no partition discovery and no idleness
 * by the clock.
 */
export function replayConfig<T>(config: SourceConfig<T>, range: ReplayRange): SourceConfig<T> {
  const what = `KafkaSource '${config.name}' replay`;
  for (const [name, t] of [
    ['from', range.from],
    ['to', range.to],
  ] as const) {
    if (t !== undefined && !(Number.isSafeInteger(t) && t >= 0))
      throw invalidArgument(`${what}: ${name} must be whole epoch milliseconds >= 0, got ${t}`);
  }
  if (range.files !== undefined)
    throw invalidArgument(`${what}: files name the input of file sources, not of Kafka`);
  const starts = new Map<string, number>();
  const ends = new Map<string, number>();
  for (const [key, pair] of Object.entries(range.positions ?? {})) {
    if (!/^.+:\d+$/.test(key))
      throw invalidArgument(`${what}: position keys are 'topic:partition', got '${key}'`);
    const [first, end] = pair;
    if (!(Number.isSafeInteger(first) && first >= 0 && Number.isSafeInteger(end) && end >= 0))
      throw invalidArgument(
        `${what}: the position of '${key}' must be [first, end) offsets >= 0, got [${first}, ${end}]`,
      );
    starts.set(key, first);
    ends.set(key, end);
  }
  return {
    ...config,
    startFrom: 'earliest',
    bounded: true,
    stopAt: { exact: ends, timestamp: range.to, otherwise: 'latest' },
    replayStart: { exact: starts, timestamp: range.from, otherwise: 'earliest' },
    groupId: undefined,
    mode: 'assign',
    commitOffsets: false,
    autoCommitIntervalMs: 0,
    discoveryIntervalMs: 0,
  };
}

/**
 * The configuration of a source in a process group (`weir run --group`):
 * group mode on the consumer protocol, in the job's group, with offsets
 * committed when a checkpoint completes. Refused for a source whose brokers
 * are not the group's cluster, or whose input ends (the group has no end).
 */
export function processGroupConfig<T>(
  config: SourceConfig<T>,
  group: ProcessGroupSpec,
): SourceConfig<T> {
  const what = `KafkaSource '${config.name}'`;
  if (!config.connection.brokers.some((b) => group.brokers.includes(b)))
    throw invalidArgument(
      `${what} reads brokers ${config.connection.brokers.join(',')}, but the process group '${group.applicationId}' runs on ${group.brokers.join(',')}: a process group reads Kafka sources of its own cluster`,
    );
  if (config.bounded) throw invalidArgument(`${what}: stopAt is not supported in a process group`);
  const observer = {
    ...(group.observer === undefined ? {} : { groupObserver: group.observer }),
    ...(group.sessionTimeoutMs === undefined
      ? {}
      : { groupSessionTimeoutMs: group.sessionTimeoutMs }),
  };
  if (group.tasks !== undefined) {
    // The process's membership assigns the tasks; their positions come with
    // their state (task snapshots), else from the group's committed offsets.
    const start = config.startFrom;
    const latest =
      start === 'latest' ||
      (typeof start === 'object' && 'committed' in start && start.committed === 'latest');
    return {
      ...config,
      mode: 'assign',
      groupProtocol: 'consumer',
      groupId: group.applicationId,
      startFrom: { committed: latest ? 'latest' : 'earliest' },
      commitOffsets: false,
      fixedTasks: group.tasks,
      autoCommitIntervalMs: 0,
      ...observer,
    };
  }
  return {
    ...config,
    mode: 'group',
    groupProtocol: 'consumer',
    groupId: group.applicationId,
    commitOffsets: true,
    autoCommitIntervalMs: 0,
    ...observer,
  };
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
