import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, systemClock } from '../../core/clock.js';
import { WeirError } from '../../core/errors.js';
import { type Key, keyGroupOf } from '../../core/key-groups.js';
import type { SyncKvStore } from '../../core/kv-store.js';
import {
  decodeKey,
  encodeKey,
  type Json,
  type KeyGroupChanges,
  type OperatorSnapshot,
  type RestoredState,
  type StateKind,
  type StateMeta,
} from '../../core/snapshot.js';
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
} from '../../core/state.js';
import type { DiskBackendOptions } from '../../core/state-backend.js';
import { isProcessAlive } from '../../util/process-alive.js';
import {
  type AnyDescriptor,
  checkNamespace,
  checkRestored,
  checkSameKind,
  type DeclaredState,
  declareState,
  noCurrentKey,
  type TtlPolicy,
} from '../declared-state.js';
import {
  type BackendSnapshotContext,
  DEFAULT_NAMESPACE,
  type KeyedStateBackend,
  type Namespace,
} from '../keyed-state-backend.js';
import { QueryableValueStates } from '../queryable-value-states.js';
import { conflictingMeta } from '../restored-rows.js';
import { distinctExpiries, parseRow, ROW_IDENTITY_LENGTH } from '../rows.js';
import { ChangeTracker, type SnapshotPlan } from './change-tracker.js';
import {
  type DiskRowAccess,
  diskAggregatingState,
  diskListState,
  diskMapState,
  diskReducingState,
  diskValueState,
} from './disk-states.js';
import { LmdbStore } from './lmdb-store.js';
import {
  type Cell,
  decodeCell,
  encodeCell,
  keyPart,
  prefixEnd,
  type RowKeyParts,
  SEP,
  splitRowKey,
} from './row-keys.js';

/**
 * Removes data directories `<prefix><pid>-*` left by processes that died
 * without disposing their backend (a crash): the state in them is only a
 * working copy, checkpoints hold the durable state.
 */
function removeDirectoriesOfDeadProcesses(parent: string, prefix: string): void {
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number.parseInt(entry.slice(prefix.length), 10);
    if (Number.isInteger(pid) && pid !== process.pid && !isProcessAlive(pid)) {
      rmSync(join(parent, entry), { recursive: true, force: true });
    }
  }
}

interface DiskState {
  readonly name: string;
  readonly stateId: string;
  decl: DeclaredState | undefined;
  /** As restored, while the state is not declared. */
  restoredMeta: StateMeta | undefined;
  handle: unknown;
  sweepCursor: string | undefined;
}

/**
 * Keyed state in an embedded LMDB database, for state larger than memory.
 * Values are serialized on every write and deserialized on every read
 * (reads return fresh objects). Writes go to a bounded write-behind buffer
 * that reads consult first and that is written in one transaction when full
 * and at every snapshot; everything is synchronous.
 *
 * Snapshots are incremental: after the first full one, a snapshot holds only
 * the rows changed since the last checkpoint confirmed complete, as a
 * `keyedDelta` referencing it; every `fullSnapshotEvery`-th snapshot is full.
 */
export class DiskKeyedStateBackend implements KeyedStateBackend {
  readonly queryableValueStates = new QueryableValueStates();
  readonly readsAreLive = false;
  private key: Key | undefined;
  private keyPartCache: string | undefined;
  private ns: Namespace = DEFAULT_NAMESPACE;
  private nsJson = JSON.stringify(DEFAULT_NAMESPACE);
  private readonly states = new Map<string, DiskState>();
  private readonly byStateId = new Map<string, DiskState>();
  private nextStateId = 1;
  private dirty = new Map<string, string | null>();
  private readonly store: SyncKvStore;
  private readonly tracker: ChangeTracker;
  private readonly clock: Clock;
  private readonly directory: string;
  private readonly bufferLimit: number;
  private readonly incremental: boolean;
  private readonly cleanupPerAccess: number;
  private readonly cleanupPerSnapshot: number;
  /** Processing time of the restore: restored rows without an expiry in a TTL state live from then. */
  private restoredAt: number | undefined;
  private disposed = false;

