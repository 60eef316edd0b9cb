import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { murmur2 } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import {
  type AvroSchema,
  type KafkaConsumerRecord,
  KafkaFormats,
  KafkaSink,
  KafkaSource,
} from '../../src/connectors/kafka/index.js';
import type { TwoPhaseCommitWriter } from '../../src/core/sink.js';
import type { Json } from '../../src/core/snapshot.js';
import { CollectSink, StreamEnvironment, WeirError } from '../../src/index.js';
import { MetricRegistry } from '../../src/metrics/registry.js';
import { prestartedWorkers } from '../../src/util/threads/start-worker.js';
import { BROKERS, createTopic, json, readAll, uniqueTopic, waitFor } from './helpers.js';

/** The module of a Kafka writer's producer thread. */
const PRODUCER_THREAD = new URL(
  '../../src/connectors/kafka/sink/producer-worker.ts',
  import.meta.url,
);

/** A fresh checkpoint directory (removed with the OS temp directory). */
const tempCheckpoints = () => mkdtemp(join(tmpdir(), 'weir-kafka-sink-'));

interface Row {
  readonly id: number;
  readonly user: string;
  readonly p?: number;
}

async function records(topic: string, committedOnly = true): Promise<KafkaConsumerRecord[]> {
  const env = new StreamEnvironment();
  const sink = new CollectSink<KafkaConsumerRecord>();
  env
    .fromSource(
      new KafkaSource<KafkaConsumerRecord>({
        brokers: BROKERS,
        topics: [topic],
        deserializer: (r) => r,
        stopAt: 'latest',
        isolationLevel: committedOnly ? 'read_committed' : 'read_uncommitted',
      }),
    )
    .sinkTo(sink);
  await env.execute('records');
  return sink.values;
}

/** An exactly-once sink of rows to `topic`, for driving its writers by hand. */
function exactlyOnceSink(topic: string): KafkaSink<Row> {
  return new KafkaSink<Row>({
    brokers: BROKERS,
    topic,
    format: json<Row>(),
    deliveryGuarantee: 'exactly-once',
    transactionalIdPrefix: `${topic}-tx`,
  });
}

/** The context of subtask 0 of 1. */
const context = {
  subtaskIndex: 0,
  parallelism: 1,
  operatorId: 'sink',
  metrics: new MetricRegistry().group({}),
};

/** A batch of rows with these ids. */
const batch = (ids: number[]) => ({
  values: ids.map((id) => ({ id, user: 'u' })),
  timestamps: ids.map(() => 0),
  keys: undefined,
});

/** Waits until a read_committed reader sees exactly these ids. */
async function visible(topic: string, expected: number[]): Promise<void> {
  let ids: number[] = [];
  await waitFor(`ids ${expected.join(',')}`, async () => {
    ids = (await readAll(topic, json<Row>())).map((r) => r.id).sort();
    return ids.length >= expected.length;
  }).catch(() => {});
  expect(ids).toEqual(expected);
}

