import type { Key } from '../core/key-groups.js';
import type { OperatorSnapshot, RestoredState } from '../core/snapshot.js';
import type { KeyedStateStore } from '../core/state.js';
import type { QueryableValueStates } from './queryable-value-states.js';

/**
 * Scopes keyed state below the key: a window operator keeps one namespace
 * per window (for example `"<start>:<end>"`), everything else uses
 * {@link DEFAULT_NAMESPACE}.
 */
export type Namespace = string;

/** The namespace state is in unless an operator sets another. */
export const DEFAULT_NAMESPACE: Namespace = '';

/** Passed to {@link KeyedStateBackend.snapshot}. */
export interface BackendSnapshotContext {
  readonly checkpointId: number;
  /** The key group of a key (the task's `keyGroupOf`). */
  keyGroupOf(key: Key): number;
  /**
   * `'savepoint'` forces a full, self-contained snapshot that is never used
   * as the base of a later incremental one. Default `'checkpoint'`.
   */
  readonly kind?: 'checkpoint' | 'savepoint';
}

/**
 * Keyed state of one operator subtask: the user-facing store plus what the
 * runtime needs to scope, snapshot and restore it. All methods are
 * synchronous and must be called from the operator's thread.
 *
 * Scoping: every state access applies to (`currentKey`, `currentNamespace`);
 * the key group is derived from the key. Accessing state with no current
 * key fails with a WeirError naming the operator.
 */
export interface KeyedStateBackend extends KeyedStateStore {
  /** The key state accesses apply to; the operator sets it before calling user code. */
  currentKey: Key | undefined;
  /** The value states declared `queryable` so far (interactive queries read them). */
  readonly queryableValueStates: QueryableValueStates;
  /**
   * State reads return the stored objects (the heap backend): an object read and changed in
   * place is changed in state, so an operator may append to an array it keeps as a value
   * without writing it back. False where state is stored encoded (the disk backend), where
   * each write encodes the whole value, so that operators keeping many rows per key choose map
   * state there.
   */
  readonly readsAreLive: boolean;
  /** The namespace state accesses apply to; {@link DEFAULT_NAMESPACE} until set. */
  readonly currentNamespace: Namespace;
  /** Fails with a WeirError if `namespace` is not a string. */
  setCurrentNamespace(namespace: Namespace): void;
  /**
   * Calls `fn` for every (key, namespace) holding an unexpired entry of state
   * `stateName` (once per pair, also for map state). Do not modify that state
   * inside `fn`. For rebuilding timers after a restore, or cleanup.
   */
  forEachKeyAndNamespace(stateName: string, fn: (key: Key, namespace: Namespace) => void): void;
  /** The namespaces in which the current key has an entry of state `stateName`. */
  namespacesOf(stateName: string): Namespace[];
  /**
   * A copy of all keyed state as JSON, grouped by key group, with the
   * declaration (kind, serializer id and version) of every state; or, for a
   * backend with incremental checkpoints, the changes since the last
   * confirmed checkpoint (`keyedDelta`). Expired entries are left out. Live
   * state may change right after it returns.
   */
  snapshot(context: BackendSnapshotContext): OperatorSnapshot;
  /**
   * Loads restored keyed state (entries of this subtask's key groups).
   * Call before the first state access, normally from `initializeState`.
   * Serializers are checked, and older versions migrated, when each state is
   * declared (or at once for states already declared).
   */
  restore(state: RestoredState): void;
  /**
   * Checkpoint `checkpointId` is durable. Incremental backends may use it as
   * the base of later snapshots; others ignore it.
   */
  notifyCheckpointComplete(checkpointId: number): void;
  /**
   * Stored entries: one per (state, key, namespace), one per map entry;
   * expired ones until cleaned. 0 after `dispose` (metrics may be read late).
   */
  entryCount(): number;
  /**
   * Bytes the stored entries occupy, for backends that know (the disk
   * backend: LMDB pages in use); the heap backend does not define it, since
   * the size of objects on the heap is not known cheaply. 0 after `dispose`.
   */
  storedBytes?(): number;
  /**
   * Releases memory and files (the disk backend deletes its directory).
   * Idempotent; only `entryCount` may be called afterwards.
   */
  dispose(): void;
}
