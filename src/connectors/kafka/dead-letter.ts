import { Producer } from '@platformatic/kafka';
import { describeRecord, WeirError } from '../../core/errors.js';
import type { MetricGroup } from '../../metrics/registry.js';
import { BAD_RECORDS_METRIC, BadRecordCounter, badRecordError } from '../shared/bad-records.js';
import type { KafkaBadRecordPolicy, KafkaConnection } from './config.js';
import { reasonOf } from './config.js';
import type { KafkaConsumerRecord } from './records.js';

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

/** Counts bad records and writes dead letters. */
export class DeadLetters extends BadRecordCounter<{ readonly deadLetterTopic: string }> {
  private producer: Producer | undefined;

  constructor(
    policy: KafkaBadRecordPolicy,
    private readonly connection: KafkaConnection,
    metrics: MetricGroup,
  ) {
    super(policy, metrics);
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

  /** Closes the dead-letter producer, if one was started. */
  async close(): Promise<void> {
    await this.producer?.close();
    this.producer = undefined;
  }
}
