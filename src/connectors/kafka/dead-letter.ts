import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Producer } from '@platformatic/kafka';
import { describeRecord, WeirError } from '../../core/errors.js';
import type { Counter, MetricGroup } from '../../metrics/registry.js';
import { BAD_RECORDS_METRIC, BadRecordCounter, badRecordError } from '../shared/bad-records.js';
import { apiErrors, clientBase } from './client.js';
import type { KafkaBadRecordPolicy, KafkaConnection, KafkaDeadLetterTarget } from './config.js';
import { reasonOf } from './config.js';
import type { KafkaConsumerRecord } from './consumer-record.js';
import {
  isClusterUnreachable,
  KafkaReconnector,
  reconnectsCounter,
  shortReason,
} from './reconnect.js';
import { isSecurityFailure } from './security.js';

/** Counter of bad records of every policy (the same name as every source's). */
export const KAFKA_BAD_RECORDS_METRIC = BAD_RECORDS_METRIC;

/** The error a job fails with under the 'fail' policy. */
export function kafkaBadRecordError(
  record: KafkaConsumerRecord,
  reason: string,
  operatorId: string,
): WeirError {
  return badRecordError({
    at: `topic '${record.topic}' partition ${record.partition} at offset ${record.offset}`,
    reason,
    label: 'value',
    shown: describeRecord(record.value?.toString('utf8') ?? null),
    deadLetter: '{ deadLetterTopic }',
    operatorId,
  });
}

/** Default largest dead letter: half of Kafka's default `message.max.bytes` (1 MiB), for batch overhead. */
export const DEFAULT_MAX_DEAD_LETTER_BYTES = 512 * 1024;

/** Longest `weir.error` header, in characters. */
const MAX_REASON = 2000;

/** Counter: dead-letter writes the brokers refused (each failed attempt; an unreachable cluster counts as reconnects). */
export const DEAD_LETTER_FAILURES_METRIC = 'weir_kafka_dead_letter_failures_total';

/** Attempts at writing a group of dead letters the brokers refuse, before the job fails. */
const SEND_ATTEMPTS = 5;
/** Backoff before the second attempt; doubled after each failure. */
const FIRST_BACKOFF_MS = 200;

/** A bad record and why it was rejected. */
export interface DeadLetter {
  readonly record: KafkaConsumerRecord;
  readonly reason: string;
}

interface DeadLetterMessage {
  readonly topic: string;
  readonly key?: Buffer;
  readonly value?: Buffer;
  readonly headers: Map<Buffer, Buffer>;
}

const header = (name: string, value: string): [Buffer, Buffer] => [
  Buffer.from(name),
  Buffer.from(value),
];

/**
 * The message written for a bad record: its key, value and headers plus
 * `weir.*` headers. A value that would take the message past `maxBytes` is cut
 * so the broker cannot refuse it for its size (a refusal would fail the job at
 * the same offset on every restart); the digest of the whole value still
 * identifies it. Returns the message and its size.
 */
