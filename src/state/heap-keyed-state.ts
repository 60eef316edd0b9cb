import { type Clock, systemClock } from '../core/clock.js';
import type { Key } from '../core/key-groups.js';
import {
  type Json,
  KeyedSnapshotBuilder,
  type OperatorSnapshot,
  type RestoredState,
  type StateKind,
  type StateMeta,
} from '../core/snapshot.js';
import type {
  AggregatingState,
  AggregatingStateDescriptor,
  ListState,
  ListStateDescriptor,
  MapState,
  MapStateDescriptor,
  ReducingState,
  ReducingStateDescriptor,
  ValueState,
  ValueStateDescriptor,
} from '../core/state.js';
import type { HeapBackendOptions } from '../core/state-backend.js';
import { copyJson } from '../util/copy-json.js';
import {
  type AnyDescriptor,
  checkDefined,
  checkListUpdate,
  checkNamespace,
  checkRestored,
  checkSameKind,
  type DeclaredState,
  declareState,
  noCurrentKey,
} from './declared-state.js';
import {
  type BackendSnapshotContext,
  DEFAULT_NAMESPACE,
  type KeyedStateBackend,
  type Namespace,
} from './keyed-state-backend.js';
import { QueryableValueStates } from './queryable-value-states.js';
import { RestoredRows } from './restored-rows.js';
import { distinctExpiries, makeRow, type ParsedRow } from './rows.js';

/** A value with its expiry, for states with a TTL. */
interface TtlCell {
  v: unknown;
  e: number;
}

/**
 * A list of a state with a TTL: every element expires on its own (`es[i]`
 * is the expiry of `v[i]`); `e` is the latest of them, so the list as a
 * whole is dead exactly when `e` has passed, and `m` the earliest, so a
 * read finds out in one comparison that no element expired.
 */
interface TtlListCell extends TtlCell {
  v: unknown[];
  es: number[];
  m: number;
}

/** A list cell of `v` whose elements expire at `es` (not empty). */
function listCell(v: unknown[], es: number[]): TtlListCell {
  let e = Number.NEGATIVE_INFINITY;
  let m = Number.POSITIVE_INFINITY;
  for (const x of es) {
    if (x > e) e = x;
    if (x < m) m = x;
  }
  return { v, es, e, m };
}

/** Drops the expired elements of a list cell, keeping the order; false if none is left. */
function pruneList(cell: TtlListCell, now: number): boolean {
  if (cell.m > now) return true;
  const { v, es } = cell;
  let n = 0;
  let m = Number.POSITIVE_INFINITY;
  for (let i = 0; i < es.length; i++) {
    const x = es[i]!;
    if (x > now) {
      v[n] = v[i];
      es[n] = x;
      if (x < m) m = x;
      n++;
    }
  }
  v.length = n;
  es.length = n;
  cell.m = m;
  return n > 0;
}

/**
 * JSON that shares no object with live state. Live state holds the objects it
 * was given (and `Serializers.json()` passes them through as they are), so a
 * snapshot must not hold them: they may be mutated in place after it was taken
 * (Flink copies heap state for snapshots too). Likewise restored values must
 * not be the objects of the snapshot they came from, which may be restored again.
 */
function detached(json: Json): Json {
  return copyJson(json);
}

/** One declared state: namespace -> key -> value (map state: key -> map key -> value). */
interface HeapState {
  readonly decl: DeclaredState;
  readonly byNs: Map<Namespace, Map<Key, unknown>>;
  sweep: Sweep | undefined;
  handle: unknown;
}

/**
 * Where the incremental expiry sweep of a TTL state stands: plain iterators
 * over the nested maps, resumed by `next`, so that each examined entry costs
 * a map iteration step and no generator resumption.
 */
class Sweep {
  private readonly namespaces: MapIterator<[Namespace, Map<Key, unknown>]>;
  private ns: Namespace = DEFAULT_NAMESPACE;
  private table: Map<Key, unknown> | undefined;
  private keys: MapIterator<[Key, unknown]> | undefined;
  private key: Key | undefined;
  private inner: Map<unknown, TtlCell> | undefined;
  private cells: MapIterator<[unknown, TtlCell]> | undefined;

  constructor(
    private readonly byNs: Map<Namespace, Map<Key, unknown>>,
    private readonly isMap: boolean,
  ) {
    this.namespaces = byNs.entries();
  }

