/**
 * The SQL `avro` format: the schema derived from the columns (Flink's shape), rows of every
 * supported type written and read back unchanged (fast-check, NULLs included), bytes written
 * by a plain Avro writer with that schema read as the same row, errors naming the field, and a
 * round trip through real Kafka with the `kafka` connector.
 */
import avro from 'avsc';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Row, StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { externalSqlConnectors } from '../../src/sql/connectors/external-connectors.js';
import {
  avroRowFormat,
  avroSchemaOfColumns,
} from '../../src/sql/connectors/formats/avro-row-format.js';
import type { FormatColumn } from '../../src/sql/connectors/formats/row-formats.js';
import { registerSqlConnectors } from '../../src/sql/connectors/registry.js';
import { type LogicalType, T as Types } from '../../src/sql/types/logical-type.js';
import { longOf } from '../../src/sql/types/long.js';
import { BROKERS, createTopic, readAll, uniqueTopic, waitFor } from '../kafka/helpers.js';
import { readBack } from './query-changes.js';

const at = { line: 1, column: 1 };

const COLUMNS: FormatColumn[] = [
  { name: 'flag', type: Types.boolean() },
  { name: 'small', type: Types.int('SMALLINT') },
  { name: 'n', type: Types.int('INTEGER', false) },
  { name: 'big', type: Types.bigint() },
  { name: 'ratio', type: Types.double() },
  { name: 'price', type: Types.decimal(12, 3) },
  { name: 'name', type: Types.string() },
  { name: 'day', type: Types.date() },
  { name: 'ts', type: Types.timestamp(3) },
  { name: 'blob', type: { kind: 'VARBINARY', nullable: true, length: 2_147_483_647 } },
  { name: 'tags', type: { kind: 'ARRAY', nullable: true, element: Types.string(false) } },
  {
    name: 'item',
    type: {
      kind: 'ROW',
      nullable: true,
      fields: [
        { name: 'sku', type: Types.string(false) },
        { name: 'qty', type: Types.int('INTEGER') },
      ],
    },
  },
];

const nullable = <T>(a: fc.Arbitrary<T>, type: LogicalType): fc.Arbitrary<T | null> =>
  type.nullable ? fc.option(a, { nil: null }) : a;