describe('Kafka sink', () => {
  it('writes keys (Java-compatible partitioning), headers, per-record topics and a custom partitioner', async () => {
    const byKey = uniqueTopic('keys');
    const routed = uniqueTopic('routed');
    await createTopic(byKey, 3);
    await createTopic(routed, 4);
    const rows: Row[] = Array.from({ length: 60 }, (_, id) => ({
      id,
      user: `u${id % 5}`,
      p: id % 4,
    }));
    const env = new StreamEnvironment();
    const stream = env.fromArray(rows);
    stream.sinkTo(
      new KafkaSink<Row>({
        brokers: BROKERS,
        topic: byKey,
        format: json<Row>(),
        key: (r) => r.user,
        headers: (r) => ({ source: 'test', id: String(r.id) }),
      }),
    );
    stream.sinkTo(
      new KafkaSink<Row>({
        brokers: BROKERS,
        topic: () => routed,
        format: json<Row>(),
        partitioner: (r) => r.p!,
      }),
    );
    await env.execute('write');
    const got = await records(byKey);
    expect(got).toHaveLength(60);
    for (const r of got) {
      const expected = (murmur2(r.key!) & 0x7fffffff) % 3;
      expect(r.partition).toBe(expected);
      const row = JSON.parse(r.value!.toString()) as Row;
      expect(r.key!.toString()).toBe(row.user);
      expect(Object.fromEntries(r.headers.map(([k, v]) => [k, v?.toString()]))).toEqual({
        source: 'test',
        id: String(row.id),
      });
    }
    for (const r of await records(routed))
      expect(r.partition).toBe((JSON.parse(r.value!.toString()) as Row).p);
  });

  it.each(['at-least-once', 'exactly-once'] as const)(
    "writes megabytes queued for one partition (%s): each produce request stays under the broker's message.max.bytes",
    async (deliveryGuarantee) => {
      // 30,000 records of about 250 bytes (7 MB) reach the producer thread faster than it sends:
      // 8,192 of them in one request would be a 2 MB batch, which the broker refuses (1 MiB).
      const topic = uniqueTopic(`big-${deliveryGuarantee}`);
      await createTopic(topic, 1);
      const padding = 'x'.repeat(220);
      const rows = Array.from({ length: 30_000 }, (_, id) => ({ id, user: padding }));
      const env = new StreamEnvironment({
        batchSize: 5_000,
        ...(deliveryGuarantee === 'exactly-once'
          ? { checkpointing: { directory: await tempCheckpoints(), intervalMs: 200 } }
          : {}),
      });
      env.fromArray(rows).sinkTo(
        new KafkaSink<Row>({
          brokers: BROKERS,
          topic,
          format: json<Row>(),
          deliveryGuarantee,
          ...(deliveryGuarantee === 'exactly-once' ? { transactionalIdPrefix: `${topic}-tx` } : {}),
        }),
      );
      await env.execute('big');
      const ids = (await readAll(topic, json<Row>())).map((r) => r.id).sort((a, b) => a - b);
      expect(ids).toEqual(rows.map((r) => r.id));
    },
    120_000,
  );

  it('refuses a transaction timeout the broker does not allow, or one shorter than the checkpoints need', async () => {
    const topic = uniqueTopic('timeout');
    const run = async (options: {
      transactionTimeoutMs: number;
      checkpointIntervalMs?: number;
    }) => {
      const env = new StreamEnvironment();
      env.fromArray([{ id: 1, user: 'a' }]).sinkTo(
        new KafkaSink<Row>({
          brokers: BROKERS,
          topic,
          format: json<Row>(),
          deliveryGuarantee: 'exactly-once',
          transactionalIdPrefix: `${topic}-tx`,
          ...options,
        }),
      );
      return env.execute('timeouts');
    };
    const tooLong = run({ transactionTimeoutMs: 3_600_000 });
    await expect(tooLong).rejects.toThrow(WeirError);
    await expect(tooLong).rejects.toThrow(/transaction\.max\.timeout\.ms is 900000 ms/);
    await expect(
      run({ transactionTimeoutMs: 30_000, checkpointIntervalMs: 60_000 }),
    ).rejects.toThrow(
      /must exceed the checkpoint interval plus the checkpoint timeout \(120000 ms\)/,
    );
  });

  it('commits a pre-committed transaction from a new writer after a crash, and fences the old one', async () => {
    const topic = uniqueTopic('resume');
    await createTopic(topic, 2);
    const sink = exactlyOnceSink(topic);
    const first = sink.createWriter(context) as TwoPhaseCommitWriter<Row>;
    await first.recover([]);
    first.write(batch([1, 2, 3]));
    const committable: Json = first.preCommit(1);
    first.write(batch([4, 5])); // the next transaction: open when the "crash" happens
    await new Promise((r) => setTimeout(r, 200));
    expect(await readAll(topic, json<Row>())).toEqual([]);

    // A new run restores checkpoint 1: it commits that transaction by producer id and epoch.
    const second = sink.createWriter(context) as TwoPhaseCommitWriter<Row>;
    await second.recover([committable]);
    // EndTxn returns once the commit is decided; the markers reach the partitions just after.
    await visible(topic, [1, 2, 3]);
    // Committing again (a retried notification) changes nothing.
    await second.commit([committable]);
    // The old writer's open transaction was aborted and its producer fenced.
    first.write(batch([7]));
    expect(() => first.preCommit(2)).toThrow(/PRODUCER_FENCED|INVALID_PRODUCER_EPOCH|fenced/i);
    expect(
      (await records(topic, false)).map((r) => JSON.parse(r.value!.toString()).id).sort(),
    ).toEqual([1, 2, 3, 4, 5]);
    expect((await readAll(topic, json<Row>())).map((r) => r.id).sort()).toEqual([1, 2, 3]);
    second.write(batch([6]));
    const c2 = second.preCommit(2);
    await second.commit([c2]);
    await visible(topic, [1, 2, 3, 6]);
    await Promise.allSettled([first.close(), second.close()]);
  });

  it("hands a closed writer's producer thread to the next writer, which starts clean", async () => {
    const topic = uniqueTopic('reuse');
    const other = uniqueTopic('reuse-other');
    await createTopic(topic, 2);
    await createTopic(other, 1);
    const sink = exactlyOnceSink(topic);
    const first = sink.createWriter(context) as TwoPhaseCommitWriter<Row>;
    // Threads other tests' writers handed back (this one may have taken one).
    const waiting = prestartedWorkers(PRODUCER_THREAD);
    await first.recover([]);
    first.write(batch([1, 2]));
    const c1: Json = first.preCommit(1);
    await first.commit([c1]);
    first.write(batch([3])); // an open transaction, aborted as the writer closes
    await first.close();
    expect(prestartedWorkers(PRODUCER_THREAD)).toBe(waiting + 1);

    // The next run's writer takes that thread: a new session, numbering after what it finds.
    const second = sink.createWriter(context) as TwoPhaseCommitWriter<Row>;
    expect(prestartedWorkers(PRODUCER_THREAD)).toBe(waiting);
    await second.recover([c1]);
    second.write(batch([4]));
    const c2 = second.preCommit(2);
    await second.commit([c2]);
    await visible(topic, [1, 2, 4]);
    await second.close();

    // And a writer of another sink, at-least-once to another topic, on the same thread.
    const plain = new KafkaSink<Row>({ brokers: BROKERS, topic: other, format: json<Row>() });
    const third = plain.createWriter(context) as TwoPhaseCommitWriter<Row>;
    expect(prestartedWorkers(PRODUCER_THREAD)).toBe(waiting);
    await third.recover([]);
    third.write(batch([5]));
    expect(third.preCommit(1)).toBeNull();
    await third.close();
    await visible(other, [5]);
    expect((await readAll(topic, json<Row>())).map((r) => r.id).sort()).toEqual([1, 2, 4]);
  });

  it('Avro values round-trip with schema evolution on read', async () => {
    const topic = uniqueTopic('avro');
    const v1: AvroSchema = {
      type: 'record',
      name: 'User',
      fields: [{ name: 'name', type: 'string' }],
    };
    const v2: AvroSchema = {
      type: 'record',
      name: 'User',
      fields: [
        { name: 'name', type: 'string' },
        { name: 'age', type: 'int', default: -1 },
      ],
    };
    const env = new StreamEnvironment();
    env
      .fromArray([{ name: 'ada' }])
      .sinkTo(
        new KafkaSink({ brokers: BROKERS, topic, format: KafkaFormats.avro<{ name: string }>(v1) }),
      );
    await env.execute('avro v1');
    expect(
      await readAll(
        topic,
        KafkaFormats.avro<{ name: string; age: number }>(v1, { readerSchema: v2 }),
      ),
    ).toEqual([{ name: 'ada', age: -1 }]);
  });
});
