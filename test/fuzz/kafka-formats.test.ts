/**
 * Fuzzing the Kafka record formats (JSON, UTF-8 strings, bytes, Avro): a
 * value either decodes to what an independent decoding says it is, or
 * throws an Error naming the format, which the Kafka source turns into a
 * counted bad record naming topic, partition and offset (see
 * test/kafka/poison.test.ts for that path against a real broker). Nothing
 * is decoded with replacement characters, nothing hangs.
 */
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AvroSchema, KafkaFormats } from '../../src/connectors/kafka/index.js';
import { AWKWARD_TEXTS, bytesAround, fuzzParameters, outcome } from './fuzz.js';

function expectFormatError(error: unknown, format: string): void {
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message.startsWith(`${format}: `)).toBe(true);
  expect(error).not.toBeInstanceOf(TypeError);
  expect(error).not.toBeInstanceOf(RangeError);
}

const jsonText = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(...AWKWARD_TEXTS),
  // Deep enough to test nesting, shallow enough for expect's recursive comparison.
  fc.nat({ max: 1_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.nat({ max: 1_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
);

describe('fuzz: Kafka JSON', () => {
  it('decodes what JSON.parse of valid UTF-8 gives, or fails naming the format', () => {
    const json = KafkaFormats.json<unknown>();
    fc.assert(
      fc.property(bytesAround(jsonText.map((t) => Buffer.from(t))), (bytes) => {
        const result = outcome(() => json.deserialize(bytes));
        let expected: { value: unknown } | undefined;
        if (isUtf8(bytes)) {
          try {
            expected = { value: JSON.parse(bytes.toString('utf8')) };
          } catch {
            expected = undefined;
          }
        }
        if (expected === undefined) {
          expect('error' in result).toBe(true);
          if ('error' in result) expectFormatError(result.error, 'json');
        } else {
          expect(result).toEqual(expected);
        }
      }),
      fuzzParameters(),
    );
  });

  it('a null value (tombstone) fails naming the format', () => {
    const result = outcome(() => KafkaFormats.json().deserialize(undefined));
    expect('error' in result).toBe(true);
    expect('error' in result && (result.error as Error).message).toMatch(/^json: .*null/);
  });
});

describe('fuzz: Kafka JSON nesting', () => {
  it('a million levels of nesting decode or fail naming the format, without a crash', () => {
    for (const text of [
      '['.repeat(1_000_000),
      `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`,
    ]) {
      const result = outcome(() => KafkaFormats.json().deserialize(Buffer.from(text)));
      if ('error' in result) expectFormatError(result.error, 'json');
    }
  });
});

describe('fuzz: Kafka strings and bytes', () => {
  it('strings decode byte for byte when valid UTF-8, else fail naming the format', () => {
    const string = KafkaFormats.string();
    fc.assert(
      fc.property(
        bytesAround(fc.string({ unit: 'grapheme', maxLength: 40 }).map((t) => Buffer.from(t))),
        (bytes) => {
          const result = outcome(() => string.deserialize(bytes));
          if (isUtf8(bytes)) {
            expect('value' in result).toBe(true);
            if ('value' in result) expect(Buffer.from(result.value)).toEqual(bytes);
          } else {
            expect('error' in result).toBe(true);
            if ('error' in result) expectFormatError(result.error, 'string');
          }
        },
      ),
      fuzzParameters(),
    );
  });

  it('bytes pass through unchanged', () => {
    const bytes = KafkaFormats.bytes();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        expect(bytes.deserialize(Buffer.from(b))).toEqual(Buffer.from(b));
      }),
      fuzzParameters(),
    );
  });
});

