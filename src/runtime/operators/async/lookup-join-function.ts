import type { AsyncFunction, AsyncRuntimeContext } from '../../../core/async-io.js';
import { describeRecord, WeirError } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type { LookupJoinSpec, LookupTable } from '../../../core/lookup.js';
import type { Counter } from '../../../metrics/registry.js';
import { LookupCache } from './lookup-cache.js';

/** Metrics of lookup joins, per subtask. */
export const LOOKUP_METRICS = {
  /** Records an inner join dropped because their key had no row. */
  unmatched: 'weir_lookup_unmatched_total',
  cacheHits: 'weir_lookup_cache_hits_total',
  cacheMisses: 'weir_lookup_cache_misses_total',
  /** Calls of the table's `lookup`. */
  requests: 'weir_lookup_requests_total',
  /** Keys asked for over all calls. */
  keys: 'weir_lookup_keys_total',
} as const;

interface Waiter<V> {
  resolve(row: V | undefined): void;
  reject(error: unknown): void;
}

/**
 * A lookup join as an async function: each record's key is answered from
 * the cache, or joins the keys of the current round, which go to the table
 * in one `lookup` call when the round ends (or the batch is full). Records
 * with the same key share one lookup.
 */
export class LookupJoinFunction<T, K extends Key, V, R> implements AsyncFunction<T, R> {
  private table!: LookupTable<K, V>;
  private cache: LookupCache<K, V> | undefined;
  private now!: () => number;
  /** Keys of the current round, not yet sent. */
  private batch = new Map<K, Waiter<V>>();
  /** Lookups not yet answered, by key. */
  private readonly pending = new Map<K, Promise<V | undefined>>();
  private unmatched!: Counter;
  private hits!: Counter;
  private misses!: Counter;
  private requests!: Counter;
  private keys!: Counter;

  constructor(
    private readonly tableTemplate: LookupTable<K, V>,
    private readonly spec: LookupJoinSpec<T, K, V, R>,
  ) {}

  open(context: AsyncRuntimeContext): void {
    const { metrics } = context;
    this.unmatched = metrics.counter(
      LOOKUP_METRICS.unmatched,
      'Records an inner lookup join dropped: no row for their key',
    );
    this.hits = metrics.counter(LOOKUP_METRICS.cacheHits, 'Lookup join keys found in the cache');
    this.misses = metrics.counter(LOOKUP_METRICS.cacheMisses, 'Lookup join keys not in the cache');
    this.requests = metrics.counter(LOOKUP_METRICS.requests, 'Lookup calls to the table');
    this.keys = metrics.counter(LOOKUP_METRICS.keys, 'Keys asked of the table');
    this.now = () => context.currentProcessingTime();
    const c = this.spec.cache;
    if (c !== undefined) {
      this.cache = new LookupCache(c.ttlMs, c.maxSize, c.cacheMissing);
      metrics.gauge('weir_lookup_cache_size', 'Keys in the lookup cache', () => this.cache!.size);
    }
    this.table = Object.create(this.tableTemplate) as LookupTable<K, V>;
    this.table.open?.(context);
  }

  asyncInvoke(record: T): Promise<R[]> {
    const key = this.spec.key(record);
    if (key === null || key === undefined) return Promise.resolve(this.joined(record, undefined));
    const type = typeof key;
    if (type !== 'string' && type !== 'number' && type !== 'bigint' && type !== 'boolean') {
      throw new TypeError(
        `its lookup key is ${describeRecord(key)}; keys must be strings, numbers, bigints or booleans`,
      );
    }
    const cache = this.cache;
    if (cache !== undefined) {
      const hit = cache.get(key, this.now());
      if (hit !== undefined) {
        this.hits.inc();
        return Promise.resolve(this.joined(record, hit.row ?? undefined));
      }
      this.misses.inc();
    }
    let row = this.pending.get(key);
    if (row === undefined) {
      row = new Promise<V | undefined>((resolve, reject) => {
        this.batch.set(key, { resolve, reject });
      });
      this.pending.set(key, row);
      if (this.batch.size >= this.spec.maxBatchSize) this.flush();
    }
    return row.then((r) => this.joined(record, r));
  }

  /** Sends the keys of the round that ended in one lookup. */
  flush(): void {
    const batch = this.batch;
    if (batch.size === 0) return;
    this.batch = new Map();
    const keys = [...batch.keys()];
    this.requests.inc();
    this.keys.inc(keys.length);
    let result: Promise<ReadonlyMap<K, V>>;
    try {
      result = Promise.resolve(this.table.lookup(keys));
    } catch (cause) {
      result = Promise.reject(cause);
    }
    result.then(
      (rows) => {
        if (rows === null || typeof rows !== 'object' || typeof rows.get !== 'function') {
          this.fail(batch, new TypeError(`lookup returned ${describeRecord(rows)}, not a Map`));
          return;
        }
        const now = this.now();
        for (const [key, waiter] of batch) {
          this.pending.delete(key);
          const row = rows.get(key);
          this.cache?.put(key, row, now);
          waiter.resolve(row);
        }
      },
      (cause: unknown) => this.fail(batch, cause),
    );
  }

  async close(): Promise<void> {
    await this.table?.close?.();
  }

  /** Every key of a failed lookup fails with an error naming it (and the table). */
  private fail(batch: ReadonlyMap<K, Waiter<V>>, cause: unknown): void {
    const reason = cause instanceof Error ? cause.message : String(cause);
    for (const [key, waiter] of batch) {
      this.pending.delete(key);
      waiter.reject(
        new WeirError(
          'LOOKUP_FAILED',
          `lookup of key ${describeRecord(key)} in table '${this.tableTemplate.name}' failed: ${reason}`,
          { cause, domain: 'external', retriable: true },
        ),
      );
    }
  }

  private joined(record: T, row: V | undefined): R[] {
    if (row === undefined) {
      if (this.spec.join === 'inner') {
        this.unmatched.inc();
        return [];
      }
      return [this.spec.select(record, null)];
    }
    return [this.spec.select(record, row)];
  }
}
