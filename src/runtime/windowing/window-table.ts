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
import { GLOBAL_WINDOW, type Window } from '../../core/windows.js';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.js';
import {
  diskKeyedBackend,
  diskStateOnHeap,
  restoredBackendKind,
} from '../operators/keyed/disk-keyed-backend.js';
import { windowId } from './window-aggregation.js';
import { splitRestored } from './window-function-state.js';

/** One window of one key, as the general window operator keeps it. */
export interface WindowState<ACC> {
  window: Window;
  id: string;
  /** Undefined when empty (never filled, or purged). */
  acc: ACC | undefined;
  /** A result was emitted and not purged since: the next one is an update. */
  emitted: boolean;
  /** The firing at the end of the window has happened; later ones are late. */
  onTimeFired: boolean;
  /** Records were added since the last firing (what end of input must not lose). */
  pending: boolean;
  triggerState: Map<string, unknown> | undefined;
  /**
   * The window's pending timers (`e<time>` or `p<time>`), kept only by a
   * table that stores timers with the windows ({@link WindowTable.keepsTimers}).
   */
  timers: Set<string> | undefined;
}

/** A timer as snapshots and restores carry it: event ('e') or processing ('p') time. */
export type WindowTimer = readonly [time: number, key: Key, id: string, domain: 'e' | 'p'];

/** The windows of one key, by window id. */
export interface KeyWindows<ACC> {
  readonly size: number;
  get(id: string): WindowState<ACC> | undefined;
  set(id: string, state: WindowState<ACC>): unknown;
  delete(id: string): boolean;
  values(): IterableIterator<WindowState<ACC>>;
}

/**
 * Where the general window operator keeps its windows (key -> window id ->
 * state), with their snapshot and restore. The method names are a Map's, so
 * the heap table is a Map.
 */
export interface WindowTable<ACC> extends Iterable<[Key, KeyWindows<ACC>]> {
  /** Timers are kept in the windows' `timers` (not snapshotted from the operator's queues). */
  readonly keepsTimers: boolean;
  /** The keyed state backend holding the windows (disk backend), which other keyed state may share. */
  readonly backend: KeyedStateBackend | undefined;
  get(key: Key): KeyWindows<ACC> | undefined;
  /** The windows of `key` as they are stored, read without being kept for the next flush (queries). */
  peek(key: Key): WindowState<ACC>[];
  /** The windows of `key`, created empty if it has none. */
  open(key: Key): KeyWindows<ACC>;
  delete(key: Key): boolean;
  entryCount(): number;
  /** Stores what the last record or timer changed in the windows it read. */
  flush(): void;
  /** The keyed part of the operator's snapshot; `timers` are the operator's pending ones. */
  snapshot(context: SnapshotContext, timers: () => Iterable<WindowTimer>): OperatorSnapshot;
  /** Loads restored windows; returns their timers, for the operator to register. */
  restore(state: RestoredState): WindowTimer[];
  notifyCheckpointComplete(checkpointId: number): void;
  dispose(): void;
}

/**
 * The window table of a job's state backend: the heap table unless the job
 * uses the disk backend. Decided when the operator is set up.
 */
export function windowTableFor<ACC>(context: OperatorContext): WindowTable<ACC> {
  const backend = diskKeyedBackend(context);
  return backend === undefined
    ? new HeapWindowTable<ACC>(context.operatorId)
    : new BackendWindowTable<ACC>(backend);
}

/** A window's state as JSON data (its contents must be JSON data). */
interface WindowJson {
  start: Json;
  end: Json;
  acc: { v: Json } | null;
  emitted: boolean;
  onTimeFired: boolean;
  pending: boolean;
  trigger: Record<string, Json> | null;
  timers?: string[];
}

function encodeWindow<ACC>(w: WindowState<ACC>): WindowJson {
  return {
    start: encodeTime(w.window.start),
    end: encodeTime(w.window.end),
    acc: w.acc === undefined ? null : { v: w.acc as Json },
    emitted: w.emitted,
    onTimeFired: w.onTimeFired,
    pending: w.pending,
    trigger:
      w.triggerState === undefined
        ? null
        : (Object.fromEntries(w.triggerState) as Record<string, Json>),
    ...(w.timers === undefined ? {} : { timers: [...w.timers] }),
  };
}

function decodeWindow<ACC>(w: WindowJson): WindowState<ACC> {
  const start = decodeTime(w.start);
  const end = decodeTime(w.end);
  const window =
    start === GLOBAL_WINDOW.start && end === GLOBAL_WINDOW.end ? GLOBAL_WINDOW : { start, end };
  return {
    window,
    id: windowId(window),
    acc: w.acc === null ? undefined : (w.acc.v as ACC),
    emitted: w.emitted,
    onTimeFired: w.onTimeFired,
    pending: w.pending,
    triggerState: w.trigger === null ? undefined : new Map(Object.entries(w.trigger)),
    timers: w.timers === undefined ? undefined : new Set(w.timers),
  };
}

