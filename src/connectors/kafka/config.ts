/**
 * Options of the Kafka source and sink, declared once: each schema gives the
 * options type and its validation when the connector is created.
 */
import * as v from 'valibot';
import { invalidArgument } from '../../core/errors.js';
import type { WatermarkStrategy } from '../../core/watermarks.js';
import { type BadRecordPolicy, badRecordPolicySchema } from '../shared/bad-records.js';
import {
  fn,
  nonEmptyString,
  nonNegativeMs,
  type OptionsOf,
  oneOf,
  positiveInt,
  positiveMs,
  shaped,
} from '../shared/config.js';
import type { KafkaConsumerRecord } from './consumer-record.js';
import type { KafkaFormat } from './formats.js';
import { emitKafkaWarning, type KafkaReconnectSettings, kafkaReconnectEntry } from './reconnect.js';
import { type KafkaSasl, type KafkaTls, saslEntry, tlsEntry, tlsOf } from './security.js';

export { reasonOf } from '../shared/bad-records.js';

const HOST_PORT = /^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/;

/** Kafka's rule for topic names. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const TOPIC_RULE = "must be a valid topic name (letters, digits, '.', '_', '-'; at most 249)";

function isTopicName(x: unknown): x is string {
  return typeof x === 'string' && TOPIC_NAME.test(x) && x !== '.' && x !== '..';
}

/** A topic name. */
const topicName = v.custom<string>(isTopicName, TOPIC_RULE);

/** Checks a topic name chosen per record by a sink's `topic` function (once per new topic). */
export function checkTopic(what: string, topic: unknown): string {
  if (!isTopicName(topic))
    throw invalidArgument(`${what}: topic ${TOPIC_RULE}, got '${String(topic)}'`);
  return topic;
}

/** Where the Kafka cluster is: the options every Kafka connector shares. */
const connectionEntries = {
  /** Bootstrap brokers, `host:port`. */
  brokers: v.pipe(
    v.array(
      v.pipe(v.string("must be 'host:port'"), v.regex(HOST_PORT, "must be 'host:port'")),
      "must be a non-empty list of 'host:port'",
    ),
    v.minLength(1, "must be a non-empty list of 'host:port'"),
  ),
  /** Client id shown in broker logs and quotas. Default `weir`. */
  clientId: v.optional(nonEmptyString(), 'weir'),
  /** Timeout of one request to a broker. Default 30 s. */
  requestTimeoutMs: v.optional(positiveMs(), 30_000),
  /**
   * How an unreachable cluster is ridden out (a broker restart, a leader
   * election): requests that cannot reach a broker are retried with capped
   * exponential backoff and jitter, each retry logged and counted in
   * `weir_kafka_reconnects_total`, until the outage outlasts `maxOutageMs`
   * (default 3 minutes); then the task fails and the job's restart strategy
   * takes over. See docs/connectors/kafka.md.
   */
  reconnect: kafkaReconnectEntry,
  /** Receives the connector's warnings (each retry, each reconnection). Default `process.emitWarning`. */
  onWarning: v.optional(fn<(message: string) => void>(), () => emitKafkaWarning),
  /**
   * SASL login: `{ mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512',
   * username, password }` or `{ mechanism: 'OAUTHBEARER', token |
   * tokenProvider, extensions? }`. Default: none. See docs/connectors/kafka.md.
   */
  sasl: saslEntry,
  /**
   * TLS: `true` (the CAs Node trusts) or `{ caFile?, certFile?, keyFile?,
   * keyPassword? }` (PEM files, read when the connector opens). Default: plaintext.
   */
  tls: tlsEntry,
};

/** Where the Kafka cluster is. */
export type KafkaConnectionOptions = OptionsOf<v.ObjectSchema<typeof connectionEntries, undefined>>;

/** Validated connection settings (plain data, sent to worker threads). */
export interface KafkaConnection {
  readonly brokers: string[];
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  readonly reconnect: KafkaReconnectSettings;
  /** SASL login (an OAUTHBEARER `tokenProvider` is a function: see `workerConnection`). */
  readonly sasl?: KafkaSasl | undefined;
  /** TLS, file paths not yet read. */
  readonly tls?: KafkaTls | undefined;
}

