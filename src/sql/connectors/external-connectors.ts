/**
 * The SQL connectors built on a client library (Kafka, PostgreSQL). Kept out of the built-in
 * registry so that importing `weir` loads neither client; `weir sql` registers them.
 */
import type { SqlConnector } from './connector.js';
import { kafkaConnector } from './kafka/kafka-connector.js';
import { upsertKafkaConnector } from './kafka/upsert-kafka-connector.js';
import { jdbcConnector } from './postgres/jdbc-connector.js';
import { postgresCdcConnector } from './postgres/postgres-cdc-connector.js';

export const externalSqlConnectors: readonly SqlConnector[] = [
  kafkaConnector,
  upsertKafkaConnector,
  jdbcConnector,
  postgresCdcConnector,
];
