/**
 * Formats that keep their schemas in a schema registry and frame every value
 * in the Confluent wire format, for Kafka sources and sinks:
 * `RegistryFormats.avro`, `.protobuf` and `.jsonSchema`.
 */
import * as v from 'valibot';
import { nonEmptyString, parseOptions, shaped } from '../../shared/config.js';
import type { AvroSchema, KafkaFormat } from '../formats.js';
import type { ProtobufLongs } from '../protobuf-schema.js';
import { type AvroLongs, avroCodec } from './avro.js';
import { registryFormatEntries } from './format-options.js';
import { type JsonSchema, jsonSchemaCodec } from './json-schema.js';
import { protobufCodec } from './protobuf.js';
import { RegistryFormat, type RegistryFormatOptions } from './registry-format.js';

export type { AvroLongs } from './avro.js';
export type { JsonSchema } from './json-schema.js';
export type { RegistryFormatOptions } from './registry-format.js';

/** Options of `RegistryFormats.avro`. */
export interface RegistryAvroOptions extends RegistryFormatOptions {
  /**
   * Writers register and write with it; readers decode into it (data written
   * with an older or newer compatible schema is resolved into it). Without
   * it, readers decode with each record's writer schema and writers need
   * `useVersion`.
   */
  readonly schema?: AvroSchema;
  /**
   * `number` (default): a `long` decodes to a number, and one beyond 2^53 fails its record;
   * `exact`: a number within 2^53 and a bigint beyond, and writers take either, so every
   * 64-bit value survives.
   */
  readonly longs?: AvroLongs;
}

/** Options of `RegistryFormats.protobuf`. */
export interface RegistryProtobufOptions extends RegistryFormatOptions {
  /** `.proto` text writers register (readers decode with each record's writer schema). */
  readonly schema?: string;
  /** The message writers write (full name or relative to the package). Default: the first message. */
  readonly messageName?: string;
  /** 64-bit integers decode to numbers (default; exact up to 2^53) or decimal strings. */
  readonly longs?: ProtobufLongs;
}

/** Options of `RegistryFormats.jsonSchema`. */
export interface RegistryJsonSchemaOptions extends RegistryFormatOptions {
  /** The JSON Schema writers register (its `title` is the record name of the record strategies). */
  readonly schema?: JsonSchema;
  /** Writers refuse values the schema does not accept. Default true. */
  readonly validateWrites?: boolean;
  /** Readers check values against the schema they were written with (looked up by id). Default false. */
  readonly validateReads?: boolean;
}

const avroSchema = v.object({
  ...registryFormatEntries,
  schema: v.optional(
    v.custom<AvroSchema>(
      (x) => typeof x === 'object' || typeof x === 'string',
      'must be an Avro schema',
    ),
  ),
  longs: v.optional(v.picklist(['number', 'exact'], "must be 'number' or 'exact'"), 'number'),
});

const protobufSchema = v.object({
  ...registryFormatEntries,
  schema: v.optional(nonEmptyString('must be .proto text')),
  messageName: v.optional(nonEmptyString()),
  longs: v.optional(v.picklist(['number', 'string'], "must be 'number' or 'string'"), 'number'),
});

const jsonSchemaSchema = v.object({
  ...registryFormatEntries,
  schema: v.optional(shaped<JsonSchema>(() => true, 'must be a JSON Schema object')),
  validateWrites: v.optional(v.boolean('must be true or false'), true),
  validateReads: v.optional(v.boolean('must be true or false'), false),
});

/**
 * Schema registry formats (Confluent wire format: magic byte 0, 4-byte
 * schema id, the datum). One format object can serve both a source and a
 * sink. See docs/connectors/kafka.md, "Schema registry".
 *
 * ```ts
 * const registry = new SchemaRegistryClient({ url: 'http://127.0.0.1:8081' });
 * const format = RegistryFormats.avro<Order>({ registry, schema: orderSchema });
 * ```
 */
export const RegistryFormats = {
  /** Avro binary data; readers resolve each writer schema into `schema` (schema evolution). */
  avro<T>(options: RegistryAvroOptions): KafkaFormat<T> {
    const o = parseOptions('RegistryFormats.avro', avroSchema, options);
    return new RegistryFormat<T>(avroCodec<T>(o.schema, o.longs), o);
  },

  /** Protobuf messages (with the message indexes of the wire format); readers use the writer's schema. */
  protobuf<T>(options: RegistryProtobufOptions): KafkaFormat<T> {
    const o = parseOptions('RegistryFormats.protobuf', protobufSchema, options);
    return new RegistryFormat<T>(protobufCodec<T>(o.schema, o.messageName, o.longs), o);
  },

  /** UTF-8 JSON checked against a JSON Schema. */
  jsonSchema<T>(options: RegistryJsonSchemaOptions): KafkaFormat<T> {
    const o = parseOptions('RegistryFormats.jsonSchema', jsonSchemaSchema, options);
    return new RegistryFormat<T>(
      jsonSchemaCodec<T>(o.schema, o.validateWrites, o.validateReads),
      o,
    );
  },
} as const;
