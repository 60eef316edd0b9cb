import type { Key } from '../../core/key-groups.js';
import type { Json, OperatorSnapshot, RestoredState } from '../../core/snapshot.js';
import type {
  AggregatingState,
  AggregatingStateDescriptor,
  KeyedStateStore,
  ListState,
  ListStateDescriptor,
  MapState,
  MapStateDescriptor,
  ReducingState,
  ReducingStateDescriptor,
  ValueState,
  ValueStateDescriptor,
} from '../../core/state.js';
import type { Window } from '../../core/windows.js';
import {
  type BackendSnapshotContext,
  DEFAULT_NAMESPACE,
  type KeyedStateBackend,
  type Namespace,
} from '../../state/keyed-state-backend.js';
import { windowId } from './window-aggregation.js';

/** The window operators' own states (`__weir.windows`, ...), never the window function's. */
const INTERNAL_STATE = '__weir.';

type Method = (...args: never[]) => unknown;

/**
 * A state handle whose every call first scopes the backend to the handle's key and
 * namespace: per-window and global state share one backend, with the current namespace a
 * setting of the backend, and the window operators move it between their own reads.
 */
function scoped<S extends object>(state: S, methods: readonly (keyof S)[], enter: () => void): S {
  const out: Partial<Record<keyof S, Method>> = {};
  for (const name of methods) {
    const method = state[name] as unknown as Method;
    out[name] = ((...args: never[]) => {
      enter();
      const result = method.apply(state, args);
      // Iterated later, when the backend may be scoped elsewhere: read it now.
      return name === 'entries' ? [...(result as Iterable<unknown>)].values() : result;
    }) as Method;
  }
  return out as S;
}

const VALUE = ['value', 'update', 'clear'] as const;
const LIST = ['get', 'add', 'update', 'clear'] as const;
const MAP = ['get', 'put', 'has', 'remove', 'entries', 'size', 'clear'] as const;
const FOLDING = ['get', 'add', 'clear'] as const;

/** A {@link KeyedStateStore} over the backend in one scope (a key, and a window or none). */
class ScopedStore implements KeyedStateStore {
  key: Key = '';
  namespace: Namespace = DEFAULT_NAMESPACE;
  private readonly handles = new Map<string, unknown>();
  private readonly enter = () => {
    this.backend.currentKey = this.key;
    this.backend.setCurrentNamespace(this.namespace);
  };

  constructor(
    private readonly backend: KeyedStateBackend,
    private readonly declared: (name: string, clear: () => void) => void,
  ) {}

  private handle<S extends { clear(): void }>(
    descriptor: string | { readonly name: string },
    declare: () => S,
    methods: readonly (keyof S)[],
  ): S {
    const name = typeof descriptor === 'string' ? descriptor : descriptor.name;
    let handle = this.handles.get(name) as S | undefined;
    if (handle === undefined) {
      const state = declare();
      handle = scoped(state, methods, this.enter);
      this.handles.set(name, handle);
      // Unscoped: the runtime clears the state in the scope it sets itself.
      this.declared(name, () => state.clear());
    }
    return handle;
  }

  getValueState<T>(descriptor: string | ValueStateDescriptor<T>): ValueState<T> {
    return this.handle(descriptor, () => this.backend.getValueState<T>(descriptor), VALUE);
  }
  getListState<T>(descriptor: string | ListStateDescriptor<T>): ListState<T> {
    return this.handle(descriptor, () => this.backend.getListState<T>(descriptor), LIST);
  }
  getMapState<MK, MV>(descriptor: string | MapStateDescriptor<MK, MV>): MapState<MK, MV> {
    return this.handle(descriptor, () => this.backend.getMapState<MK, MV>(descriptor), MAP);
  }
  getReducingState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T> {
    return this.handle(descriptor, () => this.backend.getReducingState<T>(descriptor), FOLDING);
  }
  getAggregatingState<IN, ACC, OUT>(
    descriptor: AggregatingStateDescriptor<IN, ACC, OUT>,
  ): AggregatingState<IN, OUT> {
    return this.handle(
      descriptor,
      () => this.backend.getAggregatingState<IN, ACC, OUT>(descriptor),
      FOLDING,
    );
  }
}

/** The end of the window a namespace names (`"<start>:<end>"`). */
function endOf(namespace: Namespace): number {
  return Number(namespace.slice(namespace.indexOf(':') + 1));
}

/**
 * Keyed state of a `ProcessWindowFunction` (Flink's `windowState()` / `globalState()`):
 * per-window state in namespace `"<start>:<end>"`, global state in the default namespace,
 * of a keyed state backend that is the operator's own (heap backend) or the one its window
 * contents use (disk backend). The window operators create it the first time a function
 * asks for state, or when a restored snapshot holds some, so windows that use none pay
 * nothing. Which keys have window state in which window is indexed in memory (rebuilt
 * after a restore), so that a window's state is dropped when the window is cleaned up.
 */
export class WindowFunctionState {
  private readonly windowStore: ScopedStore;
  private readonly globalStore: ScopedStore;
  /** Namespace -> the keys that asked for state in it. */
  private readonly touched = new Map<Namespace, Set<Key>>();
  /** How to clear each declared state in the current scope. */
  private readonly clears = new Map<string, () => void>();
  /** Restored states not declared yet, with the scopes whose window went before they were. */
  private readonly owed = new Map<string, [Key, Namespace][]>();

