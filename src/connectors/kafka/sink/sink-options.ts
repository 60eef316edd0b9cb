/** The Kafka sink's validated options, and the bytes it makes of a value. */
import { parseOptions } from '../../shared/config.js';
import {
  connectionOf,
  type KafkaConnection,
  type KafkaHeaders,
  type KafkaSinkOptions,
  kafkaSinkSchema,
} from '../config.js';
import type { KafkaFormat } from '../formats.js';
import type { WorkerConfig } from './sink-protocol.js';

/** Validated sink options. */
export interface SinkConfig<T> {
  readonly connection: KafkaConnection;
  readonly topicOf: (value: T) => string;
  readonly fixedTopic: string | undefined;
  readonly format: KafkaFormat<T>;
  readonly key: ((value: T) => string | Uint8Array | undefined) | undefined;
  readonly headers: ((value: T) => KafkaHeaders | undefined) | undefined;
  readonly timestamp: ((value: T) => number | undefined) | undefined;
  readonly tombstone: ((value: T) => boolean) | undefined;
  readonly partitioner: ((value: T, key: Uint8Array | undefined) => number) | undefined;
  readonly exactlyOnce: boolean;
  readonly prefix: string;
  readonly transactionTimeoutMs: number;
  readonly checkpointIntervalMs: number | undefined;
  readonly checkpointTimeoutMs: number | undefined;
  readonly acks: -1 | 1;
  readonly compression: WorkerConfig['compression'];
  readonly maxBufferedRecords: number;
  readonly flushTimeoutMs: number;
  readonly name: string;
  readonly onWarning: (message: string) => void;
  /**
   * Names the current run of a process group member: the transactional ids
   * are `<prefix>-<run>-<subtask>-<n>` (see `Sink.inProcessGroup`).
   */
  readonly run?: () => string;
  /** Records carry their event time as the Kafka timestamp (a repartition topic); else the broker stamps them. */
  readonly eventTimestamps?: boolean;
}

/** Validates the options (once, when the sink is created) and applies defaults. */
export function sinkConfig<T>(options: KafkaSinkOptions<T>): SinkConfig<T> {
  const o = parseOptions('KafkaSink', kafkaSinkSchema, options);
  const topic = options.topic;
  return {
    connection: connectionOf(o),
    topicOf: typeof topic === 'function' ? topic : () => topic,
    fixedTopic: typeof topic === 'function' ? undefined : topic,
    format: options.format,
    key: options.key,
    headers: options.headers,
    timestamp: options.timestamp,
    tombstone: options.tombstone,
    partitioner: options.partitioner,
    exactlyOnce: o.deliveryGuarantee === 'exactly-once',
    prefix: o.transactionalIdPrefix,
    transactionTimeoutMs: o.transactionTimeoutMs,
    checkpointIntervalMs: o.checkpointIntervalMs,
    checkpointTimeoutMs: o.checkpointTimeoutMs,
    acks: o.acks,
    compression: o.compression,
    maxBufferedRecords: o.maxBufferedRecords,
    flushTimeoutMs: o.flushTimeoutMs,
    name: o.name,
    onWarning: o.onWarning,
  };
}

const encoder = new TextEncoder();

function bytesOf(x: string | Uint8Array): Uint8Array {
  return typeof x === 'string' ? encoder.encode(x) : x;
}

/**
 * The record key's bytes as the sink writes them (strings as UTF-8), or
 * undefined for a record without a key. The writer and the reconcile target
 * both call it, so both see the same bytes.
 */
export function recordKey<T>(config: SinkConfig<T>, value: T): Uint8Array | undefined {
  const k = config.key === undefined ? undefined : config.key(value);
  return k === undefined ? undefined : bytesOf(k);
}

/** The record value's bytes as the sink writes them; undefined for a tombstone. */
export function recordValue<T>(config: SinkConfig<T>, value: T): Uint8Array | undefined {
  if (config.tombstone?.(value) === true) return undefined;
  return config.format.serialize(value);
}

/** Header values as the sink writes them. */
export function recordHeaders(headers: KafkaHeaders): [string, Uint8Array][] {
  return Object.entries(headers).map(([name, value]) => [name, bytesOf(value)]);
}