const SCHEMA: AvroSchema = {
  type: 'record',
  name: 'Event',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'name', type: 'string' },
    { name: 'score', type: 'double' },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'attrs', type: { type: 'map', values: 'int' } },
    { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['A', 'B', 'C'] } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'raw', type: 'bytes' },
    { name: 'hash', type: { type: 'fixed', name: 'Hash', size: 4 } },
  ],
};
/** The same record with one field more (read with a default): schema resolution. */
const READER_SCHEMA: AvroSchema = {
  ...(SCHEMA as object),
  fields: [
    ...(SCHEMA as { fields: object[] }).fields,
    { name: 'extra', type: 'string', default: 'x' },
  ],
} as AvroSchema;

const avroEvent = fc.record({
  // avsc writes longs below -2^52 wrongly (as positive numbers): values stay within ±2^52 here.
  id: fc.integer({ min: -(2 ** 52), max: 2 ** 52 }),
  name: fc.string({ unit: 'grapheme', maxLength: 12 }),
  score: fc.double(),
  tags: fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }),
  attrs: fc.dictionary(
    fc.string({ maxLength: 4 }),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    {
      maxKeys: 3,
    },
  ),
  kind: fc.constantFrom('A', 'B', 'C'),
  note: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
  raw: fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b)),
  hash: fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => Buffer.from(b)),
});

describe('fuzz: Kafka Avro', () => {
  const avro = KafkaFormats.avro<unknown>(SCHEMA);
  const evolved = KafkaFormats.avro<unknown>(SCHEMA, { readerSchema: READER_SCHEMA });
  const encoded = avroEvent.map((e) => avro.serialize(e));

  it('valid values round-trip, also through a reader schema', () => {
    fc.assert(
      fc.property(avroEvent, (e) => {
        expect(avro.deserialize(avro.serialize(e))).toEqual(e);
        expect(evolved.deserialize(avro.serialize(e))).toEqual({ ...e, extra: 'x' });
      }),
      fuzzParameters(),
    );
  });

  it('arbitrary and damaged values: a value without replacements, or an error naming the format', () => {
    fc.assert(
      fc.property(bytesAround(encoded), (bytes) => {
        for (const format of [avro, evolved]) {
          const result = outcome(() => format.deserialize(bytes));
          if ('error' in result) expectFormatError(result.error, 'avro');
          else if (!bytes.includes(Buffer.from('\uFFFD'))) {
            // Decoded: no string holds a replacement character the bytes did not.
            expect(JSON.stringify(result.value)).not.toContain('\uFFFD');
          }
        }
      }),
      fuzzParameters(),
    );
  });
});

describe('fuzz: kept Kafka values', () => {
  // Values fuzzing found bugs with, kept as regression cases.
  const huge = [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
  it.each([
    // A block count of about 2^62: avsc looped, allocating, until the process ran out of memory.
    {
      name: 'array block count beyond the bytes',
      schema: { type: 'array', items: 'string' },
      bytes: huge,
    },
    {
      name: 'map block count beyond the bytes',
      schema: { type: 'map', values: 'null' },
      bytes: huge,
    },
    { name: 'array of nulls, 2^62 of them', schema: { type: 'array', items: 'null' }, bytes: huge },
    // avsc decoded invalid UTF-8 in strings and map keys with U+FFFD.
    { name: 'invalid UTF-8 in a string', schema: 'string', bytes: [0x02, 0xff] },
    {
      name: 'invalid UTF-8 in a map key',
      schema: { type: 'map', values: 'int' },
      bytes: [0x02, 0x02, 0xc3, 0x00, 0x00],
    },
  ] as { name: string; schema: AvroSchema; bytes: number[] }[])(
    'Avro: $name',
    ({ schema, bytes }) => {
      const result = outcome(() => KafkaFormats.avro(schema).deserialize(Buffer.from(bytes)));
      expect('error' in result).toBe(true);
      if ('error' in result) expectFormatError(result.error, 'avro');
    },
  );

  it('string: a leading byte order mark is kept (TextDecoder dropped it)', () => {
    expect(KafkaFormats.string().deserialize(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toBe(
      '\uFEFFa',
    );
  });
});