/** The connection settings of validated options. */
export function connectionOf(
  options: Omit<KafkaConnection, 'tls'> & { readonly tls?: true | KafkaTls | undefined },
): KafkaConnection {
  return {
    brokers: [...options.brokers],
    clientId: options.clientId,
    requestTimeoutMs: options.requestTimeoutMs,
    reconnect: { ...options.reconnect },
    ...(options.sasl === undefined ? {} : { sasl: options.sasl }),
    ...(options.tls === undefined ? {} : { tls: tlsOf(options.tls) }),
  };
}

const fallback = oneOf(['earliest', 'latest']);

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
const startingOffsetsSchema = v.union(
  [
    v.literal('earliest'),
    v.literal('latest'),
    v.object({ committed: fallback }),
    v.object({
      timestamp: v.pipe(
        v.number('must be epoch milliseconds >= 0'),
        v.finite('must be epoch milliseconds >= 0'),
        v.minValue(0, 'must be epoch milliseconds >= 0'),
      ),
    }),
    v.object({
      offsets: v.record(
        topicName,
        v.record(
          v.pipe(v.string(), v.regex(/^\d+$/, 'must be a partition number')),
          v.pipe(
            v.number('must be an offset >= 0'),
            v.safeInteger('must be an offset >= 0'),
            v.minValue(0, 'must be an offset >= 0'),
          ),
        ),
      ),
      fallback: v.optional(fallback),
    }),
  ],
  "must be 'earliest', 'latest', { committed }, { timestamp } or { offsets }",
);

/** Where a partition starts: `'earliest'`, `'latest'`, `{ committed }`, `{ timestamp }` or `{ offsets }` (docs/connectors/kafka.md). */
export type StartingOffsets = v.InferInput<typeof startingOffsetsSchema>;

/**
 * Bounded mode: where each partition ends (exclusive), resolved when the
 * reader opens (partitions discovered later resolve when they are found).
 *
 * - `'latest'`: the end of the partition then (the last stable offset with read_committed)
 * - `{ timestamp }`: the first record with a timestamp >= it (the end if none)
 * - `{ offsets: { topic: { partition: offset } } }`: exact end offsets;
 *   partitions not named end at `'latest'`
 */
const stoppingOffsetsSchema = v.union(
  [
    v.literal('latest'),
    v.object({
      timestamp: v.pipe(
        v.number('stopAt { timestamp } must be epoch milliseconds >= 0'),
        v.safeInteger('stopAt { timestamp } must be whole epoch milliseconds >= 0'),
        v.minValue(0, 'stopAt { timestamp } must be epoch milliseconds >= 0'),
      ),
    }),
    v.object({
      offsets: v.record(
        topicName,
        v.record(
          v.pipe(
            v.string(),
            v.regex(/^\d+$/, 'stopAt { offsets }: keys must be partition numbers'),
          ),
          v.pipe(
            v.number('stopAt { offsets } must map partitions to offsets >= 0'),
            v.safeInteger('stopAt { offsets } must map partitions to whole offsets >= 0'),
            v.minValue(0, 'stopAt { offsets } must map partitions to offsets >= 0'),
          ),
        ),
        'stopAt { offsets } must be { topic: { partition: offset } }',
      ),
    }),
  ],
  "must be 'latest', { timestamp } or { offsets: { topic: { partition: offset } } }",
);

/** Where a bounded read ends: `'latest'`, `{ timestamp }` or `{ offsets }` (docs/connectors/kafka.md). */
export type StoppingOffsets = v.InferInput<typeof stoppingOffsetsSchema>;

