import type {
  Collector,
  KeyedProcessContext,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../api/functions.js';
import type { OutputTag } from '../../api/output-tag.js';
import type { ListState } from '../../api/state.js';
import type { Window } from '../../api/windows.js';
import type { Counter } from '../../metrics/registry.js';
import { DEFAULT_NAMESPACE, type KeyedStateBackend } from '../../state/keyed-state-backend.js';
import type { Key } from '../key-groups.js';
import { addToOpenWindows, type FixedWindows, windowOfTimer } from './fixed-windows.js';
import {
  backendOf,
  type CountsLateRecords,
  type KeyedCoProcessFunction,
  setOutputTimestamp,
} from './keyed-co-process.js';

/** Called once per fired window and key that holds records of either side. */
export type CoGroupWindowFunction<K extends Key, L, R, OUT> = (
  lefts: readonly L[],
  rights: readonly R[],
  out: Collector<OUT>,
  context: { readonly key: K; readonly window: Window },
) => void;

export interface WindowJoinSpec<K extends Key, L, R, OUT> {
  readonly windows: FixedWindows;
  readonly apply: CoGroupWindowFunction<K, L, R, OUT>;
  readonly leftLateTag: OutputTag<L> | undefined;
  readonly rightLateTag: OutputTag<R> | undefined;
}

/**
 * Window join / co-group: each side's records are kept per key and window
 * (list state in the window's namespace); when the watermark passes the
 * window's last timestamp, the function sees both lists, and the window's
 * state is dropped. A record whose every window has fired is late: dropped,
 * counted and sent to the side's late tag if one is set.
 */
export class WindowJoinFunction<K extends Key, L, R, OUT>
  implements KeyedCoProcessFunction<K, L, R, OUT>, CountsLateRecords
{
  lateRecords?: Counter;
  private backend!: KeyedStateBackend;
  private left!: ListState<L>;
  private right!: ListState<R>;

  constructor(private readonly spec: WindowJoinSpec<K, L, R, OUT>) {}

  open(context: KeyedRuntimeContext): void {
    this.backend = backendOf(context);
    this.left = context.state.getListState<L>('window-join.left');
    this.right = context.state.getListState<R>('window-join.right');
  }

  processElement1(value: L, ctx: KeyedProcessContext<K>): void {
    if (!this.add(value, ctx, this.left)) this.late(value, ctx, this.spec.leftLateTag);
  }

  processElement2(value: R, ctx: KeyedProcessContext<K>): void {
    if (!this.add(value, ctx, this.right)) this.late(value, ctx, this.spec.rightLateTag);
  }

  /** Adds the record to every window of it that has not fired; false if none was left. */
  private add<T>(value: T, ctx: KeyedProcessContext<K>, list: ListState<T>): boolean {
    return addToOpenWindows(
      this.spec.windows,
      ctx.timestamp,
      ctx.timerService.currentWatermark(),
      this.backend,
      () => list.add(value),
      (last) => ctx.timerService.registerEventTimeTimer(last),
    );
  }

  private late<T>(value: T, ctx: KeyedProcessContext<K>, tag: OutputTag<T> | undefined): void {
    this.lateRecords?.inc();
    if (tag !== undefined) ctx.output(tag, value);
  }

  onTimer(time: number, ctx: OnTimerContext<K>, out: Collector<OUT>): void {
    const { start, end } = windowOfTimer(this.spec.windows, time);
    this.backend.setCurrentNamespace(String(start));
    const lefts = this.left.get();
    const rights = this.right.get();
    this.left.clear();
    this.right.clear();
    this.backend.setCurrentNamespace(DEFAULT_NAMESPACE);
    setOutputTimestamp(out, time);
    this.spec.apply(lefts, rights, out, { key: ctx.key, window: { start, end } });
  }
}

/** The inner join of a window: every pair with equal keys, in arrival order of the left then right side. */
export function innerJoinPairs<K extends Key, L, R, OUT>(
  join: (left: L, right: R) => OUT,
): CoGroupWindowFunction<K, L, R, OUT> {
  return (lefts, rights, out) => {
    for (const l of lefts) for (const r of rights) out.collect(join(l, r));
  };
}
