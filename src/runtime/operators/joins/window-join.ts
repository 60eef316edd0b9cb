import type { CoGroupWindowFunction, JoinSides } from '../../../core/joins.js';

export type { CoGroupWindowFunction };

import type {
  Collector,
  KeyedProcessContext,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { OutputTag } from '../../../core/output-tag.js';
import type { ListState, MapState } from '../../../core/state.js';
import type { RecordWindowsOfSides } from '../../../core/windows.js';
import type { Counter } from '../../../metrics/registry.js';
import { DEFAULT_NAMESPACE, type KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import {
  addToOpenWindows,
  type FixedWindows,
  type KeyedWindows,
  namespaceOfTimer,
  windowOfTimer,
} from '../keyed/fixed-windows.js';
import {
  backendOf,
  type CountsLateRecords,
  type KeyedCoProcessFunction,
  type ReadsInputWatermarks,
  setOutputTimestamp,
} from '../keyed/keyed-co-process.js';

export interface WindowJoinSpec<K extends Key, L, R, OUT> {
  readonly windows: FixedWindows | RecordWindowsOfSides<never, never>;
  readonly apply: CoGroupWindowFunction<K, L, R, OUT>;
  readonly leftLateTag: OutputTag<L> | undefined;
  readonly rightLateTag: OutputTag<R> | undefined;
  /**
   * The sides whose records are late once their own input's watermark passed their windows,
   * rather than the join's (the lesser of both): Flink judges by the join's, but where the join
   * stands in for a window aggregation of one input (Weir SQL's window join of grouping-only
   * window aggregations), the aggregation's judgement, by its input alone, must hold; it does
   * not depend on which input's watermark the join happened to read first.
   */
  readonly ownLateness?: JoinSides | undefined;
}

/**
 * Window join / co-group: each side's records are kept per key and window
 * (list state in the window's namespace); when the watermark passes the
 * window's last timestamp, the function sees both lists, and the window's
 * state is dropped. A record whose every window has fired is late: dropped,
 * counted and sent to the side's late tag if one is set.
 */
export class WindowJoinFunction<K extends Key, L, R, OUT>
  implements KeyedCoProcessFunction<K, L, R, OUT>, CountsLateRecords, ReadsInputWatermarks
{
  lateRecords?: Counter;
  inputWatermark?: (input: 0 | 1) => number;
  private backend!: KeyedStateBackend;
  private left!: ListState<L>;
  private right!: ListState<R>;
  /** Each side's row into its list of the current window (made once, not per row). */
  private addLeft!: (row: L) => void;
  private addRight!: (row: R) => void;

  constructor(private readonly spec: WindowJoinSpec<K, L, R, OUT>) {}

  open(context: KeyedRuntimeContext): void {
    this.backend = backendOf(context);
    this.left = context.state.getListState<L>('window-join.left');
    this.right = context.state.getListState<R>('window-join.right');
    this.addLeft = (row) => this.left.add(row);
    this.addRight = (row) => this.right.add(row);
  }

  processElement1(value: L, ctx: KeyedProcessContext<K>): void {
    if (!this.add(value, ctx, 'left')) this.late(value, ctx, this.spec.leftLateTag);
  }

  processElement2(value: R, ctx: KeyedProcessContext<K>): void {
    if (!this.add(value, ctx, 'right')) this.late(value, ctx, this.spec.rightLateTag);
  }

  private sideWindows(side: 'left' | 'right'): KeyedWindows {
    const w = this.spec.windows;
    return 'size' in w ? w : w[side];
  }

  /** Adds the record to every window of it that has not fired; false if none was left. */
  private add(value: L | R, ctx: KeyedProcessContext<K>, side: 'left' | 'right'): boolean {
    const joined = ctx.timerService.currentWatermark();
    // An input's own watermark is never behind the join's (the least of both).
    const watermark =
      this.spec.ownLateness?.[side] === true
        ? Math.max(joined, this.inputWatermark?.(side === 'left' ? 0 : 1) ?? joined)
        : joined;
    return addToOpenWindows(
      this.sideWindows(side),
      value,
      ctx.timestamp,
      watermark,
      this.backend,
      (side === 'left' ? this.addLeft : this.addRight) as (record: L | R) => void,
      ctx.timerService,
    );
  }

  private late<T>(value: T, ctx: KeyedProcessContext<K>, tag: OutputTag<T> | undefined): void {
    this.lateRecords?.inc();
    if (tag !== undefined) ctx.output(tag, value);
  }

  onTimer(time: number, ctx: OnTimerContext<K>, out: Collector<OUT>): void {
    // Both sides' namespaces are the same for a timer (record windows: the window's end).
    this.backend.setCurrentNamespace(namespaceOfTimer(this.sideWindows('left'), time));
    const lefts = this.left.get();
    const rights = this.right.get();
    this.left.clear();
    this.right.clear();
    this.backend.setCurrentNamespace(DEFAULT_NAMESPACE);
    const kept = lefts[0] ?? rights[0];
    if (kept === undefined) return;
    const side = lefts.length > 0 ? 'left' : 'right';
    const window = windowOfTimer(this.sideWindows(side), time, kept);
    setOutputTimestamp(out, time);
    this.spec.apply(lefts, rights, out, { key: ctx.key, window });
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

/**
 * The semi or anti join of a window: the left records with (semi) or without (anti) a right
 * record of the window that `matches` them (undefined: any right record does), in arrival
 * order, each once however many records match it.
 */
export function windowSemiJoinRows<L, R>(
  type: 'semi' | 'anti',
  matches: ((left: L, right: R) => boolean) | undefined,
): (lefts: readonly L[], rights: readonly R[], out: Collector<L>) => void {
  const keep = type === 'semi';
  return (lefts, rights, out) => {
    for (const l of lefts) {
      const matched = matches === undefined ? rights.length > 0 : rights.some((r) => matches(l, r));
      if (matched === keep) out.collect(l);
    }
  };
}

/** A session of one key: its extent and the records of both sides in it. */
interface Session<L, R> {
  readonly start: number;
  readonly end: number;
  readonly l: L[];
  readonly r: R[];
}

export interface SessionJoinSpec<K extends Key, L, R, OUT> {
  readonly gap: number;
  readonly apply: CoGroupWindowFunction<K, L, R, OUT>;
  readonly leftLateTag: OutputTag<L> | undefined;
  readonly rightLateTag: OutputTag<R> | undefined;
  /**
   * The sides whose records are late once their own input's watermark passed their windows,
   * rather than the join's (the lesser of both): Flink judges by the join's, but where the join
   * stands in for a window aggregation of one input (Weir SQL's window join of grouping-only
   * window aggregations), the aggregation's judgement, by its input alone, must hold; it does
   * not depend on which input's watermark the join happened to read first.
   */
  readonly ownLateness?: JoinSides | undefined;
}

/**
 * Window join / co-group over event-time session windows: a record at `t`
 * opens the window `[t, t + gap)`; windows of a key that overlap or touch
 * merge, whichever side their records came from (as Flink sessions over the
 * union of both inputs). A session fires when the watermark passes its last
 * timestamp, and is then dropped. A record whose merged session has already
 * ended by the watermark is late: dropped, counted, side-output.
 */
export class SessionJoinFunction<K extends Key, L, R, OUT>
  implements KeyedCoProcessFunction<K, L, R, OUT>, CountsLateRecords
{
  lateRecords?: Counter;
  /** Session start -> session, per key. */
  private sessions!: MapState<number, Session<L, R>>;

  constructor(private readonly spec: SessionJoinSpec<K, L, R, OUT>) {}

  open(context: KeyedRuntimeContext): void {
    this.sessions = context.state.getMapState<number, Session<L, R>>('session-join.sessions');
  }

  processElement1(value: L, ctx: KeyedProcessContext<K>): void {
    if (!this.add(ctx, (s) => s.l.push(value))) this.late(value, ctx, this.spec.leftLateTag);
  }

  processElement2(value: R, ctx: KeyedProcessContext<K>): void {
    if (!this.add(ctx, (s) => s.r.push(value))) this.late(value, ctx, this.spec.rightLateTag);
  }

  /** Merges the record's window with the sessions it touches; false if the result has already ended. */
  private add(ctx: KeyedProcessContext<K>, put: (session: Session<L, R>) => void): boolean {
    const t = ctx.timestamp;
    let start = t;
    let end = t + this.spec.gap;
    const merged: Session<L, R>[] = [];
    for (const [, s] of this.sessions.entries()) {
      if (s.start <= end && s.end >= start) merged.push(s);
    }
    for (const s of merged) {
      start = Math.min(start, s.start);
      end = Math.max(end, s.end);
    }
    if (end - 1 <= ctx.timerService.currentWatermark()) return false;
    const session: Session<L, R> = { start, end, l: [], r: [] };
    for (const s of merged.sort((a, b) => a.start - b.start)) {
      session.l.push(...s.l);
      session.r.push(...s.r);
      this.sessions.remove(s.start);
      if (s.end !== end) ctx.timerService.deleteEventTimeTimer(s.end - 1);
    }
    put(session);
    this.sessions.put(start, session);
    ctx.timerService.registerEventTimeTimer(end - 1);
    return true;
  }

  private late<T>(value: T, ctx: KeyedProcessContext<K>, tag: OutputTag<T> | undefined): void {
    this.lateRecords?.inc();
    if (tag !== undefined) ctx.output(tag, value);
  }

  onTimer(time: number, ctx: OnTimerContext<K>, out: Collector<OUT>): void {
    let due: Session<L, R> | undefined;
    for (const [, s] of this.sessions.entries()) if (s.end - 1 === time) due = s;
    if (due === undefined) return;
    this.sessions.remove(due.start);
    setOutputTimestamp(out, time);
    this.spec.apply(due.l, due.r, out, {
      key: ctx.key,
      window: { start: due.start, end: due.end },
    });
  }
}
