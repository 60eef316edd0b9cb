import type {
  Collector,
  KeyedProcessContext,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../../core/functions.js';
import type { JoinType } from '../../../core/joins.js';
import type { Key } from '../../../core/key-groups.js';
import type { OperatorContext, Output } from '../../../core/operator.js';
import type { MapState, StateSerializer, ValueState } from '../../../core/state.js';
import type { TimeDomain } from '../../../core/windows.js';
import type { Counter } from '../../../metrics/registry.js';
import {
  type CountsLateRecords,
  type KeyedCoProcessFunction,
  KeyedCoProcessOperator,
  setOutputTimestamp,
} from '../keyed/keyed-co-process.js';
import { JOIN_LATE_METRIC } from './interval-join.js';

/**
 * Flink SQL's interval join of any join type: by event time (its `RowTimeIntervalJoin`) or by
 * processing time (its `ProcTimeIntervalJoin`). Unlike the DataStream interval join, by event
 * time it reads each row's time from the row, never drops a row for being late, and holds the
 * watermark back; of either kind it pads the rows of an outer side that met nothing.
 */
export interface TimeIntervalJoinSpec<L, R, OUT> {
  readonly type: JoinType;
  /**
   * Which clock the bounds are on. By processing time a row's time is the operator's clock when
   * it arrives (`leftTime`/`rightTime` are not read) and rows expire as that clock passes their
   * interval, by processing-time timers; nothing is late and the watermark is not held back.
   * Default event time.
   */
  readonly timeDomain?: TimeDomain;
  /** A pair may join when `right time - left time` lies in `[lower, upper]` (ms, inclusive). */
  readonly lower: number;
  readonly upper: number;
  /** A row's event time; null (a NULL rowtime) meets nothing. */
  readonly leftTime: (row: L) => number | null;
  readonly rightTime: (row: R) => number | null;
  /** The rest of the condition, on a pair within the bounds; undefined: every such pair joins. */
  readonly test: ((left: L, right: R) => boolean) | undefined;
  /** The output row of a pair, or of a row padded with NULLs (the other side `null`). */
  readonly combine: (left: L | null, right: R | null) => OUT;
  /** Whose time an output row carries as its event time: this side's when present, else the other's. */
  readonly stamp: 'left' | 'right';
  /** How the waiting rows are checkpointed; default JSON. */
  readonly serializers?: {
    readonly left?: StateSerializer<L> | undefined;
    readonly right?: StateSerializer<R> | undefined;
  };
}

/** A waiting row, and whether it has met a row of the other side (an outer side pads it if not). */
interface Waiting<T> {
  readonly row: T;
  matched: boolean;
}

/** The rows waiting at one time, each as `[row, matched]` encoded by `row`. */
function waitingList<T>(row: StateSerializer<T>): StateSerializer<Waiting<T>[]> {
  return {
    id: `weir.interval-join-rows(${row.id})`,
    version: row.version,
    toJson: (list) => list.map((w) => [row.toJson(w.row), w.matched]),
    fromJson: (json, written) =>
      (json as [never, boolean][]).map(([r, matched]) => ({
        row: row.fromJson(r, written),
        matched,
      })),
  };
}

/** One input's rows and its cleanup timer, and how long its rows can still meet the other input's. */
interface Side<T, OUT> {
  readonly rows: MapState<number, Waiting<T>[]>;
  /** The time of the pending timer that expires this side's rows. */
  readonly timer: ValueState<number>;
  /** A row at `t` can meet rows of the other side up to `t + reach`. */
  readonly reach: number;
  /** Pads its rows that met nothing. */
  readonly outer: boolean;
  /** The output row of one of its rows padded with NULLs. */
  readonly padded: (row: T) => OUT;
  /**
   * Rows at or before this time no longer wait (Flink's per-subtask expiration time, kept
   * out of state as Flink keeps it): recomputed from the watermark when a row of the other
   * side looks for partners or a cleanup timer fires.
   */
  expiration: number;
}

/**
 * Each side's rows wait in keyed state (map state time -> rows) until the watermark shows that
 * no row of the other side can still meet them: a left row at `t` until the watermark passes
 * `t + upper`, a right row until it passes `t - lower`. By processing time the clock plays the
 * watermark's part and each row's time is the clock at its arrival, as in Flink. A new row joins the waiting rows of
 * the other side within its bounds, sweeping out those that expired on the way (padding the
 * unmatched ones of an outer side), then waits itself, or, when its bounds are already behind
 * the watermark, is padded at once if it met nothing (outer side) or forgotten. A row behind
 * the watermark is late: counted, but joined and kept as any other (as Flink SQL does). One
 * cleanup timer per side and key expires the rows, and is set again for the earliest left.
 */
export class TimeIntervalJoinFunction<K extends Key, L, R, OUT>
  implements KeyedCoProcessFunction<K, L, R, OUT>, CountsLateRecords
{
  lateRecords?: Counter;
  private left!: Side<L, OUT>;
  private right!: Side<R, OUT>;
  private readonly proctime: boolean;

  constructor(private readonly spec: TimeIntervalJoinSpec<L, R, OUT>) {
    this.proctime = spec.timeDomain === 'processing-time';
  }

  open(context: KeyedRuntimeContext): void {
    const { type, lower, upper, serializers, combine } = this.spec;
    const side = <T>(
      name: string,
      serializer: StateSerializer<T> | undefined,
      reach: number,
      outer: boolean,
      padded: (row: T) => OUT,
    ): Side<T, OUT> => ({
      rows: context.state.getMapState<number, Waiting<T>[]>({
        name: `time-interval-join.${name}`,
        ...(serializer === undefined ? {} : { serializer: waitingList(serializer) }),
      }),
      timer: context.state.getValueState<number>(`time-interval-join.${name}-timer`),
      reach,
      outer,
      padded,
      expiration: Number.NEGATIVE_INFINITY,
    });
    const leftOuter = type === 'left' || type === 'full';
    const rightOuter = type === 'right' || type === 'full';
    this.left = side('left', serializers?.left, upper, leftOuter, (l: L) => combine(l, null));
    this.right = side('right', serializers?.right, -lower, rightOuter, (r: R) => combine(null, r));
  }

  processElement1(row: L, ctx: KeyedProcessContext<K>, out: Collector<OUT>): void {
    const t = this.proctime ? ctx.timerService.currentProcessingTime() : this.spec.leftTime(row);
    const { lower, upper } = this.spec;
    this.process(
      row,
      t,
      this.left,
      this.right,
      ctx,
      out,
      (r, rt) => t !== null && rt >= t + lower && rt <= t + upper && this.pair(row, t, r, rt, out),
    );
  }

  processElement2(row: R, ctx: KeyedProcessContext<K>, out: Collector<OUT>): void {
    const t = this.proctime ? ctx.timerService.currentProcessingTime() : this.spec.rightTime(row);
    const { lower, upper } = this.spec;
    this.process(
      row,
      t,
      this.right,
      this.left,
      ctx,
      out,
      (l, lt) => t !== null && lt >= t - upper && lt <= t - lower && this.pair(l, lt, row, t, out),
    );
  }

  /**
   * Joins a new row of `own` at `t` with the waiting rows of `other` (`meet` emits a pair of it
   * and one of them when they join, and says whether they did), then keeps it or lets it go.
   */
  private process<T, O>(
    row: T,
    t: number | null,
    own: Side<T, OUT>,
    other: Side<O, OUT>,
    ctx: KeyedProcessContext<K>,
    out: Collector<OUT>,
    meet: (other: O, otherTime: number) => boolean,
  ): void {
    if (t === null) {
      if (own.outer) this.pad(own, row, null, out);
      return;
    }
    // By processing time the row's time is the clock: never late.
    const watermark = this.proctime ? t : ctx.timerService.currentWatermark();
    if (t < watermark) this.lateRecords?.inc();
    // The latest time of the other side's rows this one can meet.
    const reachable = t + own.reach;
    let matched = false;
    if (other.expiration < reachable) {
      other.expiration = watermark - other.reach - 1;
      const gone: number[] = [];
      const changed: [number, Waiting<O>[]][] = [];
      for (const [ot, waiting] of other.rows.entries()) {
        let flagged = false;
        for (const w of waiting) {
          if (!meet(w.row, ot)) continue;
          matched = true;
          if (other.outer && !w.matched) {
            w.matched = true;
            flagged = true;
          }
        }
        if (ot <= other.expiration) {
          for (const w of waiting) if (other.outer && !w.matched) this.pad(other, w.row, ot, out);
          gone.push(ot);
        } else if (flagged) changed.push([ot, waiting]);
      }
      for (const ot of gone) other.rows.remove(ot);
      for (const [ot, waiting] of changed) other.rows.put(ot, waiting);
    }
    if (watermark < reachable) {
      const waiting = own.rows.get(t);
      const entry: Waiting<T> = { row, matched };
      // Put again after appending: backends that copy or track writes see the change.
      if (waiting === undefined) own.rows.put(t, [entry]);
      else {
        waiting.push(entry);
        own.rows.put(t, waiting);
      }
      if (own.timer.value() === undefined) this.schedule(own, t, ctx);
    } else if (!matched && own.outer) this.pad(own, row, t, out);
  }

  /** Expires the rows whose cleanup timer fires now (the right side's first, as Flink does). */
  onTimer(time: number, ctx: OnTimerContext<K>, out: Collector<OUT>): void {
    const watermark = this.proctime
      ? ctx.timerService.currentProcessingTime()
      : ctx.timerService.currentWatermark();
    for (const side of [this.right, this.left] as Side<unknown, OUT>[]) {
      if (side.timer.value() !== time) continue;
      side.expiration = watermark - side.reach - 1;
      let earliest: number | undefined;
      const gone: number[] = [];
      for (const [t, waiting] of side.rows.entries()) {
        if (t <= side.expiration) {
          for (const w of waiting) if (side.outer && !w.matched) this.pad(side, w.row, t, out);
          gone.push(t);
        } else if (earliest === undefined || t < earliest) earliest = t;
      }
      for (const t of gone) side.rows.remove(t);
      if (earliest === undefined) side.timer.clear();
      else this.schedule(side, earliest, ctx);
    }
  }

  /** Sets the side's cleanup timer for when the watermark (or clock) has passed what a row at `t` can meet. */
  private schedule<T>(side: Side<T, OUT>, t: number, ctx: KeyedProcessContext<K>): void {
    const at = t + side.reach + 1;
    if (this.proctime) ctx.timerService.registerProcessingTimeTimer(at);
    else ctx.timerService.registerEventTimeTimer(at);
    side.timer.update(at);
  }

  /** Emits the pair if the rest of the condition holds; says whether it did. */
  private pair(l: L, lt: number, r: R, rt: number, out: Collector<OUT>): boolean {
    const { test, combine, stamp } = this.spec;
    if (test !== undefined && !test(l, r)) return false;
    // Processing times are no event times: a pair keeps the one its arriving row carries.
    if (!this.proctime) setOutputTimestamp(out, stamp === 'left' ? lt : rt);
    out.collect(combine(l, r));
    return true;
  }

  /** Emits a row of `side` that met nothing, padded with NULLs, at its own time. */
  private pad<T>(side: Side<T, OUT>, row: T, t: number | null, out: Collector<OUT>): void {
    // A row without a time (or of a processing-time join) leaves with the event time it arrived with.
    if (t !== null && !this.proctime) setOutputTimestamp(out, t);
    out.collect(side.padded(row));
  }
}

/**
 * Runs a time-interval join and holds the watermark it forwards back by `delay` (Flink's
 * `KeyedCoProcessOperatorWithWatermarkDelay`): a pair is emitted when its later row arrives,
 * so its earlier row's time may lie up to the interval's span behind the watermark. Held
 * back, the rows it emits are not late downstream, and both inputs' rowtimes stay time attributes.
 */
export class TimeIntervalJoinOperator<K extends Key, L, R, OUT> extends KeyedCoProcessOperator<
  K,
  L,
  R,
  OUT
> {
  constructor(
    fn: TimeIntervalJoinFunction<K, L, R, OUT>,
    private readonly delay: number,
  ) {
    super(fn, JOIN_LATE_METRIC);
  }

  override setup(context: OperatorContext, output: Output<OUT>): void {
    super.setup(context, this.delay === 0 ? output : delayedWatermarks(output, this.delay));
  }
}

/** `output`, with every watermark moved back by `delay` (the final one stays infinite). */
function delayedWatermarks<T>(output: Output<T>, delay: number): Output<T> {
  return {
    emit: (batch) => output.emit(batch),
    emitWatermark: (time) => output.emitWatermark(time - delay),
    emitIdle: () => output.emitIdle(),
    emitSide: (tag, batch) => output.emitSide(tag, batch),
    end: () => output.end(),
  };
}

/**
 * The maximum time an interval join's output rows lie behind its input watermark: the span its
 * rows wait; none by processing time, whose pairs are not judged by the watermark.
 */
export function watermarkDelayOf(spec: {
  readonly lower: number;
  readonly upper: number;
  readonly timeDomain?: TimeDomain;
}): number {
  if (spec.timeDomain === 'processing-time') return 0;
  return Math.max(spec.upper, -spec.lower, 0);
}
