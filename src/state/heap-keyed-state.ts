import type { KeyedStateStore, ListState, MapState, ValueState } from '../api/state.js';
import { WeirError } from '../errors.js';
import type { Key } from '../runtime/key-groups.js';

/**
 * Keyed state on the JavaScript heap: one `Map` per declared state, keyed by
 * the record key. The operator sets `currentKey` before calling user code.
 */
export class HeapKeyedStateBackend implements KeyedStateStore {
  currentKey: Key | undefined;
  private readonly tables = new Map<string, { kind: string; table: Map<Key, unknown> }>();

  constructor(private readonly operatorId: string) {}

  private table<V>(name: string, kind: string): Map<Key, V> {
    const existing = this.tables.get(name);
    if (existing !== undefined) {
      if (existing.kind !== kind) {
        throw new WeirError(
          'INVALID_JOB',
          `state '${name}' of operator '${this.operatorId}' is declared as both ${existing.kind} and ${kind} state`,
          { operatorId: this.operatorId },
        );
      }
      return existing.table as Map<Key, V>;
    }
    const table = new Map<Key, V>();
    this.tables.set(name, { kind, table: table as Map<Key, unknown> });
    return table;
  }

  private key(): Key {
    const k = this.currentKey;
    if (k === undefined) {
      throw new WeirError(
        'INVALID_JOB',
        `keyed state of operator '${this.operatorId}' was used outside of processing a keyed record or timer`,
        { operatorId: this.operatorId },
      );
    }
    return k;
  }

  /** Number of (state, key) entries held; for metrics and tests of state growth. */
  entryCount(): number {
    let n = 0;
    for (const { table } of this.tables.values()) n += table.size;
    return n;
  }

  getValueState<T>(name: string): ValueState<T> {
    const table = this.table<T>(name, 'value');
    return {
      value: () => table.get(this.key()),
      update: (value: T) => {
        table.set(this.key(), value);
      },
      clear: () => {
        table.delete(this.key());
      },
    };
  }

  getListState<T>(name: string): ListState<T> {
    const table = this.table<T[]>(name, 'list');
    const empty: readonly T[] = Object.freeze([]);
    return {
      get: () => table.get(this.key()) ?? empty,
      add: (value: T) => {
        const k = this.key();
        const list = table.get(k);
        if (list === undefined) table.set(k, [value]);
        else list.push(value);
      },
      update: (values: readonly T[]) => {
        if (values.length === 0) table.delete(this.key());
        else table.set(this.key(), [...values]);
      },
      clear: () => {
        table.delete(this.key());
      },
    };
  }

  getMapState<MK, MV>(name: string): MapState<MK, MV> {
    const table = this.table<Map<MK, MV>>(name, 'map');
    const current = (create: boolean): Map<MK, MV> | undefined => {
      const k = this.key();
      let m = table.get(k);
      if (m === undefined && create) {
        m = new Map();
        table.set(k, m);
      }
      return m;
    };
    return {
      get: (mk) => current(false)?.get(mk),
      put: (mk, mv) => {
        current(true)!.set(mk, mv);
      },
      has: (mk) => current(false)?.has(mk) ?? false,
      remove: (mk) => {
        const m = current(false);
        if (m === undefined) return;
        m.delete(mk);
        if (m.size === 0) table.delete(this.key());
      },
      entries: () => (current(false) ?? new Map<MK, MV>()).entries(),
      size: () => current(false)?.size ?? 0,
      clear: () => {
        table.delete(this.key());
      },
    };
  }
}