  constructor(
    private readonly operatorId: string,
    subtaskIndex: number,
    private readonly maxParallelism: number,
    options: DiskBackendOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.bufferLimit = Math.max(1, options.writeBufferEntries ?? 100_000);
    this.incremental = options.incremental ?? true;
    this.cleanupPerAccess = options.ttlCleanupPerAccess ?? 5;
    this.cleanupPerSnapshot = options.ttlCleanupPerSnapshot ?? 10_000;
    this.tracker = new ChangeTracker(
      Math.max(1, options.fullSnapshotEvery ?? 10),
      options.maxTrackedChanges ?? 2_000_000,
    );
    const parent = options.workingDirectory ?? tmpdir();
    mkdirSync(parent, { recursive: true });
    const safe = operatorId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 60);
    const prefix = `weir-state-${safe}-${subtaskIndex}-p`;
    removeDirectoriesOfDeadProcesses(parent, prefix);
    this.directory = mkdtempSync(join(parent, `${prefix}${process.pid}-`));
    try {
      this.store =
        options.store?.(this.directory) ??
        new LmdbStore(this.directory, options.maxStoreBytes ?? 64 * 1024 ** 3);
    } catch (e) {
      rmSync(this.directory, { recursive: true, force: true });
      throw e;
    }
  }

  /** The backend's data directory (removed by `dispose`). */
  get dataDirectory(): string {
    return this.directory;
  }

  get currentKey(): Key | undefined {
    return this.key;
  }

  set currentKey(key: Key | undefined) {
    if (key !== this.key) {
      this.key = key;
      this.keyPartCache = undefined;
    }
  }

  get currentNamespace(): Namespace {
    return this.ns;
  }

  setCurrentNamespace(namespace: Namespace): void {
    if (namespace !== this.ns) {
      checkNamespace(this.operatorId, namespace);
      this.ns = namespace;
      this.nsJson = JSON.stringify(namespace);
    }
  }

  // -- rows ------------------------------------------------------------------

  private currentKeyPart(): string {
    let part = this.keyPartCache;
    if (part === undefined) {
      const key = this.key;
      if (key === undefined) throw noCurrentKey(this.operatorId);
      part = this.keyPartCache = keyPart(
        keyGroupOf(key, this.maxParallelism),
        JSON.stringify(encodeKey(key)),
      );
    }
    return part;
  }

  /** The row key of the current key and namespace in `state`. */
  private rowKey(state: DiskState): string {
    const k = `${state.stateId}${SEP}${this.currentKeyPart()}${SEP}${this.nsJson}`;
    return this.checkLength(state, k);
  }

  private checkLength(state: DiskState, k: string): string {
    const max = this.store.maxKeyBytes;
    if (k.length * 3 > max && Buffer.byteLength(k) > max) {
      throw new WeirError(
        'INVALID_ARGUMENT',
        `state '${state.name}' of operator '${this.operatorId}': key, namespace and map key take ${Buffer.byteLength(k)} bytes, more than the disk state backend's limit of ${max}; use shorter keys or the heap backend`,
        { operatorId: this.operatorId },
      );
    }
    return k;
  }

  private read(k: string): string | undefined {
    const d = this.dirty.get(k);
    if (d !== undefined) return d === null ? undefined : d;
    return this.store.get(k);
  }

  private write(k: string, v: string | null): void {
    this.dirty.set(k, v);
    this.tracker.track(k);
    if (this.dirty.size >= this.bufferLimit) this.flush();
  }

  /** Writes the buffer to the store in one transaction. */
  private flush(): void {
    if (this.dirty.size === 0) return;
    this.store.write(this.dirty);
    this.dirty = new Map();
  }

  /**
   * When a cell of a TTL state expires: at its stored expiry or, for a row
   * restored without one (the TTL is new), `ttlMs` after the restore.
   */
  private expiryOf(ttl: TtlPolicy, cell: Cell): number {
    return cell[1] ?? (this.restoredAt ?? this.clock.now()) + ttl.ttlMs;
  }

  /** Reads a cell's value honouring TTL: expired cells are deleted and read as absent. */
  private readValue(decl: DeclaredState, k: string, now: number): Json | undefined {
    const raw = this.read(k);
    if (raw === undefined) return undefined;
    const cell = decodeCell(raw);
    const ttl = decl.ttl;
    if (ttl !== undefined) {
      if (this.expiryOf(ttl, cell) <= now) {
        this.write(k, null);
        return undefined;
      }
      if (ttl.refreshOnRead) this.write(k, encodeCell(cell[0], now + ttl.ttlMs));
    }
    return cell[0];
  }

  /**
   * The unexpired elements of a list with their expiries; expired elements
   * are dropped from the stored list (the row, once none is left). A read
   * (`read`) of an `'on-read-and-write'` list restarts every element's lifetime.
   */
  private readList(
    decl: DeclaredState,
    k: string,
    now: number,
    read: boolean,
  ): { values: Json[]; expiries: number[] } | undefined {
    const raw = this.read(k);
    if (raw === undefined) return undefined;
    const cell = decodeCell(raw);
    const all = cell[0] as Json[];
    const ttl = decl.ttl;
    if (ttl === undefined) return { values: all, expiries: [] };
    const e = this.expiryOf(ttl, cell);
    if (e <= now) {
      this.write(k, null);
      return undefined;
    }
    const stored = cell[2] ?? all.map(() => e);
    const values: Json[] = [];
    const expiries: number[] = [];
    for (let i = 0; i < all.length; i++) {
      if (stored[i]! > now) {
        values.push(all[i]!);
        expiries.push(stored[i]!);
      }
    }
    let changed = values.length < all.length;
    if (read && ttl.refreshOnRead) {
      expiries.fill(now + ttl.ttlMs);
      changed = true;
    }
    if (changed) this.writeList(k, values, expiries);
    return { values, expiries };
  }

  /** Writes a list of a TTL state with the expiry of each element. */
  private writeList(k: string, values: Json[], expiries: readonly number[]): void {
    let latest = Number.NEGATIVE_INFINITY;
    for (const e of expiries) if (e > latest) latest = e;
    this.write(k, encodeCell(values, latest, distinctExpiries(expiries, latest)));
  }

  /** Appends an element to the current list; with a TTL it lives `ttlMs` from now. */
  private appendList(decl: DeclaredState, k: string, json: Json, now: number): void {
    const ttl = decl.ttl;
    const list = this.readList(decl, k, now, false);
    const values = list?.values ?? [];
    values.push(json);
    if (ttl === undefined) {
      this.write(k, encodeCell(values, undefined));
      return;
    }
    const expiries = list?.expiries ?? [];
    expiries.push(now + ttl.ttlMs);
    this.writeList(k, values, expiries);
  }

  private writeValue(decl: DeclaredState, k: string, json: Json, now: number): void {
    this.write(k, encodeCell(json, decl.ttl === undefined ? undefined : now + decl.ttl.ttlMs));
  }

  /** Collects a range in chunks so the store is never written while a range is open. */
  private *chunks(start: string, end: string, size = 4096): Generator<[string, string][]> {
    let from = start;
    let skip: string | undefined;
    for (;;) {
      const chunk: [string, string][] = [];
      for (const entry of this.store.range(from, end, size + 1)) {
        if (entry[0] === skip) continue;
        chunk.push(entry);
        if (chunk.length === size) break;
      }
      if (chunk.length === 0) return;
      yield chunk;
      if (chunk.length < size) return;
      skip = from = chunk[chunk.length - 1]![0];
    }
  }

  // -- declaration -------------------------------------------------------

  private stateFor(name: string): DiskState {
    let s = this.states.get(name);
    if (s === undefined) {
      const stateId = (this.nextStateId++).toString(36);
      s = {
        name,
        stateId,
        decl: undefined,
        restoredMeta: undefined,
        handle: undefined,
        sweepCursor: undefined,
      };
      this.states.set(name, s);
      this.byStateId.set(stateId, s);
    }
    return s;
  }

  private declare(
    kind: StateKind,
    descriptor: AnyDescriptor,
  ): { state: DiskState; decl: DeclaredState } {
    const name = typeof descriptor === 'string' ? descriptor : descriptor.name;
    const existing = this.states.get(name);
    if (existing?.decl !== undefined) {
      checkSameKind(this.operatorId, existing.decl, kind);
      return { state: existing, decl: existing.decl };
    }
    const decl = declareState(this.operatorId, kind, descriptor);
    const state = this.stateFor(name);
    if (state.restoredMeta !== undefined) this.adopt(state, decl, state.restoredMeta);
    state.decl = decl;
    return { state, decl };
  }

  /** Checks restored rows against the declaration and migrates them if written by older serializers. */
  private adopt(state: DiskState, decl: DeclaredState, meta: StateMeta): void {
    const older = checkRestored(this.operatorId, decl, meta);
    state.restoredMeta = undefined;
    if (!older) return;
    this.flush();
    const version = meta.serializer.version;
    const keyVersion = meta.keySerializer?.version ?? 1;
    const s = decl.serializer;
    const ks = decl.keySerializer;
    const moved: [string, string][] = [];
    const prefix = `${state.stateId}${SEP}`;
    for (const chunk of this.chunks(prefix, prefixEnd(prefix))) {
      for (const [k, raw] of chunk) {
        const cell = decodeCell(raw);
        const json =
          decl.kind === 'list'
            ? (cell[0] as Json[]).map((e) => s.toJson(s.fromJson(e, version)))
            : s.toJson(s.fromJson(cell[0], version));
        const value = encodeCell(json, cell[1], cell[2]);
        const parts = splitRowKey(k);
        if (ks !== undefined && parts.userKeyJson !== undefined) {
          const uk = JSON.stringify(
            ks.toJson(ks.fromJson(JSON.parse(parts.userKeyJson) as Json, keyVersion)),
          );
          if (uk !== parts.userKeyJson) {
            // The map key's encoding changed: the row moves (after the scan, so it is not seen twice).
            this.write(k, null);
            moved.push([k.slice(0, k.length - parts.userKeyJson.length) + uk, value]);
            continue;
          }
        }
        this.write(k, value);
      }
    }
    for (const [k, v] of moved) this.write(this.checkLength(state, k), v);
  }

  private now(state: DiskState, decl: DeclaredState): number {
    if (decl.ttl === undefined) return 0;
    const now = this.clock.now();
    if (this.cleanupPerAccess > 0) this.sweep(state, now, this.cleanupPerAccess);
    return now;
  }

  /**
   * Examines up to `limit` rows of a TTL state after its sweep cursor,
   * deleting expired ones; wraps around at the end. Returns rows examined.
   */
  private sweep(state: DiskState, now: number, limit: number): number {
    const ttl = state.decl!.ttl!;
    const prefix = `${state.stateId}${SEP}`;
    const expired: string[] = [];
    let examined = 0;
    let last: string | undefined;
    for (const [k, raw] of this.store.range(
      state.sweepCursor ?? prefix,
      prefixEnd(prefix),
      limit + 1,
    )) {
      if (k === state.sweepCursor) continue;
      if (examined === limit) break;
      examined++;
      last = k;
      if (this.dirty.has(k)) continue; // a newer value is pending
      if (this.expiryOf(ttl, decodeCell(raw)) <= now) expired.push(k);
    }
    state.sweepCursor = examined < limit ? undefined : last;
    for (const k of expired) this.write(k, null);
    return examined;
  }

  // -- user-facing states -------------------------------------------------

  /** The handles' view of this backend for one state. */
  private access(state: DiskState): DiskRowAccess {
    return {
      operatorId: this.operatorId,
      now: (decl) => this.now(state, decl),
      rowKey: () => this.rowKey(state),
      entryKey: (mapKeyJson) => this.checkLength(state, `${this.rowKey(state)}${SEP}${mapKeyJson}`),
      readValue: (k, now) => this.readValue(state.decl!, k, now),
      writeValue: (k, json, now) => this.writeValue(state.decl!, k, json, now),
      readList: (k, now) => this.readList(state.decl!, k, now, true)?.values,
      appendList: (k, json, now) => this.appendList(state.decl!, k, json, now),
      remove: (k) => this.write(k, null),
      mapRows: (now, read) => {
        this.flush();
        const ttl = state.decl?.ttl;
        const prefix = `${this.rowKey(state)}${SEP}`;
        const out: [string, Json, Json][] = [];
        const expired: string[] = [];
        for (const [k, raw] of this.store.range(prefix, prefixEnd(prefix))) {
          const cell = decodeCell(raw);
          if (ttl !== undefined && this.expiryOf(ttl, cell) <= now) {
            expired.push(k);
            continue;
          }
          out.push([k, JSON.parse(k.slice(prefix.length)) as Json, cell[0]]);
        }
        // Written after the scan: the store is not written while a range is open.
        for (const k of expired) this.write(k, null);
        if (read && ttl?.refreshOnRead === true) {
          for (const [k, , v] of out) this.write(k, encodeCell(v, now + ttl.ttlMs));
        }
        return out;
      },
    };
  }

  getValueState<T>(descriptor: string | ValueStateDescriptor<T>): ValueState<T> {
    const { state, decl } = this.declare('value', descriptor as AnyDescriptor);
    state.handle ??= diskValueState<T>(this.access(state), decl);
    return this.queryableValueStates.note(descriptor, state.handle as ValueState<T>);
  }

  getListState<T>(descriptor: string | ListStateDescriptor<T>): ListState<T> {
    const { state, decl } = this.declare('list', descriptor as AnyDescriptor);
    state.handle ??= diskListState<T>(this.access(state), decl);
    return state.handle as ListState<T>;
  }

  getMapState<MK, MV>(descriptor: string | MapStateDescriptor<MK, MV>): MapState<MK, MV> {
    const { state, decl } = this.declare('map', descriptor as AnyDescriptor);
    state.handle ??= diskMapState<MK, MV>(this.access(state), decl);
    return state.handle as MapState<MK, MV>;
  }

  getReducingState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T> {
    const { state, decl } = this.declare('reducing', descriptor as AnyDescriptor);
    state.handle ??= diskReducingState<T>(this.access(state), decl);
    return state.handle as ReducingState<T>;
  }

  getAggregatingState<IN, ACC, OUT>(
    descriptor: AggregatingStateDescriptor<IN, ACC, OUT>,
  ): AggregatingState<IN, OUT> {
    const { state, decl } = this.declare('aggregating', descriptor as unknown as AnyDescriptor);
    state.handle ??= diskAggregatingState<IN, ACC, OUT>(this.access(state), decl);
    return state.handle as AggregatingState<IN, OUT>;
  }

  // -- runtime side ---------------------------------------------------------

  forEachKeyAndNamespace(stateName: string, fn: (key: Key, namespace: Namespace) => void): void {
    const state = this.states.get(stateName);
    if (state === undefined) return;
    this.flush();
    const ttl = state.decl?.ttl;
    const now = this.clock.now();
    const prefix = `${state.stateId}${SEP}`;
    let previous: string | undefined;
    for (const chunk of this.chunks(prefix, prefixEnd(prefix))) {
      for (const [k, raw] of chunk) {
        if (ttl !== undefined && this.expiryOf(ttl, decodeCell(raw)) <= now) continue;
        const parts = splitRowKey(k);
        const pair = `${parts.keyJson}${SEP}${parts.namespaceJson}`;
        if (pair === previous) continue;
        previous = pair;
        fn(decodeKey(JSON.parse(parts.keyJson) as Json), JSON.parse(parts.namespaceJson) as string);
      }
    }
  }

  namespacesOf(stateName: string): Namespace[] {
    const state = this.states.get(stateName);
    const part = this.currentKeyPart();
    if (state === undefined) return [];
    this.flush();
    const ttl = state.decl?.ttl;
    const now = this.clock.now();
    const prefix = `${state.stateId}${SEP}${part}${SEP}`;
    const seen = new Set<string>();
    for (const [k, raw] of this.store.range(prefix, prefixEnd(prefix))) {
      if (ttl !== undefined && this.expiryOf(ttl, decodeCell(raw)) <= now) continue;
      seen.add(JSON.parse(splitRowKey(k).namespaceJson) as string);
    }
    return [...seen];
  }

  /** State declarations as snapshots record them (declared or still as restored). */
  private metas(): Record<string, StateMeta> {
    const out: Record<string, StateMeta> = {};
    for (const s of this.states.values()) {
      const meta = s.decl?.meta ?? s.restoredMeta;
      if (meta !== undefined) out[s.name] = meta;
    }
    return out;
  }

  /**
   * The snapshot row of a stored (unexpired) row: with its expiry if the
   * state has a TTL (as restored if it is not declared yet), and only the
   * unexpired elements of a list whose elements expire at different times.
   */
  private row(state: DiskState, parts: RowKeyParts, cell: Cell, now: number): Json[] {
    const row: Json[] = [
      state.name,
      JSON.parse(parts.keyJson) as Json,
      JSON.parse(parts.namespaceJson) as Json,
      parts.userKeyJson === undefined ? null : (JSON.parse(parts.userKeyJson) as Json),
      cell[0],
    ];
    if (state.decl === undefined) {
      if (cell[1] !== undefined) row.push(cell[1]);
      if (cell[2] !== undefined) row.push(cell[2]);
      return row;
    }
    const ttl = state.decl.ttl;
    if (ttl === undefined) return row;
    const stored = cell[2];
    if (stored === undefined) {
      row.push(this.expiryOf(ttl, cell));
      return row;
    }
    const all = cell[0] as Json[];
    const values: Json[] = [];
    const expiries: number[] = [];
    let latest = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < all.length; i++) {
      const e = stored[i]!;
      if (e <= now) continue;
      values.push(all[i]!);
      expiries.push(e);
      if (e > latest) latest = e;
    }
    row[4] = values;
    row.push(latest);
    const distinct = distinctExpiries(expiries, latest);
    if (distinct !== undefined) row.push([...distinct]);
    return row;
  }

  snapshot(context: BackendSnapshotContext): OperatorSnapshot {
    const savepoint = context.kind === 'savepoint';
    const now = this.clock.now();
    let plan: SnapshotPlan =
      savepoint || !this.incremental ? { kind: 'full' } : this.tracker.plan();
    const ttlStates = [...this.states.values()].filter((s) => s.decl?.ttl !== undefined);
    if (plan.kind === 'delta' && this.cleanupPerSnapshot > 0 && ttlStates.length > 0) {
      // A bounded share of the expiry sweep; its deletions are part of this delta.
      const share = Math.ceil(this.cleanupPerSnapshot / ttlStates.length);
      for (const s of ttlStates) this.sweep(s, now, share);
      plan = this.tracker.plan();
    }
    this.flush();
    const floor =
      savepoint || !this.incremental
        ? {}
        : { deltaBaseFloor: this.tracker.floor(context.checkpointId) };
    let result: OperatorSnapshot;
    if (plan.kind === 'full') {
      result = {
        keyed: this.fullGroups(now),
        states: this.metas(),
        ...floor,
      };
    } else {
      result = {
        keyedDelta: {
          base: plan.base,
          identityLength: ROW_IDENTITY_LENGTH,
          groups: this.deltaGroups(plan.changed, now),
        },
        states: this.metas(),
        ...floor,
      };
    }
    if (!savepoint && this.incremental) this.tracker.snapshotTaken(context.checkpointId, plan);
    return result;
  }

  /** Every unexpired row by key group; expired rows are deleted. */
  private fullGroups(now: number): Record<string, Json[]> {
    const groups: Record<string, Json[]> = {};
    const expired: string[] = [];
    for (const state of this.states.values()) {
      const ttl = state.decl?.ttl;
      const prefix = `${state.stateId}${SEP}`;
      for (const [k, raw] of this.store.range(prefix, prefixEnd(prefix))) {
        const cell = decodeCell(raw);
        if (ttl !== undefined && this.expiryOf(ttl, cell) <= now) {
          expired.push(k);
          continue;
        }
        const parts = splitRowKey(k);
        const g = String(parts.keyGroup);
        const list = groups[g];
        const row = this.row(state, parts, cell, now);
        if (list === undefined) groups[g] = [row];
        else list.push(row);
      }
    }
    for (const k of expired) this.write(k, null);
    this.flush();
    return groups;
  }

  /** Changed rows by key group: current rows as puts, missing (or expired) ones as removes. */
  private deltaGroups(changed: ReadonlySet<string>, now: number): Record<string, KeyGroupChanges> {
    const groups: Record<string, { put: Json[]; remove: Json[] }> = {};
    const expired: string[] = [];
    for (const k of changed) {
      const parts = splitRowKey(k);
      const state = this.byStateId.get(parts.stateId);
      if (state === undefined) continue;
      const g = String(parts.keyGroup);
      let group = groups[g];
      if (group === undefined) groups[g] = group = { put: [], remove: [] };
      const raw = this.store.get(k);
      const cell = raw === undefined ? undefined : decodeCell(raw);
      const ttl = state.decl?.ttl;
      if (cell === undefined || (ttl !== undefined && this.expiryOf(ttl, cell) <= now)) {
        if (cell !== undefined) expired.push(k);
        group.remove.push(this.row(state, parts, [null], now).slice(0, ROW_IDENTITY_LENGTH));
      } else {
        group.put.push(this.row(state, parts, cell, now));
      }
    }
    for (const k of expired) this.write(k, null);
    this.flush();
    return groups;
  }

  restore(restored: RestoredState): void {
    this.restoredAt ??= this.clock.now();
    for (const [name, meta] of restored.states ?? new Map<string, StateMeta>()) {
      const state = this.stateFor(name);
      const known = state.restoredMeta;
      if (known !== undefined && JSON.stringify(known) !== JSON.stringify(meta)) {
        throw conflictingMeta(this.operatorId, name);
      }
      if (state.decl === undefined) state.restoredMeta = meta;
    }
    this.flush();
    for (const [group, entries] of restored.keyed) {
      const kg = group.toString(16).padStart(4, '0');
      const rows: [string, string][] = [];
      for (const entry of entries) {
        // Validates the row (and its key) before storing it.
        const row = parseRow(entry, this.operatorId);
        const state = this.states.get(row.state);
        const meta = state?.decl?.meta ?? state?.restoredMeta;
        if (state === undefined || meta === undefined) {
          throw new WeirError(
            'INVALID_JOB',
            `keyed state of operator '${this.operatorId}' in the checkpoint has entries of state '${row.state}' but no declaration of it`,
            { operatorId: this.operatorId },
          );
        }
        let k = `${state.stateId}${SEP}${kg}${SEP}${JSON.stringify((entry as Json[])[1])}${SEP}${JSON.stringify(row.namespace)}`;
        if (meta.kind === 'map') k += `${SEP}${JSON.stringify(row.userKey)}`;
        rows.push([
          this.checkLength(state, k),
          encodeCell(row.value, row.expiresAt, row.elementExpiresAt),
        ]);
      }
      // In key order, B-tree inserts append instead of splitting pages all over.
      rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      for (let i = 0; i < rows.length; i += 100_000) {
        this.store.write(new Map(rows.slice(i, i + 100_000)));
      }
    }
    // The first snapshot after a restore is full: earlier checkpoints belong to another run.
    this.tracker.forceFull();
    // States declared before the restore are checked (and migrated) now.
    for (const state of this.states.values()) {
      const meta = restored.states?.get(state.name);
      if (state.decl !== undefined && meta !== undefined) this.adopt(state, state.decl, meta);
    }
  }

  notifyCheckpointComplete(checkpointId: number): void {
    this.tracker.confirm(checkpointId);
  }

  entryCount(): number {
    // Metrics may be read after the operator closed.
    if (this.disposed) return 0;
    this.flush();
    return this.store.count();
  }

  storedBytes(): number {
    if (this.disposed) return 0;
    this.flush();
    return this.store.byteSize();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.dirty = new Map();
    try {
      this.store.close();
    } finally {
      rmSync(this.directory, { recursive: true, force: true });
    }
  }
}
