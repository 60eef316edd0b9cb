/** The deduplications of keyed streams: validation and the logical node. */
import type { Change } from '../core/changelog.js';
import { describeRecord, invalidArgument } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { OutputTag } from '../core/output-tag.js';
import type { StateSerializer, StateTtlConfig } from '../core/state.js';
import type { WindowResult } from '../core/window-result.js';
import type { RecordWindows, WindowAssigner } from '../core/windows.js';
import { keyedWindowsOf } from '../plan/logical/specs.js';
import type {
  DeduplicateOptions,
  DeduplicateRowsOptions,
  WindowDeduplicateOptions,
} from './options.js';
import { addKeyedNode, type KeyedParts } from './stream-builder.js';
import type { DataStream } from './streams.js';

function ttlOf(ttl: number | StateTtlConfig | undefined): StateTtlConfig | undefined {
  if (ttl === undefined) return undefined;
  const config = typeof ttl === 'number' ? { ttlMs: ttl } : ttl;
  if (!Number.isFinite(config?.ttlMs) || config.ttlMs <= 0) {
    throw invalidArgument(
      `deduplicate(): ttl must be a positive number of milliseconds, got ${describeRecord(ttl)}`,
    );
  }
  return config;
}

/** Builds `KeyedStream.deduplicate`. */
export function deduplicate<T>(
  keyed: KeyedParts,
  options: DeduplicateOptions<T> | DeduplicateRowsOptions<T, unknown>,
): DataStream<T | Change<unknown>> {
  const keep = options?.keep;
  if (keep !== 'first' && keep !== 'last') {
    throw invalidArgument(
      `deduplicate() needs keep: 'first' or 'last', got ${describeRecord(keep)}`,
    );
  }
  const order = options.order ?? (keep === 'first' ? 'arrival' : 'event-time');
  if (order !== 'event-time' && order !== 'arrival') {
    throw invalidArgument(
      `deduplicate() order must be 'event-time' or 'arrival', got ${describeRecord(order)}`,
    );
  }
  const mode = options.mode ?? 'retract';
  if (mode !== 'retract' && mode !== 'upsert') {
    throw invalidArgument(
      `deduplicate() mode must be 'retract' or 'upsert', got ${describeRecord(mode)}`,
    );
  }
  const insertOnly = keep === 'first' && order === 'arrival';
  const row = 'row' in options ? options.row : undefined;
  if (row !== undefined && typeof row !== 'function')
    throw invalidArgument(`deduplicate() row must be a function, got ${describeRecord(row)}`);
  if (row !== undefined && insertOnly)
    throw invalidArgument(
      'deduplicate() keeps no row when it keeps the first by arrival: map the records instead of passing row',
    );
  const spec = {
    keep,
    order,
    mode,
    insertOnly,
    ...(row === undefined ? {} : { row: row as (record: unknown) => unknown }),
    ttl: ttlOf(options.ttl),
    ...(options.serializer === undefined
      ? {}
      : { serializer: options.serializer as StateSerializer<unknown> }),
  };
  return addKeyedNode(
    keyed,
    { kind: 'deduplicate', spec },
    `deduplicate (keep ${keep} by ${order})`,
    { changelog: insertOnly ? undefined : mode },
  );
}

/** Builds `KeyedStream.windowDeduplicate`. */
export function windowDeduplicate<T, K extends Key>(
  keyed: KeyedParts,
  assigner: WindowAssigner<never> | RecordWindows<T>,
  options: WindowDeduplicateOptions<T>,
): DataStream<WindowResult<K, T>> {
  const windows = keyedWindowsOf(assigner as RecordWindows<never>, 'windowDeduplicate()');
  const keep = options?.keep;
  if (keep !== 'first' && keep !== 'last') {
    throw invalidArgument(
      `windowDeduplicate() needs keep: 'first' or 'last', got ${describeRecord(keep)}`,
    );
  }
  return addKeyedNode(
    keyed,
    {
      kind: 'window-deduplicate',
      windows,
      keep,
      lateDataTag: options.lateDataTag as OutputTag<unknown> | undefined,
      timeOf: options.timeOf as ((record: never) => number) | undefined,
    },
    `window deduplicate (keep ${keep})`,
  );
}
