/**
 * Riding out a server that is briefly away (a restart, a failover, a leader
 * election, a network blip), for every connector: a policy that retries
 * with capped exponential backoff and jitter until the outage has lasted
 * longer than its budget. Every retry is logged once with its cause and
 * counted; only a longer outage fails the task, which then leaves it to the
 * job's restart strategy. What counts as "away" is each connector's own
 * {@link OutageKind}.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import { WeirError } from '../../core/errors.js';
import type { Counter } from '../../core/metrics.js';
import { positiveMs } from './config.js';

/** `reconnect` with defaults applied (plain data: it may be sent to a worker thread). */
export interface ReconnectSettings {
  /**
   * Longest outage retried, from the first failure to the last retry: past
   * it the task fails (and the job's restart strategy takes over). 0 fails
   * at the first failure; `Infinity` retries for ever.
   */
  readonly maxOutageMs: number;
  /** Wait before the first retry; it doubles with each retry. */
  readonly initialBackoffMs: number;
  /** Longest wait between two retries. */
  readonly maxBackoffMs: number;
}

/** The `reconnect` option as users give it: every field optional. */
export type ReconnectOptions = Partial<ReconnectSettings>;

/** A number of ms >= 0; `Infinity` allowed ("never give up"). */
const budgetMs = v.pipe(
  v.number('must be a number of milliseconds >= 0'),
  v.minValue(0, 'must be a number of milliseconds >= 0'),
);

/** The `reconnect` entry of a connector's options schema, with that connector's defaults. */
export function reconnectEntry(defaults: ReconnectSettings) {
  return v.optional(
    v.object({
      maxOutageMs: v.optional(budgetMs, defaults.maxOutageMs),
      initialBackoffMs: v.optional(positiveMs(), defaults.initialBackoffMs),
      maxBackoffMs: v.optional(positiveMs(), defaults.maxBackoffMs),
    }),
    {},
  );
}

/** What a connector's server being away looks like, and how its messages name it. */
export interface OutageKind {
  /** Names the server in messages: `the database`, `the Kafka cluster`. */
  readonly server: string;
  /** Whether `error` is worth waiting out (the server is away), rather than a failed request. */
  isTransient(error: unknown): boolean;
  /** The state the error shows, after the server's name: `is unreachable`. */
  state(error: unknown): string;
  /** The error, short enough for a log line. */
  reason(error: unknown): string;
}

/** Where a {@link Reconnector} reports: a log line per retry, and the retry counter. */
export interface ReconnectReport {
  readonly log: (message: string) => void;
  readonly counter: Pick<Counter, 'inc'> | undefined;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The retry state of one connector instance across one outage at a time.
 * {@link failed} is called for each failure and says how long to wait (or
 * throws once the outage exceeds its budget); {@link recovered} ends it.
 */
export class Reconnector {
  private outageStart: number | undefined;
  private retries = 0;

  constructor(
    private readonly settings: ReconnectSettings,
    /** Names the connector in messages, e.g. `PostgreSQL sink 'totals'`. */
    private readonly what: string,
    private readonly kind: OutageKind,
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
   * Rethrows `cause` untouched when the server was there (the request itself
   * failed), and throws a retriable `code` error once the outage has lasted
   * longer than `maxOutageMs`.
   */
  failed(cause: unknown, action: string, code: 'SOURCE_FAILED' | 'SINK_FAILED'): number {
    const { kind, settings: s } = this;
    if (!kind.isTransient(cause)) throw cause;
    const now = this.now();
    this.outageStart ??= now;
    const elapsed = now - this.outageStart;
    const base = Math.min(s.maxBackoffMs, s.initialBackoffMs * 2 ** Math.min(this.retries, 30));
    // Half fixed, half random: connectors failing together do not retry together.
    const delay = Math.round(base / 2 + (base / 2) * this.random());
    if (elapsed + delay > s.maxOutageMs) {
      const failure = new WeirError(
        code,
        `${this.what} could not ${action}: ${kind.server} has been unreachable for ${seconds(elapsed)} ` +
          `(${this.retries} retries; reconnect.maxOutageMs is ${s.maxOutageMs} ms): ${kind.reason(cause)}`,
        { domain: 'external', cause, retriable: true },
      );
      this.outageStart = undefined;
      this.retries = 0;
      throw failure;
    }
    this.retries++;
    this.report.counter?.inc();
    this.report.log(
      `${this.what} could not ${action}, ${kind.server} ${kind.state(cause)} (${kind.reason(cause)}); ` +
        `retry ${this.retries} in ${delay} ms, ${seconds(elapsed)} into the outage (gives up after ${seconds(s.maxOutageMs)})`,
    );
    return delay;
  }

  /** The server answers again: the next failure starts a new outage. */
  recovered(): void {
    if (this.outageStart === undefined) return;
    this.report.log(
      `${this.what} reconnected to ${this.kind.server} after ${seconds(this.now() - this.outageStart)} ` +
        `(${this.retries} ${this.retries === 1 ? 'retry' : 'retries'})`,
    );
    this.outageStart = undefined;
    this.retries = 0;
  }

  /**
   * Runs `attempt` until it succeeds, retrying while the server is away as
   * {@link failed} allows; gives up at once when `stopped()` says the task
   * is stopping. `attempt` must be safe to repeat (open its own session).
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
