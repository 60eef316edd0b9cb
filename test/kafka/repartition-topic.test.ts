import { Admin, Producer } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import type { KafkaConsumerRecord } from '../../src/connectors/kafka/consumer-record.js';
import {
  decodeEntry,
  ensureRepartitionTopic,
  partitionOfKey,
  type RepartitionRecord,
  repartitionTopicName,
  sendToRepartition,
} from '../../src/connectors/kafka/group/repartition-topic.js';
import { RepartitionWatermark } from '../../src/connectors/kafka/group/repartition-watermarks.js';
import { keyGroupOf, keyGroupRange } from '../../src/core/key-groups.js';
import { BROKERS, readRecords, uniqueTopic } from './helpers.js';

describe('repartition topic', () => {
  it('is named after the job and operator uid, in characters Kafka allows', () => {
    expect(repartitionTopicName('orders per minute', 'count/by-user')).toBe(
      'weir-orders_per_minute-count_by-user-repartition',
    );
  });

  it('carries keyed records to the partition of their key group and every producer’s watermark to every partition', async () => {
    const maxParallelism = 128;
    const partitions = 3;
    const topic = repartitionTopicName(uniqueTopic('job'), 'window-counts');
    const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
    try {
      await ensureRepartitionTopic(admin, topic, partitions, maxParallelism);
      await ensureRepartitionTopic(admin, topic, partitions, maxParallelism); // exists: left alone
    } finally {
      await admin.close();
    }
    const producer = new Producer({
      clientId: 'weir-test',
      bootstrapBrokers: BROKERS,
      idempotent: true,
    });
    const keys = Array.from({ length: 40 }, (_, i) => `user-${i}`);
    const batch = (from: number, task: number): RepartitionRecord<{ n: number }>[] =>
      keys.map((key, i) => ({ key, value: { n: task * 1000 + i }, timestamp: from + i }));
    const send = (
      task: string,
      records: RepartitionRecord<{ n: number }>[],
      mark: Parameters<typeof sendToRepartition>[4],
    ) => sendToRepartition(producer, topic, task, records, mark, maxParallelism, partitions);
    try {
      // Two producing tasks (partitions 0 and 1 of the stage's input); 'in:1' then goes idle.
      await send('in:0', batch(1_000, 0), { kind: 'watermark', watermark: 900 });
      await send('in:1', batch(5_000, 1), { kind: 'watermark', watermark: 4_900 });
      await send('in:0', [], { kind: 'watermark', watermark: 2_000 });
      await send('in:1', [], { kind: 'idle' });
      await send('in:0', [], { kind: 'watermark', watermark: 3_000 });
    } finally {
      await producer.close();
    }

    const raw = await readRecords(topic);
    const byPartition = new Map<number, KafkaConsumerRecord[]>();
    for (const m of raw) byPartition.set(m.partition, [...(byPartition.get(m.partition) ?? []), m]);
    expect([...byPartition.keys()].sort()).toEqual([0, 1, 2]);
    const seenKeys = new Set<string>();
    for (const [partition, messages] of byPartition) {
      const range = keyGroupRange(partition, maxParallelism, partitions);
      const wm = new RepartitionWatermark(['in:0', 'in:1']);
      const history: number[] = [];
      for (const m of messages) {
        const entry = decodeEntry<{ n: number }>(
          m.value ?? null,
          new Map(m.headers.map(([k, v]) => [Buffer.from(k), v ?? Buffer.alloc(0)])),
          `${m.topic}:${m.partition}@${m.offset}`,
        );
        if (entry.kind === 'record') {
          const key = entry.record.key as string;
          // The partition holds exactly its contiguous range of key groups.
          const group = keyGroupOf(key, maxParallelism);
          expect(group).toBeGreaterThanOrEqual(range.first);
          expect(group).toBeLessThanOrEqual(range.last);
          expect(partitionOfKey(key, maxParallelism, partitions)).toBe(partition);
          seenKeys.add(key);
        } else {
          wm.observe(entry.producer, entry.mark);
          history.push(wm.current());
        }
      }
      // In every partition: nothing until in:1 speaks, then min(900, 4900), min(2000, 4900),
      // 2000 still once in:1 is idle (no producer sets it back), and in:0 alone: 3000.
      expect(history).toEqual([Number.NEGATIVE_INFINITY, 900, 2_000, 2_000, 3_000]);
    }
    expect(seenKeys).toEqual(new Set(keys));
    expect(raw.filter((m) => m.value !== undefined)).toHaveLength(80);
  }, 60_000);

  it('names the message it cannot read', () => {
    expect(() => decodeEntry(Buffer.from('{"x":1}'), new Map(), 't:2@17')).toThrow(
      'repartition topic message at t:2@17 is unreadable: it is not a record written by Weir',
    );
    expect(() =>
      decodeEntry(
        undefined,
        new Map([[Buffer.from('weir-watermark'), Buffer.from('{"producer":"p"}')]]),
        't:0@3',
      ),
    ).toThrow(
      'repartition topic message at t:0@3 is unreadable: its watermark header has no watermark',
    );
  });
});
