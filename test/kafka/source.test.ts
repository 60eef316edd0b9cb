import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin, addPartitionsToTxnV3, Producer } from '@platformatic/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import {
  endTransaction,
  initTransactionalId,
  transactionCoordinator,
} from '../../src/connectors/kafka/client.js';
import {
  type AvroSchema,
  KAFKA_BAD_RECORDS_METRIC,
  type KafkaConsumerRecord,
  KafkaFormats,
  KafkaSink,
  KafkaSource,
  type KafkaSourceOptions,
  ownerOf,
} from '../../src/connectors/kafka/index.js';
import {
  CollectSink,
  StreamEnvironment,
  Time,
  WatermarkStrategy,
  WeirError,
  type WindowResult,
  Windows,
} from '../../src/index.js';
import {
  addPartitions,
  BROKERS,
  commitOffsets,
  createTopic,
  groupOffsets,
  json,
  produce,
  readAll,
  uniqueTopic,
  waitFor,
  waitForStableEnd,
} from './helpers.js';

interface Ev {
  readonly id: number;
  readonly t: number;
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

type ReadOptions<T> =
  KafkaSourceOptions<T> extends infer O
    ? O extends unknown
      ? Omit<O, 'brokers' | 'stopAt'>
      : never
    : never;

/** Reads a topic with a bounded source built from `options`. */
async function readWith<T>(options: ReadOptions<T>, parallelism = 1): Promise<T[]> {
  const env = new StreamEnvironment({ parallelism });
  const sink = new CollectSink<T>();
  const full = { ...options, brokers: BROKERS, stopAt: 'latest' } as KafkaSourceOptions<T>;
  env.fromSource(new KafkaSource<T>(full)).sinkTo(sink);
  await env.execute('read');
  return sink.values;
}

const ids = (evs: readonly Ev[]) => evs.map((e) => e.id).sort((a, b) => a - b);

describe('Kafka source: start positions', () => {
  it('starts from earliest, a timestamp, given offsets, committed group offsets, or latest', async () => {
    const topic = uniqueTopic('start');
    await createTopic(topic, 2);
    // Partition p holds ids p, p+2, ...: offsets 0..4 each; timestamps 1000 * id.
    await produce(
      topic,
      Array.from({ length: 10 }, (_, id) => ({
        value: JSON.stringify({ id, t: id * 1000 }),
        partition: id % 2,
        timestamp: 1_000_000 + id * 1000,
      })),
    );
    const format = json<Ev>();
    expect(ids(await readWith<Ev>({ topics: [topic], format, startFrom: 'earliest' }))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(
      ids(await readWith<Ev>({ topics: [topic], format, startFrom: { timestamp: 1_006_000 } })),
    ).toEqual([6, 7, 8, 9]);
    expect(
      ids(
        await readWith<Ev>({
          topics: [topic],
          format,
          startFrom: { offsets: { [topic]: { 0: 3 } }, fallback: 'latest' },
        }),
      ),
    ).toEqual([6, 8]);
    const groupId = uniqueTopic('group');
    await commitOffsets(groupId, topic, { 0: 2 });
    expect(
      ids(
        await readWith<Ev>({
          topics: [topic],
          format,
          groupId,
          commitOffsets: false,
          startFrom: { committed: 'earliest' },
        }),
      ),
    ).toEqual([1, 3, 4, 5, 6, 7, 8, 9]);

    // latest: only what is written after the reader opened.
    const env = new StreamEnvironment();
    const sink = new CollectSink<Ev>();
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format,
          startFrom: 'latest',
          fetchMaxWaitMs: 50,
        }),
      )
      .sinkTo(sink);
    const job = env.executeAsync('latest');
    await waitFor(
      'the reader to open',
      () => job.metrics.total('weir_kafka_source_partitions') === 2,
    );
    await produce(topic, [
      { value: JSON.stringify({ id: 100, t: 0 }) },
      { value: JSON.stringify({ id: 101, t: 0 }) },
    ]);
    await waitFor('new records', () => sink.values.length >= 2);
    await job.cancel();
    expect(ids(sink.values)).toEqual([100, 101]);
  });

