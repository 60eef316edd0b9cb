/** A row looked up earlier, or the knowledge that there was none. */
const MISSING: unique symbol = Symbol('missing');

interface CacheEntry<V> {
  readonly row: V | typeof MISSING;
  readonly expiresAt: number;
}

/**
 * Rows by key with a time-to-live and a size bound: a `Map` kept in
 * recency order (a hit moves the key to the end), so the least recently
 * used key is the first one and goes when the cache is full.
 */
export class LookupCache<K, V> {
  private readonly entries = new Map<K, CacheEntry<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxSize: number,
    private readonly cacheMissing: boolean,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** `{ row }` on a live hit (`row` null when the key has no row), undefined on a miss. */
  get(key: K, now: number): { readonly row: V | null } | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry);
    return { row: entry.row === MISSING ? null : entry.row };
  }

  put(key: K, row: V | undefined, now: number): void {
    if (row === undefined && !this.cacheMissing) return;
    this.entries.delete(key);
    this.entries.set(key, { row: row === undefined ? MISSING : row, expiresAt: now + this.ttlMs });
    if (this.entries.size > this.maxSize) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }
}
