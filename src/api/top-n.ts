import type { Change } from '../core/changelog.js';
import { describeRecord, invalidArgument } from '../core/errors.js';
import type { Key } from '../core/key-groups.js';
import type { OutputTag } from '../core/output-tag.js';
import type { StateTtlConfig } from '../core/state.js';
import type { WindowAssigner } from '../core/windows.js';
import {
  fixedWindowsOf,
  type RankComparator,
  type Ranked,
  type TopNSpec,
  type WindowRanked,
} from '../plan/logical/specs.js';
import type { DataStream, KeyedStream } from './data-stream.js';

export type { RankComparator, Ranked, WindowRanked } from '../plan/logical/specs.js';

/** Top-N per key: the `n` first rows by `compare`. */
export interface TopNOptions<T> {
  readonly n: number;
  /** Negative when `a` ranks before `b` (e.g. `(a, b) => b.price - a.price` for the highest prices). */
  readonly compare: RankComparator<T>;
  /** Forget a key's ranking this long (ms, processing time) after it last changed. Default: never. */
  readonly ttl?: number | StateTtlConfig;
}

/** Top-N with rank numbers: emits `Ranked` rows. */
export interface RankedTopNOptions<T> extends TopNOptions<T> {
  readonly rankNumber: true;
  /** `retract` (default): `-U old` / `+U new` per moved rank; `upsert`: only `+U new`, keyed by (key, rank). */
  readonly mode?: 'retract' | 'upsert';
}

/** Window Top-N: the final `n` first rows of each window. */
export interface WindowTopNOptions<T> {
  readonly n: number;
  readonly compare: RankComparator<T>;
  /** Records behind every window they belong to go here (they are always counted). */
  readonly lateDataTag?: OutputTag<T>;
}

function checkN(n: unknown, compare: unknown, what: string): number {
  if (!Number.isInteger(n) || (n as number) < 1) {
    throw invalidArgument(`${what}: n must be a positive whole number, got ${describeRecord(n)}`);
  }
  if (typeof compare !== 'function') {
    throw invalidArgument(`${what}: compare must be a function (a, b) => number`);
  }
  return n as number;
}

/** @internal Builds `KeyedStream.topN`. */
export function topN<T, K extends Key>(
  keyed: KeyedStream<T, K>,
  options: TopNOptions<T> & { readonly rankNumber?: boolean; readonly mode?: 'retract' | 'upsert' },
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
  let ttl: StateTtlConfig | undefined;
  if (options.ttl !== undefined) {
    ttl = typeof options.ttl === 'number' ? { ttlMs: options.ttl } : options.ttl;
    if (!Number.isFinite(ttl?.ttlMs) || ttl.ttlMs <= 0) {
      throw invalidArgument(
        `topN(): ttl must be a positive number of ms, got ${describeRecord(options.ttl)}`,
      );
    }
  }
  const spec = { n, compare: options.compare, rankNumber, mode, ttl };
  return keyed.addKeyedNode(
    { kind: 'top-n', spec: spec as TopNSpec<unknown> },
    `top ${n}${rankNumber ? ' with rank' : ''}`,
    { changelog: mode },
  );
}

/** @internal Builds `KeyedStream.windowTopN`. */
export function windowTopN<T, K extends Key>(
  keyed: KeyedStream<T, K>,
  assigner: WindowAssigner<never>,
  options: WindowTopNOptions<T>,
): DataStream<WindowRanked<K, T>> {
  const windows = fixedWindowsOf(assigner, 'windowTopN()');
  const n = checkN(options?.n, options?.compare, 'windowTopN()');
  return keyed.addKeyedNode(
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
