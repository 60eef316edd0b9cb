import type { Change, GroupResult, RetractableAggregateFunction } from '../../../core/changelog.js';
import type {
  Collector,
  KeyedProcessFunction,
  KeyedRuntimeContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { MapState, StateSerializer, StateTtlConfig, ValueState } from '../../../core/state.js';
import { rowText, sameRow } from './same-row.js';

/** How an updating aggregation is set up. */
export interface UpdatingAggregateSpec<IN, ACC, OUT> {
  readonly fn: RetractableAggregateFunction<IN, ACC, OUT>;
  /** The input carries `Change<IN>` records (otherwise plain inserts). */
  readonly changelogInput: boolean;
  /** `retract`: `-U old, +U new`; `upsert`: `+U new` only. */
  readonly mode: 'retract' | 'upsert';
  readonly ttl: StateTtlConfig | undefined;
  readonly accumulatorSerializer: StateSerializer<ACC> | undefined;
}

interface GroupState<ACC> {
  acc: ACC;
  /** Rows currently aggregated: the group disappears (`-D`) when it reaches 0. */
  n: number;
}

type Self<K extends Key, IN, ACC, OUT> = KeyedProcessFunction<
  K,
  IN | Change<IN>,
  Change<GroupResult<K, OUT>>
> & {
  group?: ValueState<GroupState<ACC>>;
  rows?: MapState<string, [IN, number]>;
};

/**
 * A non-windowed GROUP BY: per key, one accumulator that every input row
 * folds into (or, for `-U`/`-D` input, is taken out of), emitting the
 * group's result as a change after every input row that changes it.
 */
export function updatingAggregateFunction<K extends Key, IN, ACC, OUT>(
  spec: UpdatingAggregateSpec<IN, ACC, OUT>,
): KeyedProcessFunction<K, IN | Change<IN>, Change<GroupResult<K, OUT>>> {
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
        this.rows = ctx.state.getMapState<string, [IN, number]>({
          name: 'rows',
          ...(ttl === undefined ? {} : { ttl }),
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
      const groupState = this.group!;
      const st = groupState.value();
      const prev = st === undefined ? undefined : fn.getResult(st.acc);
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
      const key = ctx.key;
      if (n <= 0) {
        groupState.clear();
        this.rows?.clear();
        if (prev !== undefined) out.collect({ kind: '-D', value: { key, value: prev } });
        return;
      }
      groupState.update({ acc, n });
      const next = fn.getResult(acc);
      if (prev === undefined) {
        out.collect({ kind: '+I', value: { key, value: next } });
      } else if (!sameRow(prev, next)) {
        if (mode === 'retract') out.collect({ kind: '-U', value: { key, value: prev } });
        out.collect({ kind: '+U', value: { key, value: next } });
      }
    },
  };
  return self;
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
