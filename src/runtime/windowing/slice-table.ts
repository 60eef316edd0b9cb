import type { Key } from '../../core/key-groups.js';
import type { OperatorContext, SnapshotContext } from '../../core/operator.js';
import {
  decodeKey,
  decodeTime,
  encodeKey,
  encodeTime,
  type Json,
  KeyedSnapshotBuilder,
  type OperatorSnapshot,
  type RestoredState,
  restoredEntries,
} from '../../core/snapshot.js';
import type { ValueState } from '../../core/state.js';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.js';
import {
  diskKeyedBackend,
  diskStateOnHeap,
  restoredBackendKind,
} from '../operators/keyed/disk-keyed-backend.js';
import { splitRestored } from './window-function-state.js';

/** The accumulators of one slice, by key. */
export interface SliceContents<ACC> extends Iterable<[Key, ACC]> {
  readonly size: number;
  get(key: Key): ACC | undefined;
  set(key: Key, accumulator: ACC): unknown;
  has(key: Key): boolean;
}

/**
 * Where the slice window operator keeps its slices (slice end -> key ->
 * accumulator), with their snapshot and restore. The method names are a
 * Map's, so the heap table is a Map.
 */
export interface SliceTable<ACC> {
  readonly size: number;
  /** The keyed state backend holding the slices (disk backend), which other keyed state may share. */
  readonly backend: KeyedStateBackend | undefined;
  get(sliceEnd: number): SliceContents<ACC> | undefined;
  /** The slice ending at `sliceEnd`, created empty if there is none. */
  open(sliceEnd: number): SliceContents<ACC>;
  /** Drops a slice and its contents. */
  delete(sliceEnd: number): boolean;
  keys(): IterableIterator<number>;
  values(): IterableIterator<SliceContents<ACC>>;
  /** The keyed part of the operator's snapshot. */
  snapshot(context: SnapshotContext): OperatorSnapshot;
  restore(state: RestoredState): void;
  notifyCheckpointComplete(checkpointId: number): void;
  dispose(): void;
}

/**
 * The slice table of a job's state backend: the heap table unless the job
 * uses the disk backend. Decided when the operator is set up, since the
 * backend is a setting of the job that runs it.
 */
export function sliceTableFor<ACC>(context: OperatorContext): SliceTable<ACC> {
  const backend = diskKeyedBackend(context);
  return backend === undefined
    ? new HeapSliceTable<ACC>(context.operatorId)
    : new BackendSliceTable<ACC>(backend);
}

/**
 * Slices as maps on the heap, snapshotted whole: per key, its accumulator by
 * slice (`[key, sliceEnd, accumulator]` entries of JSON data).
 */
export class HeapSliceTable<ACC> extends Map<number, Map<Key, ACC>> implements SliceTable<ACC> {
  readonly backend = undefined;

  constructor(private readonly operatorId = '') {
    super();
  }

  open(sliceEnd: number): Map<Key, ACC> {
    let slice = this.get(sliceEnd);
    if (slice === undefined) {
      slice = new Map();
      this.set(sliceEnd, slice);
    }
    return slice;
  }

  snapshot(context: SnapshotContext): OperatorSnapshot {
    const keyed = new KeyedSnapshotBuilder(context.keyGroupOf);
    for (const [sliceEnd, slice] of this) {
      for (const [key, acc] of slice)
        keyed.add(key, [encodeKey(key), encodeTime(sliceEnd), acc as Json]);
    }
    return { keyed: keyed.build() };
  }

  restore(state: RestoredState): void {
    if (restoredBackendKind(state, SLICE_STATE) === 'disk') throw diskStateOnHeap(this.operatorId);
    const entries = [...restoredEntries(state)] as [Json, Json, Json][];
    entries.sort((a, b) => decodeTime(a[1]) - decodeTime(b[1]));
    for (const [key, sliceEnd, acc] of entries) {
      this.open(decodeTime(sliceEnd)).set(decodeKey(key), acc as ACC);
    }
  }

  notifyCheckpointComplete(): void {}
  dispose(): void {}
}

/** Keyed state holding the accumulators; the namespace is the slice end. */
const SLICE_STATE = '__weir.window-slices';

