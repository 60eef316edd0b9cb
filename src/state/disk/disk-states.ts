import type { Json } from '../../core/snapshot.js';
import type {
  AggregatingState,
  AggregatingStateDescriptor,
  ListState,
  MapState,
  ReducingState,
  ValueState,
} from '../../core/state.js';
import { checkDefined, checkListUpdate, type DeclaredState } from '../declared-state.js';

/**
 * What the state handles need of the disk backend: row keys of the current
 * key and namespace, TTL-aware cell reads and writes through the write
 * buffer, and map scans. Implemented by `DiskKeyedStateBackend`.
 */
export interface DiskRowAccess {
  /** The operator owning the state (for error messages). */
  readonly operatorId: string;
  /** Runs the bounded TTL sweep of a TTL state; returns the time to use (0 without TTL). */
  now(decl: DeclaredState): number;
  /** The row key of the current key and namespace. */
  rowKey(): string;
  /** The row key of one map entry (map key JSON text) of the current key and namespace. */
  entryKey(mapKeyJson: string): string;
  /** A cell's value JSON, or undefined if absent or expired (an expired cell is deleted). */
  readValue(k: string, now: number): Json | undefined;
  writeValue(k: string, json: Json, now: number): void;
  /**
   * The unexpired elements of a list (element JSON), or undefined if none;
   * expired elements are dropped. A read: restarts lifetimes with `'on-read-and-write'`.
   */
  readList(k: string, now: number): Json[] | undefined;
  /** Appends an element (JSON) to a list; with a TTL the element lives `ttlMs` from now. */
  appendList(k: string, json: Json, now: number): void;
  remove(k: string): void;
  /**
   * Unexpired entries of the current key's map: [row key, map key JSON,
   * value JSON]; expired ones are deleted. With `read`, an `'on-read-and-write'`
   * TTL restarts for each entry returned.
   */
  mapRows(now: number, read: boolean): [string, Json, Json][];
}

/** A value state over `access`. */
export function diskValueState<T>(access: DiskRowAccess, decl: DeclaredState): ValueState<T> {
  const s = decl.serializer;
  return {
    value: () => {
      const now = access.now(decl);
      const json = access.readValue(access.rowKey(), now);
      return json === undefined ? undefined : (s.fromJson(json, s.version) as T);
    },
    update: (value: T) => {
      const now = access.now(decl);
      // Like Flink's update(null): no value is no entry.
      if (value === undefined) access.remove(access.rowKey());
      else access.writeValue(access.rowKey(), s.toJson(value), now);
    },
    clear: () => {
      access.now(decl);
      access.remove(access.rowKey());
    },
  };
}

/** A list state: the list is one row (read, changed and written whole). */
export function diskListState<T>(access: DiskRowAccess, decl: DeclaredState): ListState<T> {
  const s = decl.serializer;
  return {
    get: () => {
      const now = access.now(decl);
      const json = access.readList(access.rowKey(), now);
      return json === undefined ? [] : json.map((e) => s.fromJson(e, s.version) as T);
    },
    add: (value: T) => {
      checkDefined(access.operatorId, decl, 'an element', value);
      const now = access.now(decl);
      access.appendList(access.rowKey(), s.toJson(value), now);
    },
    update: (values: readonly T[]) => {
      checkListUpdate(access.operatorId, decl, values);
      const now = access.now(decl);
      const k = access.rowKey();
      if (values.length === 0) access.remove(k);
      else
        access.writeValue(
          k,
          values.map((v) => s.toJson(v)),
          now,
        );
    },
    clear: () => {
      access.now(decl);
      access.remove(access.rowKey());
    },
  };
}

/** A map state: one row (and one TTL) per map entry. */
export function diskMapState<MK, MV>(access: DiskRowAccess, decl: DeclaredState): MapState<MK, MV> {
  const s = decl.serializer;
  const ks = decl.keySerializer!;
  const entryKey = (mk: MK): string => access.entryKey(JSON.stringify(ks.toJson(mk)));
  return {
    get: (mk) => {
      const now = access.now(decl);
      const json = access.readValue(entryKey(mk), now);
      return json === undefined ? undefined : (s.fromJson(json, s.version) as MV);
    },
    put: (mk, mv) => {
      checkDefined(access.operatorId, decl, 'a map key', mk);
      checkDefined(access.operatorId, decl, 'a map value', mv);
      const now = access.now(decl);
      access.writeValue(entryKey(mk), s.toJson(mv), now);
    },
    has: (mk) => {
      const now = access.now(decl);
      return access.readValue(entryKey(mk), now) !== undefined;
    },
    remove: (mk) => {
      access.now(decl);
      access.remove(entryKey(mk));
    },
    entries: () => {
      const now = access.now(decl);
      const result = access
        .mapRows(now, true)
        .map(
          ([, mk, v]) =>
            [ks.fromJson(mk, ks.version) as MK, s.fromJson(v, s.version) as MV] as [MK, MV],
        );
      return result[Symbol.iterator]();
    },
    size: () => access.mapRows(access.now(decl), false).length,
    clear: () => {
      access.now(decl);
      for (const [k] of access.mapRows(Number.NEGATIVE_INFINITY, false)) access.remove(k);
    },
  };
}

/** A reducing state: one row holding the reduction. */
export function diskReducingState<T>(access: DiskRowAccess, decl: DeclaredState): ReducingState<T> {
  const s = decl.serializer;
  const reduce = decl.reduce as (a: T, b: T) => T;
  return {
    get: () => {
      const now = access.now(decl);
      const json = access.readValue(access.rowKey(), now);
      return json === undefined ? undefined : (s.fromJson(json, s.version) as T);
    },
    add: (value: T) => {
      const now = access.now(decl);
      const k = access.rowKey();
      const json = access.readValue(k, now);
      const next = json === undefined ? value : reduce(s.fromJson(json, s.version) as T, value);
      access.writeValue(k, s.toJson(next), now);
    },
    clear: () => {
      access.now(decl);
      access.remove(access.rowKey());
    },
  };
}

/** An aggregating state: one row holding the accumulator. */
export function diskAggregatingState<IN, ACC, OUT>(
  access: DiskRowAccess,
  decl: DeclaredState,
): AggregatingState<IN, OUT> {
  const s = decl.serializer;
  const agg = decl.aggregate as AggregatingStateDescriptor<IN, ACC, OUT>['aggregate'];
  return {
    get: () => {
      const now = access.now(decl);
      const json = access.readValue(access.rowKey(), now);
      return json === undefined ? undefined : agg.getResult(s.fromJson(json, s.version) as ACC);
    },
    add: (value: IN) => {
      const now = access.now(decl);
      const k = access.rowKey();
      const json = access.readValue(k, now);
      const acc =
        json === undefined ? agg.createAccumulator() : (s.fromJson(json, s.version) as ACC);
      access.writeValue(k, s.toJson(agg.add(value, acc)), now);
    },
    clear: () => {
      access.now(decl);
      access.remove(access.rowKey());
    },
  };
}
