import { invalidArgument } from './errors.js';
import type { RuntimeContext } from './functions.js';
import type { MetricGroup } from './metrics.js';
import type { Json } from './snapshot.js';
import type { StateSerializer } from './state.js';

/**
 * Calls an external service per record without blocking the stream: the
 * request runs in the background while the operator takes more records, up
 * to `capacity` at a time. One instance per subtask (as `Object.create` of
 * the object passed, so fields set in `open` are per subtask).
 */
export interface AsyncFunction<IN, OUT> {
  /** Called once per subtask before the first record. */
  open?(context: AsyncRuntimeContext): void;
  /**
   * Starts the request for one record; resolves with its results (zero or
   * more, each stamped with the record's timestamp). A rejection fails the
   * job naming the record, unless the retry strategy retries it.
   */
  asyncInvoke(input: IN): PromiseLike<Iterable<OUT>>;
  /**
   * Called after each round of `asyncInvoke` calls (the records of one
   * batch, or those that capacity freed up): requests collected during the
   * round may now be sent together.
   */
  flush?(): void;
  /**
   * The results for a record whose request did not complete within
   * `timeoutMs`. Without it a timeout fails the job, naming the record.
   */
  timeout?(input: IN): Iterable<OUT>;
  /** Called once per subtask when the job ends (also when it fails). */
  close?(): void | Promise<void>;
}

/** Passed to {@link AsyncFunction.open}. */
export interface AsyncRuntimeContext extends RuntimeContext {
  /** The operator subtask's metrics (counters, gauges). */
  readonly metrics: MetricGroup;
  /** The job's processing-time clock. */
  currentProcessingTime(): number;
}

/** The function form of {@link AsyncFunction}: just the request. */
export type AsyncInvoke<IN, OUT> = (input: IN) => PromiseLike<Iterable<OUT>>;

/**
 * In which order results leave the operator:
 * - `ordered`: in the order of the input records (a slow request holds back
 *   the results of later ones);
 * - `unordered`: as their requests complete, but never across a watermark:
 *   the results of every record before a watermark leave before it, and
 *   those of records after it leave after it.
 */
export type AsyncOrder = 'ordered' | 'unordered';

/**
 * When and how often a failed (or unsatisfying) request is tried again.
 * Build one with {@link AsyncRetry}.
 */
export interface AsyncRetryStrategy<OUT> {
  /** Attempts in all, the first included (at least 1). */
  readonly maxAttempts: number;
  /** Milliseconds to wait before retry number `retry` (1 for the second attempt). */
  delayBefore(retry: number): number;
  /** Whether an error calls for another attempt. Default: every error does. */
  readonly retryOnError?: (error: unknown) => boolean;
  /**
   * Whether results call for another attempt (for example none yet, when
   * the row may not have been written). Default: never. When the attempts
   * run out, the last results are emitted as they are.
   */
  readonly retryOnResult?: (results: readonly OUT[]) => boolean;
}

/** Predicates shared by the retry strategies. */
export interface AsyncRetryPredicates<OUT> {
  readonly retryOnError?: (error: unknown) => boolean;
  readonly retryOnResult?: (results: readonly OUT[]) => boolean;
}

/** Ready-made retry strategies. */
export const AsyncRetry = {
  /** Up to `maxAttempts` attempts, `delayMs` apart. */
  fixedDelay<OUT>(
    options: { readonly maxAttempts: number; readonly delayMs: number } & AsyncRetryPredicates<OUT>,
  ): AsyncRetryStrategy<OUT> {
    checkAttempts(options.maxAttempts);
    checkDelay('delayMs', options.delayMs);
    const { delayMs } = options;
    return { ...options, delayBefore: () => delayMs };
  },
  /**
   * Up to `maxAttempts` attempts; the first retry waits `initialDelayMs`,
   * each next one `multiplier` (default 2) times longer, at most `maxDelayMs`.
   */
  exponentialBackoff<OUT>(
    options: {
      readonly maxAttempts: number;
      readonly initialDelayMs: number;
      readonly maxDelayMs: number;
      readonly multiplier?: number;
    } & AsyncRetryPredicates<OUT>,
  ): AsyncRetryStrategy<OUT> {
    checkAttempts(options.maxAttempts);
    checkDelay('initialDelayMs', options.initialDelayMs);
    checkDelay('maxDelayMs', options.maxDelayMs);
    const multiplier = options.multiplier ?? 2;
    if (!(Number.isFinite(multiplier) && multiplier >= 1)) {
      throw invalidArgument(
        `exponential backoff: multiplier must be at least 1, got ${multiplier}`,
      );
    }
    const { initialDelayMs, maxDelayMs } = options;
    return {
      ...options,
      delayBefore: (retry) => Math.min(maxDelayMs, initialDelayMs * multiplier ** (retry - 1)),
    };
  },
} as const;

