/**
 * Poison records never hang or kill a job that asked to continue past them:
 * a 5 MB value with a dead-letter topic of Kafka's default 1 MB limit, event
 * times that are not event times, and invalid UTF-8. Needs the test broker.
 */
import { createHash } from 'node:crypto';
import { Admin } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { deadLetterMessage } from '../../src/connectors/kafka/dead-letter.js';
import {
  KAFKA_BAD_RECORDS_METRIC,
  type KafkaBadRecordPolicy,
  type KafkaConsumerRecord,
  KafkaSource,
} from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment, WatermarkStrategy, WeirError } from '../../src/index.js';
import { BROKERS, createTopic, json, produce, uniqueTopic, waitFor } from './helpers.js';

interface Ev {
  readonly id: number;
  readonly k?: string;
  readonly t?: number;
}

/** A topic that accepts messages up to 8 MB (the poison record must get in first). */
async function createLargeTopic(topic: string): Promise<void> {
  const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
  try {
    await admin.createTopics({
      topics: [topic],
      partitions: 1,
      replicas: 1,
      configs: [{ name: 'max.message.bytes', value: String(8 * 1024 * 1024) }],
    });
  } finally {
    await admin.close();
  }
}

/** Every record of a topic, whole (key, value, headers). */
async function letters(topic: string): Promise<KafkaConsumerRecord[]> {
  const sink = new CollectSink<KafkaConsumerRecord>();
  const env = new StreamEnvironment();
  env
    .fromSource(
      new KafkaSource<KafkaConsumerRecord>({
        brokers: BROKERS,
        topics: [topic],
        deserializer: (r) => r,
        stopAt: 'latest',
      }),
    )
    .sinkTo(sink);
  await env.execute('read dead letters');
  return sink.values;
}

const headersOf = (r: KafkaConsumerRecord) =>
  Object.fromEntries(r.headers.map(([k, v]) => [k, v?.toString('utf8')]));

const ids = (evs: readonly Ev[]) => evs.map((e) => e.id).sort((a, b) => a - b);

/** Reads `topic` to its end with a dead-letter policy into `dlq`: what passed, and the job result. */
async function readDeadLettering(topic: string, dlq: string, jobName: string) {
  const sink = new CollectSink<Ev>();
  const env = new StreamEnvironment();
  env
    .fromSource(
      new KafkaSource<Ev>({
        brokers: BROKERS,
        topics: [topic],
        format: json<Ev>(),
        onError: { deadLetterTopic: dlq },
        stopAt: 'latest',
      }),
    )
    .sinkTo(sink);
  return { sink, result: await env.execute(jobName) };
}

describe('a 5 MB poison record under the dead-letter policy', () => {
  it('lands in the dead-letter topic truncated, with its size and digest; the job runs on', async () => {
    const topic = uniqueTopic('poison');
    const dlq = uniqueTopic('poison-dlq');
    await createLargeTopic(topic);
    const poison = Buffer.alloc(5 * 1024 * 1024, 'x');
    await produce(topic, [
      { value: JSON.stringify({ id: 0 }) },
      { key: 'big', value: poison },
      { value: JSON.stringify({ id: 2 }) },
    ]);
    const { sink, result } = await readDeadLettering(topic, dlq, 'poison');
    expect(ids(sink.values)).toEqual([0, 2]);
    expect(result.metric(KAFKA_BAD_RECORDS_METRIC)).toBe(1);

    const [letter, ...more] = await letters(dlq);
    expect(more).toHaveLength(0);
    const h = headersOf(letter!);
    expect(letter!.key?.toString()).toBe('big');
    expect(letter!.value!.length).toBeLessThanOrEqual(512 * 1024);
    expect(letter!.value!.equals(poison.subarray(0, letter!.value!.length))).toBe(true);
    expect(h).toMatchObject({
      'weir.truncated': 'true',
      'weir.original.size': String(poison.length),
      'weir.original.sha256': createHash('sha256').update(poison).digest('hex'),
      'weir.offset': '1',
    });
    expect(h['weir.error']).toMatch(/JSON/);
  }, 60_000);
});

/** Ids 0..5 over two partitions; ids 1 and 4 have no `t` (the assigner returns undefined), id 3 a `t` that makes it NaN. */
async function topicWithBadTimes(): Promise<string> {
  const topic = uniqueTopic('bad-times');
  await createTopic(topic, 2);
  await produce(
    topic,
    Array.from({ length: 6 }, (_, id) => ({
      value: JSON.stringify(
        id === 1 || id === 4 ? { id } : { id, t: id === 3 ? 'soon' : id * 1000 },
      ),
      partition: id % 2,
    })),
  );
  return topic;
}

/** Event time: `t`, or undefined / NaN for the bad records. */
const badTime = (e: Ev) => (typeof e.t === 'string' ? Number(e.t) : (e.t as number));

