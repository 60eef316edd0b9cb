/**
 * Flink's mini-batch options for unwindowed GROUP BY: with `table.exec.mini-batch.enabled`
 * the aggregation emits each group's change once per bundle of up to
 * `table.exec.mini-batch.size` input rows, at the latest `table.exec.mini-batch.allow-latency`
 * after the bundle's first row, instead of one change per row. Defaults as Flink's: off,
 * latency 0 ms, size -1 (both must be set positive when enabled).
 */
import * as v from 'valibot';
import { duration } from '../connectors/sql-options.js';
import { type SourcePosition, sqlError } from '../sql-error.js';

export const MINI_BATCH_ENABLED = 'table.exec.mini-batch.enabled';
export const MINI_BATCH_ALLOW_LATENCY = 'table.exec.mini-batch.allow-latency';
export const MINI_BATCH_SIZE = 'table.exec.mini-batch.size';

/** A bundle's bounds, as the DataStream API's `updatingAggregate` takes them. */
export interface MiniBatch {
  readonly size: number;
  readonly allowLatencyMs: number;
}

/** The options this module reads. */
export const MINI_BATCH_OPTIONS: ReadonlySet<string> = new Set([
  MINI_BATCH_ENABLED,
  MINI_BATCH_ALLOW_LATENCY,
  MINI_BATCH_SIZE,
]);

/**
 * The bundle the options set, or undefined when mini-batch is off. A value that is not of its
 * option's kind, or a missing bound when mini-batch is on, is an error at `at`.
 */
export function miniBatchOf(
  options: ReadonlyMap<string, string>,
  at?: SourcePosition,
): MiniBatch | undefined {
  const enabled = (options.get(MINI_BATCH_ENABLED) ?? 'false').trim().toLowerCase();
  if (enabled !== 'true' && enabled !== 'false')
    sqlError(`'${MINI_BATCH_ENABLED}' is '${enabled}'; it must be 'true' or 'false'`, at);
  const latencyText = (options.get(MINI_BATCH_ALLOW_LATENCY) ?? '0 ms').trim();
  const latency = v.safeParse(duration(), latencyText);
  if (!latency.success)
    sqlError(
      `'${MINI_BATCH_ALLOW_LATENCY}' is '${latencyText}'; it must be a duration such as '2 s'`,
      at,
    );
  const sizeText = (options.get(MINI_BATCH_SIZE) ?? '-1').trim();
  const size = /^-?\d+$/.test(sizeText) ? Number(sizeText) : Number.NaN;
  if (Number.isNaN(size))
    sqlError(`'${MINI_BATCH_SIZE}' is '${sizeText}'; it must be a whole number of rows`, at);
  if (enabled === 'false') return undefined;
  const allowLatencyMs = latency.output as number;
  if (allowLatencyMs <= 0)
    sqlError(
      `'${MINI_BATCH_ENABLED}' is 'true', so '${MINI_BATCH_ALLOW_LATENCY}' must be a positive duration, got '${latencyText}'`,
      at,
    );
  if (size <= 0)
    sqlError(
      `'${MINI_BATCH_ENABLED}' is 'true', so '${MINI_BATCH_SIZE}' must be a positive number of rows, got '${sizeText}'`,
      at,
    );
  return { size, allowLatencyMs };
}

/** Checks one SET value of a mini-batch option alone (that enabled has its bounds is checked at planning). */
export function checkMiniBatchOption(key: string, value: string, at?: SourcePosition): void {
  const alone = new Map([[key, value]]);
  if (key !== MINI_BATCH_ENABLED) alone.set(MINI_BATCH_ENABLED, 'false');
  else alone.set(MINI_BATCH_SIZE, '1').set(MINI_BATCH_ALLOW_LATENCY, '1 ms');
  miniBatchOf(alone, at);
}
