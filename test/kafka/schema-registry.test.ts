/**
 * Schema registry formats against a real registry (scripts/registry.sh:
 * Apicurio Registry's Confluent-compatible API) and the test broker:
 * round trips, schema evolution, caching, bad framing, subject naming, and
 * plain Protobuf.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import avro from 'avsc';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  type AvroSchema,
  type KafkaBadRecordPolicy,
  type KafkaConsumerRecord,
  type KafkaFormat,
  KafkaFormats,
  KafkaSink,
  KafkaSource,
  RegistryFormats,
  SchemaRegistryClient,
} from '../../src/connectors/kafka/index.js';
import { CollectSink, StreamEnvironment, WeirError } from '../../src/index.js';
import { BROKERS, createTopic, produce, readAll, uniqueTopic, waitFor } from './helpers.js';

const REGISTRY_URL = `http://127.0.0.1:${process.env.WEIR_REGISTRY_PORT ?? '58081'}/apis/ccompat/v7`;

const registryClient = () => new SchemaRegistryClient({ url: REGISTRY_URL });

/** Writes `values` to `topic` through a job with a Kafka sink. */
async function write<T>(
  topic: string,
  format: KafkaFormat<T>,
  values: readonly T[],
): Promise<void> {
  const env = new StreamEnvironment();
  env.fromArray([...values]).sinkTo(new KafkaSink<T>({ brokers: BROKERS, topic, format }));
  await env.execute('write');
}

/** Reads `topic` to its end under `onError`: what passed. */
async function read<T>(
  topic: string,
  format: KafkaFormat<T>,
  onError: KafkaBadRecordPolicy = 'fail',
): Promise<T[]> {
  const env = new StreamEnvironment();
  const sink = new CollectSink<T>();
  env
    .fromSource(
      new KafkaSource<T>({ brokers: BROKERS, topics: [topic], format, onError, stopAt: 'latest' }),
    )
    .sinkTo(sink);
  await env.execute('read');
  return sink.values;
}

const raw = (topic: string) =>
  readAll<KafkaConsumerRecord['value']>(
    topic,
    KafkaFormats.bytes() as KafkaFormat<Buffer | undefined>,
  );

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

interface OrderV1 {
  readonly id: number;
  readonly item: string;
}
interface OrderV2 extends OrderV1 {
  readonly qty: number;
}

const orderV1: AvroSchema = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'int' },
    { name: 'item', type: 'string' },
  ],
};
const orderV2: AvroSchema = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'int' },
    { name: 'item', type: 'string' },
    { name: 'qty', type: 'int', default: 1 },
  ],
};
/** Cannot read v1 data: `qty` has no default. */
const orderNoDefault: AvroSchema = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'int' },
    { name: 'item', type: 'string' },
    { name: 'qty', type: 'int' },
  ],
};

const orders: OrderV1[] = Array.from({ length: 20 }, (_, id) => ({ id, item: `item-${id}` }));

const PROTO = `
syntax = "proto3";
package shop.v1;

message Header { string source = 1; }

message Payment {
  enum Method { CARD = 0; CASH = 1; }
  message Line { string sku = 1; int64 cents = 2; }
  int32 id = 1;
  Method method = 2;
  repeated Line lines = 3;
  Header header = 4;
}
`;

interface Payment {
  readonly id: number;
  readonly method: 'CARD' | 'CASH';
  readonly lines: { readonly sku: string; readonly cents: number }[];
  readonly header: { readonly source: string } | null;
}

const payments: Payment[] = Array.from({ length: 10 }, (_, id) => ({
  id,
  method: id % 2 === 0 ? 'CARD' : 'CASH',
  lines: [{ sku: `s${id}`, cents: 2 ** 40 + id }],
  header: { source: 'pos' },
}));

