/**
 * Restart strategies: what a job does after a failure. The decision is a pure
 * function of the strategy, what happened so far ({@link RestartHistory}) and
 * the failure at hand, with the random source for jitter passed in, so every
 * strategy can be tested step by step without timers.
 */
import { invalidArgument } from '../../core/errors.js';

/**
 * What happens when a job fails. Every restart resumes from the latest
 * completed checkpoint (or from where the job was first started, if none
 * completed yet).
 *
 * - `none`: the first failure ends the job.
 * - `fixed-delay`: wait `delayMs` before each restart, at most `attempts` restarts in all.
 * - `exponential-delay`: wait `initialBackoffMs` before the first restart and
 *   `multiplier` times longer before each next one, up to `maxBackoffMs`, each
 *   wait moved at random by up to `jitterFactor` of itself (so that jobs failing
 *   together do not restart together). An attempt that ran longer than
 *   `resetBackoffThresholdMs` before failing starts the backoff over.
 *   `attempts` bounds the restarts between two such resets (unbounded by default).
 * - `failure-rate`: wait `delayMs` before each restart; the job fails for good
 *   when more than `maxFailuresPerInterval` failures fall within `failureIntervalMs`.
 */
export type RestartStrategy =
  | { readonly kind: 'none' }
  | { readonly kind: 'fixed-delay'; readonly attempts: number; readonly delayMs: number }
  | ({ readonly kind: 'exponential-delay' } & Partial<ExponentialDelaySettings>)
  | {
      readonly kind: 'failure-rate';
      readonly maxFailuresPerInterval: number;
      readonly failureIntervalMs: number;
      readonly delayMs: number;
    };

/** The settings of `exponential-delay`, all optional in {@link RestartStrategy}. */
export interface ExponentialDelaySettings {
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly multiplier: number;
  readonly jitterFactor: number;
  readonly resetBackoffThresholdMs: number;
  /** Restarts allowed between two resets of the backoff; `Infinity` for no bound. */
  readonly attempts: number;
}

/**
 * Defaults of `exponential-delay`, Flink's: a first wait of 1 s growing by half
 * up to 1 min, ±10 % jitter, reset after an hour of running, no bound on attempts.
 */
export const EXPONENTIAL_DELAY_DEFAULTS: ExponentialDelaySettings = {
  initialBackoffMs: 1_000,
  maxBackoffMs: 60_000,
  multiplier: 1.5,
  jitterFactor: 0.1,
  resetBackoffThresholdMs: 3_600_000,
  attempts: Number.POSITIVE_INFINITY,
};

/**
 * The strategy of a job that set none: `exponential-delay` with its defaults
 * when it takes checkpoints, `none` when it does not, since a job without
 * checkpoints would restart from scratch and repeat all its output.
 */
export function defaultRestartStrategy(checkpointing: boolean): RestartStrategy {
  return checkpointing ? { kind: 'exponential-delay' } : { kind: 'none' };
}

/** A strategy with every setting filled in, checked. */
export type ResolvedRestartStrategy =
  | { readonly kind: 'none' }
  | { readonly kind: 'fixed-delay'; readonly attempts: number; readonly delayMs: number }
  | ({ readonly kind: 'exponential-delay' } & ExponentialDelaySettings)
  | {
      readonly kind: 'failure-rate';
      readonly maxFailuresPerInterval: number;
      readonly failureIntervalMs: number;
      readonly delayMs: number;
    };