  /** Examines the next entry, deleting it if expired at `now`; false once every entry was visited. */
  next(now: number): boolean {
    for (;;) {
      if (this.cells !== undefined) {
        const r = this.cells.next();
        if (r.done !== true) {
          if (r.value[1].e <= now) this.inner!.delete(r.value[0]);
          return true;
        }
        const inner = this.inner!;
        if (inner.size === 0 && this.table!.get(this.key!) === inner) this.table!.delete(this.key!);
        this.cells = undefined;
        this.inner = undefined;
      }
      if (this.keys !== undefined) {
        const r = this.keys.next();
        if (r.done !== true) {
          const [key, c] = r.value;
          if (this.isMap) {
            this.key = key;
            this.inner = c as Map<unknown, TtlCell>;
            this.cells = this.inner.entries();
            continue;
          }
          if ((c as TtlCell).e <= now) this.table!.delete(key);
          return true;
        }
        const table = this.table!;
        if (table.size === 0 && this.byNs.get(this.ns) === table) this.byNs.delete(this.ns);
        this.keys = undefined;
        this.table = undefined;
      }
      const r = this.namespaces.next();
      if (r.done === true) return false;
      this.ns = r.value[0];
      this.table = r.value[1];
      this.keys = this.table.entries();
    }
  }
}

/**
 * The unexpired entries of a TTL map, read lazily (entries deleted meanwhile
 * are skipped). Expired entries met on the way are deleted; with
 * `refreshedExpiry` set (`'on-read-and-write'`), each entry returned is read
 * and lives on until then.
 */
class LiveEntries<MK, MV> implements IterableIterator<[MK, MV]> {
  private readonly cells: MapIterator<[MK, TtlCell]>;

  constructor(
    private readonly map: Map<MK, TtlCell>,
    private readonly now: number,
    private readonly refreshedExpiry: number | undefined,
  ) {
    this.cells = map.entries();
  }

  next(): IteratorResult<[MK, MV]> {
    for (;;) {
      const r = this.cells.next();
      if (r.done === true) return { done: true, value: undefined };
      const [mk, cell] = r.value;
      if (cell.e > this.now) {
        if (this.refreshedExpiry !== undefined) cell.e = this.refreshedExpiry;
        return { done: false, value: [mk, cell.v as MV] };
      }
      this.map.delete(mk);
    }
  }

  [Symbol.iterator](): IterableIterator<[MK, MV]> {
    return this;
  }
}

/**
 * Keyed state on the JavaScript heap: live objects in nested `Map`s (state,
 * namespace, key), serialized only when a snapshot is taken. Fast, bounded
 * by memory. Values returned by state reads are the stored objects: mutating
 * them mutates state. Snapshots are always full, and copies: they share no
 * object with live state (nor do restored values with the restored snapshot).
 */
export class HeapKeyedStateBackend implements KeyedStateBackend {
  currentKey: Key | undefined;
  readonly queryableValueStates = new QueryableValueStates();
  readonly readsAreLive = true;
  private ns: Namespace = DEFAULT_NAMESPACE;
  private readonly states = new Map<string, HeapState>();
  private readonly restored = new RestoredRows();
  private readonly clock: Clock;
  private readonly cleanupPerAccess: number;

  constructor(
    private readonly operatorId: string,
    options: HeapBackendOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.cleanupPerAccess = options.ttlCleanupPerAccess ?? 5;
  }

  get currentNamespace(): Namespace {
    return this.ns;
  }

  setCurrentNamespace(namespace: Namespace): void {
    checkNamespace(this.operatorId, namespace);
    this.ns = namespace;
  }

  private key(): Key {
    const k = this.currentKey;
    if (k === undefined) throw noCurrentKey(this.operatorId);
    return k;
  }

  // -- declaration -------------------------------------------------------

  private declare(kind: StateKind, descriptor: AnyDescriptor): HeapState {
    const name = typeof descriptor === 'string' ? descriptor : descriptor.name;
    const existing = this.states.get(name);
    if (existing !== undefined) {
      checkSameKind(this.operatorId, existing.decl, kind);
      return existing;
    }
    const decl = declareState(this.operatorId, kind, descriptor);
    const state: HeapState = { decl, byNs: new Map(), sweep: undefined, handle: undefined };
    this.absorbRestored(state);
    this.states.set(name, state);
    return state;
  }