// Each test runs several jobs against the broker and the registry: generous for a busy machine.
describe('schema registry formats', { timeout: 120_000 }, () => {
  it('round-trips Avro through the registry in the Confluent wire format', async () => {
    const topic = uniqueTopic('sr-avro');
    await createTopic(topic, 2);
    const registry = registryClient();
    const format = RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 });
    await write(topic, format, orders);

    const registered = await registry.subjectVersion(`${topic}-value`, 'latest');
    expect(registered.schemaType).toBe('AVRO');
    const bytes = (await raw(topic)) as Buffer[];
    expect(bytes).toHaveLength(20);
    for (const b of bytes) {
      expect(b[0]).toBe(0);
      expect(b.readUInt32BE(1)).toBe(registered.id);
    }
    const got = await read(topic, RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }));
    expect([...got].sort((a, b) => a.id - b.id)).toEqual(orders);
    // Without a reader schema, records decode with their writer schema.
    const asWritten = await read(
      topic,
      RegistryFormats.avro<OrderV1>({ registry: registryClient() }),
    );
    expect(asWritten).toHaveLength(20);
  });

  it('round-trips Protobuf (nested message, message indexes) through the registry', async () => {
    const topic = uniqueTopic('sr-proto');
    const registry = registryClient();
    const format = RegistryFormats.protobuf<Payment>({
      registry,
      schema: PROTO,
      messageName: 'Payment',
    });
    await write(topic, format, payments);
    const bytes = (await raw(topic)) as Buffer[];
    // Payment is the second message of the file: indexes [1], a count 1 and index 1, zigzag-encoded.
    for (const b of bytes) expect([...b.subarray(5, 7)]).toEqual([2, 2]);
    const got = await read(
      topic,
      RegistryFormats.protobuf<Payment>({ registry: registryClient() }),
    );
    expect(got).toEqual(payments);

    // A nested message type written by another writer: indexes [1, 0].
    const lines = uniqueTopic('sr-proto-lines');
    await write(
      lines,
      RegistryFormats.protobuf<{ sku: string; cents: number }>({
        registry,
        schema: PROTO,
        messageName: 'Payment.Line',
      }),
      [{ sku: 'a', cents: 5 }],
    );
    const [line] = (await raw(lines)) as Buffer[];
    expect([...line!.subarray(5, 8)]).toEqual([4, 2, 0]);
    expect(await read(lines, RegistryFormats.protobuf({ registry }))).toEqual([
      { sku: 'a', cents: 5 },
    ]);
  });

  it('round-trips JSON Schema, validating writes and (optionally) reads', async () => {
    const topic = uniqueTopic('sr-json');
    const registry = registryClient();
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'Reading',
      type: 'object',
      properties: { sensor: { type: 'string' }, value: { type: 'number' } },
      required: ['sensor', 'value'],
      additionalProperties: false,
    };
    const readings = [
      { sensor: 'a', value: 1.5 },
      { sensor: 'b', value: -2 },
    ];
    await write(topic, RegistryFormats.jsonSchema({ registry, schema }), readings);
    const got = await read(
      topic,
      RegistryFormats.jsonSchema({ registry: registryClient(), validateReads: true }),
    );
    expect(got).toEqual(readings);

    // A writer refuses what its schema does not accept, naming the field.
    const env = new StreamEnvironment();
    env.fromArray([{ sensor: 'c' }]).sinkTo(
      new KafkaSink({
        brokers: BROKERS,
        topic,
        format: RegistryFormats.jsonSchema({ registry, schema }),
      }),
    );
    await expect(env.execute('invalid')).rejects.toThrow(/must have required property 'value'/);
  });

  it('resolves old data into a newer reader schema, and reports a reader that cannot read it', async () => {
    const topic = uniqueTopic('sr-evolve');
    const registry = registryClient();
    await write(topic, RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }), orders);

    const evolved = await read(topic, RegistryFormats.avro<OrderV2>({ registry, schema: orderV2 }));
    expect(evolved.sort((a, b) => a.id - b.id)).toEqual(orders.map((o) => ({ ...o, qty: 1 })));

    const failed = read(topic, RegistryFormats.avro<OrderV2>({ registry, schema: orderNoDefault }));
    await expect(failed).rejects.toBeInstanceOf(WeirError);
    await expect(failed).rejects.toMatchObject({ code: 'BAD_RECORD' });
    await expect(failed).rejects.toThrow(
      /the reader schema shop\.Order cannot read data written with schema id \d+ \(shop\.Order\)/,
    );
  });

  it('sends only the records whose writer schema the reader cannot read to the dead letter topic', async () => {
    const topic = uniqueTopic('sr-mixed');
    const dlq = uniqueTopic('sr-mixed-dlq');
    const registry = registryClient();
    // The subject allows any change, so an incompatible writer can register.
    await registry.register(`${topic}-value`, {
      schemaType: 'AVRO',
      schema: JSON.stringify(orderV1),
    });
    await registry.setCompatibility(`${topic}-value`, 'NONE');
    await write(
      topic,
      RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }),
      orders.slice(0, 3),
    );
    const itemIsNumber: AvroSchema = {
      type: 'record',
      name: 'Order',
      namespace: 'shop',
      fields: [
        { name: 'id', type: 'int' },
        { name: 'item', type: 'long' },
      ],
    };
    await write(topic, RegistryFormats.avro({ registry, schema: itemIsNumber }), [
      { id: 100, item: 7 },
    ]);

    const got = await read(topic, RegistryFormats.avro<OrderV2>({ registry, schema: orderV2 }), {
      deadLetterTopic: dlq,
    });
    expect(got.map((o) => o.id)).toEqual([0, 1, 2]);
    const [letter, ...more] = await letters(dlq);
    expect(more).toHaveLength(0);
    expect(headersOf(letter!)['weir.offset']).toBe('3');
    expect(headersOf(letter!)['weir.error']).toMatch(
      /the reader schema shop\.Order cannot read data written with schema id \d+ \(shop\.Order\): cannot read "long" as "string"/,
    );
  });

  it('in a consumer group, holds records in order while their writer schemas are looked up', async () => {
    const topic = uniqueTopic('sr-group');
    const registry = registryClient();
    await registry.register(`${topic}-value`, {
      schemaType: 'AVRO',
      schema: JSON.stringify(orderV1),
    });
    await registry.setCompatibility(`${topic}-value`, 'NONE');
    const v1 = RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 });
    const v2 = RegistryFormats.avro<OrderV2>({ registry, schema: orderV2 });
    // Alternating writer schemas: each new id is met mid-stream.
    await write(topic, v1, orders.slice(0, 5));
    await write(
      topic,
      v2,
      orders.slice(5, 10).map((o) => ({ ...o, qty: 7 })),
    );
    await write(topic, v1, orders.slice(10, 15));

    const env = new StreamEnvironment();
    const sink = new CollectSink<OrderV2>();
    env
      .fromSource(
        new KafkaSource<OrderV2>({
          brokers: BROKERS,
          topics: [topic],
          format: RegistryFormats.avro<OrderV2>({ registry: registryClient(), schema: orderV2 }),
          mode: 'group',
          groupId: uniqueTopic('sr-group-id'),
          fetchMaxWaitMs: 50,
        }),
      )
      .sinkTo(sink);
    const client = env.executeAsync('group read');
    try {
      await waitFor('every record', () => sink.values.length >= 15, 40_000);
      expect(sink.values).toEqual(
        orders.slice(0, 15).map((o) => ({ ...o, qty: o.id >= 5 && o.id < 10 ? 7 : 1 })),
      );
    } finally {
      await client.cancel();
    }
  });

  it('reads records whose writer schemas reference other subjects (Avro named types, Protobuf imports)', async () => {
    const topic = uniqueTopic('sr-refs');
    const registry = registryClient();
    const itemSubject = `${topic}-item`;
    await registry.register(itemSubject, {
      schemaType: 'AVRO',
      schema: JSON.stringify({
        type: 'record',
        name: 'Item',
        namespace: 'shop',
        fields: [{ name: 'sku', type: 'string' }],
      }),
    });
    const lineSchema = {
      type: 'record',
      name: 'Line',
      namespace: 'shop',
      fields: [
        { name: 'item', type: 'shop.Item' },
        { name: 'qty', type: 'int' },
      ],
    };
    const avroId = await registry.register(`${topic}-value`, {
      schemaType: 'AVRO',
      schema: JSON.stringify(lineSchema),
      references: [{ name: 'shop.Item', subject: itemSubject, version: 1 }],
    });
    // What a Java producer with the referenced type compiled in would write.
    const typeRegistry = {};
    avro.Type.forSchema(
      {
        type: 'record',
        name: 'Item',
        namespace: 'shop',
        fields: [{ name: 'sku', type: 'string' }],
      },
      { registry: typeRegistry },
    );
    const lineType = avro.Type.forSchema(lineSchema as AvroSchema, { registry: typeRegistry });
    const frame = (id: number, body: Buffer) => {
      const header = Buffer.from([0, 0, 0, 0, 0]);
      header.writeUInt32BE(id, 1);
      return Buffer.concat([header, body]);
    };
    const line = { item: { sku: 'a-1' }, qty: 2 };
    await createTopic(topic, 1);
    await produce(topic, [{ value: frame(avroId, lineType.toBuffer(line)) }]);
    expect(await read(topic, RegistryFormats.avro({ registry }))).toEqual([line]);

    const protoTopic = uniqueTopic('sr-refs-proto');
    const money =
      'syntax = "proto3";\npackage shop;\nmessage Money { int64 cents = 1; string currency = 2; }\n';
    const price =
      'syntax = "proto3";\npackage shop;\nimport "shop/money.proto";\nmessage Note { string text = 1; }\nmessage Price { Money amount = 1; Note note = 2; }\n';
    await registry.register(`${protoTopic}-money`, { schemaType: 'PROTOBUF', schema: money });
    const protoId = await registry.register(`${protoTopic}-value`, {
      schemaType: 'PROTOBUF',
      schema: price,
      references: [{ name: 'shop/money.proto', subject: `${protoTopic}-money`, version: 1 }],
    });
    const root = new protobuf.Root();
    protobuf.parse(money, root, { keepCase: true });
    protobuf.parse(price, root, { keepCase: true });
    const Price = root.lookupType('shop.Price');
    const body = Price.encode(
      Price.fromObject({ amount: { cents: 250, currency: 'EUR' }, note: { text: 'sale' } }),
    ).finish();
    // Price is the second message of its own file (Money, imported, does not count): indexes [1].
    await createTopic(protoTopic, 1);
    await produce(protoTopic, [
      { value: frame(protoId, Buffer.concat([Buffer.from([2, 2]), body])) },
    ]);
    expect(await read(protoTopic, RegistryFormats.protobuf({ registry }))).toEqual([
      { amount: { cents: 250, currency: 'EUR' }, note: { text: 'sale' } },
    ]);
  });

  it('looks each schema id up once per client: a second reader makes no more requests', async () => {
    const topic = uniqueTopic('sr-cache');
    await createTopic(topic, 3);
    const writer = registryClient();
    await write(
      topic,
      RegistryFormats.avro<OrderV1>({ registry: writer, schema: orderV1 }),
      orders,
    );
    expect(writer.requests).toBe(1); // one registration, shared by the sink's subtasks

    const registry = registryClient();
    expect(
      await read(topic, RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 })),
    ).toHaveLength(20);
    expect(registry.requests).toBe(1); // one id, looked up once for 3 partitions and 20 records
    expect(
      await read(topic, RegistryFormats.avro<OrderV1>({ registry, schema: orderV2 })),
    ).toHaveLength(20);
    expect(registry.requests).toBe(1);
  });

  it('sends a wrong magic byte and an unknown schema id to the dead letter topic, naming the offset', async () => {
    const topic = uniqueTopic('sr-bad');
    const dlq = uniqueTopic('sr-bad-dlq');
    const registry = registryClient();
    await write(
      topic,
      RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }),
      orders.slice(0, 2),
    );
    const unknownId = Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0, 2, 2, 0x61]);
    await produce(topic, [{ value: Buffer.from('{"id":9}') }, { value: unknownId }]);
    await write(
      topic,
      RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }),
      orders.slice(2, 3),
    );

    const got = await read(topic, RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }), {
      deadLetterTopic: dlq,
    });
    expect(got.map((o) => o.id)).toEqual([0, 1, 2]);
    const dead = await letters(dlq);
    expect(dead.map((r) => headersOf(r)['weir.offset'])).toEqual(['2', '3']);
    expect(headersOf(dead[0]!)['weir.error']).toMatch(/magic byte 123, expected 0/);
    expect(headersOf(dead[1]!)['weir.error']).toMatch(
      new RegExp(`schema id ${0x7ffffff0} is not in the registry http://127\\.0\\.0\\.1`),
    );
    expect(dead[1]!.value).toEqual(unknownId);

    // Under the default policy the job fails, naming where the record is.
    const failed = read(topic, RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }));
    await expect(failed).rejects.toMatchObject({ code: 'BAD_RECORD' });
    await expect(failed).rejects.toThrow(/partition 0 at offset 2/);
  });

  it('names subjects by topic, record or topic and record', async () => {
    const topic = uniqueTopic('sr-subjects');
    const registry = registryClient();
    const record = `shop.rec${Date.now().toString(36)}`;
    const schema: AvroSchema = {
      ...(orderV1 as object),
      name: record.split('.')[1]!,
      namespace: 'shop',
    } as AvroSchema;
    await write(
      topic,
      RegistryFormats.avro<OrderV1>({ registry, schema, subjectNameStrategy: 'record' }),
      orders.slice(0, 1),
    );
    await write(
      topic,
      RegistryFormats.avro<OrderV1>({ registry, schema, subjectNameStrategy: 'topic-record' }),
      orders.slice(1, 2),
    );
    const byRecord = await registry.subjectVersion(record, 'latest');
    const byTopicRecord = await registry.subjectVersion(`${topic}-${record}`, 'latest');
    expect(byTopicRecord.id).toBe(byRecord.id);
    await expect(registry.subjectVersion(`${topic}-value`, 'latest')).rejects.toMatchObject({
      status: 404,
    });
    expect(await read(topic, RegistryFormats.avro<OrderV1>({ registry }))).toEqual(
      orders.slice(0, 2),
    );
  });

  it('writes with a registered version without registering, and fails clearly when the subject has none', async () => {
    const topic = uniqueTopic('sr-version');
    const registry = registryClient();
    const id = await registry.register(`${topic}-value`, {
      schemaType: 'AVRO',
      schema: JSON.stringify(orderV2),
    });
    await write(topic, RegistryFormats.avro<OrderV2>({ registry, useVersion: 'latest' }), [
      { id: 1, item: 'x', qty: 3 },
    ]);
    const [bytes] = (await raw(topic)) as Buffer[];
    expect(bytes!.readUInt32BE(1)).toBe(id);

    const missing = uniqueTopic('sr-missing');
    const env = new StreamEnvironment();
    env.fromArray(orders).sinkTo(
      new KafkaSink<OrderV1>({
        brokers: BROKERS,
        topic: missing,
        format: RegistryFormats.avro<OrderV1>({ registry, schema: orderV1, autoRegister: false }),
      }),
    );
    const failed = env.execute('unregistered');
    await expect(failed).rejects.toMatchObject({ code: 'SINK_FAILED' });
    await expect(failed).rejects.toThrow(
      new RegExp(
        `cannot find the schema \\(autoRegister is off\\) in subject '${missing}-value': schema registry http://127\\.0\\.0\\.1:\\d+/apis/ccompat/v7: .*HTTP 404`,
      ),
    );
  });

  it('tests compatibility, and a sink whose schema the subject refuses fails naming it', async () => {
    const topic = uniqueTopic('sr-incompatible');
    const subject = `${topic}-value`;
    const registry = registryClient();
    await registry.register(subject, { schemaType: 'AVRO', schema: JSON.stringify(orderV1) });
    await registry.setCompatibility(subject, 'BACKWARD');
    const compatible = await registry.testCompatibility(subject, {
      schemaType: 'AVRO',
      schema: JSON.stringify(orderV2),
    });
    expect(compatible).toEqual({ compatible: true, messages: expect.any(Array) });
    const refused = await registry.testCompatibility(subject, {
      schemaType: 'AVRO',
      schema: JSON.stringify(orderNoDefault),
    });
    expect(refused.compatible).toBe(false);

    const env = new StreamEnvironment();
    env.fromArray(orders).sinkTo(
      new KafkaSink<OrderV1>({
        brokers: BROKERS,
        topic,
        format: RegistryFormats.avro<OrderV1>({ registry, schema: orderNoDefault }),
      }),
    );
    const failed = env.execute('incompatible');
    await expect(failed).rejects.toMatchObject({ code: 'SINK_FAILED', retriable: false });
    await expect(failed).rejects.toThrow(
      new RegExp(
        `cannot register the schema under subject '${subject}': schema registry .*HTTP 409`,
      ),
    );
  });

  it('refuses a writer format shared by sinks of two subjects, and a per-record topic without a subject', async () => {
    const registry = registryClient();
    const shared = RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 });
    const a = uniqueTopic('sr-shared-a');
    await shared.prepareToWrite!(a);
    await expect(shared.prepareToWrite!(a)).resolves.toBeUndefined();
    await expect(shared.prepareToWrite!(uniqueTopic('sr-shared-b'))).rejects.toThrow(
      new RegExp(
        `writes under subject '${a}-value' and cannot also write under .*give each sink its own format`,
      ),
    );

    const env = new StreamEnvironment();
    env.fromArray(orders).sinkTo(
      new KafkaSink<OrderV1>({
        brokers: BROKERS,
        topic: () => uniqueTopic('sr-per-record'),
        format: RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }),
      }),
    );
    await expect(env.execute('per-record topics')).rejects.toThrow(
      /subject name strategy 'topic' needs the topic: write to one fixed topic, or give the format a 'topic' or a 'subject'/,
    );
  });

  it('speaks TLS with a private CA and basic auth (an HTTPS proxy in front of the registry)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weir-registry-tls-'));
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const cert = await readFile(certFile);
    const expected = `Basic ${Buffer.from('weir:pa55word').toString('base64')}`;
    const upstream = new URL(REGISTRY_URL);
    const proxy = https.createServer({ key: await readFile(keyFile), cert }, (req, res) => {
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error_code: 40101, message: 'Unauthorized' }));
        return;
      }
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as AddressInfo).port;
    const url = `https://127.0.0.1:${port}/apis/ccompat/v7`;
    try {
      const registry = new SchemaRegistryClient({
        url,
        auth: { username: 'weir', password: 'pa55word' },
        tls: { ca: cert },
      });
      const topic = uniqueTopic('sr-tls');
      await write(
        topic,
        RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }),
        orders.slice(0, 3),
      );
      expect(await read(topic, RegistryFormats.avro<OrderV1>({ registry }))).toEqual(
        orders.slice(0, 3),
      );

      // The server's certificate is not trusted without the CA: not retried, named.
      const untrusted = new SchemaRegistryClient({
        url,
        auth: { username: 'weir', password: 'pa55word' },
      });
      await expect(untrusted.schemaById(1)).rejects.toThrow(
        new RegExp(`schema registry ${url.replace(/\./g, '\\.')}: schema id 1: .*certificate`),
      );
      // A wrong password is refused; the message does not show it.
      const refused = new SchemaRegistryClient({
        url,
        auth: { username: 'weir', password: 'wrong-pw' },
        tls: { ca: cert },
      });
      const err = (await refused.schemaById(1).then(
        () => new Error('resolved'),
        (e: unknown) => e,
      )) as Error;
      expect(err.message).toMatch(/HTTP 401 \(error 40101\): Unauthorized/);
      expect(err.message).not.toContain('wrong-pw');
    } finally {
      await new Promise((r) => proxy.close(r));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails the source (retriable) when the registry cannot be reached, naming it and the id', async () => {
    const topic = uniqueTopic('sr-away');
    const registry = registryClient();
    await write(
      topic,
      RegistryFormats.avro<OrderV1>({ registry, schema: orderV1 }),
      orders.slice(0, 1),
    );
    const id = (await registry.subjectVersion(`${topic}-value`, 'latest')).id;
    const away = new SchemaRegistryClient({ url: 'http://127.0.0.1:19298', retryForMs: 1_000 });
    const failed = read(topic, RegistryFormats.avro<OrderV1>({ registry: away }));
    await expect(failed).rejects.toMatchObject({ code: 'SOURCE_FAILED', retriable: true });
    await expect(failed).rejects.toThrow(
      new RegExp(
        `avro: cannot look up the writer schema: schema registry http://127\\.0\\.0\\.1:19298: schema id ${id}: .*ECONNREFUSED.*\\(retried for \\d+ ms\\)`,
      ),
    );
    expect(away.requests).toBeGreaterThan(1);
  });

  it('never shows the password in errors', async () => {
    const registry = new SchemaRegistryClient({
      url: 'http://127.0.0.1:19299/',
      auth: { username: 'weir', password: 's3cret-pw' },
      retryForMs: 0,
      requestTimeoutMs: 2_000,
    });
    const err = (await registry.schemaById(1).then(
      () => new Error('resolved'),
      (e: unknown) => e,
    )) as Error;
    expect(err.message).toMatch(/schema registry http:\/\/127\.0\.0\.1:19299: schema id 1: /);
    expect(err.message).not.toContain('s3cret');
    const inUrl = new SchemaRegistryClient({
      url: 'http://weir:s3cret-pw@127.0.0.1:19299',
      retryForMs: 0,
    });
    expect(inUrl.url).toBe('http://127.0.0.1:19299');
  });
});