/** Checks `strategy` and fills in the defaults; throws INVALID_ARGUMENT naming the bad setting. */
export function resolveRestartStrategy(strategy: RestartStrategy): ResolvedRestartStrategy {
  switch (strategy.kind) {
    case 'none':
      return strategy;
    case 'fixed-delay':
      wholeNumber('attempts', strategy.attempts, 0);
      nonNegative('delayMs', strategy.delayMs);
      return { kind: 'fixed-delay', attempts: strategy.attempts, delayMs: strategy.delayMs };
    case 'exponential-delay': {
      const s = { ...EXPONENTIAL_DELAY_DEFAULTS, ...definedOnly(strategy) };
      nonNegative('initialBackoffMs', s.initialBackoffMs);
      nonNegative('maxBackoffMs', s.maxBackoffMs);
      if (s.maxBackoffMs < s.initialBackoffMs) {
        throw invalidArgument(
          `restartStrategy.maxBackoffMs (${s.maxBackoffMs}) must be >= initialBackoffMs (${s.initialBackoffMs})`,
        );
      }
      if (!(Number.isFinite(s.multiplier) && s.multiplier >= 1)) {
        throw invalidArgument(
          `restartStrategy.multiplier must be a number >= 1, got ${s.multiplier}`,
        );
      }
      if (!(s.jitterFactor >= 0 && s.jitterFactor <= 1)) {
        throw invalidArgument(
          `restartStrategy.jitterFactor must be between 0 and 1, got ${s.jitterFactor}`,
        );
      }
      nonNegative('resetBackoffThresholdMs', s.resetBackoffThresholdMs);
      if (s.attempts !== Number.POSITIVE_INFINITY) wholeNumber('attempts', s.attempts, 0);
      return { kind: 'exponential-delay', ...s };
    }
    case 'failure-rate':
      wholeNumber('maxFailuresPerInterval', strategy.maxFailuresPerInterval, 1);
      nonNegative('failureIntervalMs', strategy.failureIntervalMs);
      if (strategy.failureIntervalMs === 0) {
        throw invalidArgument('restartStrategy.failureIntervalMs must be positive');
      }
      nonNegative('delayMs', strategy.delayMs);
      return {
        kind: 'failure-rate',
        maxFailuresPerInterval: strategy.maxFailuresPerInterval,
        failureIntervalMs: strategy.failureIntervalMs,
        delayMs: strategy.delayMs,
      };
    default:
      throw invalidArgument(
        `restartStrategy.kind must be none, fixed-delay, exponential-delay or failure-rate, got '${String((strategy as { kind: unknown }).kind)}'`,
      );
  }
}

/** What the strategy remembers of earlier failures. */
export interface RestartHistory {
  /** Restarts counted against the strategy's bound (since the last reset of the backoff). */
  readonly restarts: number;
  /** `exponential-delay`: the wait before the next restart, before jitter. */
  readonly backoffMs: number;
  /** `failure-rate`: when the recent failures happened (ms, ascending). */
  readonly failureTimes: readonly number[];
}

/** The history of a job that has not failed yet. */
export const NO_FAILURES: RestartHistory = { restarts: 0, backoffMs: 0, failureTimes: [] };

/** One failure of a job, as the strategy weighs it. */
export interface Failure {
  /** When it happened (ms on any monotonic clock). */
  readonly at: number;
  /** How long the failed attempt had run. */
  readonly attemptDurationMs: number;
}

/** Whether to restart after a failure: after `delayMs`, or not (`delayMs` undefined). */
export interface RestartDecision {
  readonly delayMs: number | undefined;
  /** The history to decide the next failure with. */
  readonly history: RestartHistory;
}

/**
 * Decides whether and when to restart after `failure`. `random` returns a
 * number in [0, 1) (Math.random in production) and only moves the jitter.
 */
export function decideRestart(
  strategy: ResolvedRestartStrategy,
  history: RestartHistory,
  failure: Failure,
  random: () => number,
): RestartDecision {
  switch (strategy.kind) {
    case 'none':
      return { delayMs: undefined, history };
    case 'fixed-delay':
      if (history.restarts >= strategy.attempts) return { delayMs: undefined, history };
      return { delayMs: strategy.delayMs, history: { ...history, restarts: history.restarts + 1 } };
    case 'exponential-delay': {
      // A long healthy run means the fault has passed: start the backoff over.
      const reset =
        history.restarts === 0 || failure.attemptDurationMs > strategy.resetBackoffThresholdMs;
      const restarts = reset ? 0 : history.restarts;
      if (restarts >= strategy.attempts) return { delayMs: undefined, history };
      const backoffMs = reset ? strategy.initialBackoffMs : history.backoffMs;
      const jitter = strategy.jitterFactor * backoffMs * (2 * random() - 1);
      return {
        delayMs: Math.max(0, Math.round(backoffMs + jitter)),
        history: {
          ...history,
          restarts: restarts + 1,
          backoffMs: Math.min(backoffMs * strategy.multiplier, strategy.maxBackoffMs),
        },
      };
    }
    case 'failure-rate': {
      const since = failure.at - strategy.failureIntervalMs;
      const failureTimes = [...history.failureTimes.filter((t) => t > since), failure.at];
      const next = { ...history, failureTimes };
      if (failureTimes.length > strategy.maxFailuresPerInterval) {
        return { delayMs: undefined, history: next };
      }
      return { delayMs: strategy.delayMs, history: { ...next, restarts: history.restarts + 1 } };
    }
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function nonNegative(name: string, n: number): void {
  if (!(Number.isFinite(n) && n >= 0)) {
    throw invalidArgument(`restartStrategy.${name} must be a number >= 0, got ${n}`);
  }
}

function wholeNumber(name: string, n: number, min: number): void {
  if (!Number.isInteger(n) || n < min) {
    throw invalidArgument(`restartStrategy.${name} must be a whole number >= ${min}, got ${n}`);
  }
}
