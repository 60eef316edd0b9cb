/**
 * The source and sink conformance checks (weir/testing) for Kafka, against
 * the test broker on 127.0.0.1:9092.
 */
import { afterAll, beforeAll } from 'vitest';
import { KafkaSink, KafkaSource } from '../../../src/connectors/kafka/index.js';
import type { SinkWriter } from '../../../src/index.js';
import { sinkChecks, sourceChecks } from '../../../src/testing/index.js';
import { BROKERS, createTopic, json, produce, readAll, uniqueTopic } from '../../kafka/helpers.js';
import { conformance } from './register.js';

interface Row {
  readonly id: number;
  readonly text: string;
}

const rows: Row[] = Array.from({ length: 17 }, (_, i) => ({ id: i, text: `r${i}` }));
const sourceTopic = uniqueTopic('conformance-source');
/**
 * No broker listens there: connecting is refused at once, and the connectors
 * give up after a fixed few retries (the source in about 0.6 s, the sink in
 * about 2 s). The short timeouts bound the wait should connecting hang instead.
 */
const UNREACHABLE = ['127.0.0.1:1'];
const SHORT_TIMEOUT_MS = 2_000;
/** Writers left behind as if their process had died; closed at the end. */
const abandoned: SinkWriter<Row>[] = [];

beforeAll(async () => {
  // One partition: the source's order is the topic's.
  await createTopic(sourceTopic, 1);
  await produce(
    sourceTopic,
    rows.map((r) => ({ value: JSON.stringify(r) })),
  );
});
afterAll(async () => {
  await Promise.allSettled(abandoned.map((w) => w.close()));
});

conformance(
  'KafkaSource',
  sourceChecks({
    create: () =>
      new KafkaSource<Row>({
        brokers: BROKERS,
        topics: [sourceTopic],
        format: json<Row>(),
        stopAt: 'latest',
      }),
    expected: rows,
    createFailing: () =>
      new KafkaSource<Row>({
        brokers: UNREACHABLE,
        requestTimeoutMs: SHORT_TIMEOUT_MS,
        // Unreachable for good: give up after a second rather than ride it out.
        reconnect: { maxOutageMs: 1_000 },
        topics: [sourceTopic],
        format: json<Row>(),
        stopAt: 'latest',
      }),
  }),
  120_000,
);

/** A sink whose brokers cannot be reached. */
const unreachableSink = (guarantee: 'at-least-once' | 'exactly-once') => {
  const topic = uniqueTopic(`conformance-unreachable-${guarantee}`);
  return new KafkaSink<Row>({
    brokers: UNREACHABLE,
    requestTimeoutMs: SHORT_TIMEOUT_MS,
    flushTimeoutMs: SHORT_TIMEOUT_MS,
    // Unreachable for good: give up after a second rather than ride it out.
    reconnect: { maxOutageMs: 1_000 },
    topic,
    format: json<Row>(),
    deliveryGuarantee: guarantee,
    ...(guarantee === 'exactly-once' ? { transactionalIdPrefix: `${topic}-tx` } : {}),
  });
};

/** A Kafka sink writing to a new topic, with that topic. */
async function sinkTo(guarantee: 'at-least-once' | 'exactly-once') {
  const topic = uniqueTopic(`conformance-${guarantee}`);
  await createTopic(topic, 2);
  return Object.assign(
    new KafkaSink<Row>({
      brokers: BROKERS,
      topic,
      format: json<Row>(),
      deliveryGuarantee: guarantee,
      ...(guarantee === 'exactly-once' ? { transactionalIdPrefix: `${topic}-tx` } : {}),
    }),
    { topic },
  );
}

conformance(
  'KafkaSink (at-least-once)',
  sinkChecks({
    create: () => sinkTo('at-least-once'),
    records: rows,
    visible: (s) => readAll(s.topic, json<Row>()),
    createFailing: () => unreachableSink('at-least-once'),
  }),
  120_000,
);

conformance(
  'KafkaSink (exactly-once)',
  sinkChecks({
    create: () => sinkTo('exactly-once'),
    records: rows,
    twoPhaseCommit: true,
    visible: (s) => readAll(s.topic, json<Row>()),
    abandon: (w) => {
      abandoned.push(w);
    },
    createFailing: () => unreachableSink('exactly-once'),
  }),
  120_000,
);