  it('subscribes to a topic pattern and splits partitions over subtasks deterministically', async () => {
    const base = uniqueTopic('pattern');
    await createTopic(`${base}-a`, 3);
    await createTopic(`${base}-b`, 2);
    await createTopic(`${base}x-c`, 1); // does not match
    await produce(
      `${base}-a`,
      Array.from({ length: 30 }, (_, id) => ({
        value: JSON.stringify({ id, t: 0 }),
        partition: id % 3,
      })),
    );
    await produce(
      `${base}-b`,
      Array.from({ length: 20 }, (_, i) => ({
        value: JSON.stringify({ id: 100 + i, t: 0 }),
        partition: i % 2,
      })),
    );
    await produce(`${base}x-c`, [{ value: JSON.stringify({ id: 999, t: 0 }) }]);
    const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const got = await readWith<Ev>(
      { topicPattern: new RegExp(`${escaped}-[ab]`), format: json<Ev>() },
      3,
    );
    expect(ids(got)).toEqual([
      ...Array.from({ length: 30 }, (_, i) => i),
      ...Array.from({ length: 20 }, (_, i) => 100 + i),
    ]);
    const owners = [0, 1, 2].map((p) => ownerOf(`${base}-a`, p, 3));
    expect(new Set(owners).size).toBe(3);
  });
});

describe('Kafka source: formats and bad records', () => {
  it('reads JSON, strings, bytes, Avro and whole records (key, headers, offset)', async () => {
    const topic = uniqueTopic('formats');
    await createTopic(topic, 1);
    const schema: AvroSchema = {
      type: 'record',
      name: 'Reading',
      fields: [
        { name: 'sensor', type: 'string' },
        { name: 'value', type: 'double' },
      ],
    };
    const avro = KafkaFormats.avro<{ sensor: string; value: number }>(schema);
    const readings = [
      { sensor: 'a', value: 1.5 },
      { sensor: 'b', value: -2 },
    ];
    const env = new StreamEnvironment();
    env.fromArray(readings).sinkTo(
      new KafkaSink({
        brokers: BROKERS,
        topic,
        format: avro,
        key: (r) => r.sensor,
        headers: (r) => ({ unit: 'C', sensor: r.sensor }),
      }),
    );
    await env.execute('write avro');
    expect(await readAll(topic, avro)).toEqual(readings);
    expect(() => avro.serialize({ sensor: 'c', value: 'x' as unknown as number })).toThrow(
      /does not match the schema at value/,
    );

    const records = await readWith<KafkaConsumerRecord>({
      topics: [topic],
      deserializer: (r) => r,
    });
    expect(
      records.map((r) => [
        r.key?.toString(),
        r.offset,
        r.partition,
        r.headers.map(([k, v]) => `${k}=${v?.toString()}`),
      ]),
    ).toEqual([
      ['a', 0, 0, ['unit=C', 'sensor=a']],
      ['b', 1, 0, ['unit=C', 'sensor=b']],
    ]);

    const text = uniqueTopic('text');
    await createTopic(text, 1);
    await produce(text, [{ value: 'héllo' }, { value: Buffer.from([0, 1, 2]) }]);
    expect(
      await readWith<string>({ topics: [text], format: KafkaFormats.string(), onError: 'skip' }),
    ).toEqual(['héllo', '\u0000\u0001\u0002']);
    const bytes = await readWith<Buffer | undefined>({
      topics: [text],
      format: KafkaFormats.bytes(),
    });
    expect(bytes.map((b) => b?.toString('hex'))).toEqual([
      Buffer.from('héllo').toString('hex'),
      '000102',
    ]);
  });

  it('fails on a bad record naming topic, partition and offset; skips and counts; or dead-letters with headers', async () => {
    const topic = uniqueTopic('bad');
    await createTopic(topic, 1);
    await produce(topic, [
      { value: JSON.stringify({ id: 1, t: 0 }) },
      { value: '{not json', key: 'k', timestamp: 1_234_000 },
      { value: JSON.stringify({ id: 3, t: 0 }) },
    ]);
    const failing = readWith<Ev>({ topics: [topic], format: json<Ev>() });
    await expect(failing).rejects.toThrow(WeirError);
    await expect(failing).rejects.toThrow(
      new RegExp(`bad record in topic '${topic}' partition 0 at offset 1`),
    );
    await failing.catch((e: WeirError) => expect(e.code).toBe('BAD_RECORD'));

    const env = new StreamEnvironment();
    const sink = new CollectSink<Ev>();
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          onError: 'skip',
          stopAt: 'latest',
        }),
      )
      .sinkTo(sink);
    const result = await env.execute('skip');
    expect(ids(sink.values)).toEqual([1, 3]);
    expect(result.metric(KAFKA_BAD_RECORDS_METRIC)).toBe(1);

    const dlq = uniqueTopic('dlq');
    const env2 = new StreamEnvironment();
    const sink2 = new CollectSink<Ev>();
    env2
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          onError: { deadLetterTopic: dlq },
          stopAt: 'latest',
        }),
      )
      .sinkTo(sink2);
    const result2 = await env2.execute('dead letter');
    expect(ids(sink2.values)).toEqual([1, 3]);
    expect(result2.metric(KAFKA_BAD_RECORDS_METRIC)).toBe(1);
    const letters = await readWith<KafkaConsumerRecord>({ topics: [dlq], deserializer: (r) => r });
    expect(letters).toHaveLength(1);
    const h = Object.fromEntries(letters[0]!.headers.map(([k, v]) => [k, v?.toString()]));
    expect(letters[0]!.value?.toString()).toBe('{not json');
    expect(letters[0]!.key?.toString()).toBe('k');
    expect(h).toMatchObject({ 'weir.topic': topic, 'weir.partition': '0', 'weir.offset': '1' });
    expect(h['weir.timestamp']).toMatch(/^\d+$/);
    expect(h['weir.error']).toMatch(/JSON/);
  });
});