/** Schema of the Kafka source's options. */
export const kafkaSourceSchema = v.pipe(
  v.object({
    ...connectionEntries,
    /** Topics to read. Give `topics` or `topicPattern`. */
    topics: v.optional(v.pipe(v.array(topicName), v.minLength(1, 'must be a non-empty list'))),
    /** Read every topic whose whole name matches (new matching topics are discovered). */
    topicPattern: v.optional(v.instance(RegExp, 'must be a RegExp')),
    /** Where to start without a checkpoint. Default `'earliest'`. */
    startFrom: v.optional(startingOffsetsSchema, 'earliest'),
    /** Bounded mode: where each partition ends (`StoppingOffsets`). Default: unbounded. */
    stopAt: v.optional(stoppingOffsetsSchema),
    /**
     * Consumer group: committed offsets for `startFrom: { committed }`, where
     * offsets are committed after every completed checkpoint (so lag shows in
     * standard tooling), and the group of `mode: 'group'`.
     */
    groupId: v.optional(nonEmptyString()),
    /**
     * `'assign'` (default): Weir assigns partitions to subtasks
     * deterministically and keeps offsets in its checkpoints (exactly-once
     * with a transactional sink). `'group'`: Kafka's group protocol spreads the
     * partitions over every consumer of `groupId`, also in other processes;
     * for stateless jobs scaled out across processes (at-least-once, offsets
     * come from the group).
     */
    mode: v.optional(oneOf(['assign', 'group']), 'assign'),
    /** Commit offsets to `groupId` when a checkpoint completes. Default true when `groupId` is set. */
    commitOffsets: v.optional(v.boolean('must be true or false'), true),
    /** Group mode: also commit polled offsets every this many ms (for jobs without checkpoints). Default 0 (off). */
    autoCommitIntervalMs: v.optional(nonNegativeMs(), 0),
    /**
     * Per-partition event time: the assigner runs per record (its second
     * argument is the Kafka timestamp), one generator per partition, and the
     * source's watermark is the minimum over active partitions. With
     * `withIdleness(ms)`, a partition that is caught up and has had no records
     * for `ms` stops holding the watermark back until data arrives again.
     * Without a strategy, records carry their Kafka timestamps and no watermarks.
     */
    watermarks: v.optional(
      shaped<WatermarkStrategy<unknown>>(() => true, 'must be a WatermarkStrategy'),
    ),
    /**
     * Bad record policy. Default `'fail'`. With `{ deadLetterTopic }` the
     * record's key, value and headers are written to that topic, with
     * headers `weir.error`, `weir.topic`, `weir.partition`, `weir.offset` and
     * `weir.timestamp`; the partition does not advance past the record until
     * the dead-letter write is acknowledged, so a crash never loses it (it
     * may be written twice). A value that would make the dead letter larger
     * than `maxDeadLetterBytes` (default 512 KiB, half of Kafka's default
     * `message.max.bytes`, counting key and headers) is truncated to fit, with
     * headers `weir.truncated`, `weir.original.size` and `weir.original.sha256`
     * (hex digest of the whole value). A refused write is retried with
     * backoff, then fails the job naming the topic and the record's offset.
     */
    onError: badRecordPolicySchema(
      v.object({
        deadLetterTopic: topicName,
        maxDeadLetterBytes: v.optional(positiveInt()),
      }),
      "'fail', 'skip' or { deadLetterTopic, maxDeadLetterBytes? }",
    ),
    /** Default `'read_committed'`: records of aborted or open transactions are never read. */
    isolationLevel: v.optional(oneOf(['read_committed', 'read_uncommitted']), 'read_committed'),
    /** How often to look for new partitions and topics. Default 10 s; 0 turns discovery off. */
    partitionDiscoveryIntervalMs: v.optional(nonNegativeMs(), 10_000),
    /** Records buffered per reader before fetching pauses. Default 20 000. */
    maxBufferedRecords: v.optional(positiveInt(), 20_000),
    /** Longest wait of a fetch request for new data. Default 200 ms. */
    fetchMaxWaitMs: v.optional(positiveMs(), 200),
    /** Shown in plans and metrics. Default `kafka`. */
    name: v.optional(v.string('must be a string'), 'kafka'),
    /** Deserializes record values (see `KafkaFormats`). Give `format` or `deserializer`. */
    format: v.optional(
      shaped<KafkaFormat<unknown>>(
        (x) => typeof (x as { deserialize?: unknown }).deserialize === 'function',
        'must be a KafkaFormat (see KafkaFormats)',
      ),
    ),
    /** Turns a whole record (key, headers, offset, ...) into a value; a throw is a bad record. */
    deserializer: v.optional(fn<(record: KafkaConsumerRecord) => unknown>()),
    /**
     * With `deserializer`: awaited with each fetched chunk's values before they are decoded, as a
     * format's `prepareToRead` (a registry format's schema lookups).
     */
    prepareValues: v.optional(
      fn<(values: readonly (Buffer | undefined)[]) => Promise<void> | undefined>(),
    ),
  }),
  v.check(
    (o) => (o.topics === undefined) !== (o.topicPattern === undefined),
    'give exactly one of topics and topicPattern',
  ),
  v.check(
    (o) => (o.format === undefined) !== (o.deserializer === undefined),
    'give exactly one of format and deserializer',
  ),
  v.check(
    (o) =>
      typeof o.startFrom !== 'object' || !('committed' in o.startFrom) || o.groupId !== undefined,
    'startFrom { committed } needs a groupId',
  ),
  v.check((o) => o.mode !== 'group' || o.groupId !== undefined, "mode 'group' needs a groupId"),
  v.check(
    (o) => o.mode !== 'group' || o.stopAt === undefined,
    "stopAt is not supported in mode 'group'",
  ),
);

