/** A single value per key. */
export interface ValueState<T> {
  /** The value for the current key, or undefined if none was set. */
  value(): T | undefined;
  update(value: T): void;
  clear(): void;
}

/** A list per key. */
export interface ListState<T> {
  get(): readonly T[];
  add(value: T): void;
  update(values: readonly T[]): void;
  clear(): void;
}

/** A map per key. */
export interface MapState<MK, MV> {
  get(key: MK): MV | undefined;
  put(key: MK, value: MV): void;
  has(key: MK): boolean;
  remove(key: MK): void;
  entries(): IterableIterator<[MK, MV]>;
  size(): number;
  clear(): void;
}

/**
 * Keyed state declared by a function in `open`. Every read and write applies
 * to the key of the record (or timer) being processed.
 */
export interface KeyedStateStore {
  getValueState<T>(name: string): ValueState<T>;
  getListState<T>(name: string): ListState<T>;
  getMapState<MK, MV>(name: string): MapState<MK, MV>;
}