  constructor(
    readonly backend: KeyedStateBackend,
    /** The backend is this object's own (heap): snapshotted beside the window contents. */
    readonly ownsBackend: boolean,
  ) {
    const declared = (name: string, clear: () => void) => this.declared(name, clear);
    this.windowStore = new ScopedStore(backend, declared);
    this.globalStore = new ScopedStore(backend, declared);
  }

  private declared(name: string, clear: () => void): void {
    if (this.clears.has(name)) return;
    this.clears.set(name, clear);
    const owed = this.owed.get(name);
    if (owed === undefined) return;
    this.owed.delete(name);
    for (const [key, namespace] of owed) {
      this.scope(key, namespace);
      clear();
    }
  }

  private scope(key: Key, namespace: Namespace): void {
    this.backend.currentKey = key;
    this.backend.setCurrentNamespace(namespace);
  }

  windowState(key: Key, window: Window): KeyedStateStore {
    const namespace = windowId(window);
    let keys = this.touched.get(namespace);
    if (keys === undefined) {
      keys = new Set();
      this.touched.set(namespace, keys);
    }
    keys.add(key);
    this.windowStore.key = key;
    this.windowStore.namespace = namespace;
    return this.windowStore;
  }

  globalState(key: Key): KeyedStateStore {
    this.globalStore.key = key;
    return this.globalStore;
  }

  /** Drops the state of `key` in `window` (the window was cleaned up). */
  dropWindow(key: Key, window: Window): void {
    this.drop(key, windowId(window));
  }

  private drop(key: Key, namespace: Namespace): void {
    const keys = this.touched.get(namespace);
    if (keys === undefined || !keys.delete(key)) return;
    if (keys.size === 0) this.touched.delete(namespace);
    for (const clear of this.clears.values()) {
      this.scope(key, namespace);
      clear();
    }
    for (const [name, scopes] of this.owed) {
      if (!this.clears.has(name)) scopes.push([key, namespace]);
    }
    this.backend.currentKey = undefined;
  }

  /** Drops the state of every window that `isGone` says was cleaned up. */
  dropWindowsWhere(isGone: (key: Key, namespace: Namespace, end: number) => boolean): void {
    for (const [namespace, keys] of [...this.touched]) {
      const end = endOf(namespace);
      for (const key of [...keys]) if (isGone(key, namespace, end)) this.drop(key, namespace);
    }
  }

  /** The backend's snapshot when it is this object's own; nothing otherwise. */
  snapshot(context: BackendSnapshotContext): OperatorSnapshot {
    if (!this.ownsBackend) return {};
    return this.backend.snapshot(context);
  }

  /**
   * Indexes the window state of the restored states `names` (restored into the backend
   * already). States not declared yet are cleared when they are.
   */
  restored(names: Iterable<string>): void {
    for (const name of names) {
      if (!this.clears.has(name) && !this.owed.has(name)) this.owed.set(name, []);
      this.backend.forEachKeyAndNamespace(name, (key, namespace) => {
        if (namespace === DEFAULT_NAMESPACE) return;
        let keys = this.touched.get(namespace);
        if (keys === undefined) {
          keys = new Set();
          this.touched.set(namespace, keys);
        }
        keys.add(key);
      });
    }
    this.backend.currentKey = undefined;
  }
}

/** Whether a restored keyed entry is a state backend row (`[state, key, namespace, ...]`). */
function isStateRow(entry: Json): boolean {
  return (
    Array.isArray(entry) &&
    entry.length >= 5 &&
    typeof entry[0] === 'string' &&
    typeof entry[2] === 'string'
  );
}

/**
 * Splits a restored heap snapshot of a window operator: state backend rows (the window
 * function's state) and the entries of the operator's own format (its windows or slices).
 */
export function splitRestored(state: RestoredState): {
  readonly rows: RestoredState;
  readonly rest: RestoredState;
} {
  const rows = new Map<number, Json[]>();
  const rest = new Map<number, Json[]>();
  for (const [group, entries] of state.keyed) {
    const r: Json[] = [];
    const o: Json[] = [];
    for (const e of entries) (isStateRow(e) ? r : o).push(e);
    if (r.length > 0) rows.set(group, r);
    if (o.length > 0) rest.set(group, o);
  }
  return { rows: { ...state, keyed: rows }, rest: { ...state, keyed: rest } };
}

/** The names of the window function's states in a restored snapshot. */
export function functionStateNames(state: RestoredState): string[] {
  return [...(state.states?.keys() ?? [])].filter((n) => !n.startsWith(INTERNAL_STATE));
}

/** The operator's snapshot with the window function's keyed state added to it. */
export function withFunctionState(
  snapshot: OperatorSnapshot,
  functionState: OperatorSnapshot,
): OperatorSnapshot {
  if (functionState.keyed === undefined) return snapshot;
  const keyed: Record<string, Json[]> = {};
  for (const [group, entries] of Object.entries(snapshot.keyed ?? {})) keyed[group] = [...entries];
  for (const [group, entries] of Object.entries(functionState.keyed)) {
    keyed[group] = [...(keyed[group] ?? []), ...entries];
  }
  return {
    ...snapshot,
    keyed,
    ...(functionState.states === undefined ? {} : { states: functionState.states }),
  };
}
