import type { ViewOutput } from '../../../core/ranking.js';

export type { ViewOutput };

import type { Change } from '../../../core/changelog.js';
import { describeRecord, WeirError } from '../../../core/errors.js';
import type { KeyedProcessFunction, KeyedRuntimeContext } from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { StateSerializer, StateTtlConfig, ValueState } from '../../../core/state.js';
import { sameRow } from './same-row.js';

type Self<K extends Key, T> = KeyedProcessFunction<K, Change<T>, Change<T> | T> & {
  row?: ValueState<T>;
  /** Keys whose last change was a `-U`: the `+U` that follows completes their update. */
  retracted?: Set<K>;
};

/**
 * A keyed table view: the latest row per primary key, kept in keyed state.
 * Every input change updates the view, and what the view changed is emitted:
 * a new key `+I`, a changed row `-U old, +U new` (retract) or `+U new`
 * (upsert), a deleted key `-D old`. Changes that leave the row as it was
 * are not emitted.
 */
export function tableViewFunction<K extends Key, T>(
  output: ViewOutput,
  ttl: StateTtlConfig | undefined,
  serializer?: StateSerializer<T>,
): KeyedProcessFunction<K, Change<T>, Change<T> | T> {
  const self: Self<K, T> = {
    open(ctx: KeyedRuntimeContext) {
      this.retracted = new Set();
      this.row = ctx.state.getValueState<T>({
        name: 'row',
        ...(ttl === undefined ? {} : { ttl }),
        ...(serializer === undefined ? {} : { serializer }),
      });
    },
    processElement(change, ctx, out) {
      const state = this.row!;
      const prev = state.value();
      const { kind, value } = change;
      if (output === 'insert-only') {
        if (kind !== '+I' || prev !== undefined) {
          throw new WeirError(
            'BAD_RECORD',
            `an append-only view got ${kind === '+I' ? 'a second row' : `a ${kind} change`} for key ${describeRecord(ctx.key)}: ${describeRecord(value)}; read the view as an upsert or retract stream instead`,
            { record: describeRecord(change) },
          );
        }
        state.update(value);
        out.collect(value);
        return;
      }
      if (kind === '+I' || kind === '+U') {
        state.update(value);
        if (prev === undefined) {
          // A key's first row is an insert in a retract changelog (Flink's ChangelogNormalize),
          // but the +U after the key's -U, which is the second half of an update.
          const completes = this.retracted!.delete(ctx.key);
          out.collect({ kind: output === 'retract' && !completes ? '+I' : kind, value });
        } else if (!sameRow(prev, value)) {
          if (output === 'retract') out.collect({ kind: '-U', value: prev });
          out.collect({ kind: '+U', value });
        }
        return;
      }
      // -U or -D: the key's row goes away (an update's +U, if any, brings the new one).
      if (prev === undefined) return;
      state.clear();
      if (kind === '-U') this.retracted!.add(ctx.key);
      out.collect(
        output === 'retract' && kind === '-U'
          ? { kind: '-U', value: prev }
          : { kind: '-D', value: prev },
      );
    },
  };
  return self;
}
