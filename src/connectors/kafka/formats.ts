import avro from 'avsc';
import { invalidArgument } from '../../core/errors.js';
import { reasonOf } from '../shared/bad-records.js';
import { decodeUtf8 } from '../shared/utf8.js';
import { checkAvroDatum } from './avro-check.js';
import {
  decodeMessage,
  encodeMessage,
  messageType,
  type ProtobufDescriptor,
  type ProtobufLongs,
  parseProto,
  protoFromDescriptor,
} from './protobuf-schema.js';

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
  /**
   * For formats that need a server to decode (a schema registry's writer
   * schemas, by the id in each value): fetches what `deserialize` will need
   * for these values, or returns undefined when it has it all. The source
   * awaits it for every fetched chunk before decoding the chunk, so
   * `deserialize` stays synchronous. It rejects only when the server cannot
   * answer; bytes it cannot make sense of fail later, in `deserialize`, as
   * bad records.
   */
  prepareToRead?(values: readonly (Buffer | undefined)[]): Promise<void> | undefined;
  /**
   * For formats that need a server to encode (registering or looking up the
   * writer's schema): the sink calls it when a writer is created, with its
   * topic (undefined when chosen per record), and writes nothing until it
   * has settled; a rejection fails the sink.
   */
  prepareToWrite?(topic: string | undefined): Promise<void>;
}

/** A JSON-compatible Avro schema (record, enum, primitive, ...), as `avsc` accepts it. */
export type AvroSchema = avro.Schema;

function required(bytes: Buffer | undefined, format: string): Buffer {
  if (bytes === undefined) throw new Error(`${format}: the record has no value (null)`);
  return bytes;
}

/**
 * Ready-made formats: JSON, UTF-8 strings, raw bytes, Avro and Protobuf
 * (binary, with a given schema). Formats with a schema registry are in
 * `RegistryFormats`.
 */
export const KafkaFormats = {
  /** UTF-8 JSON text. Parse errors and invalid UTF-8 (never replaced) are bad records. */
  json<T>(): KafkaFormat<T> {
    return {
      name: 'json',
      deserialize: (bytes) => {
        const text = decodeUtf8(required(bytes, 'json'), 'json: the value');
        try {
          return JSON.parse(text) as T;
        } catch (cause) {
          throw new Error(`json: the value is not valid JSON: ${reasonOf(cause)}`, { cause });
        }
      },
      serialize: (value) => {
        const text = JSON.stringify(value);
        if (text === undefined)
          throw new Error(`json: value cannot be serialized: ${String(value)}`);
        return Buffer.from(text, 'utf8');
      },
    };
  },

  /**
   * UTF-8 text, byte for byte (a leading byte order mark is kept); invalid
   * UTF-8 is a bad record rather than silently replaced.
   */
  string(): KafkaFormat<string> {
    return {
      name: 'string',
      deserialize: (bytes) => decodeUtf8(required(bytes, 'string'), 'string: the value'),
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
   * evolution). Values that do not match the schema fail to serialize; bytes
   * that are not one whole datum of `schema` (cut short, lengths or counts
   * beyond the bytes there are, strings that are not valid UTF-8, bytes left
   * over) fail to deserialize.
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
        try {
          // Lengths, counts and UTF-8 first: avsc itself reads past the end before it notices.
          checkAvroDatum(writer, buf);
          return (
            resolver === undefined ? reader.fromBuffer(buf) : reader.fromBuffer(buf, resolver)
          ) as T;
        } catch (cause) {
          throw new Error(`avro: the value cannot be decoded: ${reasonOf(cause)}`, { cause });
        }
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

  /**
   * Protobuf binary encoding of one message of a given schema (no schema
   * registry header): `proto` is `.proto` text or a protobufjs JSON
   * descriptor, `messageType` the message's name (default: the first message
   * of the `.proto`). Values are plain objects: field names as in the
   * schema, enums as names (numbers are accepted when writing), 64-bit
   * integers as numbers (or strings with `longs: 'string'`), defaults
   * filled in. Bytes that are not a message of the type are bad records.
   */
  protobuf<T>(options: {
    readonly proto: string | ProtobufDescriptor;
    readonly messageType?: string;
    readonly longs?: ProtobufLongs;
  }): KafkaFormat<T> {
    const file =
      typeof options.proto === 'string'
        ? parseProto(options.proto, 'protobuf')
        : protoFromDescriptor(options.proto, 'protobuf');
    const type = messageType(file, options.messageType, 'protobuf');
    const longs = options.longs ?? 'number';
    return {
      name: `protobuf(${type.name})`,
      deserialize: (bytes) => {
        try {
          return decodeMessage<T>(type, required(bytes, 'protobuf'), longs);
        } catch (cause) {
          throw new Error(`protobuf: the value cannot be decoded: ${reasonOf(cause)}`, { cause });
        }
      },
      serialize: (value) => encodeMessage(type, value),
    };
  },
} as const;
