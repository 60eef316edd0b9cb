/**
 * Riding out a Kafka cluster that is briefly away (a broker restart, a
 * leader election, a network blip): which errors mean "the cluster cannot be
 * reached now", and a policy that retries them with capped exponential
 * backoff and jitter until the outage has lasted longer than its budget.
 * Every retry is logged once with its cause and counted in
 * {@link KAFKA_RECONNECTS_METRIC}; only a longer outage fails the task, which
 * then leaves it to the job's restart strategy.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { WeirError } from '../../core/errors.js';
import type { Counter, MetricGroup } from '../../core/metrics.js';
import { type ConfigOf, type OptionsOf, positiveMs } from '../shared/config.js';

/** Counter: retries of a Kafka connector while the cluster could not be reached. */
export const KAFKA_RECONNECTS_METRIC = 'weir_kafka_reconnects_total';

/** A number of ms >= 0; `Infinity` allowed ("never give up"). */
const budgetMs = v.pipe(
  v.number('must be a number of milliseconds >= 0'),
  v.minValue(0, 'must be a number of milliseconds >= 0'),
);

/** How a Kafka connector rides out an unreachable cluster. */
export const kafkaReconnectSchema = v.object({
  /**
   * Longest outage retried, from the first failure to the last retry: past
   * it the task fails (and the job's restart strategy takes over). Default
   * 180,000 ms (3 minutes); 0 fails at the first failure; `Infinity` retries
   * for ever.
   */
  maxOutageMs: v.optional(budgetMs, 180_000),
  /** Wait before the first retry; it doubles with each retry. Default 200 ms. */
  initialBackoffMs: v.optional(positiveMs(), 200),
  /** Longest wait between two retries. Default 5,000 ms. */
  maxBackoffMs: v.optional(positiveMs(), 5_000),
});

/** Options of `reconnect` (see {@link kafkaReconnectSchema}). */
export type KafkaReconnectOptions = OptionsOf<typeof kafkaReconnectSchema>;
/** `reconnect` with defaults applied (plain data: it is sent to the producer thread). */
export type KafkaReconnectSettings = ConfigOf<typeof kafkaReconnectSchema>;

/** The `reconnect` entry of the Kafka connectors' options. */
export const kafkaReconnectEntry = v.optional(kafkaReconnectSchema, {});

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

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Where a {@link Reconnector} reports: a log line per retry, and the retry counter. */
export interface ReconnectReport {
  readonly log: (message: string) => void;
  readonly counter: Pick<Counter, 'inc'> | undefined;
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

/**
 * The retry state of one connector instance across one outage at a time.
 * {@link failed} is called for each failure and says how long to wait (or
 * throws once the outage exceeds its budget); {@link recovered} ends the outage.
 */
export class Reconnector {
  private outageStart: number | undefined;
  private retries = 0;

  constructor(
    private readonly settings: KafkaReconnectSettings,
    /** Names the connector in messages, e.g. `Kafka source 'orders'`. */
    private readonly what: string,
    private readonly report: ReconnectReport,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether an outage is in progress (a failure not yet followed by a success). */
  get inOutage(): boolean {
    return this.outageStart !== undefined;
  }

  /**
   * A failure while doing `action`: the wait before the next attempt (ms).
   * Rethrows `cause` untouched when the cluster was reachable (the request
   * itself failed), and throws a retriable `code` error once the outage has
   * lasted longer than `maxOutageMs`.
   */
  failed(cause: unknown, action: string, code: 'SOURCE_FAILED' | 'SINK_FAILED'): number {
    if (!isClusterUnreachable(cause)) throw cause;
    const now = this.now();
    this.outageStart ??= now;
    const elapsed = now - this.outageStart;
    const s = this.settings;
    const base = Math.min(s.maxBackoffMs, s.initialBackoffMs * 2 ** Math.min(this.retries, 30));
    // Half fixed, half random: connectors failing together do not retry together.
    const delay = Math.round(base / 2 + (base / 2) * this.random());
    if (elapsed + delay > s.maxOutageMs) {
      const retries = this.retries;
      this.outageStart = undefined;
      this.retries = 0;
      throw new WeirError(
        code,
        `${this.what} could not ${action}: the Kafka cluster has been unreachable for ${seconds(elapsed)} ` +
          `(${retries} retries; reconnect.maxOutageMs is ${s.maxOutageMs} ms): ${shortReason(cause)}`,
        { domain: 'external', cause, retriable: true },
      );
    }
    this.retries++;
    this.report.counter?.inc();
    const what = apiCodes(cause).length > 0 ? 'got a transient Kafka error' : 'cannot reach Kafka';
    this.report.log(
      `${this.what} ${what} while trying to ${action} (${shortReason(cause)}); ` +
        `retry ${this.retries} in ${delay} ms, ${seconds(elapsed)} into the outage (gives up after ${seconds(s.maxOutageMs)})`,
    );
    return delay;
  }

  /** The cluster answers again: the next failure starts a new outage. */
  recovered(): void {
    if (this.outageStart === undefined) return;
    this.report.log(
      `${this.what} reached Kafka again after ${seconds(this.now() - this.outageStart)} (${this.retries} retries)`,
    );
    this.outageStart = undefined;
    this.retries = 0;
  }

  /**
   * Runs `attempt` until it succeeds, retrying while the cluster is
   * unreachable as {@link failed} allows. `attempt` must be safe to repeat.
   */
  async run<T>(
    action: string,
    code: 'SOURCE_FAILED' | 'SINK_FAILED',
    attempt: () => Promise<T>,
    stopped: () => boolean = () => false,
  ): Promise<T> {
    for (;;) {
      try {
        const result = await attempt();
        this.recovered();
        return result;
      } catch (cause) {
        if (stopped()) throw cause;
        await sleep(this.failed(cause, action, code));
      }
    }
  }
}