/**
 * What the Kafka source does with a record it cannot deserialize (or whose
 * deserializer throws): the shared {@link BadRecordPolicy}, with a
 * dead-letter topic as its destination. Every bad record is counted in
 * `weir_source_bad_records_total`.
 */
export type KafkaBadRecordPolicy = BadRecordPolicy<KafkaDeadLetterTarget>;

/** Where a Kafka source's bad records go: a topic, and the largest dead letter written there. */
export interface KafkaDeadLetterTarget {
  readonly deadLetterTopic: string;
  /** Bytes of key, value and headers above which the value is truncated. Default 512 KiB. */
  readonly maxDeadLetterBytes?: number | undefined;
}

type CommonSourceOptions<T> = Omit<
  OptionsOf<typeof kafkaSourceSchema>,
  'format' | 'deserializer' | 'watermarks'
> & {
  /** Per-partition event time; see `watermarks` in {@link kafkaSourceSchema}. */
  readonly watermarks?: WatermarkStrategy<T>;
};

/** Options of a source that deserializes record values with a {@link KafkaFormat}. */
export type KafkaFormatSourceOptions<T> = CommonSourceOptions<T> & {
  readonly format: KafkaFormat<T>;
};

/** Options of a source that turns whole records (key, headers, offset, ...) into values. */
export type KafkaDeserializerSourceOptions<T> = CommonSourceOptions<T> & {
  /** Turns a record into a value; a throw is a bad record. */
  readonly deserializer: (record: KafkaConsumerRecord) => T;
};

/** Options of `KafkaSource`: a connection, what to read, and a format or deserializer. */
export type KafkaSourceOptions<T> = KafkaFormatSourceOptions<T> | KafkaDeserializerSourceOptions<T>;

const TRANSACTIONAL_PREFIX = /^[a-zA-Z0-9._-]{1,200}$/;

