/**
 * Options of the PostgreSQL CDC source, and their validation (a mistake
 * fails when the source is created, not when the job runs).
 */
import { invalidArgument } from '../../../core/errors.js';
import { parseOptions } from '../../shared/config.js';
import { cdcSchema, type PostgresCdcOptions } from '../config.js';
import { type PostgresConnection, parseTableName, type TableName } from '../connection.js';
import type { ReconnectSettings } from '../reconnect.js';
import type { ResolvedTypeMapping } from '../values.js';

export type { PostgresCdcOptions } from '../config.js';
export { HEARTBEAT_PREFIX } from '../config.js';

/** Validated options with defaults. */
export interface CdcConfig {
  readonly connection: PostgresConnection;
  readonly tables: readonly TableName[];
  readonly slotName: string;
  readonly publicationName: string;
  readonly createPublication: boolean;
  readonly name: string;
  readonly snapshot: 'initial' | 'never';
  readonly snapshotFetchSize: number;
  readonly tombstonesOnDelete: boolean;
  readonly truncateEvents: boolean;
  readonly types: ResolvedTypeMapping;
  readonly heartbeatIntervalMs: number;
  readonly heartbeatQuery: string;
  readonly statusIntervalMs: number;
  readonly slotLagIntervalMs: number;
  readonly slotLagWarningBytes: number;
  readonly onWarning: (message: string) => void;
  readonly maxBufferedBytes: number;
  readonly watermarkDelayMs: number;
  readonly idleTimeoutMs: number;
  readonly reconnect: ReconnectSettings;
}

/** Validates options (once, when the source is created) and applies defaults. */
export function cdcConfig(options: PostgresCdcOptions): CdcConfig {
  const o = parseOptions('postgresCdc', cdcSchema, options);
  const tables = o.tables.map(parseTableName);
  const seen = new Set<string>();
  for (const t of tables) {
    const k = `${t.schema}.${t.table}`;
    if (seen.has(k)) throw invalidArgument(`postgresCdc: table ${k} is listed twice`);
    seen.add(k);
  }
  return {
    ...o,
    connection: o.connection,
    tables,
    publicationName: o.publicationName ?? `${o.slotName}_publication`,
  };
}
