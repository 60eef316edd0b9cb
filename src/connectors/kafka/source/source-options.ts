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
    bounded: o.stopAt === 'latest',
    groupId: o.groupId,
    mode: o.mode,
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
      format?.prepareToRead === undefined ? undefined : (values) => format.prepareToRead!(values),
    decodeRecord: 'deserializer' in options ? options.deserializer : undefined,
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
