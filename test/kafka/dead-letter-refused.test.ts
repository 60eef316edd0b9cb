/**
 * A dead-letter topic whose broker refuses the dead letter: the topic allows
 * 2 KB messages while the source was told dead letters may take 64 KB, so
 * no truncation saves the write. The refusal is retried with doubling
 * backoff, each attempt logged and counted, then the job fails naming the
 * dead-letter topic, the bad record's offset and the broker's reason; the
 * bad record is counted and the partition never moves past it. Needs the
 * test broker.
 */
import { Admin } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import {
  DEAD_LETTER_FAILURES_METRIC,
  KAFKA_BAD_RECORDS_METRIC,
  KafkaSource,
} from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment, WeirError } from '../../src/index.js';
import { BROKERS, createTopic, json, produce, uniqueTopic } from './helpers.js';

interface Ev {
  readonly id: number;
}

async function createSmallTopic(topic: string, maxMessageBytes: number): Promise<void> {
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
  try {
    await admin.createTopics({
      topics: [topic],
      partitions: 1,
      replicas: 1,
      configs: [{ name: 'max.message.bytes', value: String(maxMessageBytes) }],
    });
  } finally {
    await admin.close();
  }
}

describe('a dead letter the broker refuses', () => {
  it('is retried with backoff, counted and logged, then fails the job naming topic, offset and reason', async () => {
    const input = uniqueTopic('dlq-refused-in');
    const dlq = uniqueTopic('dlq-refused-dlq');
    await createTopic(input, 1);
    await createSmallTopic(dlq, 2048);
    // Offsets 0-2 good, 3 bad (20 KB, not JSON), 4 good.
    const bad = `not json ${'x'.repeat(20_000)}`;
    await produce(input, [
      { value: JSON.stringify({ id: 0 }) },
      { value: JSON.stringify({ id: 1 }) },
      { value: JSON.stringify({ id: 2 }) },
      { value: bad },
      { value: JSON.stringify({ id: 4 }) },
    ]);

    const warnings: string[] = [];
    const sink = new CollectSink<Ev>();
    const env = new StreamEnvironment();
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [input],
          format: json<Ev>(),
          onError: { deadLetterTopic: dlq, maxDeadLetterBytes: 64 * 1024 },
          stopAt: 'latest',
          onWarning: (m) => warnings.push(m),
        }),
      )
      .sinkTo(sink);
    const started = Date.now();
    const client = env.executeAsync('refused dead letter');
    const error = await client.result.then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsedMs = Date.now() - started;

    expect(error).toBeInstanceOf(WeirError);
    const e = error as WeirError;
    expect(e.code).toBe('SOURCE_FAILED');
    expect(e.message).toContain(`dead-letter topic '${dlq}'`);
    expect(e.message).toContain(`topic '${input}' partition 0 at offset 3`);
    expect(e.message).toContain('after 5 attempt(s)');
    expect(e.message).toMatch(/MESSAGE_TOO_LARGE|RECORD_TOO_LARGE/);
    // Four waits between five attempts: 200 + 400 + 800 + 1600 ms.
    expect(elapsedMs).toBeGreaterThanOrEqual(3_000);
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(
      new RegExp(
        `refused 1 dead letter\\(s\\) for topic '${dlq}' \\(attempt 1 of 5; first: topic '${input}' partition 0 at offset 3\\): .*; retry in 200 ms`,
      ),
    );
    expect(warnings[3]).toMatch(/attempt 4 of 5.*retry in 1600 ms$/);
    expect(client.metrics.total(DEAD_LETTER_FAILURES_METRIC)).toBe(5);
    expect(client.metrics.total(KAFKA_BAD_RECORDS_METRIC)).toBe(1);
    // Nothing at or past the bad record went through: it is not lost uncounted.
    expect(sink.values.every((v) => v.id < 3)).toBe(true);
  }, 60_000);
});
