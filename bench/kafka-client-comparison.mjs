// Produce/consume throughput of Node Kafka clients against 127.0.0.1:9092 (the data for
// docs/connectors/kafka.md). The project depends on none of kafkajs and the confluent client:
//
//   mkdir /tmp/kc && cd /tmp/kc && npm init -y && npm i -E kafkajs@2.2.4 @platformatic/kafka@1.35.0
//   CKJS_LINKING=dynamic npm i -E @confluentinc/kafka-javascript@1.10.1   # builds librdkafka, ~4 min
//   cp <repo>/bench/kafka-client-comparison.mjs . && for c in platformatic kafkajs confluent; do
//     IDEMP=1 INFLIGHT=1 N=300000 node kafka-client-comparison.mjs $c; done
//
// IDEMP=1 makes producers idempotent; INFLIGHT is the number of concurrent send calls.
const which = process.argv[2];
const pk = await import('@platformatic/kafka');
const { Kafka, logLevel } = which === 'kafkajs' ? await import('kafkajs') : {};

const N = Number(process.env.N ?? 200_000);
const BATCH = 1000;
const INFLIGHT = Number(process.env.INFLIGHT ?? 8);
const IDEMP = process.env.IDEMP === '1';
const broker = '127.0.0.1:9092';
const value = (i) =>
  JSON.stringify({ id: i, user: `user-${i % 1000}`, amount: i % 97, time: 1700000000000 + i });
const uniq = () => `cmp-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

async function pool(total, fn) {
  let next = 0;
  const workers = Array.from({ length: INFLIGHT }, async () => {
    while (next < total) {
      const b = next;
      next += BATCH;
      await fn(b, Math.min(BATCH, total - b));
    }
  });
  await Promise.all(workers);
}

async function kafkajs() {
  const kafka = new Kafka({ brokers: [broker], logLevel: logLevel.NOTHING, clientId: 'cmp' });
  const admin = kafka.admin();
  await admin.connect();
  const topic = uniq();
  await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
  const producer = kafka.producer({
    idempotent: IDEMP,
    maxInFlightRequests: IDEMP ? 5 : undefined,
  });
  await producer.connect();
  let t = performance.now();
  await pool(N, (b, n) =>
    producer.send({
      topic,
      messages: Array.from({ length: n }, (_, j) => ({
        key: String((b + j) % 1000),
        value: value(b + j),
      })),
    }),
  );
  const prod = N / ((performance.now() - t) / 1000);
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: uniq(), maxBytes: 50 << 20 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  t = performance.now();
  let seen = 0;
  await new Promise((resolve) => {
    consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          JSON.parse(m.value.toString());
        }
        seen += batch.messages.length;
        if (seen >= N) resolve();
      },
    });
  });
  const cons = N / ((performance.now() - t) / 1000);
  await consumer.disconnect();
  await admin.disconnect();
  return { prod, cons };
}

async function platformatic() {
  const admin = new pk.Admin({ clientId: 'cmp', bootstrapBrokers: [broker] });
  const topic = uniq();
  await admin.createTopics({ topics: [topic], partitions: 4, replicas: 1 });
  const producer = new pk.Producer({
    clientId: 'cmp',
    bootstrapBrokers: [broker],
    idempotent: IDEMP,
    serializers: pk.stringSerializers,
  });
  let t = performance.now();
  await pool(N, (b, n) =>
    producer.send({
      messages: Array.from({ length: n }, (_, j) => ({
        topic,
        key: String((b + j) % 1000),
        value: value(b + j),
      })),
    }),
  );
  const prod = N / ((performance.now() - t) / 1000);
  await producer.close();
  const consumer = new pk.Consumer({
    clientId: 'cmp',
    groupId: uniq(),
    bootstrapBrokers: [broker],
    maxBytes: 50 << 20,
    deserializers: pk.stringDeserializers,
  });
  t = performance.now();
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
  let seen = 0;
  for await (const m of stream) {
    JSON.parse(m.value);
    if (++seen >= N) break;
  }
  const cons = N / ((performance.now() - t) / 1000);
  await stream.close();
  await consumer.close();
  // raw fetch loop (manual assignment + explicit offsets), as a source would do
  const fetcher = new pk.Consumer({ clientId: 'cmp', groupId: uniq(), bootstrapBrokers: [broker] });
  const md = await fetcher.metadata({ topics: [topic] });
  const tm = md.topics.get(topic);
  const offsets = new Array(tm.partitionsCount).fill(0n);
  t = performance.now();
  seen = 0;
  while (seen < N) {
    const res = await fetcher.fetch({
      node: tm.partitions[0].leader,
      maxWaitTime: 100,
      maxBytes: 50 << 20,
      topics: [
        {
          topicId: tm.id,
          partitions: offsets.map((o, p) => ({
            partition: p,
            fetchOffset: o,
            partitionMaxBytes: 8 << 20,
            currentLeaderEpoch: -1,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
          })),
        },
      ],
    });
    for (const rt of res.responses)
      for (const rp of rt.partitions) {
        for (const batch of rp.records ?? []) {
          for (const r of batch.records) {
            JSON.parse(r.value.toString());
            seen++;
            offsets[rp.partitionIndex] = batch.firstOffset + BigInt(r.offsetDelta) + 1n;
          }
        }
      }
  }
  const raw = N / ((performance.now() - t) / 1000);
  await fetcher.close();
  await admin.close();
  return { prod, cons, raw };
}

async function confluent() {
  const ck = (await import('@confluentinc/kafka-javascript')).default;
  const { Kafka: CKafka, logLevel: clog } = ck.KafkaJS;
  const kafka = new CKafka({ kafkaJS: { brokers: [broker], logLevel: clog.NOTHING } });
  const admin = kafka.admin();
  await admin.connect();
  const topic = uniq();
  await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] });
  const producer = kafka.producer({ kafkaJS: { idempotent: IDEMP }, 'linger.ms': 5 });
  await producer.connect();
  let t = performance.now();
  await pool(N, (b, n) =>
    producer.send({
      topic,
      messages: Array.from({ length: n }, (_, j) => ({
        key: String((b + j) % 1000),
        value: value(b + j),
      })),
    }),
  );
  const prod = N / ((performance.now() - t) / 1000);
  await producer.disconnect();
  const consumer = kafka.consumer({
    kafkaJS: { groupId: uniq(), fromBeginning: true, autoCommit: false },
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  t = performance.now();
  let seen = 0;
  await new Promise((resolve) => {
    consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) JSON.parse(m.value.toString());
        seen += batch.messages.length;
        if (seen >= N) resolve();
      },
    });
  });
  const cons = N / ((performance.now() - t) / 1000);
  return { prod, cons };
}

const r =
  which === 'kafkajs'
    ? await kafkajs()
    : which === 'confluent'
      ? await confluent()
      : await platformatic();
console.log(
  which,
  JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v)]))),
);
process.exit(0);
