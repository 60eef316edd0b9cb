/**
 * Flink's debezium-json METADATA (DebeziumJsonDecodingFormat.ReadableMetadata): `value.schema`,
 * `value.ingestion-timestamp`, `value.source.timestamp`, `value.source.database`,
 * `value.source.schema`, `value.source.table` and `value.source.properties` of a `kafka` table.
 * DebeziumJsonSerDeSchemaTest's testDeserializationWithMetadata is ported with the first record
 * of each of its data files; then the same through a table's SQL (its planned decoder; no broker).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KafkaConsumerRecord } from '../../src/connectors/kafka/index.js';
import type { Change } from '../../src/core/changelog.js';
import { CollectSink, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import type { Row } from '../../src/sql/connectors/connector.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import {
  DEBEZIUM_METADATA,
  type DebeziumMetadataKey,
  debeziumJsonFormat,
} from '../../src/sql/connectors/formats/debezium-json.js';
import type { FormatColumn } from '../../src/sql/connectors/formats/format-types.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { graphOf } from '../../src/sql/planner/changelog-plan.js';
import { T } from '../../src/sql/types/logical-type.js';

beforeAll(() => registerSqlConnectors(externalSqlConnectors));

/** The schema of each record of Flink's debezium-data-schema-include.txt (a MySQL source). */
const SCHEMA =
  '{"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},{"type":"string","optional":false,"field":"name"},{"type":"string","optional":true,"field":"description"},{"type":"double","optional":true,"field":"weight"}],"optional":true,"name":"dbserver1.inventory.products.Value","field":"before"}],"optional":false,"name":"dbserver1.inventory.products.Envelope"}';

/** The payload of the first record of debezium-data-schema-include.txt. */
const MYSQL_PAYLOAD =
  '{"before":null,"after":{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.140000104904175},"source":{"version":"1.1.1.Final","connector":"mysql","name":"dbserver1","ts_ms":0,"snapshot":"true","db":"inventory","table":"products","server_id":0,"gtid":null,"file":"mysql-bin.000003","pos":154,"row":0,"thread":null,"query":null},"op":"c","ts_ms":1589355606100,"transaction":null}';

/** The first record of debezium-data-schema-include.txt. */
const MYSQL_WITH_SCHEMA = `{"schema":${SCHEMA},"payload":${MYSQL_PAYLOAD}}`;

/** The first record of debezium-data-schema-exclude.txt: the same payload, unwrapped. */
const MYSQL_WITHOUT_SCHEMA = MYSQL_PAYLOAD;

/** The first and tenth records of debezium-postgres-data-schema-exclude.txt. */
const POSTGRES_READ =
  '{"before":null,"after":{"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.14},"source":{"version":"1.2.1.Final","connector":"postgresql","name":"fullfillment","ts_ms":1596001099434,"snapshot":"true","db":"postgres","schema":"inventory","table":"products","txId":601,"lsn":34078720,"xmin":null},"op":"r","ts_ms":1596001099434,"transaction":null}';
const POSTGRES_UPDATE =
  '{"before":{"id":106,"name":"hammer","description":"16oz carpenter\'s hammer","weight":1.0},"after":{"id":106,"name":"hammer","description":"18oz carpenter hammer","weight":1.0},"source":{"version":"1.2.1.Final","connector":"postgresql","name":"fullfillment","ts_ms":1596010889629,"snapshot":"false","db":"postgres","schema":"inventory","table":"products","txId":602,"lsn":34131104,"xmin":null},"op":"u","ts_ms":1596010890411,"transaction":null}';

/** Flink's PHYSICAL_DATA_TYPE: id INT NOT NULL, name, description, weight FLOAT. */
const PRODUCT: readonly FormatColumn[] = [
  { name: 'id', type: T.int('INTEGER', false) },
  { name: 'name', type: T.string() },
  { name: 'description', type: T.string() },
  { name: 'weight', type: { kind: 'FLOAT', nullable: true } },
];

/** Every key, in Flink's ReadableMetadata order (the test reads them all). */
const ALL_KEYS = Object.keys(DEBEZIUM_METADATA) as DebeziumMetadataKey[];

/** The one change of `line`, read with every metadata key. */
function readWithMetadata(line: string, schemaInclude: boolean): Row {
  const format = debeziumJsonFormat(PRODUCT, { schemaInclude, metadata: ALL_KEYS });
  const changes = format.decode(Buffer.from(line, 'utf8'));
  expect(changes).toHaveLength(1);
  expect(changes[0]?.kind).toBe('+I');
  return changes[0]?.value as Row;
}