/**
 * Windows as maps on the heap, snapshotted whole: per key, its windows
 * (contents as JSON data, flags, trigger state) and its timers.
 */
export class HeapWindowTable<ACC>
  extends Map<Key, Map<string, WindowState<ACC>>>
  implements WindowTable<ACC>
{
  readonly keepsTimers = false;
  readonly backend = undefined;

  constructor(private readonly operatorId = '') {
    super();
  }

  peek(key: Key): WindowState<ACC>[] {
    const windows = this.get(key);
    return windows === undefined ? [] : [...windows.values()];
  }

  open(key: Key): Map<string, WindowState<ACC>> {
    let windows = this.get(key);
    if (windows === undefined) {
      windows = new Map();
      this.set(key, windows);
    }
    return windows;
  }

  entryCount(): number {
    let n = 0;
    for (const w of this.values()) n += w.size;
    return n;
  }

  flush(): void {}

  snapshot(context: SnapshotContext, pending: () => Iterable<WindowTimer>): OperatorSnapshot {
    const timers = new Map<Key, Json[]>();
    for (const [time, key, id, domain] of pending()) {
      let list = timers.get(key);
      if (list === undefined) {
        list = [];
        timers.set(key, list);
      }
      list.push([encodeTime(time), id, domain]);
    }
    const keyed = new KeyedSnapshotBuilder(context.keyGroupOf);
    for (const [key, windows] of this) {
      const ws: Json[] = [];
      for (const w of windows.values()) ws.push(encodeWindow(w) as unknown as Json);
      keyed.add(key, { key: encodeKey(key), windows: ws, timers: timers.get(key) ?? [] });
    }
    return { keyed: keyed.build() };
  }

  restore(state: RestoredState): WindowTimer[] {
    if (restoredBackendKind(state, WINDOW_STATE) === 'disk') throw diskStateOnHeap(this.operatorId);
    type Entry = { key: Json; windows: WindowJson[]; timers: [Json, string, 'e' | 'p'][] };
    const timers: WindowTimer[] = [];
    for (const raw of restoredEntries(state)) {
      const entry = raw as unknown as Entry;
      const key = decodeKey(entry.key);
      const windows = new Map<string, WindowState<ACC>>();
      for (const w of entry.windows) {
        const restored = decodeWindow<ACC>(w);
        windows.set(restored.id, restored);
      }
      this.set(key, windows);
      for (const [t, id, domain] of entry.timers) timers.push([decodeTime(t), key, id, domain]);
    }
    return timers;
  }

  notifyCheckpointComplete(): void {}
  dispose(): void {}
}

/** Keyed state holding each window's state; the namespace is the window id. */
const WINDOW_STATE = '__weir.windows';

/**
 * Windows in a keyed state backend (the disk backend): each window of a key
 * is value state `__weir.windows` in namespace `"<start>:<end>"`, holding its
 * contents, flags, trigger state and timers, so it is written to disk,
 * checkpointed incrementally and restored and rescaled by key group like any
 * keyed state. Which windows each key has is indexed in memory (as timers
 * are), rebuilt from the backend after a restore. Windows read while a
 * record or timer is handled are written back by `flush`.
 */
export class BackendWindowTable<ACC> implements WindowTable<ACC> {
  readonly keepsTimers = true;
  /** Key -> ids of its windows. */
  private readonly index = new Map<Key, Set<string>>();
  /** The keys whose windows were read since the last flush. */
  private readonly touched = new Map<Key, BackendKeyWindows<ACC>>();
  private readonly state: ValueState<WindowJson>;

  constructor(readonly backend: KeyedStateBackend) {
    this.state = backend.getValueState<WindowJson>(WINDOW_STATE);
  }

  get(key: Key): BackendKeyWindows<ACC> | undefined {
    let windows = this.touched.get(key);
    if (windows !== undefined) return windows;
    const ids = this.index.get(key);
    if (ids === undefined) return undefined;
    windows = new BackendKeyWindows(this, key, ids);
    this.touched.set(key, windows);
    return windows;
  }
  peek(key: Key): WindowState<ACC>[] {
    const loaded = this.touched.get(key)?.loaded;
    const ids = this.index.get(key);
    if (ids === undefined) return [];
    const previous = this.backend.currentKey;
    const found: WindowState<ACC>[] = [];
    for (const id of ids) {
      const w = loaded?.get(id) ?? this.read(key, id);
      if (w !== undefined) found.push(w);
    }
    this.backend.currentKey = previous;
    return found;
  }
  open(key: Key): BackendKeyWindows<ACC> {
    const windows = this.get(key);
    if (windows !== undefined) return windows;
    this.index.set(key, new Set());
    return this.get(key)!;
  }
  delete(key: Key): boolean {
    const windows = this.get(key);
    if (windows === undefined) return false;
    for (const id of [...windows.ids]) windows.delete(id);
    this.touched.delete(key);
    return this.index.delete(key);
  }
  *[Symbol.iterator](): IterableIterator<[Key, KeyWindows<ACC>]> {
    for (const key of [...this.index.keys()]) {
      const windows = this.get(key);
      if (windows !== undefined) yield [key, windows];
    }
  }
  entryCount(): number {
    return this.backend.entryCount();
  }