describe.each([1, 2])('records without an event time at parallelism %i', (p) => {
  const run = (topic: string, onError: KafkaBadRecordPolicy) => {
    const sink = new CollectSink<Ev>();
    const env = new StreamEnvironment({ parallelism: p });
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          onError,
          watermarks:
            WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner(badTime),
          stopAt: 'latest',
        }),
      )
      .uid('orders')
      .sinkTo(sink);
    return { sink, job: env.execute('bad times') };
  };

  it('are skipped and counted', async () => {
    const topic = await topicWithBadTimes();
    const { sink, job } = run(topic, 'skip');
    const result = await job;
    expect(ids(sink.values)).toEqual([0, 2, 5]);
    expect(result.metric(KAFKA_BAD_RECORDS_METRIC)).toBe(3);
  }, 30_000);

  it('go to the dead-letter topic with the reason', async () => {
    const topic = await topicWithBadTimes();
    const dlq = uniqueTopic('bad-times-dlq');
    const { sink, job } = run(topic, { deadLetterTopic: dlq });
    const result = await job;
    expect(ids(sink.values)).toEqual([0, 2, 5]);
    expect(result.metric(KAFKA_BAD_RECORDS_METRIC)).toBe(3);
    const dead = await letters(dlq);
    expect(dead.map((r) => JSON.parse(r.value!.toString()).id).sort()).toEqual([1, 3, 4]);
    for (const r of dead)
      expect(headersOf(r)['weir.error']).toMatch(/timestamp assigner returned (undefined|NaN)/);
  }, 30_000);

  it('fail the job with INVALID_TIMESTAMP under the fail policy', async () => {
    const topic = await topicWithBadTimes();
    const error = await run(topic, 'fail').job.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WeirError);
    expect((error as WeirError).code).toBe('INVALID_TIMESTAMP');
    expect((error as WeirError).operatorId).toBe('orders');
    expect((error as WeirError).message).toMatch(/timestamp assigner returned (undefined|NaN)/);
  }, 30_000);

  it('are skipped and counted in group mode', async () => {
    const topic = await topicWithBadTimes();
    const sink = new CollectSink<Ev>();
    const env = new StreamEnvironment({ parallelism: p });
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          onError: 'skip',
          watermarks:
            WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner(badTime),
          mode: 'group',
          groupId: uniqueTopic('g'),
          startFrom: 'earliest',
          fetchMaxWaitMs: 50,
        }),
      )
      .sinkTo(sink);
    const client = env.executeAsync('bad times, group');
    try {
      // Group mode is at-least-once: a rebalance between the two members may
      // hand a partition over before its position was committed, so records
      // (good and bad) can be read twice.
      const unique = () => [...new Set(ids(sink.values))];
      await waitFor(
        'the good records and the count',
        () => unique().length >= 3 && client.metrics.total(KAFKA_BAD_RECORDS_METRIC) >= 3,
        40_000,
      );
      expect(unique()).toEqual([0, 2, 5]);
    } finally {
      await client.cancel();
    }
  }, 60_000);
});

describe('invalid UTF-8 in a JSON value', () => {
  it('is a bad record: dead-lettered with its bytes unchanged, never decoded with replacements', async () => {
    const topic = uniqueTopic('utf8');
    const dlq = uniqueTopic('utf8-dlq');
    await createTopic(topic, 1);
    const bad = Buffer.concat([
      Buffer.from('{"id":1,"k":"a'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    await produce(topic, [
      { value: JSON.stringify({ id: 0, k: 'a' }) },
      { key: 'a', value: bad },
      { value: JSON.stringify({ id: 2, k: 'a' }) },
    ]);
    const { sink, result } = await readDeadLettering(topic, dlq, 'utf8');
    expect(sink.values).toEqual([
      { id: 0, k: 'a' },
      { id: 2, k: 'a' },
    ]);
    expect(result.metric(KAFKA_BAD_RECORDS_METRIC)).toBe(1);
    const [letter] = await letters(dlq);
    expect(letter!.value!.equals(bad)).toBe(true);
    expect(headersOf(letter!)['weir.error']).toContain('not valid UTF-8');
  }, 30_000);
});

describe('the dead-letter message', () => {
  const record = (value: Buffer): KafkaConsumerRecord => ({
    topic: 't',
    partition: 2,
    offset: 7,
    timestamp: 1000,
    key: Buffer.from('k'),
    value,
    headers: [['h', Buffer.from('x')]],
  });

  it('keeps a value that fits, with no truncation headers', () => {
    const { message } = deadLetterMessage(
      { record: record(Buffer.from('abc')), reason: 'r' },
      'dlq',
      1024,
    );
    expect(message.value?.toString()).toBe('abc');
    expect([...message.headers.keys()].map(String)).not.toContain('weir.truncated');
  });

  it('cuts a value to the configured limit, counting key and headers, and says so', () => {
    const value = Buffer.alloc(10_000, 'y');
    const { message, bytes } = deadLetterMessage(
      { record: record(value), reason: 'r' },
      'dlq',
      1024,
    );
    expect(bytes).toBeLessThanOrEqual(1024);
    expect(value.subarray(0, message.value!.length).equals(message.value!)).toBe(true);
    const h = Object.fromEntries([...message.headers].map(([k, v]) => [String(k), String(v)]));
    expect(h).toMatchObject({
      h: 'x',
      'weir.truncated': 'true',
      'weir.original.size': '10000',
      'weir.original.sha256': createHash('sha256').update(value).digest('hex'),
      'weir.partition': '2',
      'weir.offset': '7',
    });
  });
});
