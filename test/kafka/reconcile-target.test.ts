import { Admin, Producer } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { KafkaFormats, KafkaSink } from '../../src/connectors/kafka/index.js';
import type { ReconcileTarget, ReplayedValue, WrittenRow } from '../../src/core/replay.js';
import { StreamEnvironment, WeirError } from '../../src/index.js';
import { BROKERS, createTopic, uniqueTopic } from './helpers.js';

interface Row {
  readonly id: number;
  readonly user: string;
}

async function collect(rows: AsyncIterable<WrittenRow>): Promise<WrittenRow[]> {
  const out: WrittenRow[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

async function* replayed<T>(values: readonly T[]): AsyncIterable<ReplayedValue<T>> {
  for (const [i, value] of values.entries()) yield { value, timestamp: i };
}

/** Rows without their origin, in a canonical order, for comparing as multisets. */
function content(rows: readonly WrittenRow[]): { key: string | undefined; value: unknown }[] {
  return rows
    .map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp }))
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

async function writeWith<T>(sink: KafkaSink<T>, values: readonly T[]): Promise<void> {
  const env = new StreamEnvironment();
  env.fromArray(values).sinkTo(sink);
  await env.execute('write');
}

/** A transaction that writes `values` to partition 0 and aborts. */
async function abortedWrite(topic: string, values: readonly string[]): Promise<void> {
  const producer = new Producer({
    clientId: 'weir-test',
    bootstrapBrokers: BROKERS,
    idempotent: true,
    transactionalId: `${topic}-aborting`,
  });
  try {
    const txn = await producer.beginTransaction();
    await txn.send({
      messages: values.map((v) => ({
        topic,
        partition: 0,
        key: Buffer.from('x'),
        value: Buffer.from(v),
      })),
    });
    await txn.abort();
  } finally {
    await producer.close();
  }
}

describe('KafkaSink.reconcileTarget', () => {
  it('reads back what an exactly-once sink committed, equal to the expected rows of the same values', async () => {
    const topic = uniqueTopic('reconcile-eos');
    await createTopic(topic, 3);
    const sink = new KafkaSink<Row>({
      brokers: BROKERS,
      topic,
      format: KafkaFormats.json<Row>(),
      key: (r) => r.user,
      deliveryGuarantee: 'exactly-once',
      transactionalIdPrefix: `${topic}-tx`,
    });
    const first = Array.from({ length: 40 }, (_, id) => ({ id, user: `u${id % 7}` }));
    const second = Array.from({ length: 25 }, (_, i) => ({ id: 100 + i, user: `ü${i % 3}` }));
    await writeWith(sink, first);
    await abortedWrite(topic, ['{"id":-1,"user":"aborted"}', '{"id":-2,"user":"aborted"}']);
    await writeWith(sink, second);

    const target: ReconcileTarget<Row> = await sink.reconcileTarget();
    try {
      expect(target.mode).toBe('append');
      expect(target.description).toBe(`Kafka topic '${topic}' at ${BROKERS.join(',')}`);
      const written = await collect(target.written());
      const all = [...first, ...second];
      // The oracle: key as text, value as the JSON object, no aborted records.
      expect(content(written)).toEqual(
        content(all.map((r) => ({ key: r.user, value: r, origin: '' }))),
      );
      expect(content(await collect(target.expected(replayed(all))))).toEqual(content(written));
      for (const r of written) expect(r.origin).toMatch(new RegExp(`^${topic}/[0-2]@\\d+$`));
      // Per partition in offset order.
      const offsets = written
        .filter((r) => r.origin.startsWith(`${topic}/0@`))
        .map((r) => Number(r.origin.split('@')[1]));
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));

      // Records deleted from the log are missing when read again.
      const cut = offsets[3]!;
      const admin = new Admin({ clientId: 'weir-test', bootstrapBrokers: BROKERS });
      try {
        await admin.deleteRecords({
          topics: [{ name: topic, partitions: [{ partition: 0, offset: BigInt(cut) }] }],
        });
      } finally {
        await admin.close();
      }
      const after = await collect(target.written());
      const deleted = (r: WrittenRow) =>
        r.origin.startsWith(`${topic}/0@`) && Number(r.origin.split('@')[1]) < cut;
      expect(written.filter(deleted)).toHaveLength(3);
      expect(after).toEqual(written.filter((r) => !deleted(r)));
    } finally {
      await target.close();
    }
  });

  it('decodes keys that are not UTF-8 as hex and values that are not JSON as base64, on both sides', async () => {
    const topic = uniqueTopic('reconcile-bytes');
    await createTopic(topic, 1);
    const values = [
      Buffer.from([0xff, 0xfe, 0x00]),
      Buffer.from('{"a":[1,2]}'),
      Buffer.from('plain text'),
      Buffer.from('"a string"'),
      Buffer.alloc(0),
    ];
    const sink = new KafkaSink<Buffer | undefined>({
      brokers: BROKERS,
      topic,
      format: KafkaFormats.bytes(),
      key: (v) =>
        v !== undefined && v.length > 0 && v[0] === 0xff ? new Uint8Array([0xc3, 0x28]) : undefined,
    });
    await writeWith(sink, values);
    const target = sink.reconcileTarget();
    try {
      const written = await collect(target.written());
      expect(written.map(({ key, value }) => ({ key, value }))).toEqual([
        { key: 'hex:c328', value: { base64: '//4A' } },
        { key: undefined, value: { a: [1, 2] } },
        { key: undefined, value: { base64: Buffer.from('plain text').toString('base64') } },
        { key: undefined, value: 'a string' },
        { key: undefined, value: { base64: '' } },
      ]);
      expect(content(await collect(target.expected(replayed(values))))).toEqual(content(written));
    } finally {
      await target.close();
    }
  });

  it('reads nothing from an empty topic, and refuses a sink that chooses topics per record', async () => {
    const topic = uniqueTopic('reconcile-empty');
    await createTopic(topic, 2);
    const target = new KafkaSink<Row>({
      brokers: BROKERS,
      topic,
      format: KafkaFormats.json<Row>(),
    }).reconcileTarget();
    try {
      expect(await collect(target.written())).toEqual([]);
    } finally {
      await target.close();
    }
    const routed = new KafkaSink<Row>({
      brokers: BROKERS,
      topic: (r) => `${topic}-${r.user}`,
      format: KafkaFormats.json<Row>(),
    });
    expect(() => routed.reconcileTarget()).toThrow(WeirError);
    expect(() => routed.reconcileTarget()).toThrow(/reconcile needs a fixed topic/);
  });
});
