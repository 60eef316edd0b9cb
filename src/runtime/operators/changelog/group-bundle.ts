import type { Change, GroupResult, RetractableAggregateFunction } from '../../../core/changelog.js';
import type { Collector } from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import { emitGroupChange } from './group-change.js';

/** A group touched by the open bundle. */
export interface PendingGroup<ACC, OUT> {
  /** The group's result before the bundle's first row of it; undefined when it had none. */
  readonly prev: OUT | undefined;
  /** Its accumulator after its last row so far; undefined when the group emptied. */
  acc: ACC | undefined;
  /** Rows it aggregates after its last row so far (0: emptied). */
  n: number;
  /** Event timestamp of its last row, stamped on the change it emits. */
  timestamp: number;
}

/** Writes a group's state (`acc` undefined: the group is gone) at the end of a bundle. */
export type StoreGroup<K, ACC> = (key: K, acc: ACC | undefined, n: number) => void;

/** Emits `value` with event timestamp `timestamp`. */
export type TimedEmit<T> = (value: T, timestamp: number) => void;

/**
 * The groups an updating aggregation changed since its changes were last emitted (Flink's
 * mini-batch bundle). Rows fold into a group's accumulator as they arrive, but the group is read
 * from keyed state at its first row of the bundle and written back once, when the bundle ends;
 * each group emits one change per bundle instead of one per row, and its result is computed once.
 * Rows are not kept: a bundle holds one accumulator per group, as the state does.
 */
export class GroupBundle<K extends Key, ACC, OUT> {
  private readonly groups = new Map<K, PendingGroup<ACC, OUT>>();
  private rows = 0;

  constructor(
    private readonly fn: RetractableAggregateFunction<unknown, ACC, OUT>,
    private readonly mode: 'retract' | 'upsert',
    /** Rows after which the bundle emits. */
    private readonly size: number,
    /** State with a TTL: an unchanged result is sent again (see {@link emitGroupChange}). */
    private readonly refresh = false,
  ) {}

  /** Rows folded in since the last flush. */
  get rowCount(): number {
    return this.rows;
  }

  get full(): boolean {
    return this.rows >= this.size;
  }

  pending(key: K): PendingGroup<ACC, OUT> | undefined {
    return this.groups.get(key);
  }

  /**
   * A row of group `key` was folded in; `pending` is what {@link pending} returned before it,
   * and `prev` the group's result before the row (read only for the bundle's first row of it).
   */
  note(
    key: K,
    pending: PendingGroup<ACC, OUT> | undefined,
    prev: OUT | undefined,
    acc: ACC | undefined,
    n: number,
    timestamp: number,
  ): void {
    this.rows++;
    if (pending === undefined) this.groups.set(key, { prev, acc, n, timestamp });
    else {
      pending.acc = acc;
      pending.n = n;
      pending.timestamp = timestamp;
    }
  }

  /**
   * Folds inserted row `value` of group `key` into the bundle: the group is read with `read` (its
   * state: accumulator and rows, or undefined) at its first row of the bundle only. The same
   * fold as an insert through the process function's `note`, without its per-row bookkeeping.
   */
  add(
    key: K,
    value: unknown,
    timestamp: number,
    read: (key: K) => { readonly acc: ACC; readonly n: number } | undefined,
  ): void {
    const { fn } = this;
    this.rows++;
    const group = this.groups.get(key);
    if (group !== undefined && group.acc !== undefined && group.n > 0) {
      group.acc = fn.add(value, group.acc);
      group.n++;
      group.timestamp = timestamp;
      return;
    }
    if (group !== undefined) {
      // Emptied earlier in the bundle (only a changelog input empties one): it starts again.
      group.acc = fn.add(value, fn.createAccumulator());
      group.n = 1;
      group.timestamp = timestamp;
      return;
    }
    const st = read(key);
    const prev = st === undefined ? undefined : fn.getResult(st.acc);
    const acc = fn.add(value, st === undefined ? fn.createAccumulator() : st.acc);
    this.groups.set(key, { prev, acc, n: (st?.n ?? 0) + 1, timestamp });
  }

  /**
   * Writes each touched group to state with `store` and emits its change, in the order the groups
   * were first touched, and empties the bundle.
   */
  flush(emit: TimedEmit<Change<GroupResult<K, OUT>>>, store: StoreGroup<K, ACC>): void {
    if (this.rows === 0) return;
    const { fn, mode } = this;
    let timestamp = 0;
    const out: Collector<Change<GroupResult<K, OUT>>> = {
      collect: (change) => emit(change, timestamp),
    };
    for (const [key, group] of this.groups) {
      timestamp = group.timestamp;
      store(key, group.acc, group.n);
      const next = group.acc === undefined ? undefined : fn.getResult(group.acc);
      emitGroupChange(out, mode, key, group.prev, next, this.refresh);
    }
    this.groups.clear();
    this.rows = 0;
  }
}