/** Schema of the Kafka sink's options. */
export const kafkaSinkSchema = v.pipe(
  v.object({
    ...connectionEntries,
    /** The topic of every record, or a function choosing it per record. */
    topic: v.union([topicName, fn<(value: never) => string>()], `${TOPIC_RULE}, or a function`),
    /** Serializes record values. */
    format: shaped<KafkaFormat<never>>(
      (x) => typeof (x as { serialize?: unknown }).serialize === 'function',
      'must be a KafkaFormat (see KafkaFormats)',
    ),
    /** The record key (strings as UTF-8). Records with a key go to `murmur2(key) % partitions`, as in Java clients. */
    key: v.optional(fn<(value: never) => string | Uint8Array | undefined>()),
    /**
     * Records for which it returns true are written without a value (a
     * tombstone: the delete of their key in a compacted topic); the format is
     * not called for them.
     */
    tombstone: v.optional(fn<(value: never) => boolean>()),
    /** Headers per record. */
    headers: v.optional(fn<(value: never) => KafkaHeaders | undefined>()),
    /**
     * Chooses the partition (taken modulo the topic's partition count). Default:
     * by key hash as in Java clients; records without a key are spread round robin.
     */
    partitioner: v.optional(fn<(value: never, key: Uint8Array | undefined) => number>()),
    /**
     * `'at-least-once'` (default): every record is acknowledged by the brokers
     * before a checkpoint completes; after a failure, records since the last
     * checkpoint are written again. `'exactly-once'`: each checkpoint interval
     * is one Kafka transaction, committed when the checkpoint completes;
     * consumers with `read_committed` see every record once. Needs checkpoints.
     */
    deliveryGuarantee: v.optional(oneOf(['at-least-once', 'exactly-once']), 'at-least-once'),
    /**
     * Exactly-once: prefix of the transactional ids `<prefix>-<subtask>-<n>`.
     * Must be stable across restarts of the job and unique to it on the cluster.
     */
    transactionalIdPrefix: v.optional(v.string('must be a string'), ''),
    /**
     * Exactly-once: the transaction timeout asked of the broker: the longest a
     * pre-committed transaction waits for its commit, including while the job
     * is down. At most the broker's `transaction.max.timeout.ms` (checked at
     * start). Default 10 minutes.
     */
    transactionTimeoutMs: v.optional(positiveMs(), 600_000),
    /**
     * Exactly-once: the job's checkpoint interval, checked against
     * `transactionTimeoutMs` at start (the sink cannot read the job's
     * checkpoint settings itself yet).
     */
    checkpointIntervalMs: v.optional(positiveMs()),
    /** Exactly-once: the job's checkpoint timeout, checked like `checkpointIntervalMs`. */
    checkpointTimeoutMs: v.optional(positiveMs()),
    /** `-1` (all in-sync replicas, default) or `1` (leader only; at-least-once only). */
    acks: v.optional(oneOf([-1, 1]), -1),
    /** Compression of record batches. Default `'none'`. */
    compression: v.optional(oneOf(['none', 'gzip', 'snappy', 'lz4', 'zstd']), 'none'),
    /** Records handed to the producer and not yet acknowledged before the sink applies backpressure. Default 50 000. */
    maxBufferedRecords: v.optional(positiveInt(), 50_000),
    /** Longest a checkpoint barrier waits for outstanding records to be acknowledged. Default 60 s. */
    flushTimeoutMs: v.optional(positiveMs(), 60_000),
    /** Shown in plans and metrics. Default `kafka`. */
    name: v.optional(v.string('must be a string'), 'kafka'),
  }),
  v.check(
    (o) =>
      o.deliveryGuarantee !== 'exactly-once' || TRANSACTIONAL_PREFIX.test(o.transactionalIdPrefix),
    "exactly-once needs a transactionalIdPrefix (letters, digits, '.', '_', '-'), stable across restarts and unique to the job",
  ),
  v.check(
    (o) => o.deliveryGuarantee !== 'exactly-once' || o.acks === -1,
    'exactly-once needs acks -1',
  ),
);

/** Header values: strings are written as UTF-8. */
export type KafkaHeaders = Readonly<Record<string, string | Uint8Array>>;

/** Options of `KafkaSink`. */
export type KafkaSinkOptions<T> = Omit<
  OptionsOf<typeof kafkaSinkSchema>,
  'topic' | 'format' | 'key' | 'headers' | 'partitioner' | 'tombstone' | 'timestamp'
> & {
  /** The topic of every record, or a function choosing it per record. */
  readonly topic: string | ((value: T) => string);
  /** Serializes record values. */
  readonly format: KafkaFormat<T>;
  /** The record key (strings as UTF-8). Records with a key go to `murmur2(key) % partitions`, as in Java clients. */
  readonly key?: (value: T) => string | Uint8Array | undefined;
  /** Headers per record. */
  readonly headers?: (value: T) => KafkaHeaders | undefined;
  /** The record's timestamp (epoch ms); undefined leaves it to the producer's clock. */
  readonly timestamp?: (value: T) => number | undefined;
  /** Whether a record is written as a tombstone (no value; a delete of its key in a compacted topic). */
  readonly tombstone?: (value: T) => boolean;
  /**
   * Chooses the partition (taken modulo the topic's partition count). Default:
   * by key hash as in Java clients; records without a key are spread round robin.
   */
  readonly partitioner?: (value: T, key: Uint8Array | undefined) => number;
};
