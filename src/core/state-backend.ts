/**
 * Settings of the keyed state backends. Operators receive them in their
 * context and hand them to the state layer, which creates the backend.
 */
import type { Clock } from './clock.js';
import type { SyncKvStore } from './kv-store.js';

/** Options of the heap backend. */
export interface HeapBackendOptions {
  /** Processing-time clock for TTL. Default the system clock. */
  readonly clock?: Clock;
  /** Entries of a TTL state examined for expiry on each access to it. Default 5. */
  readonly ttlCleanupPerAccess?: number;
}

/** Options of the disk backend. */
export interface DiskBackendOptions {
  /** Processing-time clock for TTL. Default the system clock. */
  readonly clock?: Clock;
  /**
   * Directory in which each backend makes its own data directory
   * (`weir-state-<operator>-<subtask>-p<pid>-XXXXXX`), removed on dispose;
   * directories of the same operator subtask left by dead processes are
   * removed when a backend starts. Default the OS temp dir.
   */
  readonly workingDirectory?: string;
  /** Row writes buffered in memory before one write transaction (bigger batches touch fewer B-tree pages per write). Default 100000. */
  readonly writeBufferEntries?: number;
  /** Write only changes at checkpoints. Default true. */
  readonly incremental?: boolean;
  /** Every n-th snapshot is full, so restore never applies more than n-1 deltas. Default 10. */
  readonly fullSnapshotEvery?: number;
  /** Changed rows remembered between checkpoints; beyond that the next snapshot is full. Default 2,000,000. */
  readonly maxTrackedChanges?: number;
  /** Entries of a TTL state examined for expiry on each access to it. Default 5. */
  readonly ttlCleanupPerAccess?: number;
  /** Entries of TTL states examined for expiry at each incremental snapshot. Default 10000. */
  readonly ttlCleanupPerSnapshot?: number;
  /** Upper bound of the store's size (LMDB map size). Default 64 GiB (address space, not disk). */
  readonly maxStoreBytes?: number;
  /** Store to use instead of LMDB (tests). */
  readonly store?: (directory: string) => SyncKvStore;
}

/**
 * Which keyed state backend a job uses, and its settings. `heap` (the
 * default) keeps state as objects in memory and snapshots it whole; `disk`
 * keeps it in an embedded LMDB database per operator subtask, for state
 * larger than memory, with incremental checkpoints.
 */
export type StateBackendOptions =
  | ({ readonly kind: 'heap' } & Omit<HeapBackendOptions, 'clock'>)
  | ({ readonly kind: 'disk' } & Omit<DiskBackendOptions, 'clock' | 'store'>);
