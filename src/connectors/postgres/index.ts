/// <reference types="node" preserve="true" />
// The declarations use Node's types; a project whose tsconfig lists no `types` (TypeScript >= 6 by default) gets them through this reference.
/**
 * PostgreSQL connectors (`weir/postgres`): change data capture through
 * logical replication, an upsert sink, an exactly-once transactional
 * sink, and a lookup table for lookup joins. A separate entry point so
 * that the core never loads `pg`.
 */
export { dropReplicationSlot, replicationSlotLag, rollbackPreparedTransactions } from './admin.js';
export type { PostgresCdcOptions } from './cdc/cdc-config.js';
export { PostgresCdcSource, postgresCdc } from './cdc/cdc-source.js';
export type {
  ChangeEvent,
  ChangeOperation,
  ChangeRecord,
  FlatRow,
  SourceInfo,
} from './cdc/envelope.js';
export { SLOT_LAG_METRIC, SLOT_RETAINED_METRIC, type SlotLag } from './cdc/slot-monitor.js';
export type { PostgresConnection } from './connection.js';
export {
  type PostgresLookupRow,
  PostgresLookupTable,
  type PostgresLookupTableOptions,
} from './lookup/lookup-table.js';
export { RECONNECTS_METRIC, type ReconnectOptions } from './reconnect.js';
export {
  defaultMutation,
  type PostgresSinkOptions,
  type RejectedRecord,
  type RejectedRowPolicy,
} from './sink/sink-config.js';
export type { SinkMutation } from './sink/sink-table.js';
export {
  PostgresTransactionalSink,
  type PostgresTransactionalSinkOptions,
} from './sink/transactional-sink.js';
export { PostgresUpsertSink, SINK_REJECTED_METRIC, SINK_ROWS_METRIC } from './sink/upsert-sink.js';
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
