/// <reference types="node" preserve="true" />
// The declarations use Node's types; a project whose tsconfig lists no `types` (TypeScript >= 6 by default) gets them through this reference.
/**
 * Kafka connectors for Weir (`import { KafkaSource, KafkaSink } from 'weir/kafka'`):
 * a checkpointed, per-partition event-time source and an at-least-once or
 * exactly-once (transactional) sink. Built on @platformatic/kafka; the core
 * `weir` entry point never loads it. Formats: JSON, strings, bytes, Avro and
 * Protobuf (`KafkaFormats`), and Avro, Protobuf and JSON Schema through a
 * schema registry (`RegistryFormats`, `SchemaRegistryClient`).
 */
export type {
  KafkaBadRecordPolicy,
  KafkaConnectionOptions,
  KafkaDeadLetterTarget,
  KafkaDeserializerSourceOptions,
  KafkaFormatSourceOptions,
  KafkaHeaders,
  KafkaSinkOptions,
  KafkaSourceOptions,
  StartingOffsets,
  StoppingOffsets,
} from './config.js';
export type { KafkaConsumerRecord } from './consumer-record.js';
export {
  DEAD_LETTER_FAILURES_METRIC,
  DEFAULT_MAX_DEAD_LETTER_BYTES,
  KAFKA_BAD_RECORDS_METRIC,
} from './dead-letter.js';
export { type AvroSchema, type KafkaFormat, KafkaFormats } from './formats.js';
export type { ProtobufDescriptor, ProtobufLongs } from './protobuf-schema.js';
export { KAFKA_RECONNECTS_METRIC, type KafkaReconnectOptions } from './reconnect.js';
export {
  type CompatibilityResult,
  type RegisteredSchema,
  type RegistryClientOptions,
  type SchemaDefinition,
  type SchemaReference,
  SchemaRegistryClient,
  SchemaRegistryError,
  type SchemaType,
  type SubjectVersion,
} from './registry/client.js';
export {
  type AvroLongs,
  type JsonSchema,
  type RegistryAvroOptions,
  type RegistryFormatOptions,
  RegistryFormats,
  type RegistryJsonSchemaOptions,
  type RegistryProtobufOptions,
} from './registry/formats.js';
export type { RegistryTlsOptions } from './registry/http.js';
export type { SubjectNameStrategy } from './registry/subject.js';
export type { KafkaTokenProvider } from './security.js';
export { KafkaSink } from './sink/kafka-sink.js';
export { KafkaSource } from './source/kafka-source.js';
export { ownerOf } from './source/source-options.js';
