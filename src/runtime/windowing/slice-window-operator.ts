import { userFunctionFailed, WeirError } from '../../core/errors.js';
import type { Key } from '../../core/key-groups.js';
import { MIN_WATERMARK } from '../../core/messages.js';
import {
  Operator,
  type OperatorContext,
  type Output,
  type SnapshotContext,
} from '../../core/operator.js';
import type { OutputTag } from '../../core/output-tag.js';
import type { QueryableState, StateQueryAnswer } from '../../core/queryable-state.js';
import type { RecordBatch } from '../../core/record-batch.js';
import type { OperatorSnapshot, RestoredState } from '../../core/snapshot.js';
import type { KeyedStateStore } from '../../core/state.js';
import { isEventTime, MAX_EVENT_TIME } from '../../core/timestamps.js';
import type { FiringTiming } from '../../core/window-result.js';
import { sliceEndOf, type Window, windowCleanupTime, windowStart } from '../../core/windows.js';
import type { Counter } from '../../metrics/registry.js';
import { Emitter } from '../operators/basic/emitter.js';
import { operatorKeyedBackend } from '../operators/keyed/disk-keyed-backend.js';
import { missingKeys } from '../operators/keyed/keyed-process.js';
import type { LocalWindowCombiner, LocalWindowElement } from './local-window-combiner.js';
import { scheduleProcessingTimeClose } from './processing-time-close.js';
import {
  HeapSliceTable,
  type SliceContents,
  type SliceTable,
  sliceTableFor,
} from './slice-table.js';
import { SlidingWindowAccumulators } from './sliding-window-accumulators.js';
import {
  type FiringContext,
  invalidEventTime,
  type WindowAggregation,
  type WindowFiring,
} from './window-aggregation.js';
import {
  functionStateNames,
  splitRestored,
  WindowFunctionState,
  withFunctionState,
} from './window-function-state.js';
import { type QueriedWindow, windowsAnswer } from './window-query.js';
import { restoredTimeProgress, timeProgressEntry } from './window-snapshot.js';

export interface SliceWindowSpec<IN, ACC, R, OUT> {
  readonly size: number;
  /** Equal to `size` for tumbling windows. */
  readonly slide: number;
  readonly offset: number;
  readonly allowedLateness: number;
  readonly lateDataTag: OutputTag<IN> | undefined;
  readonly aggregation: WindowAggregation<IN, ACC, R>;
  readonly firing: WindowFiring<Key, R, OUT>;
  /** Close windows by the wall clock after this grace when event time stalls (off when undefined). */
  readonly processingTimeCloseMs?: number | undefined;
  /** Fed by a folding {@link LocalWindowCombiner} (two-phase aggregation): its input is {@link LocalWindowElement}s. */
  readonly localFolding?: boolean;
  /** A key's windows can be read by {@link QueryableState.queryState}. */
  readonly queryable?: boolean;
}

export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * Tumbling and sliding event-time windows with the default trigger.
 *
 * Records are not copied into every window they belong to. Time is cut into
 * slices of gcd(size, slide); each record updates one accumulator in its
 * slice, and a window's result is the merge of its slices when it fires. A
 * one-hour window sliding by one second thus costs per record what a tumbling
 * window does. Firing is incremental too: each key's slices in the window
 * are kept as two stacks ({@link SlidingWindowAccumulators}), so a firing
 * costs O(1) amortized merges per key, not one merge per slice.
 *
 *   slide = 2, size = 6, slices of 2:
 *   time    0   2   4   6   8
 *   slices  |s0 |s1 |s2 |s3 |
 *   window  [0 ........ 6)          = s0+s1+s2
 *               [2 ........ 8)      = s1+s2+s3
 *
 * A window fires when the watermark reaches its last timestamp (end - 1). A
 * record whose windows have all passed end - 1 + allowedLateness is late: it
 * goes to the late-data side output (if any) and is counted. A record within
 * the allowed lateness updates its windows, and each already-fired window is
 * emitted again as an update.
 */
