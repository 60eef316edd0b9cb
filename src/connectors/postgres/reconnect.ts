/**
 * Riding out a database that is briefly away (a restart, a failover, a
 * network blip): which errors mean "the connection is gone", and a policy
 * that retries with capped exponential backoff and jitter until the outage
 * has lasted longer than its budget. Every retry is logged once with its
 * cause and counted in {@link RECONNECTS_METRIC}; only a longer outage fails
 * the task (and leaves it to the job's restart strategy).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { WeirError } from '../../core/errors.js';
import type { Counter, MetricGroup } from '../../core/metrics.js';
import { type ConfigOf, type OptionsOf, positiveMs } from '../shared/config.js';

/** Counter: times a PostgreSQL connector retried after losing its connection. */
export const RECONNECTS_METRIC = 'weir_postgres_reconnects_total';

/** A number of ms >= 0; `Infinity` allowed ("never give up"). */
const budgetMs = v.pipe(
  v.number('must be a number of milliseconds >= 0'),
  v.minValue(0, 'must be a number of milliseconds >= 0'),
);

/** How a connector rides out a lost connection. */
export const reconnectSchema = v.object({
  /**
   * Longest outage retried, from the first failure to the last retry:
   * past it the task fails (and the job's restart strategy takes over).
   * Default 60,000 ms; 0 fails at once; `Infinity` retries for ever.
   */
  maxOutageMs: v.optional(budgetMs, 60_000),
  /** Wait before the first retry; it doubles with each retry. Default 100 ms. */
  initialBackoffMs: v.optional(positiveMs(), 100),
  /** Longest wait between two retries. Default 5,000 ms. */
  maxBackoffMs: v.optional(positiveMs(), 5_000),
});

/** Options of `reconnect` (see {@link reconnectSchema}). */
export type ReconnectOptions = OptionsOf<typeof reconnectSchema>;
/** `reconnect` with defaults applied. */
export type ReconnectSettings = ConfigOf<typeof reconnectSchema>;

/** The `reconnect` entry of a connector's options schema. */
export const reconnectEntry = v.optional(reconnectSchema, {});

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

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The retry state of one connector instance across one outage at a time.
 * `failed` is called for each failure and says how long to wait (or throws
 * once the outage exceeds its budget); `recovered` ends the outage.
 */
export class Reconnector {
  private outageStart: number | undefined;
  private retries = 0;

  constructor(
    private readonly settings: ReconnectSettings,
    /** Names the connector in messages, e.g. `PostgreSQL sink 'totals'`. */
    private readonly what: string,
    private readonly log: (message: string) => void,
    /** Counts retries (see {@link reconnectCounter}). */
    private readonly counter: Pick<Counter, 'inc'>,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether an outage is in progress (a failure not yet followed by success). */
  get inOutage(): boolean {
    return this.outageStart !== undefined;
  }

  /**
   * A failure while doing `action`: the wait before the next attempt (ms).
   * Rethrows `cause` untouched when it is not a lost connection, and throws
   * a retriable `failure` once the outage has lasted longer than
   * `maxOutageMs`.
   */
  failed(cause: unknown, action: string, code: 'SOURCE_FAILED' | 'SINK_FAILED'): number {
    if (!isConnectionLost(cause)) throw cause;
    const now = this.now();
    this.outageStart ??= now;
    const elapsed = now - this.outageStart;
    const s = this.settings;
    const base = Math.min(s.maxBackoffMs, s.initialBackoffMs * 2 ** Math.min(this.retries, 30));
    // Half fixed, half random: spread out, yet never much shorter than planned.
    const delay = Math.round(base / 2 + (base / 2) * this.random());
    if (elapsed + delay > s.maxOutageMs) {
      const failure = new WeirError(
        code,
        `${this.what} could not ${action}: the database has been unreachable for ${seconds(elapsed)} ` +
          `(${this.retries} retries; reconnect.maxOutageMs is ${s.maxOutageMs} ms): ${reasonOf(cause)}`,
        { domain: 'external', cause, retriable: true },
      );
      this.outageStart = undefined;
      this.retries = 0;
      throw failure;
    }
    this.retries++;
    this.counter.inc();
    this.log(
      `${this.what} could not ${action}, the database is unreachable (${reasonOf(cause)}); ` +
        `retry ${this.retries} in ${delay} ms, ${seconds(elapsed)} into the outage (gives up after ${seconds(s.maxOutageMs)})`,
    );
    return delay;
  }

  /** The connection works again: the next failure starts a new outage. */
  recovered(): void {
    if (this.outageStart === undefined) return;
    this.log(
      `${this.what} reconnected after ${seconds(this.now() - this.outageStart)} (${this.retries} ${this.retries === 1 ? 'retry' : 'retries'})`,
    );
    this.outageStart = undefined;
    this.retries = 0;
  }

  /**
   * Runs `attempt` until it succeeds, retrying after lost connections as
   * {@link failed} allows. `attempt` must be safe to repeat (it should open
   * its own session).
   */
  async run<T>(
    action: string,
    code: 'SOURCE_FAILED' | 'SINK_FAILED',
    attempt: () => Promise<T>,
  ): Promise<T> {
    for (;;) {
      try {
        const result = await attempt();
        this.recovered();
        return result;
      } catch (cause) {
        await sleep(this.failed(cause, action, code));
      }
    }
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
