/**
 * Riding out a database that is briefly away (a restart, a failover, a
 * network blip): which errors mean "the connection is gone", counted in
 * {@link RECONNECTS_METRIC}. The retry policy itself is the connectors'
 * shared one (../shared/reconnect.ts).
 */
import type { Counter, MetricGroup } from '../../core/metrics.js';
import {
  type OutageKind,
  type ReconnectOptions,
  Reconnector,
  type ReconnectSettings,
  reconnectEntry,
} from '../shared/reconnect.js';

export type { ReconnectOptions, ReconnectSettings };

/** Counter: times a PostgreSQL connector retried after losing its connection. */
export const RECONNECTS_METRIC = 'weir_postgres_reconnects_total';

/**
 * How a PostgreSQL connector rides out a lost connection by default: up to 60 s, retries from
 * 100 ms doubling up to 5 s.
 */
export const POSTGRES_RECONNECT: ReconnectSettings = {
  maxOutageMs: 60_000,
  initialBackoffMs: 100,
  maxBackoffMs: 5_000,
};

/** The `reconnect` option of a PostgreSQL connector, {@link POSTGRES_RECONNECT} by default. */
export const postgresReconnectEntry = reconnectEntry(POSTGRES_RECONNECT);

/** SQLSTATEs of a server that is going away or not yet back. */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown: terminated by a fast shutdown
  '57P02', // crash_shutdown: another backend crashed
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '53300', // too_many_connections: momentary, while sessions of a restart linger
  '55006', // object_in_use: the slot is still held by the walsender of the lost session
]);

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** Messages of `pg` for a session whose socket went away. */
const LOST_MESSAGES =
  /Connection terminated|connection error and is not queryable|Client was closed|not queryable|replication connection was closed|server ended replication|terminating connection/i;

/** Whether `error` (or an error it wraps) means the connection was lost or could not be made. */
export function isConnectionLost(error: unknown): boolean {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (code.startsWith('08') || UNAVAILABLE_STATES.has(code) || NETWORK_CODES.has(code))
        return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && LOST_MESSAGES.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && !text.includes(code) ? `${text} [${code}]` : text;
}

/** A database being away: the session lost, or the server not accepting sessions. */
const POSTGRES_OUTAGE: OutageKind = {
  server: 'the database',
  isTransient: isConnectionLost,
  state: () => 'is unreachable',
  reason: reasonOf,
};

/** The {@link Reconnector} of a PostgreSQL connector. */
export class PostgresReconnector extends Reconnector {
  constructor(
    settings: ReconnectSettings,
    /** Names the connector in messages, e.g. `PostgreSQL sink 'totals'`. */
    what: string,
    log: (message: string) => void,
    /** Counts retries (see {@link reconnectCounter}). */
    counter: Pick<Counter, 'inc'>,
    random?: () => number,
    now?: () => number,
  ) {
    super(settings, what, POSTGRES_OUTAGE, { log, counter }, random, now);
  }
}

/** The {@link RECONNECTS_METRIC} counter of a connector's metric group. */
export function reconnectCounter(metrics: MetricGroup): Counter {
  return metrics.counter(
    RECONNECTS_METRIC,
    'Retries of a PostgreSQL connector after a lost connection',
  );
}

/** The default receiver of connector warnings: Node's process warnings (stderr), code `WEIR_POSTGRES`. */
export function emitPostgresWarning(message: string): void {
  process.emitWarning(message, { code: 'WEIR_POSTGRES' });
}