/**
 * Slices in a keyed state backend (the disk backend): each key's
 * accumulator of a slice is value state `__weir.window-slices` in namespace
 * `"<slice end>"`, so it is written to disk, checkpointed incrementally and
 * restored and rescaled by key group like any keyed state. Which keys each
 * open slice holds is indexed in memory (as timers are), rebuilt from the
 * backend after a restore.
 */
export class BackendSliceTable<ACC> implements SliceTable<ACC> {
  private readonly slices = new Map<number, BackendSlice<ACC>>();
  readonly state: ValueState<ACC>;

  constructor(readonly backend: KeyedStateBackend) {
    this.state = backend.getValueState<ACC>(SLICE_STATE);
  }

  get size(): number {
    return this.slices.size;
  }
  get(sliceEnd: number): BackendSlice<ACC> | undefined {
    return this.slices.get(sliceEnd);
  }
  open(sliceEnd: number): BackendSlice<ACC> {
    let slice = this.slices.get(sliceEnd);
    if (slice === undefined) {
      slice = new BackendSlice(this, String(sliceEnd));
      this.slices.set(sliceEnd, slice);
    }
    return slice;
  }
  delete(sliceEnd: number): boolean {
    const slice = this.slices.get(sliceEnd);
    if (slice === undefined) return false;
    for (const key of slice.keys) {
      this.scope(key, slice.namespace);
      this.state.clear();
    }
    this.backend.currentKey = undefined;
    return this.slices.delete(sliceEnd);
  }
  keys(): IterableIterator<number> {
    return this.slices.keys();
  }
  values(): IterableIterator<BackendSlice<ACC>> {
    return this.slices.values();
  }

  scope(key: Key, namespace: string): void {
    this.backend.currentKey = key;
    this.backend.setCurrentNamespace(namespace);
  }

  snapshot(context: SnapshotContext): OperatorSnapshot {
    return this.backend.snapshot({
      checkpointId: context.checkpointId,
      keyGroupOf: context.keyGroupOf,
      kind: context.kind,
    });
  }

  restore(state: RestoredState): void {
    if (restoredBackendKind(state, SLICE_STATE) === 'heap') {
      // Written with the heap backend (or before windows used the disk one): taken over,
      // with the window function's state, which is in backend rows beside the slices.
      const { rows, rest } = splitRestored(state);
      if (rows.keyed.size > 0) this.backend.restore(rows);
      const heap = new HeapSliceTable<ACC>();
      heap.restore(rest);
      for (const [sliceEnd, slice] of heap)
        for (const [key, acc] of slice) this.open(sliceEnd).set(key, acc);
      this.backend.currentKey = undefined;
      return;
    }
    this.backend.restore(state);
    const found: [Key, number][] = [];
    this.backend.forEachKeyAndNamespace(SLICE_STATE, (key, namespace) =>
      found.push([key, Number(namespace)]),
    );
    found.sort((a, b) => a[1] - b[1]);
    for (const [key, sliceEnd] of found) this.open(sliceEnd).keys.add(key);
  }

  notifyCheckpointComplete(checkpointId: number): void {
    this.backend.notifyCheckpointComplete(checkpointId);
  }
  dispose(): void {
    this.backend.dispose();
  }
}

/** One slice of a {@link BackendSliceTable}: a view of the backend with its keys. */
class BackendSlice<ACC> implements SliceContents<ACC> {
  readonly keys = new Set<Key>();

  constructor(
    private readonly table: BackendSliceTable<ACC>,
    readonly namespace: string,
  ) {}

  get size(): number {
    return this.keys.size;
  }
  has(key: Key): boolean {
    return this.keys.has(key);
  }
  get(key: Key): ACC | undefined {
    if (!this.keys.has(key)) return undefined;
    this.table.scope(key, this.namespace);
    return this.table.state.value();
  }
  set(key: Key, accumulator: ACC): this {
    this.keys.add(key);
    this.table.scope(key, this.namespace);
    this.table.state.update(accumulator);
    return this;
  }
  *[Symbol.iterator](): IterableIterator<[Key, ACC]> {
    for (const key of this.keys) {
      this.table.scope(key, this.namespace);
      yield [key, this.table.state.value() as ACC];
    }
  }
}
