import { Producer } from '@platformatic/kafka';
import { describeRecord, invalidArgument, WeirError } from '../../core/errors.js';
import type { Counter, MetricGroup } from '../../metrics/registry.js';
import { checkTopic, type KafkaConnection, reasonOf } from './config.js';
import type { KafkaConsumerRecord } from './records.js';

/**
 * What the Kafka source does with a record it cannot deserialize (or whose
 * deserializer throws). Nothing is dropped silently: every bad record is
 * counted in `weir_source_bad_records_total`.
 *
 * - `'fail'` (default): the job fails with a `BAD_RECORD` WeirError naming the
 *   topic, partition and offset. Records before it are still emitted.
 * - `'skip'`: the record is counted and dropped.
 * - `{ deadLetterTopic }`: the record's key, value and headers are written to
 *   that topic, with headers `weir.error`, `weir.topic`, `weir.partition`,
 *   `weir.offset` and `weir.timestamp`. The partition does not advance past
 *   the record until the dead-letter write is acknowledged, so a crash never
 *   loses it (it may be written twice).
 */
export type KafkaBadRecordPolicy = 'fail' | 'skip' | { readonly deadLetterTopic: string };

/** Counter of bad records of every policy (the same name as the file sources'). */
export const KAFKA_BAD_RECORDS_METRIC = 'weir_source_bad_records_total';

/** @internal */
export function checkBadRecordPolicy(what: string, policy: unknown): KafkaBadRecordPolicy {
  if (policy === 'fail' || policy === 'skip') return policy;
  if (typeof policy === 'object' && policy !== null && 'deadLetterTopic' in policy) {
    checkTopic(
      `${what}: deadLetterTopic`,
      (policy as { deadLetterTopic: unknown }).deadLetterTopic,
    );
    return policy as KafkaBadRecordPolicy;
  }
  throw invalidArgument(
    `${what}: onError must be 'fail', 'skip' or { deadLetterTopic }, got ${describeRecord(policy)}`,
  );
}

/** @internal The error a job fails with under the 'fail' policy. */
export function badRecordError(
  record: KafkaConsumerRecord,
  reason: string,
  operatorId: string,
): WeirError {
  const shown = describeRecord(record.value?.toString('utf8') ?? null);
  return new WeirError(
    'BAD_RECORD',
    `bad record in topic '${record.topic}' partition ${record.partition} at offset ${record.offset}: ${reason}; value: ${shown} ` +
      `(set the source's onError to 'skip' or { deadLetterTopic } to continue past bad records)`,
    { domain: 'user', operatorId, record: shown, retriable: false },
  );
}

/** @internal Counts bad records and writes dead letters. */
export class DeadLetters {
  readonly counter: Counter;
  private producer: Producer | undefined;

  constructor(
    readonly policy: KafkaBadRecordPolicy,
    private readonly connection: KafkaConnection,
    metrics: MetricGroup,
  ) {
    this.counter = metrics.counter(
      KAFKA_BAD_RECORDS_METRIC,
      'Input records that could not be read (failed the job, skipped, or sent to a dead letter)',
    );
  }

  /** Writes bad records to the dead-letter topic; resolves once the broker acknowledged them. */
  async send(bad: readonly { record: KafkaConsumerRecord; reason: string }[]): Promise<void> {
    const policy = this.policy;
    if (typeof policy !== 'object' || bad.length === 0) return;
    this.producer ??= new Producer({
      clientId: `${this.connection.clientId}-dead-letters`,
      bootstrapBrokers: this.connection.brokers,
      timeout: this.connection.requestTimeoutMs,
      idempotent: true,
      autocreateTopics: true,
      retries: 5,
    });
    try {
      await this.producer.send({
        messages: bad.map(({ record, reason }) => ({
          topic: policy.deadLetterTopic,
          ...(record.key === undefined ? {} : { key: record.key }),
          ...(record.value === undefined ? {} : { value: record.value }),
          headers: new Map<Buffer, Buffer>([
            ...record.headers.map(
              ([k, v]) => [Buffer.from(k), v ?? Buffer.alloc(0)] as [Buffer, Buffer],
            ),
            [Buffer.from('weir.error'), Buffer.from(reason)],
            [Buffer.from('weir.topic'), Buffer.from(record.topic)],
            [Buffer.from('weir.partition'), Buffer.from(String(record.partition))],
            [Buffer.from('weir.offset'), Buffer.from(String(record.offset))],
            [Buffer.from('weir.timestamp'), Buffer.from(String(record.timestamp))],
          ]),
        })),
      });
    } catch (cause) {
      throw new WeirError(
        'SOURCE_FAILED',
        `cannot write ${bad.length} bad record(s) to the dead-letter topic '${policy.deadLetterTopic}': ${reasonOf(cause)}`,
        { cause, domain: 'external', retriable: true },
      );
    }
  }

  async close(): Promise<void> {
    await this.producer?.close();
    this.producer = undefined;
  }
}
