import type { IntervalJoinContext, ProcessJoinFunction } from '../../../core/joins.js';

export type { IntervalJoinContext, ProcessJoinFunction };

import type {
  Collector,
  KeyedProcessContext,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { OutputTag } from '../../../core/output-tag.js';
import type { MapState } from '../../../core/state.js';
import type { Counter } from '../../../metrics/registry.js';
import {
  type CountsLateRecords,
  type KeyedCoProcessFunction,
  setOutputTimestamp,
} from '../keyed/keyed-co-process.js';

export interface IntervalJoinSpec<K extends Key, L, R, OUT> {
  /** Inclusive bounds: a right record joins a left one when `l.t + lower <= r.t <= l.t + upper`. */
  readonly lower: number;
  readonly upper: number;
  readonly fn: ProcessJoinFunction<K, L, R, OUT>;
  readonly leftLateTag: OutputTag<L> | undefined;
  readonly rightLateTag: OutputTag<R> | undefined;
}

export const JOIN_LATE_METRIC = 'weir_join_late_records_total';

/**
 * Interval join: each side's records are buffered per key and timestamp
 * (map state timestamp -> records). A new record is joined with the buffered
 * records of the other side whose timestamps fall within the bounds, then
 * buffered itself until the watermark shows no future record of the other
 * side can reach it: a left record at `t` until `t + max(upper, 0)`, a right
 * record until `t + max(-lower, 0)`; an event-time timer at that time removes
 * exactly that timestamp's entry. Records at or behind the watermark are late:
 * counted, sent to the side's late tag if set, never joined.
 */
export class IntervalJoinFunction<K extends Key, L, R, OUT>
  implements KeyedCoProcessFunction<K, L, R, OUT>, CountsLateRecords
{
  lateRecords?: Counter;
  private left!: MapState<number, L[]>;
  private right!: MapState<number, R[]>;
  /** How long past its timestamp a left / right record must stay buffered. */
  private readonly leftRetention: number;
  private readonly rightRetention: number;
  private readonly joinCtx: IntervalJoinContext<K> & {
    key: K;
    leftTimestamp: number;
    rightTimestamp: number;
    timestamp: number;
    sideOutput: KeyedProcessContext<K> | undefined;
  };

  constructor(private readonly spec: IntervalJoinSpec<K, L, R, OUT>) {
    this.leftRetention = Math.max(spec.upper, 0);
    this.rightRetention = Math.max(-spec.lower, 0);
    const joinCtx = {
      key: undefined as unknown as K,
      leftTimestamp: 0,
      rightTimestamp: 0,
      timestamp: 0,
      sideOutput: undefined as KeyedProcessContext<K> | undefined,
      output<S>(tag: OutputTag<S>, value: S): void {
        joinCtx.sideOutput?.output(tag, value);
      },
    };
    this.joinCtx = joinCtx;
  }

  open(context: KeyedRuntimeContext): void {
    this.left = context.state.getMapState<number, L[]>('interval-join.left');
    this.right = context.state.getMapState<number, R[]>('interval-join.right');
  }

  processElement1(value: L, ctx: KeyedProcessContext<K>, out: Collector<OUT>): void {
    const t = ctx.timestamp;
    if (this.isLate(t, ctx)) {
      this.late(value, ctx, this.spec.leftLateTag);
      return;
    }
    const { lower, upper } = this.spec;
    for (const [rt, rights] of this.right.entries()) {
      if (rt < t + lower || rt > t + upper) continue;
      for (const r of rights) this.emit(value, t, r, rt, ctx, out);
    }
    this.buffer(this.left, t, value);
    ctx.timerService.registerEventTimeTimer(t + this.leftRetention);
  }

  processElement2(value: R, ctx: KeyedProcessContext<K>, out: Collector<OUT>): void {
    const t = ctx.timestamp;
    if (this.isLate(t, ctx)) {
      this.late(value, ctx, this.spec.rightLateTag);
      return;
    }
    const { lower, upper } = this.spec;
    for (const [lt, lefts] of this.left.entries()) {
      if (t < lt + lower || t > lt + upper) continue;
      for (const l of lefts) this.emit(l, lt, value, t, ctx, out);
    }
    this.buffer(this.right, t, value);
    ctx.timerService.registerEventTimeTimer(t + this.rightRetention);
  }

  /**
   * Removes the entries whose retention has passed. An entry at `t` may still meet a record
   * at the watermark until the watermark passes `t + retention` (a record at the watermark is
   * not late), so the timer at `t + retention` removes it only if the watermark is past that
   * already; otherwise a timer one millisecond on does (it removes the entries one
   * millisecond older than its own).
   */
  onTimer(time: number, ctx: OnTimerContext<K>): void {
    const past = ctx.timerService.currentWatermark() > time;
    const leftWaits = expire(this.left, time - this.leftRetention, past);
    const rightWaits = expire(this.right, time - this.rightRetention, past);
    if (leftWaits || rightWaits) ctx.timerService.registerEventTimeTimer(time + 1);
  }

  private isLate(t: number, ctx: KeyedProcessContext<K>): boolean {
    if (Number.isNaN(t) || t === Number.NEGATIVE_INFINITY) {
      throw new Error('interval join needs event time: assign timestamps before joining');
    }
    // Behind the watermark, as Flink's IntervalJoinOperator: a record at it still joins.
    return t < ctx.timerService.currentWatermark();
  }

  private late<T>(value: T, ctx: KeyedProcessContext<K>, tag: OutputTag<T> | undefined): void {
    this.lateRecords?.inc();
    if (tag !== undefined) ctx.output(tag, value);
  }

  private buffer<T>(state: MapState<number, T[]>, t: number, value: T): void {
    const list = state.get(t);
    if (list === undefined) {
      state.put(t, [value]);
      return;
    }
    // Put again after appending: backends that copy or track writes see the change.
    list.push(value);
    state.put(t, list);
  }

  private emit(
    l: L,
    lt: number,
    r: R,
    rt: number,
    ctx: KeyedProcessContext<K>,
    out: Collector<OUT>,
  ): void {
    const jc = this.joinCtx;
    jc.key = ctx.key;
    jc.leftTimestamp = lt;
    jc.rightTimestamp = rt;
    jc.timestamp = Math.max(lt, rt);
    jc.sideOutput = ctx;
    setOutputTimestamp(out, jc.timestamp);
    this.spec.fn(l, r, jc, out);
  }
}

/**
 * Removes the entry one millisecond older than `due` (its retention has passed) and, if the
 * watermark is `past` the timer, the entry at `due` too; true if that one must wait.
 */
function expire<T>(state: MapState<number, T[]>, due: number, past: boolean): boolean {
  state.remove(due - 1);
  if (past) state.remove(due);
  else if (state.get(due) !== undefined) return true;
  return false;
}
