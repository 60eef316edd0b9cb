/**
 * Kafka connector throughput against the test broker (scripts/kafka.sh up):
 *
 * - raw client: records/s of @platformatic/kafka producing N JSON records
 *   (idempotent, batches of 1,000, one request in flight), of fetching them
 *   back with the same fetch loop the source uses (JSON.parse included), and
 *   of a hand-written loop doing the map job's work (fetch, parse, enrich,
 *   serialize, produce);
 * - Weir, topic to topic, parallelism 1, bounded source (stopAt 'latest'):
 *   a stateless JSON map job (at-least-once sink, and exactly-once with 1 s
 *   checkpoints), and a keyed 1 s tumbling-window count (at-least-once sink).
 *
 * Every variant reads the same N-record input topic (4 partitions). Each
 * repetition runs all variants in turn; the table shows each one's median.
 *
 *   npx tsc -p tsconfig.bench.json && node dist-bench/bench/kafka-throughput.js [--records 1000000] [--reps 3]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Admin, Consumer, Producer } from '@platformatic/kafka';
import { KafkaFormats, KafkaSink, KafkaSource } from '../src/connectors/kafka/index.js';
import { StreamEnvironment, WatermarkStrategy, Windows } from '../src/index.js';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    reps: { type: 'string', default: '3' },
    brokers: { type: 'string', default: '127.0.0.1:9092' },
  },
});
const N = Number(args.records);
const REPS = Number(args.reps);
const BROKERS = args.brokers!.split(',');
const PARTITIONS = 4;

interface Click {
  readonly id: number;
  readonly user: string;
  readonly page: string;
  readonly amount: number;
  readonly t: number;
}

const click = (i: number): Click => ({
  id: i,
  user: `user-${i % 1000}`,
  page: `/p/${i % 37}`,
  amount: i % 97,
  t: 1_700_000_000_000 + Math.floor(i / 100),
});

const run = `${process.pid}-${Date.now().toString(36)}`;
let topicCount = 0;
const newTopic = (name: string) => `bench-${name}-${run}-${++topicCount}`;

async function withAdmin<T>(f: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Admin({ clientId: 'weir-bench', bootstrapBrokers: BROKERS });
  try {
    return await f(admin);
  } finally {
    await admin.close();
  }
}

/** Raw client: produce N records into a new topic; returns records/s. */
async function rawProduce(topic: string): Promise<number> {
  const producer = new Producer({
    clientId: 'weir-bench',
    bootstrapBrokers: BROKERS,
    idempotent: true,
  });
  const t0 = performance.now();
  for (let i = 0; i < N; i += 1000) {
    const messages = [];
    for (let j = i; j < Math.min(N, i + 1000); j++) {
      messages.push({
        topic,
        key: Buffer.from(`user-${j % 1000}`),
        value: Buffer.from(JSON.stringify(click(j))),
      });
    }
    await producer.send({ messages });
  }
  const ms = performance.now() - t0;
  await producer.close();
  return (N / ms) * 1000;
}

/**
 * The fetch loop the source uses, by hand: explicit offsets, every partition
 * in each request. Calls `onBatch` with each record batch's values.
 */
async function fetchAll(
  consumer: Consumer,
  topic: string,
  onBatch: (values: Buffer[]) => Promise<void> | void,
): Promise<void> {
  const md = await consumer.metadata({ topics: [topic] });
  const t = md.topics.get(topic)!;
  const offsets = new Array<bigint>(t.partitionsCount).fill(0n);
  let seen = 0;
  while (seen < N) {
    const res = await consumer.fetch({
      node: t.partitions[0]!.leader,
      maxWaitTime: 100,
      maxBytes: 32 << 20,
      topics: [
        {
          topicId: t.id,
          partitions: offsets.map((o, p) => ({
            partition: p,
            fetchOffset: o,
            partitionMaxBytes: 4 << 20,
            currentLeaderEpoch: -1,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
          })),
        },
      ],
    });
    for (const rt of res.responses)
      for (const rp of rt.partitions)
        for (const batch of rp.records ?? []) {
          await onBatch(batch.records.map((r) => r.value!));
          seen += batch.records.length;
          offsets[rp.partitionIndex] = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
        }
  }
}

const newConsumer = () =>
  new Consumer({ clientId: 'weir-bench', groupId: `bench-${run}`, bootstrapBrokers: BROKERS });

/** Raw client: fetch the whole topic (JSON.parse of every value); returns records/s. */
async function rawConsume(topic: string): Promise<number> {
  const consumer = newConsumer();
  const t0 = performance.now();
  await fetchAll(consumer, topic, (values) => {
    for (const v of values) JSON.parse(v.toString());
  });
  const ms = performance.now() - t0;
  await consumer.close();
  return (N / ms) * 1000;
}

