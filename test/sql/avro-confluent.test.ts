/**
 * The SQL `avro-confluent` format over real Kafka and the real schema registry (Apicurio's
 * Confluent-compatible API): rows written by INSERT INTO are Avro records in the Confluent wire
 * format whose schema is registered under `<topic>-value`, and a table over the topic reads
 * them back, also records another writer wrote with an evolved schema.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  KafkaSink,
  RegistryFormats,
  SchemaRegistryClient,
} from '../../src/connectors/kafka/index.js';
import { SqlError, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { BROKERS, createTopic, readAll, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { readBack } from './query-changes.js';

const REGISTRY_URL = `http://127.0.0.1:${process.env.WEIR_REGISTRY_PORT ?? '58081'}/apis/ccompat/v7`;

const bytes = {
  name: 'bytes',
  deserialize: (b: Buffer | undefined) => b ?? null,
  serialize: () => Buffer.alloc(0),
};

describe('the avro-confluent format (real Kafka, real schema registry)', () => {
  beforeAll(() => registerSqlConnectors(externalSqlConnectors));

  it('writes rows in the wire format with the schema registered, and reads them back', async () => {
    const topic = uniqueTopic('sql-avro-confluent');
    await createTopic(topic, 1);
    const options = `'connector' = 'kafka', 'topic' = '${topic}',
      'properties.bootstrap.servers' = '${BROKERS.join(',')}',
      'format' = 'avro-confluent', 'avro-confluent.url' = '${REGISTRY_URL}'`;
    const env = new StreamEnvironment();
    const written = TableEnvironment.create(env).executeSql(`
      CREATE TABLE out_t (name STRING, n BIGINT, price DECIMAL(6, 3), ts TIMESTAMP(3)) WITH (${options});
      INSERT INTO out_t VALUES
        ('a', 1, 1.5, TIMESTAMP '2026-01-01 00:00:01.250'),
        ('b', CAST(NULL AS BIGINT), -0.125, TIMESTAMP '2026-01-01 00:00:02.000');
    `);
    await written.job?.result;

    // The registry holds the derived schema under <topic>-value, and each value names its id.
    const registry = new SchemaRegistryClient({ url: REGISTRY_URL });
    const latest = await registry.subjectVersion(`${topic}-value`, 'latest');
    expect(JSON.parse(latest.schema)).toMatchObject({ type: 'record', name: 'record' });
    let raw: (Buffer | null)[] = [];
    await waitFor('the records', async () => {
      raw = await readAll(topic, bytes);
      return raw.length >= 2;
    });
    for (const value of raw) {
      expect(value?.[0]).toBe(0);
      expect(value?.readInt32BE(1)).toBe(latest.id);
    }

    // Another writer with an evolved schema (a new field with a default): still readable.
    const evolved = RegistryFormats.avro<Record<string, unknown>>({
      registry,
      schema: {
        type: 'record',
        name: 'record',
        fields: [
          { name: 'name', type: ['null', 'string'], default: null },
          { name: 'n', type: ['null', 'long'], default: null },
          {
            name: 'price',
            type: ['null', { type: 'bytes', logicalType: 'decimal', precision: 6, scale: 3 }],
            default: null,
          },
          {
            name: 'ts',
            type: ['null', { type: 'long', logicalType: 'timestamp-millis' }],
            default: null,
          },
          { name: 'extra', type: 'string', default: '' },
        ],
      },
    });
    const other = new StreamEnvironment();
    other
      .fromArray([{ name: 'c', n: 7, price: null, ts: null, extra: 'x' }])
      .sinkTo(new KafkaSink({ brokers: BROKERS, topic, format: evolved }));
    await other.execute('evolved writer');

    const changes = await readBack(
      `CREATE TABLE in_t (name STRING, n BIGINT, price DECIMAL(6, 3), ts TIMESTAMP(3)) WITH (${options},
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')`,
      'SELECT name, n, price, ts FROM in_t',
    );
    expect(changes.map((c) => c.value)).toEqual([
      ['a', 1, 1500n, Date.UTC(2026, 0, 1, 0, 0, 1, 250)],
      ['b', null, -125n, Date.UTC(2026, 0, 1, 0, 0, 2)],
      ['c', 7, null, null],
    ]);
  }, 120_000);

  it('is the value format of an upsert-kafka table: the updates read back as the final table', async () => {
    const topic = uniqueTopic('sql-upsert-avro-confluent');
    await createTopic(topic, 1);
    const options = `'connector' = 'upsert-kafka', 'topic' = '${topic}',
      'properties.bootstrap.servers' = '${BROKERS.join(',')}', 'key.format' = 'json',
      'value.format' = 'avro-confluent', 'value.avro-confluent.url' = '${REGISTRY_URL}'`;
    const env = new StreamEnvironment();
    const wEnv = TableEnvironment.create(env);
    wEnv.fromDataStream(
      'src',
      env.fromArray([
        [1, 10],
        [2, 5],
        [1, 7],
        [3, 1],
      ]),
      {
        columns: [
          { name: 'id', type: 'INT' },
          { name: 'v', type: 'BIGINT' },
        ],
      },
    );
    const written = wEnv.executeSql(`
      CREATE TABLE acc (id INT, total BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (${options});
      INSERT INTO acc SELECT id, SUM(v) FROM src GROUP BY id;
    `);
    await written.job?.result;
    const changes = await readBack(
      `CREATE TABLE acc_in (id INT, total BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (${options},
        'scan.bounded.mode' = 'latest-offset')`,
      'SELECT * FROM acc_in',
    );
    const table = new Map<number, unknown>();
    for (const c of changes) {
      if (c.kind === '-D') table.delete(c.value[0] as number);
      else if (c.kind !== '-U') table.set(c.value[0] as number, c.value[1]);
    }
    expect([...table].sort()).toEqual([
      [1, 17],
      [2, 5],
      [3, 1],
    ]);
  }, 120_000);

  it('keeps BIGINT exact over the whole 64-bit range, both ways', async () => {
    const topic = uniqueTopic('sql-avro-confluent-longs');
    await createTopic(topic, 1);
    const options = `'connector' = 'kafka', 'topic' = '${topic}',
      'properties.bootstrap.servers' = '${BROKERS.join(',')}',
      'format' = 'avro-confluent', 'avro-confluent.url' = '${REGISTRY_URL}'`;
    const longs = [
      2n ** 63n - 1n,
      -(2n ** 63n),
      2n ** 53n + 1n,
      -(2n ** 53n) - 1n,
      1234567890123456789n,
      9007199254740991n,
      0n,
    ];
    // SQL writes them from literals (NOT NULL: the field is a plain `long`, no union).
    const written = TableEnvironment.create(new StreamEnvironment()).executeSql(`
      CREATE TABLE out_t (n BIGINT NOT NULL) WITH (${options});
      INSERT INTO out_t VALUES ${longs.map((n) => `(CAST(${n} AS BIGINT))`).join(', ')};
    `);
    await written.job?.result;
    // A DataStream writer with exact longs writes them again, as bigints and numbers.
    const registry = new SchemaRegistryClient({ url: REGISTRY_URL });
    const exact = RegistryFormats.avro<{ n: bigint | number }>({
      registry,
      schema: { type: 'record', name: 'record', fields: [{ name: 'n', type: 'long' }] },
      longs: 'exact',
    });
    const other = new StreamEnvironment();
    other
      .fromArray(longs.map((n) => ({ n: Number.isSafeInteger(Number(n)) ? Number(n) : n })))
      .sinkTo(new KafkaSink({ brokers: BROKERS, topic, format: exact }));
    await other.execute('exact long writer');

    // The bytes, read without Avro code: magic byte, schema id, the zig-zag varint of the long.
    let raw: (Buffer | null)[] = [];
    await waitFor('the records', async () => {
      raw = await readAll(topic, bytes);
      return raw.length >= 2 * longs.length;
    });
    const zigzag = (value: Buffer): bigint => {
      let n = 0n;
      let shift = 0n;
      for (let i = 5; i < value.length; i++) {
        const byte = value[i] as number;
        n |= BigInt(byte & 0x7f) << shift;
        shift += 7n;
      }
      return (n >> 1n) ^ -(n & 1n);
    };
    expect(raw.map((v) => zigzag(v as Buffer))).toEqual([...longs, ...longs]);

    const changes = await readBack(
      `CREATE TABLE in_t (n BIGINT NOT NULL) WITH (${options},
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')`,
      'SELECT n, n - 1, CAST(n AS STRING) FROM in_t',
    );
    const asRow = (n: bigint) => [
      Number.isSafeInteger(Number(n)) ? Number(n) : n,
      BigInt.asIntN(64, n - 1n),
      String(n),
    ];
    expect(
      changes.map((c) => c.value.map((v, i) => (i === 1 ? BigInt(v as bigint | number) : v))),
    ).toEqual([...longs, ...longs].map(asRow));
  }, 120_000);

  it('needs the registry URL, named as Flink names the option', () => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    expect(() =>
      tEnv.executeSql(`CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'topic' = 't',
        'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'avro-confluent')`),
    ).toThrow(SqlError);
    expect(() =>
      tEnv.executeSql(`CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'topic' = 't',
        'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'avro-confluent')`),
    ).toThrow(/avro-confluent\.url/);
  });
});