  /** Moves restored rows of the state into live maps, converting them with its serializers. */
  private absorbRestored(state: HeapState): void {
    const { decl } = state;
    const taken = this.restored.take(decl.name);
    if (taken === undefined) return;
    checkRestored(this.operatorId, decl, taken.meta);
    const version = taken.meta.serializer.version;
    const keyVersion = taken.meta.keySerializer?.version ?? 1;
    const now = this.clock.now();
    for (const row of taken.rows) {
      const cell = this.cellFromRow(decl, row, version, now);
      if (cell === undefined) continue;
      let table = state.byNs.get(row.namespace);
      if (table === undefined) {
        table = new Map();
        state.byNs.set(row.namespace, table);
      }
      if (decl.kind === 'map') {
        let inner = table.get(row.key) as Map<unknown, unknown> | undefined;
        if (inner === undefined) {
          inner = new Map();
          table.set(row.key, inner);
        }
        inner.set(decl.keySerializer!.fromJson(detached(row.userKey), keyVersion), cell.value);
      } else {
        table.set(row.key, cell.value);
      }
    }
  }

  private cellFromRow(
    decl: DeclaredState,
    row: ParsedRow,
    version: number,
    now: number,
  ): { value: unknown } | undefined {
    let v: unknown;
    if (decl.kind === 'list') {
      v = (row.value as Json[]).map((e) => decl.serializer.fromJson(detached(e), version));
    } else {
      v = decl.serializer.fromJson(detached(row.value), version);
    }
    if (decl.ttl === undefined) return { value: v };
    // Restored without an expiry (TTL newly added): the lifetime starts now.
    const e = row.expiresAt ?? now + decl.ttl.ttlMs;
    if (e <= now) return undefined;
    if (decl.kind === 'list') {
      const list = v as unknown[];
      const es = row.elementExpiresAt === undefined ? list.map(() => e) : [...row.elementExpiresAt];
      const cell = listCell(list, es);
      if (!pruneList(cell, now)) return undefined;
      return { value: listCell(cell.v, cell.es) };
    }
    return { value: { v, e } satisfies TtlCell };
  }

  // -- access helpers ------------------------------------------------------

  /** The table of the current namespace; created on demand. */
  private table(state: HeapState, create: boolean): Map<Key, unknown> | undefined {
    let t = state.byNs.get(this.ns);
    if (t === undefined && create) {
      t = new Map();
      state.byNs.set(this.ns, t);
    }
    return t;
  }

  /** Reads a cell honouring TTL: expired cells are deleted and read as absent. */
  private readCell(
    state: HeapState,
    table: Map<unknown, unknown>,
    k: unknown,
    now: number,
  ): unknown {
    const c = table.get(k);
    if (c === undefined) return undefined;
    const ttl = state.decl.ttl;
    if (ttl === undefined) return c;
    const cell = c as TtlCell;
    if (cell.e <= now) {
      table.delete(k);
      return undefined;
    }
    if (ttl.refreshOnRead) cell.e = now + ttl.ttlMs;
    return cell.v;
  }

  private writeCell(
    state: HeapState,
    table: Map<unknown, unknown>,
    k: unknown,
    v: unknown,
    now: number,
  ): void {
    const ttl = state.decl.ttl;
    table.set(k, ttl === undefined ? v : ({ v, e: now + ttl.ttlMs } satisfies TtlCell));
  }

  /** Runs before every access to a TTL state: examines a bounded number of entries for expiry. */
  private cleanup(state: HeapState, now: number): void {
    let sweep = state.sweep;
    if (sweep === undefined) {
      sweep = new Sweep(state.byNs, state.decl.kind === 'map');
      state.sweep = sweep;
    }
    for (let i = 0; i < this.cleanupPerAccess; i++) {
      if (!sweep.next(now)) {
        state.sweep = undefined;
        return;
      }
    }
  }

  private now(state: HeapState): number {
    if (state.decl.ttl === undefined) return 0;
    const now = this.clock.now();
    this.cleanup(state, now);
    return now;
  }

  /** Removes the current key's value of `state` (every state kind's `clear`). */
  private clearCell(state: HeapState): void {
    const k = this.key();
    this.now(state);
    this.table(state, false)?.delete(k);
  }

  // -- user-facing states -------------------------------------------------

