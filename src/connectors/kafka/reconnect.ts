/**
 * Riding out a Kafka cluster that is briefly away (a broker restart, a
 * leader election, a network blip): which errors mean "the cluster cannot be
 * reached now", counted in {@link KAFKA_RECONNECTS_METRIC}. The retry policy
 * itself is the connectors' shared one (../shared/reconnect.ts).
 */
import type { Counter, MetricGroup } from '../../core/metrics.js';
import {
  type OutageKind,
  type ReconnectOptions,
  Reconnector,
  type ReconnectReport,
  type ReconnectSettings,
  reconnectEntry,
} from '../shared/reconnect.js';
import { isSecurityFailure, type SecuritySettings, securityError } from './security.js';

/** Counter: retries of a Kafka connector while the cluster could not be reached. */
export const KAFKA_RECONNECTS_METRIC = 'weir_kafka_reconnects_total';

/**
 * How a Kafka connector rides out an unreachable cluster (`reconnect`):
 * up to 3 minutes, retries from 200 ms doubling up to 5 s.
 */
export const kafkaReconnectEntry = reconnectEntry({
  maxOutageMs: 180_000,
  initialBackoffMs: 200,
  maxBackoffMs: 5_000,
});

/** Options of `reconnect` on the Kafka connectors. */
export type KafkaReconnectOptions = ReconnectOptions;
/** `reconnect` with defaults applied (plain data: it is sent to the producer thread). */
export type KafkaReconnectSettings = ReconnectSettings;

/** Kafka error codes of a cluster that is moving or starting, not of a request that is wrong. */
const TRANSIENT_API_ERRORS = new Set([
  'BROKER_NOT_AVAILABLE',
  'CONCURRENT_TRANSACTIONS',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'COORDINATOR_NOT_AVAILABLE',
  'KAFKA_STORAGE_ERROR',
  'LEADER_NOT_AVAILABLE',
  'NETWORK_EXCEPTION',
  'NOT_CONTROLLER',
  'NOT_COORDINATOR',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'NOT_LEADER_OR_FOLLOWER',
  'REQUEST_TIMED_OUT',
  'UNKNOWN_LEADER_EPOCH',
]);

const NETWORK_CODES = new Set([
  'PLT_KFK_NETWORK',
  'PLT_KFK_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Messages of the Kafka client for a connection that could not be made or was lost. */
const LOST_MESSAGES =
  /Cannot connect to any broker|Connection to .* (failed|closed)|socket hang up/i;

/**
 * Whether `error`, or an error it wraps (`errors`, `cause`), says the cluster
 * could not be reached or is between leaders: an error worth waiting out.
 */
export function isClusterUnreachable(error: unknown): boolean {
  // A refused login or certificate comes wrapped in the client's network error.
  if (isSecurityFailure(error)) return false;
  const seen = new Set<unknown>();
  const walk = (e: unknown, depth: number): boolean => {
    if (e === null || typeof e !== 'object' || depth > 6 || seen.has(e)) return false;
    seen.add(e);
    const x = e as { code?: unknown; apiId?: unknown; message?: unknown };
    if (typeof x.code === 'string' && NETWORK_CODES.has(x.code)) return true;
    if (typeof x.apiId === 'string' && TRANSIENT_API_ERRORS.has(x.apiId)) return true;
    if (typeof x.message === 'string' && LOST_MESSAGES.test(x.message)) return true;
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.some((i) => walk(i, depth + 1))) return true;
    return walk((e as { cause?: unknown }).cause, depth + 1);
  };
  return walk(error, 0);
}

/** Kafka error codes in an error tree (`errors`, `cause`). */
function apiCodes(error: unknown): string[] {
  const out = new Set<string>();
  const walk = (e: unknown, depth: number) => {
    if (e === null || typeof e !== 'object' || depth > 6) return;
    const x = e as { apiId?: unknown; errors?: unknown; cause?: unknown };
    if (typeof x.apiId === 'string') out.add(x.apiId);
    if (Array.isArray(x.errors)) for (const i of x.errors) walk(i, depth + 1);
    walk(x.cause, depth + 1);
  };
  walk(error, 0);
  return [...out];
}

/** An error's message cut to its first cause, with the Kafka error codes it carries, for a log line. */
export function shortReason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // The client repeats the same cause once per attempt, joined by '; '.
  let first = text.split('; ')[0] ?? text;
  if (first.length > 300) first = `${first.slice(0, 300)}...`;
  const codes = apiCodes(error).filter((c) => !first.includes(c));
  return codes.length > 0 ? `${first} [${codes.join(', ')}]` : first;
}

/** The retry counter of a connector's metric group. */
export function reconnectsCounter(metrics: MetricGroup): Counter {
  return metrics.counter(
    KAFKA_RECONNECTS_METRIC,
    'Retries of a Kafka connector while the cluster could not be reached',
  );
}

/** The default receiver of Kafka connector warnings: Node's process warnings (stderr), code `WEIR_KAFKA`. */
export function emitKafkaWarning(message: string): void {
  process.emitWarning(message, { code: 'WEIR_KAFKA' });
}

/** A Kafka cluster being away: unreachable, or moving its leaders. */
const KAFKA_OUTAGE: OutageKind = {
  server: 'the Kafka cluster',
  isTransient: isClusterUnreachable,
  state: (error) =>
    apiCodes(error).length > 0 ? 'answered with a transient error' : 'is unreachable',
  reason: shortReason,
};

/** The {@link Reconnector} of a Kafka connector. */
export class KafkaReconnector extends Reconnector {
  private readonly connector: string;
  private readonly security:
    | (SecuritySettings & { readonly brokers: readonly string[] })
    | undefined;

  constructor(
    /** The connection (whose `tls` and `sasl` name a refused login), or only its `reconnect` settings. */
    settings:
      | KafkaReconnectSettings
      | (SecuritySettings & {
          readonly brokers: readonly string[];
          readonly reconnect: KafkaReconnectSettings;
        }),
    /** Names the connector in messages, e.g. `Kafka source 'orders'`. */
    what: string,
    report: ReconnectReport,
    random?: () => number,
    now?: () => number,
  ) {
    const connection = 'reconnect' in settings ? settings : undefined;
    super(
      connection?.reconnect ?? (settings as KafkaReconnectSettings),
      what,
      KAFKA_OUTAGE,
      report,
      random,
      now,
    );
    this.security = connection;
    this.connector = what;
  }

  /**
   * As {@link Reconnector.failed}, but a refused login or an untrusted
   * certificate fails at once with an error naming the broker and the
   * mechanism: waiting would not help.
   */
  override failed(cause: unknown, action: string, code: 'SOURCE_FAILED' | 'SINK_FAILED'): number {
    const refused = securityError(cause, this.security ?? { brokers: [] }, this.connector, code);
    if (refused !== undefined) throw refused;
    return super.failed(cause, action, code);
  }
}
