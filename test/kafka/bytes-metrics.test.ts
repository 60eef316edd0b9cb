import { describe, expect, it } from 'vitest';
import { KafkaSink, KafkaSource } from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment } from '../../src/index.js';
import { BYTES_METRICS } from '../../src/metrics/connector-metrics.js';
import { BROKERS, createTopic, json, produce, uniqueTopic, waitFor } from './helpers.js';

interface Ev {
  readonly id: number;
  readonly text: string;
}

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** Records of varied sizes (multi-byte text), some with keys, over three partitions. */
function messages(n: number) {
  return Array.from({ length: n }, (_, id) => {
    const value = JSON.stringify({ id, text: 'ö€'.repeat(id % 9) } satisfies Ev);
    const key = id % 3 === 0 ? undefined : `key-${id}`;
    return { value, partition: id % 3, ...(key === undefined ? {} : { key }) };
  });
}

/** The oracle: key and value bytes of every message as produced. */
const bytesOf = (ms: ReturnType<typeof messages>) =>
  ms.reduce((sum, m) => sum + utf8(m.value) + (m.key === undefined ? 0 : utf8(m.key)), 0);

describe('Kafka bytes metrics', () => {
  it('the source counts the key and value bytes it received, per subtask', async () => {
    const topic = uniqueTopic('bytes-in');
    await createTopic(topic, 3);
    const ms = messages(3_000);
    await produce(topic, ms);
    const env = new StreamEnvironment({ parallelism: 2 });
    const sink = new CollectSink<Ev>();
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          stopAt: 'latest',
        }),
      )
      .uid('kafka-in')
      .sinkTo(sink);
    const client = env.executeAsync('bytes in');
    const result = await client.result;
    expect(sink.values).toHaveLength(ms.length);
    expect(result.metric(BYTES_METRICS.read)).toBe(bytesOf(ms));
    const perSubtask = client.metrics.samples(BYTES_METRICS.read, { operator: 'kafka-in' });
    expect(perSubtask).toHaveLength(2);
    expect(perSubtask.every((s) => s.value > 0)).toBe(true);
  });

  it('in a consumer group the source counts the same bytes', async () => {
    const topic = uniqueTopic('bytes-group');
    await createTopic(topic, 3);
    const ms = messages(1_000);
    await produce(topic, ms);
    const env = new StreamEnvironment();
    const sink = new CollectSink<Ev>();
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          mode: 'group',
          groupId: uniqueTopic('bytes-group-id'),
          fetchMaxWaitMs: 50,
        }),
      )
      .sinkTo(sink);
    const client = env.executeAsync('bytes group');
    try {
      await waitFor('every record', () => sink.values.length >= ms.length, 40_000);
      // One member, no rebalance: every message is received once.
      expect(client.metrics.total(BYTES_METRICS.read)).toBe(bytesOf(ms));
    } finally {
      await client.cancel();
    }
  });

  it('the sink counts the serialized key and value bytes it hands to the producer', async () => {
    const topic = uniqueTopic('bytes-out');
    await createTopic(topic, 2);
    const records: Ev[] = Array.from({ length: 2_500 }, (_, id) => ({
      id,
      text: 'ß'.repeat(id % 11),
    }));
    const keyOf = (e: Ev) => (e.id % 2 === 0 ? `k${e.id}` : undefined);
    const env = new StreamEnvironment({ parallelism: 2 });
    env
      .fromArray(records)
      .rebalance()
      .sinkTo(new KafkaSink<Ev>({ brokers: BROKERS, topic, format: json<Ev>(), key: keyOf }))
      .uid('kafka-out');
    const client = env.executeAsync('bytes out');
    const result = await client.result;
    const oracle = records.reduce((sum, e) => {
      const k = keyOf(e);
      return sum + utf8(JSON.stringify(e)) + (k === undefined ? 0 : utf8(k));
    }, 0);
    expect(result.metric(BYTES_METRICS.written)).toBe(oracle);
    const perSubtask = client.metrics.samples(BYTES_METRICS.written, { operator: 'kafka-out' });
    expect(perSubtask).toHaveLength(2);
    expect(perSubtask.every((s) => s.value > 0)).toBe(true);
    // The brokers hold exactly those bytes: read them back raw.
    const readBack = new StreamEnvironment();
    const sizes = new CollectSink<number>();
    readBack
      .fromSource(
        new KafkaSource<number>({
          brokers: BROKERS,
          topics: [topic],
          stopAt: 'latest',
          deserializer: (r) => (r.key?.length ?? 0) + (r.value?.length ?? 0),
        }),
      )
      .sinkTo(sizes);
    const back = await readBack.execute('read back');
    expect(sizes.values).toHaveLength(records.length);
    expect(sizes.values.reduce((a, b) => a + b, 0)).toBe(oracle);
    expect(back.metric(BYTES_METRICS.read)).toBe(oracle);
  });
});