  getValueState<T>(descriptor: string | ValueStateDescriptor<T>): ValueState<T> {
    const state = this.declare('value', descriptor as AnyDescriptor);
    if (state.handle !== undefined)
      return this.queryableValueStates.note(descriptor, state.handle as ValueState<T>);
    const handle: ValueState<T> = {
      value: () => {
        const k = this.key();
        const now = this.now(state);
        const t = this.table(state, false);
        return t === undefined ? undefined : (this.readCell(state, t, k, now) as T | undefined);
      },
      update: (value: T) => {
        // Like Flink's update(null): no value is no entry.
        if (value === undefined) {
          this.clearCell(state);
          return;
        }
        const now = this.now(state);
        this.writeCell(state, this.table(state, true)!, this.key(), value, now);
      },
      clear: () => this.clearCell(state),
    };
    state.handle = handle;
    return this.queryableValueStates.note(descriptor, handle);
  }

  getListState<T>(descriptor: string | ListStateDescriptor<T>): ListState<T> {
    const state = this.declare('list', descriptor as AnyDescriptor);
    if (state.handle !== undefined) return state.handle as ListState<T>;
    const empty: readonly T[] = Object.freeze([]);
    const ttl = state.decl.ttl;
    if (ttl !== undefined) {
      const handle: ListState<T> = this.ttlListState<T>(state, ttl.ttlMs, ttl.refreshOnRead, empty);
      state.handle = handle;
      return handle;
    }
    const read = (now: number): T[] | undefined => {
      const k = this.key();
      const t = this.table(state, false);
      return t === undefined ? undefined : (this.readCell(state, t, k, now) as T[] | undefined);
    };
    const handle: ListState<T> = {
      get: () => read(this.now(state)) ?? empty,
      add: (value: T) => {
        checkDefined(this.operatorId, state.decl, 'an element', value);
        const now = this.now(state);
        const list = read(now);
        if (list === undefined)
          this.writeCell(state, this.table(state, true)!, this.key(), [value], now);
        else list.push(value);
      },
      update: (values: readonly T[]) => {
        checkListUpdate(this.operatorId, state.decl, values);
        const k = this.key();
        const now = this.now(state);
        if (values.length === 0) this.table(state, false)?.delete(k);
        else this.writeCell(state, this.table(state, true)!, k, [...values], now);
      },
      clear: () => this.clearCell(state),
    };
    state.handle = handle;
    return handle;
  }

  /** A list state with a TTL: each element lives `ttlMs` after it was added (or last read, with refresh). */
  private ttlListState<T>(
    state: HeapState,
    ttlMs: number,
    refreshOnRead: boolean,
    empty: readonly T[],
  ): ListState<T> {
    /** The current key's list with its expired elements dropped (and the list once all are). */
    const live = (now: number): TtlListCell | undefined => {
      const k = this.key();
      const t = this.table(state, false);
      const cell = t?.get(k) as TtlListCell | undefined;
      if (cell === undefined) return undefined;
      if (cell.e <= now) {
        t!.delete(k);
        return undefined;
      }
      pruneList(cell, now);
      return cell;
    };
    const set = (k: Key, v: unknown[], e: number) => {
      this.table(state, true)!.set(k, { v, es: v.map(() => e), e, m: e } satisfies TtlListCell);
    };
    return {
      get: () => {
        const now = this.now(state);
        const cell = live(now);
        if (cell === undefined) return empty;
        if (refreshOnRead) {
          cell.e = cell.m = now + ttlMs;
          cell.es.fill(cell.e);
        }
        return cell.v as T[];
      },
      add: (value: T) => {
        checkDefined(this.operatorId, state.decl, 'an element', value);
        const now = this.now(state);
        const cell = live(now);
        const e = now + ttlMs;
        if (cell === undefined) set(this.key(), [value], e);
        else {
          cell.v.push(value);
          cell.es.push(e);
          if (e > cell.e) cell.e = e;
          if (e < cell.m) cell.m = e;
        }
      },
      update: (values: readonly T[]) => {
        checkListUpdate(this.operatorId, state.decl, values);
        const k = this.key();
        const now = this.now(state);
        if (values.length === 0) {
          this.table(state, false)?.delete(k);
          return;
        }
        set(k, [...values], now + ttlMs);
      },
      clear: () => this.clearCell(state),
    };
  }