export class SliceWindowOperator<IN, ACC, R, OUT>
  extends Operator<IN, OUT>
  implements FiringContext, QueryableState
{
  private readonly pane: number;
  /** Slice end -> key -> accumulator: on the heap, or in the disk state backend. */
  private slices: SliceTable<ACC> = new HeapSliceTable<ACC>();
  /** The keys of `slices` in increasing order. */
  private readonly sliceEnds: number[] = [];
  private watermark = MIN_WATERMARK;
  /** Every window ending at or before this has fired. */
  private firedUpTo = MIN_WATERMARK;
  private emitter!: Emitter<OUT>;
  private lateRecords!: Counter;
  private cachedSliceEnd = Number.NaN;
  private cachedSlice: SliceContents<ACC> | undefined;
  /** Sliding windows only: the windows' merges, kept incrementally across firings. */
  private readonly sliding: SlidingWindowAccumulators<ACC> | undefined;
  /** State of the window function, from its first use (or a restore that holds some). */
  private functionState: WindowFunctionState | undefined;

  constructor(private readonly spec: SliceWindowSpec<IN, ACC, R, OUT>) {
    super();
    this.pane = gcd(spec.size, spec.slide);
    this.sliding =
      spec.size === this.pane
        ? undefined
        : new SlidingWindowAccumulators(
            spec.aggregation as WindowAggregation<unknown, ACC, unknown>,
            spec.size,
          );
  }

  override setup(context: OperatorContext, output: Output<OUT>): void {
    super.setup(context, output);
    this.slices = sliceTableFor<ACC>(context);
  }

  /**
   * The windows of the key's slices that are not past their allowed
   * lateness, each the merge of its slices as when it fires (between steps).
   */
  queryState(key: Key): StateQueryAnswer {
    if (this.spec.queryable !== true) return { kind: 'not-queryable' };
    const { size, slide, allowedLateness, aggregation } = this.spec;
    const ends = new Set<number>();
    for (const sliceEnd of this.sliceEnds) {
      if (!this.slices.get(sliceEnd)?.has(key)) continue;
      const last = this.lastEndOf(sliceEnd);
      for (let end = this.firstEndOf(sliceEnd); end <= last; end += slide)
        if (windowCleanupTime(end, allowedLateness) > this.watermark) ends.add(end);
    }
    const found: QueriedWindow[] = [];
    for (const end of ends) {
      const acc = this.windowAccumulator(end, key);
      if (acc === undefined) continue;
      const fired = end - 1 <= this.watermark;
      found.push({ start: end - size, end, value: aggregation.result(acc), fired });
    }
    return windowsAnswer(found, this.context.operatorId, key);
  }

  override open(): void {
    this.emitter = new Emitter(this.output);
    this.lateRecords = this.context.metrics.counter(
      'weir_window_late_records_total',
      'Records that arrived after their windows closed (sent to the late-data side output if set, else dropped)',
    );
    this.context.metrics.gauge('weir_state_entries', 'Keyed state entries held', () => {
      let n = 0;
      for (const s of this.slices.values()) n += s.size;
      return n;
    });
    const grace = this.spec.processingTimeCloseMs;
    if (grace !== undefined) {
      scheduleProcessingTimeClose(
        this.context.processingTime,
        grace,
        () => this.watermark,
        (t) => this.processWatermark(t),
        () => this.watermark === Number.POSITIVE_INFINITY,
      );
    }
  }

  currentWatermark(): number {
    return this.watermark;
  }
  currentProcessingTime(): number {
    return this.context.processingTime.clock.now();
  }
  emitSide<S>(tag: OutputTag<S>, value: S): void {
    this.emitter.side(tag, value);
  }
  windowState(key: Key, window: Window): KeyedStateStore {
    return this.stateOfFunction().windowState(key, window);
  }
  globalState(key: Key): KeyedStateStore {
    return this.stateOfFunction().globalState(key);
  }
  private stateOfFunction(): WindowFunctionState {
    if (this.functionState === undefined) {
      const shared = this.slices.backend;
      this.functionState =
        shared === undefined
          ? new WindowFunctionState(operatorKeyedBackend(this.context), true)
          : new WindowFunctionState(shared, false);
    }
    return this.functionState;
  }

  processBatch(batch: RecordBatch<IN>): void {
    if (this.spec.localFolding === true) {
      this.processLocalBatch(batch as unknown as RecordBatch<LocalWindowElement<IN, ACC>>);
      return;
    }
    const { values, timestamps, keys } = batch;
    if (keys === undefined) throw missingKeys(this.context.operatorId);
    const { offset, aggregation } = this.spec;
    const pane = this.pane;
    const add = aggregation.add;
    const wm = this.watermark;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const ts = timestamps[i]!;
        const value = values[i] as IN;
        const key = keys[i] as Key;
        // Negated so that NaN and undefined (every comparison false) also take
        // the slow path, which refuses them: in slice arithmetic they would
        // open a slice that no watermark ever fires.
        if (!(ts > wm && ts <= MAX_EVENT_TIME && ts >= -MAX_EVENT_TIME)) {
          // Possibly late (or without a usable time): the slow path decides.
          this.processLate(value, ts, key);
          continue;
        }
        // sliceEndOf(ts, offset, pane), inline: the call costs a few % on this loop.
        const r = (ts - offset) % pane;
        const sliceEnd = ts - (r < 0 ? r + pane : r) + pane;
        let slice = this.cachedSlice;
        if (sliceEnd !== this.cachedSliceEnd) {
          slice = this.sliceFor(sliceEnd);
          this.cachedSliceEnd = sliceEnd;
          this.cachedSlice = slice;
        }
        const acc = slice!.get(key);
        slice!.set(key, add(value, acc === undefined ? aggregation.create() : acc));
      }
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw userFunctionFailed(this.context.operatorId, 'window function', values[i], cause);
    }
    this.emitter.flush();
  }

  /**
   * Input from a {@link LocalWindowCombiner}: partials, which arrive before
   * the watermark that could fire a window of their slice and so only ever
   * merge into an open slice, and records it did not fold, taken as usual.
   */
  private processLocalBatch(batch: RecordBatch<LocalWindowElement<IN, ACC>>): void {
    const { values, timestamps } = batch;
    const merge = this.spec.aggregation.merge!;
    const create = this.spec.aggregation.create;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const element = values[i]!;
        if (element.sliceEnd === undefined) {
          this.addRecord(element.record, timestamps[i]!, element.key);
          continue;
        }
        const { key, sliceEnd, accumulator } = element;
        if (!(sliceEnd - 1 > this.watermark)) {
          throw new WeirError(
            'INTERNAL',
            `window '${this.context.operatorId}' received a partial of the slice ending at ${sliceEnd} after watermark ${this.watermark}`,
            { domain: 'internal', operatorId: this.context.operatorId },
          );
        }
        const slice = this.sliceFor(sliceEnd);
        const acc = slice.get(key);
        // A partial that crossed threads is a copy that may have lost what only its own
        // function's accumulators have (a prototype, a non-enumerable toJSON): the slice keeps
        // one its function made.
        slice.set(key, merge(acc === undefined ? create() : acc, accumulator));
      }
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw userFunctionFailed(this.context.operatorId, 'window function', values[i], cause);
    }
    this.emitter.flush();
  }

  private addRecord(value: IN, ts: number, key: Key): void {
    if (!(ts > this.watermark && ts <= MAX_EVENT_TIME && ts >= -MAX_EVENT_TIME)) {
      this.processLate(value, ts, key);
      return;
    }
    const { offset, aggregation } = this.spec;
    const slice = this.sliceFor(sliceEndOf(ts, offset, this.pane));
    const acc = slice.get(key);
    slice.set(key, aggregation.add(value, acc === undefined ? aggregation.create() : acc));
  }

  private sliceFor(sliceEnd: number): SliceContents<ACC> {
    let slice = this.slices.get(sliceEnd);
    if (slice === undefined) {
      slice = this.slices.open(sliceEnd);
      this.addSliceEnd(sliceEnd);
    }
    return slice;
  }

  /** Keeps `sliceEnds` sorted. Event time mostly advances: a new slice is usually the last one. */
  private addSliceEnd(sliceEnd: number): void {
    const ends = this.sliceEnds;
    if (ends.length === 0 || ends[ends.length - 1]! < sliceEnd) ends.push(sliceEnd);
    else ends.splice(firstAbove(ends, sliceEnd), 0, sliceEnd);
  }

  private processLate(value: IN, ts: number, key: Key): void {
    if (!isEventTime(ts)) throw invalidEventTime(this.context.operatorId, value, ts);
    const { size, slide, offset, allowedLateness, aggregation } = this.spec;
    const lastEnd = windowStart(ts, offset, slide) + size;
    if (windowCleanupTime(lastEnd, allowedLateness) <= this.watermark) {
      this.lateRecords.inc();
      if (this.spec.lateDataTag !== undefined) this.emitter.side(this.spec.lateDataTag, value, ts);
      return;
    }
    const sliceEnd = sliceEndOf(ts, offset, this.pane);
    // Windows containing ts that already fired are emitted again with the update.
    const refire: number[] = [];
    for (let end = lastEnd; end > ts; end -= slide) {
      if (end - 1 <= this.watermark && windowCleanupTime(end, allowedLateness) > this.watermark)
        refire.push(end);
    }
    const hadData = refire.map((end) => this.windowHasKey(end, key));
    const slice = this.sliceFor(sliceEnd);
    const acc = slice.get(key);
    const updated = aggregation.add(value, acc === undefined ? aggregation.create() : acc);
    slice.set(key, updated);
    this.sliding?.updated(key, sliceEnd, updated);
    for (let j = refire.length - 1; j >= 0; j--) {
      const end = refire[j]!;
      this.emitWindow(end, key, this.windowAccumulator(end, key)!, 'late', hadData[j]!);
    }
  }

  private windowHasKey(end: number, key: Key): boolean {
    for (let s = end - this.spec.size + this.pane; s <= end; s += this.pane) {
      if (this.slices.get(s)?.has(key)) return true;
    }
    return false;
  }

  /** Merge of a key's slices in the window ending at `end`; undefined if it has none. */
  private windowAccumulator(end: number, key: Key): ACC | undefined {
    const { aggregation, size } = this.spec;
    if (size === this.pane) return this.slices.get(end)?.get(key);
    let merged: ACC | undefined;
    for (let s = end - size + this.pane; s <= end; s += this.pane) {
      const acc = this.slices.get(s)?.get(key);
      if (acc === undefined) continue;
      merged = aggregation.merge!(merged === undefined ? aggregation.create() : merged, acc);
    }
    return merged;
  }

  private emitWindow(
    end: number,
    key: Key,
    acc: ACC,
    timing: FiringTiming,
    isUpdate: boolean,
  ): void {
    const window = { start: end - this.spec.size, end };
    this.emitter.timestamp = end - 1;
    try {
      this.spec.firing.emit(
        key,
        window,
        this.spec.aggregation.result(acc),
        timing,
        isUpdate,
        this,
        this.emitter,
      );
    } catch (cause) {
      throw userFunctionFailed(
        this.context.operatorId,
        `window function for window [${window.start}, ${window.end})`,
        { key },
        cause,
      );
    }
  }

  /**
   * Snapshot: per key, its accumulators by slice (JSON data; see the slice
   * table); and, as union state, the watermark and the fired-up-to bound.
   */
  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    const slices = this.slices.snapshot(context);
    const { functionState } = this;
    return {
      ...(functionState === undefined
        ? slices
        : withFunctionState(slices, functionState.snapshot(context))),
      union: [
        timeProgressEntry(this.context.subtaskIndex, {
          watermark: this.watermark,
          mark: this.firedUpTo,
        }),
      ],
    };
  }

  override initializeState(state: RestoredState): void {
    // The firing stacks derive from the slices: the next firing rebuilds them.
    this.sliding?.clear();
    // On the heap, the window function's state is in backend rows beside the slices.
    const split = this.slices.backend === undefined ? splitRestored(state) : undefined;
    this.slices.restore(split?.rest ?? state);
    this.sliceEnds.length = 0;
    for (const end of [...this.slices.keys()].sort((a, b) => a - b)) this.addSliceEnd(end);
    const progress = restoredTimeProgress(
      state,
      this.context.subtaskIndex,
      this.context.parallelism,
    );
    if (progress !== undefined) {
      this.watermark = progress.watermark;
      this.firedUpTo = progress.mark;
    }
    const names = functionStateNames(state);
    if (names.length === 0) return;
    const functionState = this.stateOfFunction();
    if (split !== undefined) functionState.backend.restore(split.rows);
    functionState.restored(names);
    this.dropFunctionState(this.watermark);
  }

  override notifyCheckpointComplete(checkpointId: number): void {
    this.slices.notifyCheckpointComplete(checkpointId);
  }

  override close(): void {
    this.slices.dispose();
    if (this.functionState?.ownsBackend === true) this.functionState.backend.dispose();
  }

  override processWatermark(time: number): void {
    // After a restore the inputs may repeat older watermarks: only advances count.
    if (time <= this.watermark) return;
    this.watermark = time;
    this.fireUpTo(time);
    this.cleanUp(time);
    this.dropFunctionState(time);
    this.emitter.flush();
    this.output.emitWatermark(time);
  }

  /** End of the first window containing the slice that ends at `sliceEnd`. */
  private firstEndOf(sliceEnd: number): number {
    const { size, slide, offset } = this.spec;
    // The smallest window end >= sliceEnd. Window ends are aligned to offset + size
    // (mod slide), which differs from the starts' alignment when size is not a multiple
    // of slide. Counted up from sliceEnd, not down from sliceEnd - size - 1: near the
    // smallest event time that would leave the range where every whole ms is a number,
    // and the window would be skipped.
    const r = (offset + size - sliceEnd) % slide;
    return sliceEnd + (r < 0 ? r + slide : r);
  }

  /** End of the last window containing the slice that ends at `sliceEnd`. */
  private lastEndOf(sliceEnd: number): number {
    const { size, slide, offset } = this.spec;
    return windowStart(sliceEnd - this.pane, offset, slide) + size;
  }

  /**
   * Fires, in order of end, every window with data whose last timestamp is at
   * or before `time` and that has not fired yet. Steps through the window
   * ends from the first not fired, jumping over ends whose windows hold no
   * slice: the cost is a binary search plus the windows that fire and the
   * slices they pass, not the number of slices held.
   */
  private fireUpTo(time: number): void {
    const done = time + 1 === Number.POSITIVE_INFINITY ? time : time + 1;
    if (this.firedUpTo === Number.POSITIVE_INFINITY) return;
    const { size, slide, offset } = this.spec;
    const sliceEnds = this.sliceEnds;
    // Smallest window end not fired yet (ends are aligned like firstEndOf's).
    let end = Number.isFinite(this.firedUpTo)
      ? windowStart(this.firedUpTo - size, offset, slide) + slide + size
      : Number.NEGATIVE_INFINITY;
    // The first slice in that window or a later one.
    let i = firstAbove(sliceEnds, end - size);
    let queued = i;
    while (i < sliceEnds.length) {
      const sliceEnd = sliceEnds[i]!;
      if (sliceEnd <= end - size) {
        i++;
        continue;
      }
      // The window ending at `end` holds no slice: skip to the first window holding this one.
      if (sliceEnd > end) end = this.firstEndOf(sliceEnd);
      if (end - 1 > time) break;
      queued = this.fireWindow(end, sliceEnds, queued);
      end += slide;
    }
    this.firedUpTo = Math.max(this.firedUpTo, done);
  }

  /**
   * Emits every key's result of the window ending at `end`. `sliceEnds` are
   * the slices' ends in order, of which those before index `queued` were
   * looked at by earlier firings of this pass; returns the new index.
   */
  private fireWindow(end: number, sliceEnds: readonly number[], queued: number): number {
    const sliding = this.sliding;
    if (sliding === undefined) {
      const slice = this.slices.get(end);
      if (slice !== undefined)
        for (const [key, acc] of slice) this.emitWindow(end, key, acc, 'on-time', false);
      return queued;
    }
    // Slices entering the window; older ones are queued already or not in it.
    const after = Math.max(sliding.queuedUpTo, end - this.spec.size);
    for (; queued < sliceEnds.length; queued++) {
      const sliceEnd = sliceEnds[queued]!;
      if (sliceEnd > end) break;
      if (sliceEnd > after) sliding.queueSlice(sliceEnd, this.slices.get(sliceEnd)!);
    }
    sliding.fire(end, (key, acc) => this.emitWindow(end, key, acc, 'on-time', false));
    return queued;
  }

  /** Drops the window function's state of the windows past their allowed lateness. */
  private dropFunctionState(time: number): void {
    const lateness = this.spec.allowedLateness;
    this.functionState?.dropWindowsWhere(
      (_key, _id, end) => windowCleanupTime(end, lateness) <= time,
    );
  }

  /** Drops slices whose every window is past its allowed lateness. */
  private cleanUp(time: number): void {
    const { allowedLateness } = this.spec;
    const ends = this.sliceEnds;
    // A slice's last window end grows with the slice's end: the dropped ones are the oldest.
    let n = 0;
    for (
      ;
      n < ends.length && windowCleanupTime(this.lastEndOf(ends[n]!), allowedLateness) <= time;
      n++
    ) {
      const sliceEnd = ends[n]!;
      this.slices.delete(sliceEnd);
      if (sliceEnd === this.cachedSliceEnd) {
        this.cachedSliceEnd = Number.NaN;
        this.cachedSlice = undefined;
      }
    }
    if (n > 0) ends.splice(0, n);
    // Nothing left for any window: release what the firing stacks still hold.
    if (this.slices.size === 0) this.sliding?.clear();
  }
}

/** Index of the first of the ascending `values` above `bound` (their length if none). */
function firstAbove(values: readonly number[], bound: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
