import type { RankComparator, Ranked, WindowRanked } from '../../../core/ranking.js';

export type { RankComparator, Ranked, WindowRanked };

import type { Change } from '../../../core/changelog.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { OutputTag } from '../../../core/output-tag.js';
import type { Json } from '../../../core/snapshot.js';
import type { StateSerializer, StateTtlConfig, ValueState } from '../../../core/state.js';
import type { Counter } from '../../../metrics/registry.js';
import { DEFAULT_NAMESPACE, type KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import {
  addToOpenWindows,
  type KeyedWindows,
  namespaceOfTimer,
  windowOfTimer,
} from './fixed-windows.js';
import { backendOf, type CountsLateRecords, setOutputTimestamp } from './keyed-co-process.js';

/**
 * Inserts `row` into the sorted `top` (at most `n` rows; equal rows keep
 * arrival order). Returns the new list, the position taken (or -1 when the row
 * does not make the top `n`), and the row pushed out of it.
 */
export function insertRanked<T>(
  top: readonly T[],
  row: T,
  n: number,
  compare: RankComparator<T>,
): { list: T[]; position: number; evicted: T | undefined } {
  // Binary search for the first row that ranks strictly after `row`.
  let lo = 0;
  let hi = top.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(row, top[mid]!) < 0) hi = mid;
    else lo = mid + 1;
  }
  const position = lo;
  if (position >= n) return { list: top as T[], position: -1, evicted: undefined };
  const list = [...top.slice(0, position), row, ...top.slice(position)];
  const evicted = list.length > n ? list.pop() : undefined;
  return { list, position, evicted };
}

export interface TopNSpec<T> {
  readonly n: number;
  readonly compare: RankComparator<T>;
  readonly rankNumber: boolean;
  /** With rank numbers: `retract` emits `-U`/`+U` per moved rank, `upsert` only `+U` (keyed by rank). */
  readonly mode: 'retract' | 'upsert';
  readonly ttl: StateTtlConfig | undefined;
  /** How rows are written to snapshots; default `Serializers.json()`. */
  readonly serializer?: StateSerializer<T>;
  /** With rank numbers: writes each output row itself, in place of a `Ranked` object. */
  readonly ranked?: (row: T, rank: number) => unknown;
}

/**
 * Top-N per key over an insert-only stream (Flink's append-only Top-N): the
 * state of a key is its current top `n` rows, sorted, because a row that
 * falls out can never come back. Changes as the ranking moves:
 * - without rank numbers: `+I` for a row entering the top n, `-D` for the
 *   row it pushes out;
 * - with rank numbers (`Ranked` rows): for every rank from the new row's down,
 *   `-U` the old occupant and `+U` the new one (`+I` when the rank was empty);
 *   in upsert mode only the `+U` (or `+I`).
 */
export class TopNFunction<K extends Key, T>
  implements KeyedProcessFunction<K, T, Change<T> | Change<Ranked<T>>>
{
  private top!: ValueState<T[]>;

  /** The output row of a ranked change. */
  private readonly ranked: (row: T, rank: number) => unknown;

  constructor(private readonly spec: TopNSpec<T>) {
    this.ranked = spec.ranked ?? ((row, rank): Ranked<T> => ({ rank, row }));
  }

  open(context: KeyedRuntimeContext): void {
    const rows = this.spec.serializer;
    this.top = context.state.getValueState<T[]>({
      name: 'top-n.rows',
      ...(this.spec.ttl === undefined ? {} : { ttl: this.spec.ttl }),
      ...(rows === undefined ? {} : { serializer: listSerializer(rows) }),
    });
  }

  processElement(
    value: T,
    _ctx: KeyedProcessContext<K>,
    out: Collector<Change<T> | Change<Ranked<T>>>,
  ): void {
    const { n, compare, rankNumber, mode } = this.spec;
    const old = this.top.value() ?? [];
    const { list, position, evicted } = insertRanked(old, value, n, compare);
    if (position < 0) return;
    this.top.update(list);
    if (!rankNumber) {
      out.collect({ kind: '+I', value });
      if (evicted !== undefined) out.collect({ kind: '-D', value: evicted });
      return;
    }
    // Each change's row is written once in its final shape: a `Ranked` by default.
    const ranked = this.ranked;
    const rows = out as Collector<Change<unknown>>;
    for (let i = position; i < list.length; i++) {
      if (i < old.length) {
        if (mode === 'retract') rows.collect({ kind: '-U', value: ranked(old[i]!, i + 1) });
        rows.collect({ kind: '+U', value: ranked(list[i]!, i + 1) });
      } else rows.collect({ kind: '+I', value: ranked(list[i]!, i + 1) });
    }
  }
}

/**
 * Top-N per key and fixed event-time window (Flink's window Top-N): the top
 * `n` rows of each window are kept (at most `n` per key and window) and
 * emitted once, with their ranks, when the window fires; then dropped.
 */
export class WindowTopNFunction<K extends Key, T>
  implements KeyedProcessFunction<K, T, WindowRanked<K, T>>, CountsLateRecords
{
  lateRecords?: Counter;
  private backend!: KeyedStateBackend;
  private top!: ValueState<T[]>;

  constructor(
    private readonly windows: KeyedWindows,
    private readonly n: number,
    private readonly compare: RankComparator<T>,
    private readonly lateTag: OutputTag<T> | undefined,
  ) {}

  open(context: KeyedRuntimeContext): void {
    this.backend = backendOf(context);
    this.top = context.state.getValueState<T[]>('window-top-n.rows');
  }

  processElement(value: T, ctx: KeyedProcessContext<K>): void {
    const added = addToOpenWindows(
      this.windows,
      value,
      ctx.timestamp,
      ctx.timerService.currentWatermark(),
      this.backend,
      () => {
        const { list, position } = insertRanked(
          this.top.value() ?? [],
          value,
          this.n,
          this.compare,
        );
        if (position >= 0) this.top.update(list);
      },
      ctx.timerService,
    );
    if (!added) {
      this.lateRecords?.inc();
      if (this.lateTag !== undefined) ctx.output(this.lateTag, value);
    }
  }

  onTimer(time: number, ctx: OnTimerContext<K>, out: Collector<WindowRanked<K, T>>): void {
    this.backend.setCurrentNamespace(namespaceOfTimer(this.windows, time));
    const rows = this.top.value() ?? [];
    this.top.clear();
    this.backend.setCurrentNamespace(DEFAULT_NAMESPACE);
    if (rows.length === 0) return;
    const window = windowOfTimer(this.windows, time, rows[0]);
    setOutputTimestamp(out, time);
    rows.forEach((row, i) => {
      out.collect({ key: ctx.key, window, rank: i + 1, row });
    });
  }
}

/** A list of rows, each written with `rows` (none keeps the JSON default, and its snapshots). */
function listSerializer<T>(rows: StateSerializer<T>): StateSerializer<T[]> {
  return {
    id: `list(${rows.id})`,
    version: rows.version,
    toJson: (list) => list.map((r) => rows.toJson(r)),
    fromJson: (json, version) => (json as Json[]).map((r) => rows.fromJson(r, version)),
  };
}
