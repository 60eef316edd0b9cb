/**
 * Kafka connectors for Weir (`import { KafkaSource, KafkaSink } from 'weir/kafka'`):
 * a checkpointed, per-partition event-time source and an at-least-once or
 * exactly-once (transactional) sink. Built on @platformatic/kafka; the core
 * `weir` entry point never loads it.
 */
export type { KafkaConnectionOptions } from './config.js';
export { KAFKA_BAD_RECORDS_METRIC, type KafkaBadRecordPolicy } from './dead-letter.js';
export { type AvroSchema, type KafkaFormat, KafkaFormats } from './formats.js';
export type { KafkaConsumerRecord } from './records.js';
export { type KafkaHeaders, KafkaSink, type KafkaSinkOptions } from './sink/kafka-sink.js';
export { KafkaSource } from './source/kafka-source.js';
export {
  type KafkaDeserializerSourceOptions,
  type KafkaFormatSourceOptions,
  type KafkaSourceOptions,
  ownerOf,
  type StartingOffsets,
} from './source/source-options.js';
