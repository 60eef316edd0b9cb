/**
 * `SET 'table.exec.state.ttl' = '...'`: as in Flink, the relational operators (group
 * aggregation, regular joins, Top-N, deduplication, OVER, INTERSECT and EXCEPT) drop a key's
 * state once it has been idle (not written) for that long in processing time; the job keeps
 * running, and a later row of that key starts over. `0` (Flink's default) keeps state forever. Window operators free
 * their state when their windows fire and ignore it.
 */
import * as v from 'valibot';
import type { StateTtlConfig } from '../../core/state.js';
import { duration } from '../connectors/sql-options.js';
import { type SourcePosition, sqlError } from '../sql-error.js';

export const STATE_TTL_OPTION = 'table.exec.state.ttl';

/** The retention `value` sets; undefined for `0`. A value that is not a duration is an error at `at`. */
export function stateTtlOf(
  value: string | undefined,
  at?: SourcePosition,
): StateTtlConfig | undefined {
  if (value === undefined) return undefined;
  const parsed = v.safeParse(duration(), value.trim());
  if (!parsed.success) {
    return sqlError(
      `'${STATE_TTL_OPTION}' is '${value}'; it must be a duration such as '0', '500 ms', '10 s', '1 h'`,
      at,
    );
  }
  return parsed.output === 0 ? undefined : { ttlMs: parsed.output };
}

/** The `ttl` option of a DataStream operator for the retention, if one is set. */
export function ttlOption(ttl: StateTtlConfig | undefined): { readonly ttl?: StateTtlConfig } {
  return ttl === undefined ? {} : { ttl };
}
