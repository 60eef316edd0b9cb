import { WeirError } from '../core/errors.js';
import type { Json, OperatorSnapshot, RestoredState } from '../core/snapshot.js';
import type { ListState, OperatorStateStore } from '../core/state.js';
import { copyJson } from '../util/copy-json.js';

interface NamedList {
  readonly mode: 'list' | 'union';
  values: unknown[];
}

/** Heap implementation of {@link OperatorStateStore}, with snapshot and restore. */
export class HeapOperatorStateStore implements OperatorStateStore {
  private readonly lists = new Map<string, NamedList>();
  private restored: { list: Map<string, unknown[]>; union: Map<string, unknown[]> } | undefined;

  constructor(private readonly operatorId: string) {}

  restore(state: RestoredState): void {
    const group = (entries: readonly Json[]) => {
      const byName = new Map<string, unknown[]>();
      for (const e of entries) {
        if (e === null || typeof e !== 'object' || Array.isArray(e) || typeof e.n !== 'string')
          continue;
        const list = byName.get(e.n) ?? [];
        list.push(e.v);
        byName.set(e.n, list);
      }
      return byName;
    };
    this.restored = { list: group(state.list), union: group(state.union) };
  }

  private declare<T>(name: string, mode: 'list' | 'union'): ListState<T> {
    let entry = this.lists.get(name);
    if (entry === undefined) {
      entry = { mode, values: [...(this.restored?.[mode].get(name) ?? [])] };
      this.lists.set(name, entry);
    } else if (entry.mode !== mode) {
      throw new WeirError(
        'INVALID_JOB',
        `operator state '${name}' of '${this.operatorId}' is declared both as list and as union list state`,
        { operatorId: this.operatorId },
      );
    }
    const e = entry;
    // As keyed list state: undefined is no element (Flink rejects null ones).
    const defined = (value: unknown): void => {
      if (value !== undefined) return;
      throw new WeirError(
        'INVALID_ARGUMENT',
        `operator state '${name}' of '${this.operatorId}': an element is undefined; state holds values`,
        { operatorId: this.operatorId },
      );
    };
    return {
      get: () => e.values as readonly T[],
      add: (value: T) => {
        defined(value);
        e.values.push(value);
      },
      update: (values: readonly T[]) => {
        if (!Array.isArray(values))
          throw new WeirError(
            'INVALID_ARGUMENT',
            `operator state '${name}' of '${this.operatorId}': update takes an array of elements`,
            { operatorId: this.operatorId },
          );
        for (const v of values) defined(v);
        e.values = [...values];
      },
      clear: () => {
        e.values = [];
      },
    };
  }

  getListState<T>(name: string): ListState<T> {
    return this.declare<T>(name, 'list');
  }

  getUnionListState<T>(name: string): ListState<T> {
    return this.declare<T>(name, 'union');
  }

  snapshot(): OperatorSnapshot {
    const list: Json[] = [];
    const union: Json[] = [];
    for (const [n, { mode, values }] of this.lists) {
      // Copies: an element mutated in place after the snapshot must not change it.
      for (const v of values)
        (mode === 'list' ? list : union).push({
          n,
          v: copyJson(v as Json),
        });
    }
    return { list, union };
  }
}