/**
 * Raw client, the hand-written consumer-to-producer loop that the map job
 * replaces: fetch, parse, enrich, serialize and produce (idempotent, keyed),
 * one send per fetched batch, at-least-once. Returns records/s.
 */
async function rawPipeline(input: string): Promise<number> {
  const out = newTopic('raw-map');
  await withAdmin((a) => a.createTopics({ topics: [out], partitions: PARTITIONS, replicas: 1 }));
  const consumer = newConsumer();
  const producer = new Producer({
    clientId: 'weir-bench',
    bootstrapBrokers: BROKERS,
    idempotent: true,
  });
  const t0 = performance.now();
  await fetchAll(consumer, input, async (values) => {
    const messages = values.map((v) => {
      const c = JSON.parse(v.toString()) as Click;
      const r = { id: c.id, user: c.user, cents: c.amount * 100, page: c.page.toUpperCase() };
      return { topic: out, key: Buffer.from(r.user), value: Buffer.from(JSON.stringify(r)) };
    });
    await producer.send({ messages });
  });
  const ms = performance.now() - t0;
  await Promise.all([consumer.close(), producer.close()]);
  return (N / ms) * 1000;
}

function source(topic: string, timed: boolean) {
  return new KafkaSource<Click>({
    brokers: BROKERS,
    topics: [topic],
    format: KafkaFormats.json<Click>(),
    stopAt: 'latest',
    ...(timed
      ? {
          watermarks: WatermarkStrategy.forBoundedOutOfOrderness<Click>(100).withTimestampAssigner(
            (c) => c.t,
          ),
        }
      : {}),
  });
}

/** Stateless: parse, enrich, serialize to another topic. Returns records/s (input records). */
async function mapJob(input: string, exactlyOnce: boolean, dir: string): Promise<number> {
  const out = newTopic(exactlyOnce ? 'map-eos' : 'map');
  const env = new StreamEnvironment(
    exactlyOnce ? { checkpointing: { directory: join(dir, out), intervalMs: 1000 } } : {},
  );
  env
    .fromSource(source(input, false))
    .map((c) => ({ id: c.id, user: c.user, cents: c.amount * 100, page: c.page.toUpperCase() }))
    .sinkTo(
      new KafkaSink({
        brokers: BROKERS,
        topic: out,
        format: KafkaFormats.json<{ id: number; user: string; cents: number; page: string }>(),
        key: (r) => r.user,
        ...(exactlyOnce
          ? { deliveryGuarantee: 'exactly-once' as const, transactionalIdPrefix: `${out}-tx` }
          : {}),
      }),
    );
  const t0 = performance.now();
  await env.execute('map');
  return (N / (performance.now() - t0)) * 1000;
}

/** Keyed: count per user in 1 s tumbling event-time windows, results to a topic. */
async function windowJob(input: string): Promise<number> {
  const out = newTopic('window');
  const env = new StreamEnvironment();
  env
    .fromSource(source(input, true))
    .keyBy((c) => c.user)
    .window(Windows.tumbling(1000))
    .aggregate({
      createAccumulator: () => 0,
      add: (_c: Click, n: number) => n + 1,
      getResult: (n) => n,
      merge: (a, b) => a + b,
    })
    .map((r) => ({ user: r.key, start: r.window.start, count: r.value }))
    .sinkTo(
      new KafkaSink({
        brokers: BROKERS,
        topic: out,
        format: KafkaFormats.json<{ user: string; start: number; count: number }>(),
        key: (r) => r.user,
      }),
    );
  const t0 = performance.now();
  await env.execute('window');
  return (N / (performance.now() - t0)) * 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-kafka-bench-'));
  const results = new Map<string, number[]>();
  const record = (name: string, v: number) => {
    results.set(name, [...(results.get(name) ?? []), v]);
    console.error(`  ${name}: ${Math.round(v).toLocaleString('en-US')} records/s`);
  };
  try {
    for (let rep = 1; rep <= REPS; rep++) {
      console.error(`repetition ${rep}/${REPS} (${N.toLocaleString('en-US')} records)`);
      const input = newTopic('in');
      await withAdmin((a) =>
        a.createTopics({ topics: [input], partitions: PARTITIONS, replicas: 1 }),
      );
      record('raw client: produce (idempotent)', await rawProduce(input));
      record('raw client: fetch + JSON.parse', await rawConsume(input));
      record('raw client: fetch, map, produce (one loop)', await rawPipeline(input));
      record('Weir: JSON map, at-least-once sink', await mapJob(input, false, dir));
      record('Weir: JSON map, exactly-once sink (1 s checkpoints)', await mapJob(input, true, dir));
      record('Weir: keyed 1 s window count, at-least-once sink', await windowJob(input));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`| variant | records/s (median of ${REPS}) |\n|---|---:|`);
  for (const [name, vs] of results)
    console.log(`| ${name} | ${Math.round(median(vs)).toLocaleString('en-US')} |`);
}

await main();
process.exit(0);