const VALUES: fc.Arbitrary<unknown>[] = [
  fc.boolean(),
  fc.integer({ min: -32768, max: 32767 }),
  fc.integer({ min: -2147483648, max: 2147483647 }),
  // BIGINT over its whole 64-bit range, in its row form (a bigint beyond 2^53).
  fc.oneof(fc.maxSafeInteger(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(longOf)),
  fc.double({ noNaN: true }),
  fc.bigInt({ min: -(10n ** 12n) + 1n, max: 10n ** 12n - 1n }),
  fc.string(),
  fc.integer({ min: -100_000, max: 100_000 }),
  fc.integer({ min: -1e13, max: 1e13 }),
  fc.uint8Array({ maxLength: 20 }),
  fc.array(fc.string(), { maxLength: 4 }),
  fc.tuple(fc.string(), fc.option(fc.integer({ min: -1000, max: 1000 }), { nil: null })),
];

const rows: fc.Arbitrary<Row> = fc.tuple(
  ...COLUMNS.map((c, i) => nullable(VALUES[i]!, c.type)),
) as fc.Arbitrary<Row>;

describe('the avro row format', () => {
  it("derives Flink's schema: a record named record, nullable columns as unions with null first", () => {
    const schema = avroSchemaOfColumns(COLUMNS.slice(0, 3), at) as {
      name: string;
      fields: { name: string; type: unknown; default?: unknown }[];
    };
    expect(schema.name).toBe('record');
    expect(schema.fields).toEqual([
      { name: 'flag', type: ['null', 'boolean'], default: null },
      { name: 'small', type: ['null', 'int'], default: null },
      { name: 'n', type: 'int' },
    ]);
    const decimal = avroSchemaOfColumns([{ name: 'p', type: Types.decimal(10, 2, false) }], at);
    expect((decimal as { fields: { type: unknown }[] }).fields[0]!.type).toEqual({
      type: 'bytes',
      logicalType: 'decimal',
      precision: 10,
      scale: 2,
    });
  });

  it('writes rows of every type and reads them back unchanged', () => {
    const format = avroRowFormat(COLUMNS, at);
    fc.assert(
      fc.property(rows, (row) => {
        expect(format.decode(format.encode(row))).toEqual(row);
      }),
      { numRuns: 300 },
    );
  });

  it('reads what a plain Avro writer with the same schema wrote (DECIMAL as two’s complement bytes)', () => {
    const columns: FormatColumn[] = [
      { name: 'price', type: Types.decimal(10, 2, false) },
      { name: 'name', type: Types.string() },
    ];
    const type = avro.Type.forSchema(avroSchemaOfColumns(columns, at), { wrapUnions: false });
    const cases: [Buffer, bigint][] = [
      [Buffer.from([0x00]), 0n],
      [Buffer.from([0x7f]), 127n],
      [Buffer.from([0x00, 0x80]), 128n],
      [Buffer.from([0xff]), -1n],
      [Buffer.from([0x80]), -128n],
      [Buffer.from([0xff, 0x7f]), -129n],
    ];
    const format = avroRowFormat(columns, at);
    for (const [bytes, unscaled] of cases) {
      const written = type.toBuffer({ price: bytes, name: null });
      expect(format.decode(written)).toEqual([unscaled, null]);
      expect(format.encode([unscaled, null])).toEqual(written);
    }
  });

  it('names the field of a value that does not fit, and refuses bytes of another schema', () => {
    const format = avroRowFormat([{ name: 'p', type: Types.decimal(3, 0, false) }], at);
    const wide = avroRowFormat([{ name: 'p', type: Types.decimal(10, 0, false) }], at);
    expect(() => format.decode(wide.encode([123_456n]))).toThrow("field 'p' does not fit");
    expect(() => format.decode(Buffer.from([0xff, 0xff, 0xff]))).toThrow(
      "not an Avro record of the table's schema",
    );
    expect(() => avroRowFormat([{ name: 'm', type: Types.intervalDayTime() }], at)).toThrow(
      "format 'avro' does not support",
    );
  });
});

describe('the kafka connector with format avro (real Kafka)', () => {
  beforeAll(() => registerSqlConnectors(externalSqlConnectors));

  it('writes rows as Avro records and reads them back', async () => {
    const topic = uniqueTopic('sql-avro');
    await createTopic(topic, 1);
    const options = `'connector' = 'kafka', 'topic' = '${topic}',
      'properties.bootstrap.servers' = '${BROKERS.join(',')}', 'format' = 'avro'`;
    const env = new StreamEnvironment();
    const tEnv = TableEnvironment.create(env);
    const written = tEnv.executeSql(`
      CREATE TABLE out_t (name STRING, n INT, price DECIMAL(6, 3), ts TIMESTAMP(3)) WITH (${options});
      INSERT INTO out_t VALUES
        ('a', 1, 1.5, TIMESTAMP '2026-01-01 00:00:01.250'),
        ('b', CAST(NULL AS INT), -0.125, TIMESTAMP '2026-01-01 00:00:02.000');
    `);
    await written.job?.result;
    const bytes = {
      name: 'bytes',
      deserialize: (b: Buffer | undefined) => b ?? null,
      serialize: () => Buffer.alloc(0),
    };
    let raw: (Buffer | null)[] = [];
    await waitFor('the records', async () => {
      raw = await readAll(topic, bytes);
      return raw.length >= 2;
    });
    // A plain Avro reader with the derived schema reads them.
    const type = avro.Type.forSchema(
      avroSchemaOfColumns(
        [
          { name: 'name', type: Types.string() },
          { name: 'n', type: Types.int() },
          { name: 'price', type: Types.decimal(6, 3) },
          { name: 'ts', type: Types.timestamp(3) },
        ],
        at,
      ),
      { wrapUnions: false },
    );
    expect((type.fromBuffer(raw[0]!) as { name: string }).name).toBe('a');

    const changes = await readBack(
      `CREATE TABLE in_t (name STRING, n INT, price DECIMAL(6, 3), ts TIMESTAMP(3)) WITH (${options},
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')`,
      'SELECT name, n, price, ts FROM in_t',
    );
    expect(changes.map((c) => c.value)).toEqual([
      ['a', 1, 1500n, Date.UTC(2026, 0, 1, 0, 0, 1, 250)],
      ['b', null, -125n, Date.UTC(2026, 0, 1, 0, 0, 2)],
    ]);
  }, 120_000);
});
