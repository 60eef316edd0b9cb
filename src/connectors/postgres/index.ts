/**
 * PostgreSQL connectors (`weir/postgres`): change data capture through
 * logical replication, an upsert sink, an exactly-once transactional
 * sink, and a lookup table for lookup joins. A separate entry point so
 * that the core never loads `pg`.
 */
export { dropReplicationSlot, replicationSlotLag, rollbackPreparedTransactions } from './admin.js';
export type { PostgresCdcOptions } from './cdc-config.js';
export { PostgresCdcSource, postgresCdc } from './cdc-source.js';
export type { PostgresConnection } from './connection.js';
export type {
  ChangeEvent,
  ChangeOperation,
  ChangeRecord,
  FlatRow,
  SourceInfo,
} from './envelope.js';
export {
  type PostgresLookupRow,
  PostgresLookupTable,
  type PostgresLookupTableOptions,
} from './lookup-table.js';
export {
  defaultMutation,
  type PostgresSinkOptions,
  type RejectedRecord,
  type RejectedRowPolicy,
} from './sink-config.js';
export type { SinkMutation } from './sink-table.js';
export { SLOT_LAG_METRIC, SLOT_RETAINED_METRIC, type SlotLag } from './slot-monitor.js';
export {
  PostgresTransactionalSink,
  type PostgresTransactionalSinkOptions,
} from './transactional-sink.js';
export { PostgresUpsertSink, SINK_REJECTED_METRIC, SINK_ROWS_METRIC } from './upsert-sink.js';
export type {
  BinaryHandling,
  DecimalHandling,
  HstoreHandling,
  Int8Handling,
  IntervalHandling,
  PgValue,
  Row,
  TimePrecisionMode,
  TypeMappingOptions,
} from './values.js';
