import {
  type AsyncOptions,
  type AsyncRetryStrategy,
  type AsyncRuntimeContext,
  type AsyncSpec,
  asyncSpec,
} from './async-io.js';
import { invalidArgument } from './errors.js';
import type { Key } from './key-groups.js';

/**
 * An external table read by key, for lookup joins. The runtime uses one
 * instance per subtask (`Object.create` of the table passed, so fields set
 * in `open` are per subtask) and calls `lookup` with the distinct keys of
 * the records it is enriching at the time, at most `maxBatchSize` of them.
 */
export interface LookupTable<K extends Key, V> {
  /** Shown in operator names and error messages. */
  readonly name: string;
  /** Called once per subtask before the first lookup (create connection pools here). */
  open?(context: AsyncRuntimeContext): void;
  /**
   * The rows of those `keys` that exist. A key without a row is simply
   * absent from the map; a rejection fails the lookup of every key asked for.
   */
  lookup(keys: readonly K[]): Promise<ReadonlyMap<K, V>>;
  /**
   * A table held in this process may also answer one key at once. The join
   * then runs synchronously, record by record, without async I/O (so
   * `capacity`, `order`, `timeoutMs`, `retry` and `cache` do not apply).
   */
  readonly get?: ((key: K) => V | undefined) | undefined;
  /** Called once per subtask when the job ends. */
  close?(): void | Promise<void>;
}

/** A cache of looked-up rows per subtask: least recently used entries go first. */
export interface LookupCacheOptions {
  /** Milliseconds (processing time) a row is served from the cache before it is looked up again. */
  readonly ttlMs: number;
  /** Keys cached at most. */
  readonly maxSize: number;
  /** Also cache that a key has no row (for `ttlMs`). Default true. */
  readonly cacheMissing?: boolean;
}

/** What lookup joins of any kind are configured with. */
export interface LookupJoinBaseOptions<T, K extends Key, R>
  extends Omit<AsyncOptions<T, R>, 'retry'> {
  /**
   * The key of a record in the table. A `null` or `undefined` key matches
   * no row.
   */
  readonly key: (record: T) => K | null | undefined;
  /** Cache rows per subtask. Default: no cache, every record is looked up. */
  readonly cache?: LookupCacheOptions;
  /** Keys per `lookup` call at most. Default 100. */
  readonly maxBatchSize?: number;
  /** Retries of failed lookups (results are the joined records). */
  readonly retry?: AsyncRetryStrategy<R>;
}

/** Inner join: records without a row are dropped (and counted in `weir_lookup_unmatched_total`). */
export interface InnerLookupJoinOptions<T, K extends Key, V, R>
  extends LookupJoinBaseOptions<T, K, R> {
  readonly join?: 'inner';
  /** The joined record. */
  readonly select: (record: T, row: V) => R;
}

/** Left join: records without a row are joined with `null`. */
export interface LeftLookupJoinOptions<T, K extends Key, V, R>
  extends LookupJoinBaseOptions<T, K, R> {
  readonly join: 'left';
  readonly select: (record: T, row: V | null) => R;
}

export type LookupJoinOptions<T, K extends Key, V, R> =
  | InnerLookupJoinOptions<T, K, V, R>
  | LeftLookupJoinOptions<T, K, V, R>;

export const DEFAULT_LOOKUP_BATCH_SIZE = 100;

/** A lookup join's options, checked and with defaults applied. */
export interface LookupJoinSpec<T, K extends Key, V, R> {
  readonly join: 'inner' | 'left';
  readonly key: (record: T) => K | null | undefined;
  readonly select: (record: T, row: V | null) => R;
  readonly cache: Required<LookupCacheOptions> | undefined;
  readonly maxBatchSize: number;
  readonly async: AsyncSpec<T, R>;
}

/** */
export function lookupJoinSpec<T, K extends Key, V, R>(
  table: LookupTable<K, V>,
  options: LookupJoinOptions<T, K, V, R>,
): LookupJoinSpec<T, K, V, R> {
  if (table === null || typeof table !== 'object' || typeof table.lookup !== 'function') {
    throw invalidArgument('lookupJoin: the table must have a lookup(keys) method');
  }
  const join = options.join ?? 'inner';
  if (join !== 'inner' && join !== 'left') {
    throw invalidArgument(`lookupJoin: join must be 'inner' or 'left', got '${String(join)}'`);
  }
  if (typeof options.key !== 'function' || typeof options.select !== 'function') {
    throw invalidArgument('lookupJoin: key and select must be functions');
  }
  const maxBatchSize = options.maxBatchSize ?? DEFAULT_LOOKUP_BATCH_SIZE;
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
    throw invalidArgument(
      `lookupJoin: maxBatchSize must be a whole number >= 1, got ${maxBatchSize}`,
    );
  }
  let cache: Required<LookupCacheOptions> | undefined;
  if (options.cache !== undefined) {
    const { ttlMs, maxSize, cacheMissing = true } = options.cache;
    if (!(ttlMs > 0))
      throw invalidArgument(`lookupJoin: cache ttlMs must be positive, got ${ttlMs}`);
    if (!Number.isInteger(maxSize) || maxSize < 1) {
      throw invalidArgument(
        `lookupJoin: cache maxSize must be a whole number >= 1, got ${maxSize}`,
      );
    }
    cache = { ttlMs, maxSize, cacheMissing };
  }
  return {
    join,
    key: options.key,
    select: options.select as (record: T, row: V | null) => R,
    cache,
    maxBatchSize,
    async: asyncSpec(options),
  };
}
