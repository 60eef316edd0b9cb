import { invalidArgument } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import type { LookupTable } from '../../../core/lookup.js';

export interface InMemoryLookupTableOptions<K> {
  /** Default `memory`. */
  readonly name?: string;
  /**
   * Simulated latency of each `lookup` call in milliseconds, fixed or per
   * call (from its keys), answered asynchronously (for tests of async
   * behaviour). Default: none, and the table answers synchronously through
   * `get`, so a lookup join against it runs without async I/O.
   */
  readonly latencyMs?: number | ((keys: readonly K[]) => number);
}

/** Calls and keys a table has answered, over all subtasks. */
export interface LookupTableStats {
  lookups: number;
  keys: number;
}

/**
 * A lookup table held in memory, shared by all subtasks: for tests,
 * benchmarks and small reference data. Rows may change while a job runs
 * (`set`, `delete`); a lookup sees the rows as they are when it is answered.
 */
export class InMemoryLookupTable<K extends Key, V> implements LookupTable<K, V> {
  readonly name: string;
  readonly stats: LookupTableStats = { lookups: 0, keys: 0 };
  private readonly rows: Map<K, V>;
  private readonly latency: (keys: readonly K[]) => number;

  constructor(rows: Iterable<readonly [K, V]>, options: InMemoryLookupTableOptions<K> = {}) {
    this.rows = new Map(rows);
    this.name = options.name ?? 'memory';
    const latency = options.latencyMs ?? 0;
    if (typeof latency === 'number' && !(latency >= 0)) {
      throw invalidArgument(`InMemoryLookupTable: latencyMs must be >= 0, got ${latency}`);
    }
    this.latency = typeof latency === 'number' ? () => latency : latency;
    if (options.latencyMs === undefined) {
      this.get = (key) => {
        this.stats.keys++;
        return this.rows.get(key);
      };
    }
  }

  readonly get: ((key: K) => V | undefined) | undefined;

  set(key: K, row: V): void {
    this.rows.set(key, row);
  }

  delete(key: K): void {
    this.rows.delete(key);
  }

  lookup(keys: readonly K[]): Promise<ReadonlyMap<K, V>> {
    this.stats.lookups++;
    this.stats.keys += keys.length;
    return new Promise((resolve) => {
      setTimeout(() => {
        const found = new Map<K, V>();
        for (const k of keys) {
          const row = this.rows.get(k);
          if (row !== undefined) found.set(k, row);
        }
        resolve(found);
      }, this.latency(keys));
    });
  }
}