  read(key: Key, id: string): WindowState<ACC> | undefined {
    this.scope(key, id);
    const json = this.state.value();
    return json === undefined ? undefined : decodeWindow<ACC>(json);
  }
  clear(key: Key, id: string): void {
    this.scope(key, id);
    this.state.clear();
  }
  private scope(key: Key, id: string): void {
    this.backend.currentKey = key;
    this.backend.setCurrentNamespace(id);
  }

  flush(): void {
    for (const [key, windows] of this.touched) {
      for (const [id, w] of windows.loaded) {
        this.scope(key, id);
        this.state.update(encodeWindow(w));
      }
      if (windows.ids.size === 0) this.index.delete(key);
    }
    this.touched.clear();
    this.backend.currentKey = undefined;
  }

  snapshot(context: SnapshotContext): OperatorSnapshot {
    this.flush();
    return this.backend.snapshot({
      checkpointId: context.checkpointId,
      keyGroupOf: context.keyGroupOf,
      kind: context.kind,
    });
  }

  restore(state: RestoredState): WindowTimer[] {
    if (restoredBackendKind(state, WINDOW_STATE) === 'heap') return this.takeOver(state);
    this.backend.restore(state);
    const found: [Key, string][] = [];
    this.backend.forEachKeyAndNamespace(WINDOW_STATE, (key, id) => found.push([key, id]));
    const timers: WindowTimer[] = [];
    for (const [key, id] of found) {
      let ids = this.index.get(key);
      if (ids === undefined) {
        ids = new Set();
        this.index.set(key, ids);
      }
      ids.add(id);
      for (const timer of this.read(key, id)?.timers ?? []) {
        timers.push([Number(timer.slice(1)), key, id, timer[0] === 'e' ? 'e' : 'p']);
      }
    }
    this.backend.currentKey = undefined;
    return timers;
  }

  /** Restores windows written with the heap backend (or before windows used the disk one). */
  private takeOver(state: RestoredState): WindowTimer[] {
    // The window function's state is in backend rows beside the windows.
    const { rows, rest } = splitRestored(state);
    if (rows.keyed.size > 0) this.backend.restore(rows);
    const heap = new HeapWindowTable<ACC>();
    const timers = heap.restore(rest);
    for (const [key, windows] of heap) {
      const own = this.open(key);
      for (const w of windows.values()) own.set(w.id, { ...w, timers: new Set() });
    }
    for (const [time, key, id, domain] of timers) {
      this.get(key)?.get(id)?.timers?.add(`${domain}${time}`);
    }
    this.flush();
    return timers;
  }

  notifyCheckpointComplete(checkpointId: number): void {
    this.backend.notifyCheckpointComplete(checkpointId);
  }
  dispose(): void {
    this.backend.dispose();
  }
}

/** The windows of one key in a {@link BackendWindowTable}, read on demand. */
class BackendKeyWindows<ACC> implements KeyWindows<ACC> {
  /** Windows read or set since the last flush (written back by it). */
  readonly loaded = new Map<string, WindowState<ACC>>();

  constructor(
    private readonly table: BackendWindowTable<ACC>,
    private readonly key: Key,
    readonly ids: Set<string>,
  ) {}

  get size(): number {
    return this.ids.size;
  }
  get(id: string): WindowState<ACC> | undefined {
    let w = this.loaded.get(id);
    if (w === undefined && this.ids.has(id)) {
      w = this.table.read(this.key, id);
      if (w !== undefined) this.loaded.set(id, w);
    }
    return w;
  }
  set(id: string, state: WindowState<ACC>): this {
    this.ids.add(id);
    this.loaded.set(id, state);
    return this;
  }
  delete(id: string): boolean {
    if (!this.ids.delete(id)) return false;
    this.loaded.delete(id);
    this.table.clear(this.key, id);
    return true;
  }
  *values(): IterableIterator<WindowState<ACC>> {
    for (const id of [...this.ids]) {
      const w = this.get(id);
      if (w !== undefined) yield w;
    }
  }
}
