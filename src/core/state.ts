import type { Json } from './snapshot.js';

/**
 * Turns state values into JSON and back, explicitly and with a version. No
 * reflection: what is stored is exactly what `toJson` returns.
 *
 * Snapshots record `id` and `version` of the serializer of every state. On
 * restore, a different `id` or a written version newer than `version` fails
 * the job; an older written version is passed to `fromJson` (see
 * `Serializers.withMigration`), which must upgrade it.
 */
export interface StateSerializer<T> {
  /** Names the encoding; changing it makes old snapshots unreadable on purpose. */
  readonly id: string;
  /** Version of the encoding written by `toJson`; a positive integer. */
  readonly version: number;
  toJson(value: T): Json;
  /** Decodes `json`, which was written by version `writtenVersion` (<= `version`) of this serializer. */
  fromJson(json: Json, writtenVersion: number): T;
}

/** When the time-to-live of a state entry starts again. */
export type TtlUpdate = 'on-create-and-write' | 'on-read-and-write';

/**
 * Time-to-live of keyed state entries, measured with the job's processing-time
 * clock. Each map entry and each list element has its own lifetime; a value,
 * reducing or aggregating state is one entry. An expired entry is never
 * returned (it reads as absent) and is removed lazily: when read, by a
 * bounded incremental sweep on state access, and when snapshots are taken.
 *
 * Snapshots keep each entry's expiry time: a restored entry expires when it
 * would have without the restore, also if the TTL was changed meanwhile (the
 * new TTL applies from the entry's next write). Entries restored into a state
 * that had no TTL live `ttlMs` from the restore; restored without a TTL, they
 * no longer expire.
 */
export interface StateTtlConfig {
  /** Milliseconds an entry lives after its last update. */
  readonly ttlMs: number;
  /** Default `'on-create-and-write'`: reads do not extend the lifetime. */
  readonly update?: TtlUpdate;
  /** The only visibility offered: expired entries are never returned. */
  readonly visibility?: 'never-return-expired';
}

/** Declares a state: its name (unique per operator), how values are stored, and an optional TTL. */
export interface StateDescriptor<T> {
  readonly name: string;
  /** Default `Serializers.json()`: the value must be JSON data. */
  readonly serializer?: StateSerializer<T>;
  readonly ttl?: StateTtlConfig;
}

/** Declares a value state. */
export interface ValueStateDescriptor<T> extends StateDescriptor<T> {
  /**
   * Readable by key from outside the job while it runs (Flink's `setQueryable`):
   * `GET /jobs/:id/state/<operator uid>/<key>` answers the operator's queryable value states
   * of that key, by name. Default false.
   */
  readonly queryable?: boolean;
}

/** Declares a list state; `serializer` encodes one element. */
export type ListStateDescriptor<T> = StateDescriptor<T>;

/** Declares a map state: one entry (and one TTL) per map key. */
export interface MapStateDescriptor<MK, MV> extends StateDescriptor<MV> {
  /** Encodes map keys. Default `Serializers.json()`; keys compare by their encoding on disk, so use primitives. */
  readonly keySerializer?: StateSerializer<MK>;
}

/** Declares a reducing state: values added are folded with `reduce`. */
export interface ReducingStateDescriptor<T> extends StateDescriptor<T> {
  readonly reduce: (accumulated: T, value: T) => T;
}

/** Declares an aggregating state; `serializer` encodes the accumulator. */
export interface AggregatingStateDescriptor<IN, ACC, OUT> extends StateDescriptor<ACC> {
  readonly aggregate: {
    createAccumulator(): ACC;
    add(value: IN, accumulator: ACC): ACC;
    getResult(accumulator: ACC): OUT;
  };
}

/** A single value per key (and namespace). */
export interface ValueState<T> {
  /** The value for the current key, or undefined if none was set (or it expired). */
  value(): T | undefined;
  /** Sets the value; `undefined` (no value) clears it, as Flink's `update(null)`. */
  update(value: T): void;
  clear(): void;
}

/** A list per key (and namespace). */
export interface ListState<T> {
  /** The elements for the current key; empty if none. Do not mutate the result. */
  get(): readonly T[];
  /** Appends an element; `undefined` is no element and fails (`null` is JSON data and is stored). */
  add(value: T): void;
  /** Replaces the list; an empty list clears it. Fails, changing nothing, if an element is `undefined`. */
  update(values: readonly T[]): void;
  clear(): void;
}

/** A map per key (and namespace). */
export interface MapState<MK, MV> {
  get(key: MK): MV | undefined;
  /** Sets an entry; an `undefined` key or value fails (`null` is JSON data and is stored; use `remove`). */
  put(key: MK, value: MV): void;
  has(key: MK): boolean;
  remove(key: MK): void;
  /** Entries of the current key's map, unexpired, in no particular order. */
  entries(): IterableIterator<[MK, MV]>;
  size(): number;
  clear(): void;
}

/** A value that every `add` folds into with the descriptor's reduce function. */
export interface ReducingState<T> {
  /** The reduction so far, or undefined if nothing was added. */
  get(): T | undefined;
  add(value: T): void;
  clear(): void;
}

/** An accumulator that every `add` folds into; `get` returns the aggregate's result. */
export interface AggregatingState<IN, OUT> {
  /** The result over everything added, or undefined if nothing was added. */
  get(): OUT | undefined;
  add(value: IN): void;
  clear(): void;
}

/**
 * Keyed state declared by a function in `open`. Every read and write applies
 * to the key of the record (or timer) being processed, and to the current
 * namespace (a window, for window functions). Declaring the same name twice
 * returns the same state; declaring it with another kind fails.
 */
export interface KeyedStateStore {
  /** A value state; a bare name is shorthand for `{ name }`. */
  getValueState<T>(descriptor: string | ValueStateDescriptor<T>): ValueState<T>;
  getListState<T>(descriptor: string | ListStateDescriptor<T>): ListState<T>;
  getMapState<MK, MV>(descriptor: string | MapStateDescriptor<MK, MV>): MapState<MK, MV>;
  getReducingState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T>;
  getAggregatingState<IN, ACC, OUT>(
    descriptor: AggregatingStateDescriptor<IN, ACC, OUT>,
  ): AggregatingState<IN, OUT>;
}

/**
 * Operator (non-keyed) state of one subtask, declared in `open`. Values must be
 * JSON data. On restore at another parallelism, list state entries are dealt
 * round-robin over the new subtasks; union list state gives every subtask the
 * entries of all old subtasks (for example to let each pick what it needs).
 */
export interface OperatorStateStore {
  getListState<T>(name: string): ListState<T>;
  getUnionListState<T>(name: string): ListState<T>;
}
