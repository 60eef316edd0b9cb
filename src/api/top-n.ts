/** The top-N operations of keyed streams: validation and the logical node. */
import type { Change } from '../core/changelog.js';
import { describeRecord, invalidArgument } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { OutputTag } from '../core/output-tag.js';
import type { StateTtlConfig } from '../core/state.js';
import type { RecordWindows, WindowAssigner } from '../core/windows.js';
import { keyedWindowsOf, type RankComparator, type TopNSpec } from '../plan/logical/specs.js';
import type { Ranked, TopNOptions, WindowRanked, WindowTopNOptions } from './options.js';
import { addKeyedNode, type KeyedParts } from './stream-builder.js';
import type { DataStream } from './streams.js';

function checkN(n: unknown, compare: unknown, what: string): number {
  if (!Number.isInteger(n) || (n as number) < 1) {
    throw invalidArgument(`${what}: n must be a positive whole number, got ${describeRecord(n)}`);
  }
  if (typeof compare !== 'function') {
    throw invalidArgument(`${what}: compare must be a function (a, b) => number`);
  }
  return n as number;
}

/** Builds `KeyedStream.topN`. */
export function topN<T>(
  keyed: KeyedParts,
  options: TopNOptions<T> & {
    readonly rankNumber?: boolean;
    readonly mode?: 'retract' | 'upsert';
    readonly ranked?: (row: T, rank: number) => unknown;
  },
): DataStream<Change<T> | Change<Ranked<T>>> {
  const n = checkN(options?.n, options?.compare, 'topN()');
  const rankNumber = options.rankNumber === true;
  const mode = options.mode ?? 'retract';
  if (mode !== 'retract' && mode !== 'upsert') {
    throw invalidArgument(
      `topN(): mode must be 'retract' or 'upsert', got ${describeRecord(mode)}`,
    );
  }
  if (mode === 'upsert' && !rankNumber) {
    throw invalidArgument(
      'topN(): upsert mode needs rankNumber: true (updates are keyed by the rank); without rank numbers the output is a retract stream',
    );
  }
  const { ranked } = options;
  if (ranked !== undefined && (!rankNumber || typeof ranked !== 'function')) {
    throw invalidArgument(
      'topN(): ranked must be a function (row, rank) => output row, with rankNumber: true',
    );
  }
  let ttl: StateTtlConfig | undefined;
  if (options.ttl !== undefined) {
    ttl = typeof options.ttl === 'number' ? { ttlMs: options.ttl } : options.ttl;
    if (!Number.isFinite(ttl?.ttlMs) || ttl.ttlMs <= 0) {
      throw invalidArgument(
        `topN(): ttl must be a positive number of ms, got ${describeRecord(options.ttl)}`,
      );
    }
  }
  const spec = {
    n,
    compare: options.compare,
    rankNumber,
    mode,
    ttl,
    ...(options.serializer === undefined ? {} : { serializer: options.serializer }),
    ...(ranked === undefined ? {} : { ranked }),
  };
  return addKeyedNode(
    keyed,
    { kind: 'top-n', spec: spec as TopNSpec<unknown> },
    `top ${n}${rankNumber ? ' with rank' : ''}`,
    { changelog: mode },
  );
}

/** Builds `KeyedStream.windowTopN`. */
export function windowTopN<T, K extends Key>(
  keyed: KeyedParts,
  assigner: WindowAssigner<never> | RecordWindows<T>,
  options: WindowTopNOptions<T>,
): DataStream<WindowRanked<K, T>> {
  const windows = keyedWindowsOf(assigner as RecordWindows<never>, 'windowTopN()');
  const n = checkN(options?.n, options?.compare, 'windowTopN()');
  return addKeyedNode(
    keyed,
    {
      kind: 'window-top-n',
      windows,
      n,
      compare: options.compare as RankComparator<unknown>,
      lateDataTag: options.lateDataTag as OutputTag<unknown> | undefined,
    },
    `window top ${n}`,
  );
}