describe('plain Protobuf format', { timeout: 120_000 }, () => {
  it('round-trips messages from .proto text and from a descriptor', async () => {
    const topic = uniqueTopic('proto-plain');
    const format = KafkaFormats.protobuf<Payment>({ proto: PROTO, messageType: 'shop.v1.Payment' });
    await write(topic, format, payments);
    expect(await read(topic, format)).toEqual(payments);

    const descriptor = {
      nested: {
        Point: {
          fields: { x: { type: 'sint64', id: 1 }, label: { type: 'string', id: 2 } },
        },
      },
    };
    const points = uniqueTopic('proto-desc');
    const pointFormat = KafkaFormats.protobuf<{ x: string; label: string }>({
      proto: descriptor,
      messageType: 'Point',
      longs: 'string',
    });
    await write(points, pointFormat, [{ x: '-9007199254740993', label: 'far' }]);
    expect(await read(points, pointFormat)).toEqual([{ x: '-9007199254740993', label: 'far' }]);

    // Google's well-known types come with the format, for writers and readers.
    const events = uniqueTopic('proto-wkt');
    const wkt =
      'syntax = "proto3";\npackage shop;\nimport "google/protobuf/timestamp.proto";\nmessage Ev { google.protobuf.Timestamp at = 1; string id = 2; }\n';
    const ev = { at: { seconds: 1_700_000_000, nanos: 5 }, id: 'e1' };
    await write(events, KafkaFormats.protobuf({ proto: wkt }), [ev]);
    expect(await read(events, KafkaFormats.protobuf({ proto: wkt }))).toEqual([ev]);
    const registered = uniqueTopic('proto-wkt-registry');
    const registry = registryClient();
    await write(registered, RegistryFormats.protobuf({ registry, schema: wkt }), [ev]);
    expect(
      await read(registered, RegistryFormats.protobuf({ registry: registryClient() })),
    ).toEqual([ev]);

    // Bytes that are not a Payment are bad records.
    await produce(topic, [{ value: Buffer.from([0xff, 0xff, 0xff]) }]);
    await expect(read(topic, format)).rejects.toThrow(/protobuf: the value cannot be decoded/);
  });
});