function checkAttempts(maxAttempts: number): void {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw invalidArgument(`retry: maxAttempts must be a whole number >= 1, got ${maxAttempts}`);
  }
}

function checkDelay(name: string, ms: number): void {
  if (!(Number.isFinite(ms) && ms >= 0)) {
    throw invalidArgument(`retry: ${name} must be a number of milliseconds >= 0, got ${ms}`);
  }
}

/** How an async operator runs. */
export interface AsyncOptions<IN, OUT> {
  /** Default `ordered`. */
  readonly order?: AsyncOrder;
  /**
   * Records whose results have not left the operator yet (requests in
   * flight, and completed ones an ordered operator still holds back), at
   * most. When full, the task stops taking input: backpressure. Default 100.
   */
  readonly capacity?: number;
  /**
   * Milliseconds (processing time) from a record's first attempt until its
   * results must be in, retries included. Then the function's `timeout`
   * decides, or the job fails naming the record. Default 60 000.
   */
  readonly timeoutMs?: number;
  /** Retries of failed or unsatisfying requests. Default: none. */
  readonly retry?: AsyncRetryStrategy<OUT>;
  /**
   * Encodes the records in flight in checkpoints (they are requested again
   * after a restore): a `StateSerializer<IN>`. Default `Serializers.json()`.
   */
  readonly serializer?: RecordSerializer<IN>;
}

/**
 * A {@link StateSerializer} of records as async options take it: `fromJson`
 * must return an `IN`. (Typed loosely there so that a stream of a narrower
 * record type stays assignable to one of a wider type.)
 */
export type RecordSerializer<IN> = Omit<StateSerializer<IN>, 'fromJson'> & {
  fromJson(json: Json, writtenVersion: number): unknown;
};

/** Options with defaults applied, checked when the job is built. */
export interface AsyncSpec<IN, OUT> {
  readonly order: AsyncOrder;
  readonly capacity: number;
  readonly timeoutMs: number;
  readonly retry: AsyncRetryStrategy<OUT> | undefined;
  readonly serializer: StateSerializer<IN> | undefined;
}

export const DEFAULT_ASYNC_CAPACITY = 100;
export const DEFAULT_ASYNC_TIMEOUT_MS = 60_000;

/** */
export function asyncSpec<IN, OUT>(options: AsyncOptions<IN, OUT>): AsyncSpec<IN, OUT> {
  const order = options.order ?? 'ordered';
  if (order !== 'ordered' && order !== 'unordered') {
    throw invalidArgument(`async: order must be 'ordered' or 'unordered', got '${String(order)}'`);
  }
  const capacity = options.capacity ?? DEFAULT_ASYNC_CAPACITY;
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw invalidArgument(`async: capacity must be a whole number >= 1, got ${capacity}`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_ASYNC_TIMEOUT_MS;
  if (!(timeoutMs > 0)) {
    throw invalidArgument(`async: timeoutMs must be a positive number, got ${timeoutMs}`);
  }
  if (options.retry !== undefined) checkAttempts(options.retry.maxAttempts);
  return {
    order,
    capacity,
    timeoutMs,
    retry: options.retry,
    serializer: options.serializer as StateSerializer<IN> | undefined,
  };
}