  getMapState<MK, MV>(descriptor: string | MapStateDescriptor<MK, MV>): MapState<MK, MV> {
    const state = this.declare('map', descriptor as AnyDescriptor);
    if (state.handle !== undefined) return state.handle as MapState<MK, MV>;
    const inner = (create: boolean): Map<MK, unknown> | undefined => {
      const k = this.key();
      const t = this.table(state, create);
      if (t === undefined) return undefined;
      let m = t.get(k) as Map<MK, unknown> | undefined;
      if (m === undefined && create) {
        m = new Map();
        t.set(k, m);
      }
      return m;
    };
    const ttl = state.decl.ttl;
    const live = (m: Map<MK, unknown>, now: number, read: boolean) =>
      new LiveEntries<MK, MV>(
        m as Map<MK, TtlCell>,
        now,
        read && ttl!.refreshOnRead ? now + ttl!.ttlMs : undefined,
      );
    const handle: MapState<MK, MV> = {
      get: (mk) => {
        const now = this.now(state);
        const m = inner(false);
        return m === undefined ? undefined : (this.readCell(state, m, mk, now) as MV | undefined);
      },
      put: (mk, mv) => {
        checkDefined(this.operatorId, state.decl, 'a map key', mk);
        checkDefined(this.operatorId, state.decl, 'a map value', mv);
        const now = this.now(state);
        this.writeCell(state, inner(true)!, mk, mv, now);
      },
      has: (mk) => {
        const now = this.now(state);
        const m = inner(false);
        return m !== undefined && this.readCell(state, m, mk, now) !== undefined;
      },
      remove: (mk) => {
        this.now(state);
        const m = inner(false);
        if (m === undefined) return;
        m.delete(mk);
        if (m.size === 0) this.table(state, false)?.delete(this.key());
      },
      entries: () => {
        const now = this.now(state);
        const m = inner(false);
        if (m === undefined) return new Map<MK, MV>().entries();
        // Without a TTL the stored values are the values: iterate the map itself, no generator.
        return ttl === undefined ? (m.entries() as IterableIterator<[MK, MV]>) : live(m, now, true);
      },
      size: () => {
        const now = this.now(state);
        const m = inner(false);
        if (m === undefined) return 0;
        if (ttl === undefined) return m.size;
        let n = 0;
        for (const _ of live(m, now, false)) n++;
        return n;
      },
      clear: () => this.clearCell(state),
    };
    state.handle = handle;
    return handle;
  }

  getReducingState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T> {
    const state = this.declare('reducing', descriptor as AnyDescriptor);
    if (state.handle !== undefined) return state.handle as ReducingState<T>;
    const reduce = state.decl.reduce as (a: T, b: T) => T;
    const handle: ReducingState<T> = {
      get: () => {
        const k = this.key();
        const now = this.now(state);
        const t = this.table(state, false);
        return t === undefined ? undefined : (this.readCell(state, t, k, now) as T | undefined);
      },
      add: (value: T) => {
        const now = this.now(state);
        const t = this.table(state, true)!;
        const k = this.key();
        const prev = this.readCell(state, t, k, now) as T | undefined;
        this.writeCell(state, t, k, prev === undefined ? value : reduce(prev, value), now);
      },
      clear: () => this.clearCell(state),
    };
    state.handle = handle;
    return handle;
  }

  getAggregatingState<IN, ACC, OUT>(
    descriptor: AggregatingStateDescriptor<IN, ACC, OUT>,
  ): AggregatingState<IN, OUT> {
    const state = this.declare('aggregating', descriptor as unknown as AnyDescriptor);
    if (state.handle !== undefined) return state.handle as AggregatingState<IN, OUT>;
    const agg = state.decl.aggregate as AggregatingStateDescriptor<IN, ACC, OUT>['aggregate'];
    const handle: AggregatingState<IN, OUT> = {
      get: () => {
        const k = this.key();
        const now = this.now(state);
        const t = this.table(state, false);
        const acc =
          t === undefined ? undefined : (this.readCell(state, t, k, now) as ACC | undefined);
        return acc === undefined ? undefined : agg.getResult(acc);
      },
      add: (value: IN) => {
        const now = this.now(state);
        const t = this.table(state, true)!;
        const k = this.key();
        const prev = this.readCell(state, t, k, now) as ACC | undefined;
        this.writeCell(
          state,
          t,
          k,
          agg.add(value, prev === undefined ? agg.createAccumulator() : prev),
          now,
        );
      },
      clear: () => this.clearCell(state),
    };
    state.handle = handle;
    return handle;
  }

  // -- runtime side ---------------------------------------------------------