describe('debezium-json METADATA: DebeziumJsonSerDeSchemaTest.testDeserializationWithMetadata', () => {
  it("the keys and types of Flink's ReadableMetadata", () => {
    expect(Object.entries(DEBEZIUM_METADATA).map(([k, m]) => `${k} ${m.type}`)).toEqual([
      'schema STRING',
      'ingestion-timestamp TIMESTAMP_LTZ(3)',
      'source.timestamp TIMESTAMP_LTZ(3)',
      'source.database STRING',
      'source.schema STRING',
      'source.table STRING',
      'source.properties MAP<STRING, STRING>',
    ]);
  });

  it("debezium-data-schema-include.txt: the schema is the record's `schema` as JSON text", () => {
    const row = readWithMetadata(MYSQL_WITH_SCHEMA, true);
    expect(row.slice(0, 4)).toEqual([101, 'scooter', 'Small 2-wheel scooter', Math.fround(3.14)]);
    expect(row[4]).toBe(SCHEMA);
    expect(String(row[4])).toMatch(
      /^\{"type":"struct","fields":\[\{"type":"struct","fields":\[\{"type":"int32","optional":false,"field":"id"\},/,
    );
    expect(row.slice(5, 10)).toEqual([1589355606100, 0, 'inventory', null, 'products']);
    const properties = row[10] as Map<string, string | null>;
    expect(properties.size).toBe(14);
    expect(properties.get('connector')).toBe('mysql');
    expect(properties.get('pos')).toBe('154');
    expect(properties.get('gtid')).toBeNull();
  });

  it('debezium-data-schema-exclude.txt: no schema; the rest as with it', () => {
    const row = readWithMetadata(MYSQL_WITHOUT_SCHEMA, false);
    expect(row.slice(0, 10)).toEqual([
      101,
      'scooter',
      'Small 2-wheel scooter',
      Math.fround(3.14),
      null,
      1589355606100,
      0,
      'inventory',
      null,
      'products',
    ]);
    expect((row[10] as Map<string, unknown>).size).toBe(14);
  });

  it('debezium-postgres-data-schema-exclude.txt: a PostgreSQL source has a schema', () => {
    const row = readWithMetadata(POSTGRES_READ, false);
    expect(row.slice(0, 10)).toEqual([
      101,
      'scooter',
      'Small 2-wheel scooter',
      Math.fround(3.14),
      null,
      1596001099434,
      1596001099434,
      'postgres',
      'inventory',
      'products',
    ]);
    expect(row[10]).toEqual(
      new Map([
        ['version', '1.2.1.Final'],
        ['connector', 'postgresql'],
        ['name', 'fullfillment'],
        ['ts_ms', '1596001099434'],
        ['snapshot', 'true'],
        ['db', 'postgres'],
        ['schema', 'inventory'],
        ['table', 'products'],
        ['txId', '601'],
        ['lsn', '34078720'],
        ['xmin', null],
      ]),
    );
  });

  it('the metadata follow both images of an update; an envelope without them gives nulls', () => {
    const format = debeziumJsonFormat(PRODUCT, {
      schemaInclude: false,
      metadata: ['source.table', 'ingestion-timestamp'],
    });
    expect(format.decode(Buffer.from(POSTGRES_UPDATE))).toEqual([
      {
        kind: '-U',
        value: [106, 'hammer', "16oz carpenter's hammer", 1, 'products', 1596010890411],
      },
      { kind: '+U', value: [106, 'hammer', '18oz carpenter hammer', 1, 'products', 1596010890411] },
    ]);
    const bare =
      '{"before":null,"after":{"id":1,"name":"a","description":null,"weight":null},"op":"c"}';
    expect(format.decode(Buffer.from(bare))).toEqual([
      { kind: '+I', value: [1, 'a', null, null, null, null] },
    ]);
  });
});

/** The changes a kafka table's source decodes from one record (its planned decoder; no broker). */
function tableDecoder(ddl: string): (value: string) => Change<Row>[] {
  const env = new StreamEnvironment();
  const tEnv = TableEnvironment.create(env);
  tEnv.executeSql(ddl);
  tEnv.sqlQuery('SELECT * FROM products').toChangelogStream().sinkTo(new CollectSink());
  const node = graphOf(env).nodes.find((n) => n.kind === 'source');
  const source = (node as unknown as { source: { config: { decodeRecord: unknown } } }).source;
  const decode = source.config.decodeRecord as (r: KafkaConsumerRecord) => Change<Row>[];
  return (value) =>
    decode({
      topic: 'dbserver1.inventory.products',
      partition: 0,
      offset: 42,
      timestamp: 0,
      key: undefined,
      value: Buffer.from(value, 'utf8'),
      headers: [],
    });
}

const KAFKA = `'connector' = 'kafka', 'topic' = 'dbserver1.inventory.products',
  'properties.bootstrap.servers' = 'localhost:1', 'format' = 'debezium-json'`;

/** The error of planning a read of `products` declared with `columns`. */
function planError(columns: string): string {
  try {
    tableDecoder(`CREATE TABLE products (id INT NOT NULL, ${columns}) WITH (${KAFKA})`);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return 'no error';
}

describe('debezium-json METADATA in a kafka table', () => {
  const columns = `
    origin_table STRING METADATA FROM 'value.source.table' VIRTUAL,
    id INT NOT NULL, name STRING, description STRING, weight FLOAT,
    origin_database STRING METADATA FROM 'value.source.database' VIRTUAL,
    origin_schema STRING METADATA FROM 'value.source.schema' VIRTUAL,
    ingested TIMESTAMP_LTZ(3) METADATA FROM 'value.ingestion-timestamp' VIRTUAL,
    changed TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL,
    properties MAP<STRING, STRING> METADATA FROM 'value.source.properties' VIRTUAL,
    envelope_schema STRING METADATA FROM 'value.schema' VIRTUAL,
    record_offset BIGINT METADATA FROM 'offset' VIRTUAL`;

  it("each column gets its value, among the physical and the Kafka record's metadata", () => {
    const decode = tableDecoder(`CREATE TABLE products (${columns}) WITH (${KAFKA})`);
    // The `properties` column (9) is checked apart: a MAP of 11 entries.
    const rows = decode(POSTGRES_UPDATE).map((c) => {
      const row = [...c.value];
      const [properties] = row.splice(9, 1) as [Map<string, string | null>];
      expect([properties.size, properties.get('txId'), properties.get('xmin')]).toEqual([
        11,
        '602',
        null,
      ]);
      return [c.kind, ...row];
    });
    const metadata = ['postgres', 'inventory', 1596010890411, 1596010889629];
    expect(rows).toEqual([
      ['-U', 'products', 106, 'hammer', "16oz carpenter's hammer", 1, ...metadata, null, 42],
      ['+U', 'products', 106, 'hammer', '18oz carpenter hammer', 1, ...metadata, null, 42],
    ]);
  });

  it("with 'debezium-json.schema-include' the schema column is the record's schema", () => {
    const decode = tableDecoder(
      `CREATE TABLE products (${columns}) WITH (${KAFKA}, 'debezium-json.schema-include' = 'true')`,
    );
    const [change] = decode(MYSQL_WITH_SCHEMA);
    expect(change?.kind).toBe('+I');
    expect(change?.value.slice(0, 9)).toEqual([
      'products',
      101,
      'scooter',
      'Small 2-wheel scooter',
      Math.fround(3.14),
      'inventory',
      null,
      1589355606100,
      0,
    ]);
    expect(change?.value.slice(10)).toEqual([SCHEMA, 42]);
  });

  it('an unknown key is refused naming the allowed ones; a key of another type too', () => {
    expect(planError("t STRING METADATA FROM 'value.source.foo' VIRTUAL")).toContain(
      "column 't': connector 'kafka' has no metadata key 'value.source.foo'; allowed: topic, partition, offset, timestamp, timestamp-type, headers, leader-epoch, value.schema, value.ingestion-timestamp, value.source.timestamp, value.source.database, value.source.schema, value.source.table, value.source.properties",
    );
    // Canal's keys are not debezium-json's.
    expect(planError("t ARRAY<STRING> METADATA FROM 'value.pk-names' VIRTUAL")).toContain(
      "has no metadata key 'value.pk-names'",
    );
    expect(planError("p STRING METADATA FROM 'value.source.properties' VIRTUAL")).toContain(
      "column 'p': metadata 'value.source.properties' is MAP<STRING, STRING>, not STRING",
    );
    expect(planError("t TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL")).toBe(
      'no error',
    );
  });
});
