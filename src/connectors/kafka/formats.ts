import avro from 'avsc';
import { invalidArgument } from '../../core/errors.js';
import { decodeUtf8 } from '../shared/utf8.js';

/**
 * How record values (or keys) are turned into bytes and back. `deserialize`
 * may throw on malformed input: the source then applies its bad-record policy.
 */
export interface KafkaFormat<T> {
  /** Shown in errors. */
  readonly name: string;
  /** Bytes of a record as stored in Kafka (`undefined` for a null value, a tombstone). */
  deserialize(bytes: Buffer | undefined): T;
  serialize(value: T): Buffer;
}

/** A JSON-compatible Avro schema (record, enum, primitive, ...), as `avsc` accepts it. */
export type AvroSchema = avro.Schema;

function required(bytes: Buffer | undefined, format: string): Buffer {
  if (bytes === undefined) throw new Error(`${format}: the record has no value (null)`);
  return bytes;
}

/** Ready-made formats: JSON, UTF-8 strings, raw bytes and Avro (binary, with a given schema). */
export const KafkaFormats = {
  /** UTF-8 JSON text. Parse errors and invalid UTF-8 (never replaced) are bad records. */
  json<T>(): KafkaFormat<T> {
    return {
      name: 'json',
      deserialize: (bytes) =>
        JSON.parse(decodeUtf8(required(bytes, 'json'), 'json: the value')) as T,
      serialize: (value) => {
        const text = JSON.stringify(value);
        if (text === undefined)
          throw new Error(`json: value cannot be serialized: ${String(value)}`);
        return Buffer.from(text, 'utf8');
      },
    };
  },

  /** UTF-8 text; invalid UTF-8 is a bad record rather than silently replaced. */
  string(): KafkaFormat<string> {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    return {
      name: 'string',
      deserialize: (bytes) => decoder.decode(required(bytes, 'string')),
      serialize: (value) => Buffer.from(value, 'utf8'),
    };
  },

  /** The bytes as they are (`undefined` stays `undefined` for tombstones). */
  bytes(): KafkaFormat<Buffer | undefined> {
    return {
      name: 'bytes',
      deserialize: (bytes) => bytes,
      serialize: (value) => value ?? Buffer.alloc(0),
    };
  },

  /**
   * Avro binary encoding of a single datum with the given schema (no
   * container file, no schema-registry header). With `readerSchema`, data
   * written with `schema` is resolved into the reader's schema (schema
   * evolution). Values that do not match the schema fail to serialize.
   */
  avro<T>(
    schema: AvroSchema,
    options: { readonly readerSchema?: AvroSchema } = {},
  ): KafkaFormat<T> {
    let writer: avro.Type;
    let reader: avro.Type;
    try {
      writer = avro.Type.forSchema(schema);
      reader =
        options.readerSchema === undefined ? writer : avro.Type.forSchema(options.readerSchema);
    } catch (cause) {
      throw invalidArgument(
        `invalid Avro schema: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    }
    const resolver = reader === writer ? undefined : reader.createResolver(writer);
    return {
      name: `avro(${writer.name ?? writer.typeName})`,
      deserialize: (bytes) => {
        const buf = required(bytes, 'avro');
        // fromBuffer checks that the whole buffer was consumed (trailing garbage fails).
        return (
          resolver === undefined ? reader.fromBuffer(buf) : reader.fromBuffer(buf, resolver)
        ) as T;
      },
      serialize: (value) => {
        const errors: string[] = [];
        if (
          !writer.isValid(value, { errorHook: (path) => errors.push(path.join('.') || '(root)') })
        ) {
          throw new Error(`avro: value does not match the schema at ${errors.join(', ')}`);
        }
        return writer.toBuffer(value);
      },
    };
  },
} as const;