  forEachKeyAndNamespace(stateName: string, fn: (key: Key, namespace: Namespace) => void): void {
    const state = this.states.get(stateName);
    if (state === undefined) {
      for (const row of this.restored.rowsOf(stateName)) fn(row.key, row.namespace);
      return;
    }
    const now = this.clock.now();
    const ttl = state.decl.ttl;
    for (const [ns, table] of state.byNs) {
      if (ttl === undefined) {
        // Keys alone: iterating entries would allocate a pair per key (sweeps visit every key).
        for (const key of table.keys()) fn(key, ns);
        continue;
      }
      for (const [key, c] of table) {
        if (state.decl.kind === 'map') {
          let alive = false;
          for (const cell of (c as Map<unknown, TtlCell>).values()) if (cell.e > now) alive = true;
          if (!alive) continue;
        } else if ((c as TtlCell).e <= now) continue;
        fn(key, ns);
      }
    }
  }

  namespacesOf(stateName: string): Namespace[] {
    const key = this.key();
    const state = this.states.get(stateName);
    const out: Namespace[] = [];
    if (state === undefined) return out;
    const now = this.clock.now();
    for (const [ns, table] of state.byNs) {
      const c = table.get(key);
      if (c === undefined) continue;
      if (state.decl.ttl !== undefined) {
        if (state.decl.kind !== 'map') {
          if ((c as TtlCell).e <= now) continue;
        } else {
          let alive = false;
          for (const cell of (c as Map<unknown, TtlCell>).values()) if (cell.e > now) alive = true;
          if (!alive) continue;
        }
      } else if (state.decl.kind === 'map' && (c as Map<unknown, unknown>).size === 0) continue;
      out.push(ns);
    }
    return out;
  }

  snapshot(context: BackendSnapshotContext): OperatorSnapshot {
    const builder = new KeyedSnapshotBuilder(context.keyGroupOf);
    const states: Record<string, StateMeta> = {};
    const now = this.clock.now();
    for (const state of this.states.values()) {
      const { decl } = state;
      states[decl.name] = decl.meta;
      const s = decl.serializer;
      const ttl = decl.ttl !== undefined;
      for (const [ns, table] of state.byNs) {
        for (const [key, c] of table) {
          if (decl.kind === 'map') {
            const inner = c as Map<unknown, unknown>;
            for (const [mk, mc] of inner) {
              if (ttl && (mc as TtlCell).e <= now) {
                inner.delete(mk);
                continue;
              }
              const v = ttl ? (mc as TtlCell).v : mc;
              const e = ttl ? (mc as TtlCell).e : undefined;
              builder.add(
                key,
                makeRow(
                  decl.name,
                  key,
                  ns,
                  detached(decl.keySerializer!.toJson(mk)),
                  detached(s.toJson(v)),
                  e,
                ),
              );
            }
            if (inner.size === 0) table.delete(key);
            continue;
          }
          if (ttl && (c as TtlCell).e <= now) {
            table.delete(key);
            continue;
          }
          if (ttl && decl.kind === 'list') {
            const cell = c as TtlListCell;
            pruneList(cell, now);
            builder.add(
              key,
              makeRow(
                decl.name,
                key,
                ns,
                null,
                cell.v.map((e) => detached(s.toJson(e))),
                cell.e,
                distinctExpiries(cell.es, cell.e),
              ),
            );
            continue;
          }
          const v = ttl ? (c as TtlCell).v : c;
          const json =
            decl.kind === 'list'
              ? (v as unknown[]).map((e) => detached(s.toJson(e)))
              : detached(s.toJson(v));
          builder.add(
            key,
            makeRow(decl.name, key, ns, null, json, ttl ? (c as TtlCell).e : undefined),
          );
        }
        if (table.size === 0) state.byNs.delete(ns);
      }
      state.sweep = undefined;
    }
    // Restored state nobody declared (yet) is kept as it was.
    for (const [name, { meta, rows }] of this.restored.all()) {
      states[name] = meta;
      for (const r of rows)
        builder.add(
          r.key,
          makeRow(name, r.key, r.namespace, r.userKey, r.value, r.expiresAt, r.elementExpiresAt),
        );
    }
    return { keyed: builder.build(), states };
  }

  restore(state: RestoredState): void {
    this.restored.add(state, this.operatorId, state.states ?? new Map<string, StateMeta>());
    for (const s of this.states.values()) this.absorbRestored(s);
  }

  notifyCheckpointComplete(_checkpointId: number): void {}

  entryCount(): number {
    let n = 0;
    for (const { decl, byNs } of this.states.values()) {
      for (const table of byNs.values()) {
        if (decl.kind !== 'map') n += table.size;
        else for (const inner of table.values()) n += (inner as Map<unknown, unknown>).size;
      }
    }
    return n + this.restored.size();
  }

  dispose(): void {
    this.states.clear();
    this.restored.clear();
  }
}
