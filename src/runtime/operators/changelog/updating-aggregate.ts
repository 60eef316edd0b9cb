import type { Change, GroupResult, RetractableAggregateFunction } from '../../../core/changelog.js';
import type {
  Collector,
  KeyedProcessFunction,
  KeyedRuntimeContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { MapState, StateSerializer, StateTtlConfig, ValueState } from '../../../core/state.js';
import type { GroupBundle } from './group-bundle.js';
import { emitGroupChange } from './group-change.js';
import { rowText } from './same-row.js';

/** How an updating aggregation is set up. */
export interface UpdatingAggregateSpec<IN, ACC, OUT> {
  readonly fn: RetractableAggregateFunction<IN, ACC, OUT>;
  /** The input carries `Change<IN>` records (otherwise plain inserts). */
  readonly changelogInput: boolean;
  /** `retract`: `-U old, +U new`; `upsert`: `+U new` only. */
  readonly mode: 'retract' | 'upsert';
  readonly ttl: StateTtlConfig | undefined;
  readonly accumulatorSerializer: StateSerializer<ACC> | undefined;
  /** Encodes the input rows kept for an `fn` without `retract`; default JSON. */
  readonly rowSerializer?: StateSerializer<IN> | undefined;
  /** Emit each group's change once per bundle of input rows (Flink's mini-batch), not per row. */
  readonly miniBatch?: MiniBatchOptions;
  /**
   * Two-phase (Flink's local-global aggregation): each bundle's rows are folded per key
   * before the keyed exchange, and the accumulators merged after it. Needs `miniBatch`,
   * `fn.merge` and insert-only input.
   */
  readonly twoPhase?: boolean;
}

/** Flink's `table.exec.mini-batch.size` and `table.exec.mini-batch.allow-latency`. */
export interface MiniBatchOptions {
  /** Input rows a bundle holds at most before its changes are emitted. */
  readonly size: number;
  /** Processing time a bundle waits at most before its changes are emitted. */
  readonly allowLatencyMs: number;
}

interface GroupState<ACC> {
  acc: ACC;
  /** Rows currently aggregated: the group disappears (`-D`) when it reaches 0. */
  n: number;
}

/** An updating aggregation's process function; with a bundle, it writes groups when told. */
export type UpdatingAggregateProcess<K extends Key, IN, ACC, OUT> = KeyedProcessFunction<
  K,
  IN | Change<IN>,
  Change<GroupResult<K, OUT>>
> & {
  /** Writes the current key's group (`acc` undefined or `n` 0: the group is gone). */
  storeGroup(acc: ACC | undefined, n: number): void;
  /** The current key's group: its accumulator and how many rows it aggregates. */
  readGroup(): { readonly acc: ACC; readonly n: number } | undefined;
};

type Self<K extends Key, IN, ACC, OUT> = UpdatingAggregateProcess<K, IN, ACC, OUT> & {
  group?: ValueState<GroupState<ACC>>;
  rows?: MapState<string, [IN, number]>;
};

/**
 * A non-windowed GROUP BY: per key, one accumulator that every input row
 * folds into (or, for `-U`/`-D` input, is taken out of), emitting the
 * group's result as a change after every input row that changes it. With a
 * `bundle`, the group lives in the bundle from its first row of the bundle
 * on, and the bundle writes it to state and emits its change once (from its
 * result before the bundle's first row to its last).
 */
export function updatingAggregateFunction<K extends Key, IN, ACC, OUT>(
  spec: UpdatingAggregateSpec<IN, ACC, OUT>,
  bundle?: GroupBundle<K, ACC, OUT>,
): UpdatingAggregateProcess<K, IN, ACC, OUT> {
  const { fn, changelogInput, mode, ttl } = spec;
  const keepRows = changelogInput && typeof fn.retract !== 'function';
  const accSerializer = spec.accumulatorSerializer;
  const self: Self<K, IN, ACC, OUT> = {
    open(ctx: KeyedRuntimeContext) {
      this.group = ctx.state.getValueState<GroupState<ACC>>({
        name: 'group',
        ...(ttl === undefined ? {} : { ttl }),
        ...(accSerializer === undefined ? {} : { serializer: groupSerializer(accSerializer) }),
      });
      if (keepRows) {
        const rowSerializer = spec.rowSerializer;
        this.rows = ctx.state.getMapState<string, [IN, number]>({
          name: 'rows',
          ...(ttl === undefined ? {} : { ttl }),
          ...(rowSerializer === undefined ? {} : { serializer: countedSerializer(rowSerializer) }),
        });
      }
    },
    processElement(input, ctx, out: Collector<Change<GroupResult<K, OUT>>>) {
      let value: IN;
      let accumulate = true;
      if (changelogInput) {
        const change = input as Change<IN>;
        value = change.value;
        accumulate = change.kind === '+I' || change.kind === '+U';
      } else value = input as IN;
      const key = ctx.key;
      // In a bundle, the group is the bundle's from its first row of the bundle on, and only
      // that row needs the result before it.
      const pending = bundle?.pending(key);
      const st: GroupState<ACC> | undefined =
        pending === undefined
          ? this.group!.value()
          : pending.acc === undefined || pending.n <= 0
            ? undefined
            : (pending as GroupState<ACC>);
      const prev = st === undefined || pending !== undefined ? undefined : fn.getResult(st.acc);
      let acc: ACC;
      let n: number;
      if (accumulate) {
        acc = fn.add(value, st === undefined ? fn.createAccumulator() : st.acc);
        n = (st?.n ?? 0) + 1;
        if (keepRows) {
          const text = rowText(value);
          const entry = this.rows!.get(text);
          this.rows!.put(text, [value, (entry?.[1] ?? 0) + 1]);
        }
      } else {
        // A retraction of a row this group does not hold (its state expired): nothing to undo.
        if (st === undefined) return;
        n = st.n - 1;
        if (keepRows) {
          const rows = this.rows!;
          const text = rowText(value);
          const entry = rows.get(text);
          if (entry === undefined) return;
          if (entry[1] <= 1) rows.remove(text);
          else rows.put(text, [entry[0], entry[1] - 1]);
          acc = fn.createAccumulator();
          for (const [, [row, count]] of rows.entries()) {
            for (let c = 0; c < count; c++) acc = fn.add(row, acc);
          }
        } else acc = fn.retract!(value, st.acc);
      }
      if (n <= 0) this.rows?.clear();
      if (bundle !== undefined) {
        bundle.note(key, pending, prev, n <= 0 ? undefined : acc, Math.max(n, 0), ctx.timestamp);
        return;
      }
      this.storeGroup(acc, n);
      emitGroupChange(
        out,
        mode,
        key,
        prev,
        n <= 0 ? undefined : fn.getResult(acc),
        ttl !== undefined,
      );
    },
    readGroup() {
      return this.group!.value();
    },
    storeGroup(acc, n) {
      if (acc === undefined || n <= 0) this.group!.clear();
      else this.group!.update({ acc, n });
    },
  };
  return self;
}

/** A kept row and how many times it is held, its row encoded by `row`. */
function countedSerializer<IN>(row: StateSerializer<IN>): StateSerializer<[IN, number]> {
  return {
    id: `weir.counted(${row.id})`,
    version: row.version,
    toJson: ([value, count]) => [row.toJson(value), count],
    fromJson: (json, written) => {
      const [value, count] = json as [never, number];
      return [row.fromJson(value, written), count];
    },
  };
}

function groupSerializer<ACC>(acc: StateSerializer<ACC>): StateSerializer<GroupState<ACC>> {
  return {
    id: `weir.group(${acc.id})`,
    version: acc.version,
    toJson: (g) => ({ acc: acc.toJson(g.acc), n: g.n }),
    fromJson: (json, written) => {
      const g = json as { acc: never; n: number };
      return { acc: acc.fromJson(g.acc, written), n: g.n };
    },
  };
}
