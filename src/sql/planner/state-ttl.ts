/**
 * `SET 'table.exec.state.ttl' = '...'`: as in Flink, the relational operators (group
 * aggregation, regular joins, Top-N, deduplication, OVER, INTERSECT and EXCEPT) drop a key's
 * state once it has been idle (not written) for that long in processing time; the job keeps
 * running, and a later row of that key starts over. `0` (Flink's default) keeps state forever. Window operators free
 * their state when their windows fire and ignore it. `SET 'table.exec.source.idle-timeout'` (also
 * a duration, `0` for none) marks a source idle after that long without records.
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
  const ms = durationOption(STATE_TTL_OPTION, value, at);
  return ms === undefined ? undefined : { ttlMs: ms };
}

/** A duration option's milliseconds; undefined when unset or `0` (off, as in Flink). */
function durationOption(
  option: string,
  value: string | undefined,
  at: SourcePosition | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = v.safeParse(duration(), value.trim());
  if (!parsed.success) {
    return sqlError(
      `'${option}' is '${value}'; it must be a duration such as '0', '500 ms', '10 s', '1 h'`,
      at,
    );
  }
  return parsed.output === 0 ? undefined : parsed.output;
}

/** The `ttl` option of a DataStream operator for the retention, if one is set. */
export function ttlOption(ttl: StateTtlConfig | undefined): { readonly ttl?: StateTtlConfig } {
  return ttl === undefined ? {} : { ttl };
}

/** Flink's `table.exec.source.idle-timeout`: a source without records this long is idle. */
export const SOURCE_IDLE_TIMEOUT_OPTION = 'table.exec.source.idle-timeout';

/** The idle timeout in ms, undefined for none (`0`, Flink's default, turns it off). */
export function sourceIdleTimeoutOf(
  value: string | undefined,
  at?: SourcePosition,
): number | undefined {
  return durationOption(SOURCE_IDLE_TIMEOUT_OPTION, value, at);
}
