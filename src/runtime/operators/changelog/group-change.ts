import type { Change, GroupResult } from '../../../core/changelog.js';
import type { Collector } from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import { sameRow } from './same-row.js';

/**
 * The change from a group's result `prev` to `next` (undefined: no group): `+I`, `-D`, or
 * `-U`/`+U` (only `+U` in upsert mode); nothing when the result did not change, unless
 * `refresh` (state with a TTL, as Flink's GroupAggFunction): then the unchanged row is sent
 * again, so that downstream operators see the key and do not let its state expire early.
 */
export function emitGroupChange<K extends Key, OUT>(
  out: Collector<Change<GroupResult<K, OUT>>>,
  mode: 'retract' | 'upsert',
  key: K,
  prev: OUT | undefined,
  next: OUT | undefined,
  refresh = false,
): void {
  if (next === undefined) {
    if (prev !== undefined) out.collect({ kind: '-D', value: { key, value: prev } });
  } else if (prev === undefined) {
    out.collect({ kind: '+I', value: { key, value: next } });
  } else if (refresh || !sameRow(prev, next)) {
    if (mode === 'retract') out.collect({ kind: '-U', value: { key, value: prev } });
    out.collect({ kind: '+U', value: { key, value: next } });
  }
}