describe('Kafka source: event time per partition', () => {
  /** In-order event time from each event's `t`. */
  const byTime = () =>
    WatermarkStrategy.forMonotonousTimestamps<Ev>().withTimestampAssigner((e) => e.t);
  /** An unbounded source of `topic` with `watermarks`, polling briefly. */
  const liveSource = (
    topic: string,
    watermarks: WatermarkStrategy<Ev>,
    options: { startFrom?: 'latest' } = {},
  ) =>
    new KafkaSource<Ev>({
      brokers: BROKERS,
      topics: [topic],
      format: json<Ev>(),
      fetchMaxWaitMs: 50,
      watermarks,
      ...options,
    });
  const tumbling = (
    env: StreamEnvironment,
    source: KafkaSource<Ev>,
    perSubtask?: WatermarkStrategy<Ev>,
  ) => {
    const sink = new CollectSink<WindowResult<string, number>>();
    env
      .fromSource(source, perSubtask)
      .uid('kafka')
      .keyBy(() => 'all')
      .window(Windows.tumbling(Time.seconds(10)))
      .aggregate({
        createAccumulator: () => 0,
        add: (_e: Ev, n: number) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      })
      .sinkTo(sink);
    return sink;
  };

  it('merges per-partition watermarks as the minimum, so a lagging partition is not late', async () => {
    const topic = uniqueTopic('merge');
    await createTopic(topic, 2);
    // Partition 0 is 60 s ahead of partition 1; both are in order.
    await produce(topic, [
      ...Array.from({ length: 60 }, (_, i) => ({
        value: JSON.stringify({ id: i, t: 60_000 + i * 1000 }),
        partition: 0,
      })),
      ...Array.from({ length: 60 }, (_, i) => ({
        value: JSON.stringify({ id: 100 + i, t: i * 1000 }),
        partition: 1,
      })),
    ]);
    const strategy = byTime();
    const perPartition = new StreamEnvironment({ batchSize: 10 });
    const good = tumbling(
      perPartition,
      new KafkaSource<Ev>({
        brokers: BROKERS,
        topics: [topic],
        format: json<Ev>(),
        stopAt: 'latest',
        watermarks: strategy,
      }),
    );
    const r1 = await perPartition.execute('per partition');
    expect(r1.metric('weir_window_late_records_total')).toBe(0);
    expect(good.values.reduce((s, w) => s + w.value, 0)).toBe(120);

    // The same strategy per subtask (after the source) declares the lagging partition late.
    const perSubtask = new StreamEnvironment({ batchSize: 10 });
    const bad = tumbling(
      perSubtask,
      new KafkaSource<Ev>({
        brokers: BROKERS,
        topics: [topic],
        format: json<Ev>(),
        stopAt: 'latest',
      }),
      strategy,
    );
    const r2 = await perSubtask.execute('per subtask');
    expect(r2.metric('weir_window_late_records_total')).toBeGreaterThan(0);
    expect(bad.values.reduce((s, w) => s + w.value, 0)).toBeLessThan(120);
  });

  it('a restored partition that gets no new record keeps its watermark, so windows still close', async () => {
    const topic = uniqueTopic('restored-time');
    await createTopic(topic, 2);
    const dir = await mkdtemp(join(tmpdir(), 'weir-kafka-time-'));
    dirs.push(dir);
    const events = (partition: number, from: number, to: number) =>
      Array.from({ length: (to - from) / 1000 + 1 }, (_, i) => ({
        value: JSON.stringify({ id: partition * 1000 + i, t: from + i * 1000 }),
        partition,
      }));
    const start = (restoreFrom?: string) => {
      const env = new StreamEnvironment();
      const sink = tumbling(env, liveSource(topic, byTime()));
      return { job: env.executeAsync('restored time', { restoreFrom }), sink };
    };
    const ends = (sink: CollectSink<WindowResult<string, number>>) =>
      sink.values.map((w) => w.window.end).sort((a, b) => a - b);
    // Partition 0 runs to 89 s, partition 1 to 39 s: the windows up to 30 s close.
    await produce(topic, [...events(0, 0, 89_000), ...events(1, 0, 39_000)]);
    const first = start();
    await waitFor('three windows', () => first.sink.values.length === 3);
    const savepoint = await first.job.stopWithSavepoint(join(dir, 'savepoints'));
    expect(ends(first.sink)).toEqual([10_000, 20_000, 30_000]);

    // Only partition 1 moves on, to 99 s: partition 0's restored 89 s now holds the watermark.
    const second = start(savepoint);
    await produce(topic, events(1, 40_000, 99_000));
    await waitFor('the windows up to 80 s', () => second.sink.values.length >= 5);
    await second.job.cancel();
    expect(ends(second.sink)).toEqual([40_000, 50_000, 60_000, 70_000, 80_000]);
    expect(second.sink.values.map((w) => w.value)).toEqual([20, 20, 20, 20, 20]);
  });

  it('an idle partition does not hold windows back, says who holds the watermark, and becomes active again', async () => {
    const topic = uniqueTopic('idle');
    await createTopic(topic, 2);
    const strategy = byTime().withIdleness(400);
    const run = async (withIdleness: boolean) => {
      const env = new StreamEnvironment();
      const sink = tumbling(
        env,
        liveSource(topic, withIdleness ? strategy : byTime(), { startFrom: 'latest' }),
      );
      const job = env.executeAsync('idle');
      await waitFor('the reader', () => job.metrics.total('weir_kafka_source_partitions') === 2);
      return { job, sink };
    };
    const holds = (
      job: { metrics: { total(n: string, l?: Record<string, string>): number } },
      p: number,
    ) => job.metrics.total('weir_kafka_partition_holds_watermark', { topic, partition: String(p) });

    // Without idleness: partition 1 never had data and holds event time back.
    const stuck = await run(false);
    // With idleness: windows fire from partition 0 alone.
    const moving = await run(true);
    await produce(
      topic,
      Array.from({ length: 30 }, (_, i) => ({
        value: JSON.stringify({ id: i, t: i * 1000 }),
        partition: 0,
      })),
    );
    // Partition 0 stays active (a record well within the idleness timeout) until the windows
    // fire, so that this is the case of one partition idle beside an active one (when both go
    // idle, the watermark of the last records still counts: partition-idleness.test.ts and
    // test/sql/kafka-partition-watermarks.test.ts).
    let keepAlive = true;
    const alive = (async () => {
      for (let j = 0; keepAlive && j < 900; j++) {
        await produce(topic, [
          { value: JSON.stringify({ id: 1000 + j, t: 29_000 + j }), partition: 0 },
        ]);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await waitFor(
      'windows to fire with partition 1 idle',
      () => moving.sink.values.length >= 2,
      60_000,
      () =>
        // What the source saw, should this ever time out.
        JSON.stringify(
          moving.job.metrics
            .snapshot()
            .filter(
              (m) =>
                m.name.startsWith('weir_kafka_partition') || m.name === 'weir_source_records_total',
            )
            .map((m) => [m.name, m.labels.partition, m.value]),
        ),
    );
    keepAlive = false;
    await alive;
    expect(moving.job.metrics.total('weir_kafka_partition_idle', { topic, partition: '1' })).toBe(
      1,
    );
    expect(moving.sink.values.map((w) => w.window.start).slice(0, 2)).toEqual([0, 10_000]);
    expect(stuck.sink.values).toEqual([]);
    await waitFor('the holder gauge', () => holds(stuck.job, 1) === 1);
    expect(holds(stuck.job, 0)).toBe(0);

    // Data on partition 1 makes it active again; it then holds time back until it catches up.
    await produce(topic, [{ value: JSON.stringify({ id: 99, t: 35_000 }), partition: 1 }]);
    await waitFor(
      'partition 1 active',
      () => moving.job.metrics.total('weir_kafka_partition_idle', { topic, partition: '1' }) === 0,
      5_000,
    );
    await moving.job.cancel();
    await stuck.job.cancel();
  });
});

describe('Kafka source: discovery, checkpoints and offsets', () => {
  it('picks up new partitions while running', async () => {
    const topic = uniqueTopic('discover');
    await createTopic(topic, 1);
    const env = new StreamEnvironment();
    const sink = new CollectSink<Ev>();
    env
      .fromSource(
        new KafkaSource<Ev>({
          brokers: BROKERS,
          topics: [topic],
          format: json<Ev>(),
          partitionDiscoveryIntervalMs: 200,
          fetchMaxWaitMs: 50,
        }),
      )
      .sinkTo(sink);
    const job = env.executeAsync('discover');
    await produce(topic, [{ value: JSON.stringify({ id: 1, t: 0 }), partition: 0 }]);
    await waitFor('the first record', () => sink.values.length === 1);
    await addPartitions(topic, 3);
    await produce(topic, [
      { value: JSON.stringify({ id: 2, t: 0 }), partition: 1 },
      { value: JSON.stringify({ id: 3, t: 0 }), partition: 2 },
    ]);
    await waitFor('records of new partitions', () => sink.values.length === 3, 15_000);
    expect(job.metrics.total('weir_kafka_source_partitions')).toBe(3);
    await job.cancel();
    expect(ids(sink.values)).toEqual([1, 2, 3]);
  });

  it('keeps offsets in checkpoints, resumes exactly there, and commits them to the group for lag tooling', async () => {
    const topic = uniqueTopic('offsets');
    await createTopic(topic, 2);
    const groupId = uniqueTopic('lag');
    const dir = await mkdtemp(join(tmpdir(), 'weir-kafka-chk-'));
    dirs.push(dir);
    const start = () => {
      const env = new StreamEnvironment({
        parallelism: 2,
        checkpointing: { directory: dir, intervalMs: 100 },
      });
      const sink = new CollectSink<Ev>();
      env
        .fromSource(
          new KafkaSource<Ev>({
            brokers: BROKERS,
            topics: [topic],
            format: json<Ev>(),
            groupId,
            fetchMaxWaitMs: 50,
          }),
        )
        .uid('kafka')
        .sinkTo(sink);
      return { job: env.executeAsync('offsets', { restoreFrom: 'latest' }), sink };
    };
    await produce(
      topic,
      Array.from({ length: 100 }, (_, id) => ({
        value: JSON.stringify({ id, t: 0 }),
        partition: id % 2,
      })),
    );
    const first = start();
    await waitFor('100 records', () => first.sink.values.length === 100);
    await waitFor('offsets committed', async () => {
      const o = await groupOffsets(groupId, topic);
      return o[0] === 50 && o[1] === 50;
    });
    expect(first.job.metrics.total('weir_kafka_partition_lag')).toBe(0);
    await first.job.cancel();

    await produce(
      topic,
      Array.from({ length: 20 }, (_, i) => ({
        value: JSON.stringify({ id: 100 + i, t: 0 }),
        partition: i % 2,
      })),
    );
    const second = start();
    await waitFor('20 more records', () => second.sink.values.length >= 20);
    await new Promise((r) => setTimeout(r, 300));
    await second.job.cancel();
    expect(ids(second.sink.values)).toEqual(Array.from({ length: 20 }, (_, i) => 100 + i));
  });
});

describe('Kafka source: read_committed', () => {
  /** Writes `batches` (one send each) in one transaction of `transactionalId`, and aborts it. */
  const abortedTransaction = async (
    transactionalId: string,
    batches: readonly { topic: string; partition: number; value: Buffer }[][],
  ) => {
    const producer = new Producer({
      clientId: 'weir-test',
      bootstrapBrokers: BROKERS,
      idempotent: true,
      transactionalId,
    });
    try {
      const txn = await producer.beginTransaction();
      for (const messages of batches) await txn.send({ messages });
      await txn.abort();
    } finally {
      await producer.close();
    }
  };

  /** Writes records 1, 2 and 3 (committed) after what the test wrote, and reads only them. */
  const expectOnlyCommitted = async (topic: string) => {
    await produce(
      topic,
      [1, 2, 3].map((id) => ({ value: JSON.stringify({ id, t: id }) })),
    );
    await waitForStableEnd(topic);
    const got = await readWith<Ev>({ topics: [topic], format: json<Ev>() });
    expect(ids(got)).toEqual([1, 2, 3]);
  };

  it('skips aborted transactions, including one that wrote nothing to the partition', async () => {
    const topic = uniqueTopic('txn');
    await createTopic(topic, 1);
    const message = (id: number) => ({
      topic,
      partition: 0,
      value: Buffer.from(JSON.stringify({ id, t: id })),
    });
    // An aborted transaction with data: the broker lists it with the fetch.
    await abortedTransaction(`${topic}-a`, [[message(100), message(101)]]);
    // An aborted transaction that only added the partition: an abort marker the broker does not list.
    const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
    try {
      const tid = `${topic}-b`;
      const coordinator = await transactionCoordinator(admin, tid);
      const { producerId, producerEpoch } = await initTransactionalId(coordinator, tid, 60_000);
      await addPartitionsToTxnV3.api.async(coordinator, [
        {
          transactionalId: tid,
          producerId,
          producerEpoch,
          verifyOnly: false,
          topics: [{ name: topic, partitions: [0] }],
        },
      ]);
      await endTransaction(coordinator, tid, producerId, producerEpoch, false);
    } finally {
      await admin.close();
    }
    await expectOnlyCommitted(topic);
  });

  it('reads past an aborted transaction longer than one fetch response', async () => {
    const topic = uniqueTopic('txn-long');
    await createTopic(topic, 1);
    // Six batches of 900 KB: a response (at most 4 MB per partition) holds only aborted data, no marker.
    const pad = 'x'.repeat(900_000);
    await abortedTransaction(
      `${topic}-long`,
      Array.from({ length: 6 }, (_, i) => [
        { topic, partition: 0, value: Buffer.from(JSON.stringify({ id: 100 + i, t: i, pad })) },
      ]),
    );
    await expectOnlyCommitted(topic);
  });
});
