/**
 * The synchronous, ordered key-value store under the disk backend. Keys and
 * values are strings; keys order by their UTF-8 bytes. Every method is
 * synchronous because keyed state is used inside synchronous batch
 * processing.
 */
export interface SyncKvStore {
  get(key: string): string | undefined;
  /** Applies all changes (a string puts, `null` deletes) atomically, before returning. */
  write(changes: ReadonlyMap<string, string | null>): void;
  /**
   * Entries with `start <= key < end`, in key order, at most `limit`. Reflects
   * every write that returned before the call; writes made while iterating
   * may or may not be seen.
   */
  range(start: string, end: string, limit?: number): IterableIterator<[string, string]>;
  /** Number of entries. */
  count(): number;
  /** Bytes the entries occupy in the store (pages in use, not the file's size); cheap enough for a metric. */
  byteSize(): number;
  /** Longest key accepted, in UTF-8 bytes. */
  readonly maxKeyBytes: number;
  /** Closes the store; its files stay until the caller removes them. */
  close(): void;
}