export function deadLetterMessage(
  bad: DeadLetter,
  topic: string,
  maxBytes: number,
): { readonly message: DeadLetterMessage; readonly bytes: number } {
  const { record, reason } = bad;
  const headers: [Buffer, Buffer][] = [
    ...record.headers.map(([k, v]) => [Buffer.from(k), v ?? Buffer.alloc(0)] as [Buffer, Buffer]),
    // A reason can quote the record; keep it from taking the value's room.
    header('weir.error', reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}...` : reason),
    header('weir.topic', record.topic),
    header('weir.partition', String(record.partition)),
    header('weir.offset', String(record.offset)),
    header('weir.timestamp', String(record.timestamp)),
  ];
  let value = record.value;
  if (value !== undefined) {
    let overhead = record.key?.length ?? 0;
    for (const [k, v] of headers) overhead += k.length + v.length;
    // Room for the three headers added below.
    const room = Math.max(0, maxBytes - overhead - 160);
    if (value.length > room) {
      headers.push(
        header('weir.truncated', 'true'),
        header('weir.original.size', String(value.length)),
        header('weir.original.sha256', createHash('sha256').update(value).digest('hex')),
      );
      value = value.subarray(0, room);
    }
  }
  let bytes = (record.key?.length ?? 0) + (value?.length ?? 0);
  for (const [k, v] of headers) bytes += k.length + v.length;
  return {
    message: {
      topic,
      ...(record.key === undefined ? {} : { key: record.key }),
      ...(value === undefined ? {} : { value }),
      headers: new Map(headers),
    },
    bytes,
  };
}

/** Counts bad records and writes dead letters. */
export class DeadLetters extends BadRecordCounter<KafkaDeadLetterTarget> {
  private producer: Producer | undefined;
  private closed = false;
  private readonly refusals: Counter;
  private readonly reconnector: KafkaReconnector;

  constructor(
    policy: KafkaBadRecordPolicy,
    private readonly connection: KafkaConnection,
    metrics: MetricGroup,
    /** Names the source in warnings, e.g. `Kafka source 'orders' (subtask 0)`. */
    private readonly what = 'Kafka source',
    private readonly warn: (message: string) => void = () => {},
  ) {
    super(policy, metrics);
    this.refusals = metrics.counter(
      DEAD_LETTER_FAILURES_METRIC,
      'Attempts at writing dead letters that the Kafka brokers refused',
    );
    this.reconnector = new KafkaReconnector(connection, what, {
      log: warn,
      counter: reconnectsCounter(metrics),
    });
  }

  /**
   * Writes bad records to the dead-letter topic; resolves once the broker
   * acknowledged them. Messages go in groups of at most the size limit (the
   * broker limits a batch, not only a record); a refused group is retried
   * with backoff, then the returned promise rejects with `SOURCE_FAILED`
   * naming the topic and the first record of the group.
   */
  async send(bad: readonly DeadLetter[]): Promise<void> {
    const policy = this.policy;
    if (typeof policy !== 'object' || bad.length === 0) return;
    const topic = policy.deadLetterTopic;
    const maxBytes = policy.maxDeadLetterBytes ?? DEFAULT_MAX_DEAD_LETTER_BYTES;
    let group: DeadLetterMessage[] = [];
    let first = 0;
    let size = 0;
    for (let i = 0; i < bad.length; i++) {
      const { message, bytes } = deadLetterMessage(bad[i]!, topic, maxBytes);
      if (group.length > 0 && size + bytes > maxBytes) {
        await this.sendGroup(group, bad[first]!, bad.length);
        group = [];
        first = i;
        size = 0;
      }
      group.push(message);
      size += bytes;
    }
    await this.sendGroup(group, bad[first]!, bad.length);
  }

  private async sendGroup(
    messages: DeadLetterMessage[],
    first: DeadLetter,
    total: number,
  ): Promise<void> {
    const topic = typeof this.policy === 'object' ? this.policy.deadLetterTopic : '';
    let backoff = FIRST_BACKOFF_MS;
    for (let attempt = 1; ; ) {
      try {
        await this.producerFor().send({ messages });
        this.reconnector.recovered();
        return;
      } catch (cause) {
        if (this.closed) throw this.failed(cause, first, total, attempt);
        // A producer that failed may hold a broken connection: start afresh.
        await this.closeProducer();
        if (isClusterUnreachable(cause) || isSecurityFailure(cause)) {
          // Not a refusal: wait for the cluster within the outage budget.
          let wait: number;
          try {
            wait = this.reconnector.failed(
              cause,
              `write dead letters to '${topic}'`,
              'SOURCE_FAILED',
            );
          } catch (outage) {
            throw this.failed(outage, first, total, attempt);
          }
          await delay(wait);
          continue;
        }
        this.refusals.inc();
        if (attempt >= SEND_ATTEMPTS) throw this.failed(cause, first, total, attempt);
        this.warn(
          `${this.what}: the brokers refused ${messages.length} dead letter(s) for topic '${topic}' ` +
            `(attempt ${attempt} of ${SEND_ATTEMPTS}; first: topic '${first.record.topic}' partition ` +
            `${first.record.partition} at offset ${first.record.offset}): ${shortReason(cause)}; retry in ${backoff} ms`,
        );
        await delay(backoff);
        backoff *= 2;
        attempt++;
      }
    }
  }

  private producerFor(): Producer {
    this.producer ??= new Producer({
      ...clientBase(this.connection, this.what),
      clientId: `${this.connection.clientId}-dead-letters`,
      idempotent: true,
      autocreateTopics: true,
      retries: 5,
    });
    return this.producer;
  }

  private failed(cause: unknown, first: DeadLetter, total: number, attempts: number): WeirError {
    const topic = typeof this.policy === 'object' ? this.policy.deadLetterTopic : '';
    const { record } = first;
    const codes = apiErrors(cause);
    return new WeirError(
      'SOURCE_FAILED',
      `cannot write ${total} bad record(s) to the dead-letter topic '${topic}' ` +
        `(after ${attempts} attempt(s); first: topic '${record.topic}' partition ${record.partition} ` +
        `at offset ${record.offset}): ${shortReason(cause instanceof WeirError ? cause.message : reasonOf(cause))}` +
        (codes.length > 0 ? ` [${codes.join(', ')}]` : ''),
      { cause, domain: 'external', retriable: true },
    );
  }

  private async closeProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.close().catch(() => undefined);
  }

  /** Closes the dead-letter producer, if one was started. */
  async close(): Promise<void> {
    this.closed = true;
    await this.producer?.close();
    this.producer = undefined;
  }
}
