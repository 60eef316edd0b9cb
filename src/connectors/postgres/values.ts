import type { ConfigOf } from '../shared/config.js';
import type { typeMappingSchema } from './config.js';
/**
 * Values of change events, as Debezium's PostgreSQL connector represents
 * them (see docs/connectors/postgres.md for the table of types).
 */

/** A column value in a change event or a row written by a sink. */
export type PgValue =
  | null
  | boolean
  | number
  | string
  | bigint
  | Uint8Array
  | readonly PgValue[]
  | { readonly [field: string]: PgValue };

/** A row: column name to value. */
export type Row = { readonly [column: string]: PgValue };

/** How NUMERIC, DECIMAL and MONEY values are represented (Debezium's `decimal.handling.mode`). */
export type DecimalHandling = 'string' | 'double';

/** How BIGINT and OID values are represented. `number` fails on values beyond ±2^53 rather than lose digits. */
export type Int8Handling = 'number' | 'bigint' | 'string';

/** How BYTEA (and other binary) values are represented (Debezium's `binary.handling.mode`). */
export type BinaryHandling = 'bytes' | 'base64' | 'hex';

/** Debezium's `time.precision.mode`. */
export type TimePrecisionMode = 'adaptive' | 'adaptive_time_microseconds' | 'connect';

/** Debezium's `interval.handling.mode`: microseconds, or an ISO 8601 string. */
export type IntervalHandling = 'numeric' | 'string';

/** Debezium's `hstore.handling.mode`: a JSON string, or an object. */
export type HstoreHandling = 'json' | 'map';

export type { TypeMappingOptions } from './config.js';

/** `TypeMappingOptions` with every default applied. */
export type ResolvedTypeMapping = ConfigOf<typeof typeMappingSchema>;
