import { describeRecord, userFunctionFailed, WeirError } from '../../core/errors.js';
import type { Key } from '../../core/key-groups.js';
import { MIN_WATERMARK } from '../../core/messages.js';
import {
  Operator,
  type OperatorContext,
  type Output,
  type ProcessingTimeService,
  type SnapshotContext,
} from '../../core/operator.js';
import type { OutputTag } from '../../core/output-tag.js';
import type { QueryableState, StateQueryAnswer } from '../../core/queryable-state.js';
import type { RecordBatch } from '../../core/record-batch.js';
import type { OperatorSnapshot, RestoredState } from '../../core/snapshot.js';
import type { KeyedStateStore, ValueState } from '../../core/state.js';
import { MAX_EVENT_TIME } from '../../core/timestamps.js';
import type { Trigger, TriggerContext, TriggerResult } from '../../core/triggers.js';
import type { FiringTiming } from '../../core/window-result.js';
import {
  cumulativeWindowsOf,
  GLOBAL_WINDOW,
  maxTimestamp,
  type TimeDomain,
  type Window,
  type WindowAssigner,
  windowCleanupTime,
  windowStart,
} from '../../core/windows.js';
import type { Counter } from '../../metrics/registry.js';
import { Emitter } from '../operators/basic/emitter.js';
import { operatorKeyedBackend } from '../operators/keyed/disk-keyed-backend.js';
import { missingKeys } from '../operators/keyed/keyed-process.js';
import { KeyedTimerQueue } from '../task/timers.js';
import { scheduleProcessingTimeClose } from './processing-time-close.js';
import {
  type FiringContext,
  invalidEventTime,
  type WindowAggregation,
  type WindowFiring,
  windowId,
} from './window-aggregation.js';
import { processingTimeOf } from './window-clock.js';
import {
  functionStateNames,
  splitRestored,
  WindowFunctionState,
  withFunctionState,
} from './window-function-state.js';
import { type QueriedWindow, windowsAnswer } from './window-query.js';
import { restoredTimeProgress, timeProgressEntry } from './window-snapshot.js';
import {
  HeapWindowTable,
  type KeyWindows,
  type WindowState,
  type WindowTable,
  type WindowTimer,
  windowTableFor,
} from './window-table.js';

export interface WindowOperatorSpec<IN, ACC, R, OUT> {
  readonly assigner: WindowAssigner<IN>;
  readonly trigger: Trigger<IN>;
  readonly allowedLateness: number;
  readonly lateDataTag: OutputTag<IN> | undefined;
  readonly aggregation: WindowAggregation<IN, ACC, R>;
  readonly firing: WindowFiring<Key, R, OUT>;
  /** Close event-time windows by the wall clock after this grace when event time stalls. */
  readonly processingTimeCloseMs?: number | undefined;
  /** A key's windows can be read by {@link QueryableState.queryState}. */
  readonly queryable?: boolean;
}

const GLOBAL_WINDOW_ID = windowId(GLOBAL_WINDOW);

/** What made a window fire: a record, a timer, or the end of input. */
type FiringCause = 'element' | 'timer' | 'end';

/**
 * The general window operator: any assigner (including merging session
 * windows), any trigger, event or processing time. Contents are kept per
 * (key, window) and every window has its own trigger timers and a cleanup
 * timer at its end plus the allowed lateness.
 */
export class WindowOperator<IN, ACC, R, OUT>
  extends Operator<IN, OUT>
  implements FiringContext, TriggerContext, QueryableState
{
  /** Key -> window id -> window: on the heap, or in the disk state backend. */
  private windows: WindowTable<ACC> = new HeapWindowTable<ACC>();
  private readonly eventTimers = new KeyedTimerQueue<Key, string>();
  private readonly processingTimers = new KeyedTimerQueue<Key, string>();
  private readonly scheduledProcessingTimes = new Set<number>();
  private readonly timeDomain: TimeDomain;
  private watermark = MIN_WATERMARK;
  private emitter!: Emitter<OUT>;
  private lateRecords!: Counter;
  private currentKey: Key = '';
  private current: WindowState<ACC> | undefined;
  private merging: readonly WindowState<ACC>[] = [];
  private readonly triggerStates = new Map<string, ValueState<unknown>>();
  /** The task's processing time, or the readings of the assigner's clock. */
  private processingTime!: ProcessingTimeService;
  /** The latest processing time whose timers have fired. */
  private processingTimeFired = Number.NEGATIVE_INFINITY;
  /** State of the window function, from its first use (or a restore that holds some). */
  private functionState: WindowFunctionState | undefined;

  constructor(private readonly spec: WindowOperatorSpec<IN, ACC, R, OUT>) {
    super();
    this.timeDomain = spec.assigner.timeDomain;
  }

  /** The key's windows that hold contents, with their current results (between steps). */
  queryState(key: Key): StateQueryAnswer {
    if (this.spec.queryable !== true) return { kind: 'not-queryable' };
    const { aggregation } = this.spec;
    const found: QueriedWindow[] = [];
    for (const w of this.windows.peek(key)) {
      if (w.acc === undefined) continue;
      const { start, end } = w.window;
      const fired = w.emitted || w.onTimeFired;
      found.push({ start, end, value: aggregation.result(w.acc), fired });
    }
    return windowsAnswer(found, this.context.operatorId, key);
  }

  override setup(context: OperatorContext, output: Output<OUT>): void {
    super.setup(context, output);
    this.windows = windowTableFor<ACC>(context);
    this.processingTime = processingTimeOf(context.processingTime, this.spec.assigner);
  }

  /** Processing-time timers of a restored operator are scheduled again once it runs. */
  private rescheduleRestoredTimers(): void {
    for (const [time, key, id] of this.restoredProcessingTimers) {
      this.currentKey = key;
      this.current = this.windows.get(key)?.get(id);
      if (this.current !== undefined) this.registerProcessingTimeTimer(time);
    }
    this.restoredProcessingTimers = [];
    this.current = undefined;
    this.windows.flush();
  }

  override open(): void {
    this.emitter = new Emitter(this.output);
    this.lateRecords = this.context.metrics.counter(
      'weir_window_late_records_total',
      'Records that arrived after their windows closed (sent to the late-data side output if set, else dropped)',
    );
    this.context.metrics.gauge('weir_state_entries', 'Keyed state entries held', () =>
      this.windows.entryCount(),
    );
    this.context.metrics.gauge(
      'weir_timers_pending',
      'Timers registered and not yet fired',
      () => this.eventTimers.size + this.processingTimers.size,
    );
    this.rescheduleRestoredTimers();
    const grace = this.spec.processingTimeCloseMs;
    if (grace !== undefined && this.timeDomain === 'event-time') {
      scheduleProcessingTimeClose(
        this.context.processingTime,
        grace,
        () => this.watermark,
        (t) => this.processWatermark(t),
        () => this.watermark === Number.POSITIVE_INFINITY,
      );
    }
  }

  // ---- FiringContext and TriggerContext -------------------------------------------------

  currentWatermark(): number {
    return this.watermark;
  }
  currentProcessingTime(): number {
    return this.processingTime.clock.now();
  }
  emitSide<S>(tag: OutputTag<S>, value: S): void {
    this.emitter.side(tag, value);
  }
  windowState(key: Key, window: Window): KeyedStateStore {
    if (this.spec.assigner.kind === 'session') {
      throw new WeirError(
        'INVALID_JOB',
        `window function of '${this.context.operatorId}' asked for per-window state, which merging (session) windows do not have, as in Flink; use globalState()`,
        { operatorId: this.context.operatorId },
      );
    }
    return this.stateOfFunction().windowState(key, window);
  }
  globalState(key: Key): KeyedStateStore {
    return this.stateOfFunction().globalState(key);
  }
  private stateOfFunction(): WindowFunctionState {
    if (this.functionState === undefined) {
      const shared = this.windows.backend;
      this.functionState =
        shared === undefined
          ? new WindowFunctionState(operatorKeyedBackend(this.context), true)
          : new WindowFunctionState(shared, false);
    }
    return this.functionState;
  }
  registerEventTimeTimer(time: number): void {
    this.eventTimers.register(time, this.currentKey, this.current!.id);
    this.current!.timers?.add(`e${time}`);
  }
  deleteEventTimeTimer(time: number): void {
    this.eventTimers.delete(time, this.currentKey, this.current!.id);
    this.current!.timers?.delete(`e${time}`);
  }
  registerProcessingTimeTimer(time: number): void {
    this.processingTimers.register(time, this.currentKey, this.current!.id);
    this.current!.timers?.add(`p${time}`);
    if (this.scheduledProcessingTimes.has(time)) return;
    this.scheduledProcessingTimes.add(time);
    this.processingTime.schedule(time, (now) => {
      this.scheduledProcessingTimes.delete(time);
      this.onProcessingTime(now);
    });
  }
  deleteProcessingTimeTimer(time: number): void {
    this.processingTimers.delete(time, this.currentKey, this.current!.id);
    this.current!.timers?.delete(`p${time}`);
  }
  getState<S>(name: string): ValueState<S> {
    let state = this.triggerStates.get(name);
    if (state === undefined) {
      state = {
        value: () => this.current!.triggerState?.get(name),
        update: (v: unknown) => {
          const c = this.current!;
          if (c.triggerState === undefined) c.triggerState = new Map();
          c.triggerState.set(name, v);
        },
        clear: () => {
          this.current!.triggerState?.delete(name);
        },
      };
      this.triggerStates.set(name, state);
    }
    return state as ValueState<S>;
  }
  mergedStates<S>(name: string): S[] {
    const out: S[] = [];
    for (const m of this.merging) {
      const v = m.triggerState?.get(name);
      if (v !== undefined) out.push(v as S);
    }
    return out;
  }

  // ---- records --------------------------------------------------------------------------

  processBatch(batch: RecordBatch<IN>): void {
    const { values, timestamps, keys } = batch;
    if (keys === undefined) throw missingKeys(this.context.operatorId);
    const eventTime = this.timeDomain === 'event-time';
    // Never at or before a processing time whose windows have fired: a record that arrives in
    // the millisecond a window's timer fired belongs to the next window, not to a second result
    // of the fired one (Flink's timers fire only once the clock is past them, to the same end).
    const now = eventTime
      ? 0
      : Math.max(this.currentProcessingTime(), this.processingTimeFired + 1);
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const value = values[i] as IN;
        const ts = eventTime ? timestamps[i]! : now;
        // Negated so that NaN and undefined fail too; beyond the safe range
        // window bounds would be wrong.
        if (
          !(ts >= -MAX_EVENT_TIME && ts <= MAX_EVENT_TIME) &&
          this.spec.assigner.kind !== 'global'
        ) {
          throw invalidEventTime(this.context.operatorId, value, ts);
        }
        this.currentKey = keys[i] as Key;
        this.processRecord(value, ts, timestamps[i]!);
        this.windows.flush();
      }
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw userFunctionFailed(
        this.context.operatorId,
        'window function or trigger',
        values[i],
        cause,
      );
    }
    this.current = undefined;
    this.emitter.flush();
  }

  private processRecord(value: IN, ts: number, recordTimestamp: number): void {
    const assigner = this.spec.assigner;
    let accepted = false;
    if (assigner.kind === 'session') {
      const gap = typeof assigner.gap === 'number' ? assigner.gap : assigner.gap(value);
      if (!Number.isFinite(gap) || gap <= 0) {
        throw new WeirError(
          'INVALID_ARGUMENT',
          `session gap function of '${this.context.operatorId}' returned ${gap} for record ${describeRecord(value)}; it must be a positive number of ms`,
          { operatorId: this.context.operatorId, record: describeRecord(value) },
        );
      }
      const state = this.mergeSession({ start: ts, end: ts + gap });
      if (state !== undefined) {
        this.addToWindow(state, value, ts, recordTimestamp);
        accepted = true;
      }
    } else if (assigner.kind === 'global') {
      // Count windows and global triggers: no per-record window allocation.
      this.addToWindow(this.stateFor(GLOBAL_WINDOW), value, ts, recordTimestamp);
      accepted = true;
    } else {
      for (const window of this.assignWindows(ts)) {
        if (this.isLate(window)) continue;
        this.addToWindow(this.stateFor(window), value, ts, recordTimestamp);
        accepted = true;
      }
    }
    if (!accepted) {
      this.lateRecords.inc();
      if (this.spec.lateDataTag !== undefined)
        this.emitter.side(this.spec.lateDataTag, value, recordTimestamp);
    }
  }

  private assignWindows(ts: number): Window[] {
    const a = this.spec.assigner;
    switch (a.kind) {
      case 'global':
        return [GLOBAL_WINDOW];
      case 'tumbling': {
        const start = windowStart(ts, a.offset, a.size);
        return [{ start, end: start + a.size }];
      }
      case 'sliding': {
        const windows: Window[] = [];
        for (
          let start = windowStart(ts, a.offset, a.slide);
          start > ts - a.size;
          start -= a.slide
        ) {
          windows.push({ start, end: start + a.size });
        }
        return windows;
      }
      case 'cumulative':
        return cumulativeWindowsOf(ts, a.maxSize, a.step, a.offset);
      case 'session':
        throw new Error('sessions are assigned by mergeSession');
    }
  }

  private cleanupTime(window: Window): number {
    return this.timeDomain === 'event-time'
      ? windowCleanupTime(window.end, this.spec.allowedLateness)
      : maxTimestamp(window);
  }

  private isLate(window: Window): boolean {
    return this.timeDomain === 'event-time' && this.cleanupTime(window) <= this.watermark;
  }

  private keyWindows(): KeyWindows<ACC> {
    return this.windows.open(this.currentKey);
  }

  private stateFor(window: Window): WindowState<ACC> {
    const windows = this.keyWindows();
    const id = window === GLOBAL_WINDOW ? GLOBAL_WINDOW_ID : windowId(window);
    let state = windows.get(id);
    if (state === undefined) {
      state = {
        window,
        id,
        acc: undefined,
        emitted: false,
        onTimeFired: false,
        pending: false,
        triggerState: undefined,
        timers: this.windows.keepsTimers ? new Set() : undefined,
      };
      windows.set(id, state);
      this.current = state;
      this.registerCleanup(state);
    }
    return state;
  }

  private registerCleanup(state: WindowState<ACC>): void {
    const t = this.cleanupTime(state.window);
    if (!Number.isFinite(t)) return;
    this.current = state;
    if (this.timeDomain === 'event-time') this.registerEventTimeTimer(t);
    else this.registerProcessingTimeTimer(t);
  }

  /**
   * Adds the session window of a new record to the key's sessions, merging
   * every session it touches. Returns the (possibly merged) window to add the
   * record to, or undefined if that window is already past its lateness.
   */
  private mergeSession(window: Window): WindowState<ACC> | undefined {
    const windows = this.keyWindows();
    const touching: WindowState<ACC>[] = [];
    let start = window.start;
    let end = window.end;
    for (const s of windows.values()) {
      if (s.window.start <= window.end && s.window.end >= window.start) {
        touching.push(s);
        if (s.window.start < start) start = s.window.start;
        if (s.window.end > end) end = s.window.end;
      }
    }
    const merged: Window = { start, end };
    if (
      touching.length === 1 &&
      touching[0]!.window.start === start &&
      touching[0]!.window.end === end
    ) {
      return touching[0];
    }
    if (this.isLate(merged)) return undefined;
    if (touching.length === 0) return this.stateFor(window);
    touching.sort((a, b) => a.window.start - b.window.start);
    const merge = this.spec.aggregation.merge!;
    let acc: ACC | undefined;
    for (const s of touching) {
      if (s.acc !== undefined) acc = acc === undefined ? s.acc : merge(acc, s.acc);
    }
    const target: WindowState<ACC> = {
      window: merged,
      id: windowId(merged),
      acc,
      emitted: touching.some((s) => s.emitted),
      // The merged window's end may not have passed yet even if a part fired on
      // time: then its next firing at the end is on time again (an update).
      onTimeFired: touching.some((s) => s.onTimeFired) && maxTimestamp(merged) <= this.watermark,
      pending: touching.some((s) => s.pending),
      triggerState: undefined,
      timers: this.windows.keepsTimers ? new Set() : undefined,
    };
    windows.set(target.id, target);
    this.current = target;
    this.merging = touching;
    this.spec.trigger.onMerge?.(merged, this);
    this.merging = [];
    // Cleared after onMerge, as in Flink: a trigger's clear() may drop its own state, which
    // onMerge must still be able to read from the windows being merged.
    for (const s of touching) {
      this.current = s;
      this.spec.trigger.clear(s.window, this);
      const cleanup = this.cleanupTime(s.window);
      if (this.timeDomain === 'event-time') this.deleteEventTimeTimer(cleanup);
      else this.deleteProcessingTimeTimer(cleanup);
      windows.delete(s.id);
    }
    this.registerCleanup(target);
    return target;
  }

  private addToWindow(
    state: WindowState<ACC>,
    value: IN,
    ts: number,
    recordTimestamp: number,
  ): void {
    const { aggregation, trigger } = this.spec;
    state.acc = aggregation.add(
      value,
      state.acc === undefined ? aggregation.create() : state.acc,
      recordTimestamp,
    );
    state.pending = true;
    this.current = state;
    this.act(trigger.onElement(value, ts, state.window, this), state, 'element');
  }

  /** Carries out a trigger's decision for the current key and window. */
  private act(result: TriggerResult, state: WindowState<ACC>, cause: FiringCause): void {
    if (result === 'continue') return;
    if ((result === 'fire' || result === 'fire-and-purge') && state.acc !== undefined)
      this.fire(state, cause);
    if (result === 'purge' || result === 'fire-and-purge') {
      state.acc = undefined;
      state.emitted = false;
      state.pending = false;
    }
  }

  private fire(state: WindowState<ACC>, cause: FiringCause): void {
    const max = maxTimestamp(state.window);
    let timing: FiringTiming;
    if (this.timeDomain === 'event-time') {
      if (this.watermark < max) timing = 'early';
      // A record arriving when the watermark has passed the end is a late record.
      else if (cause === 'element') timing = 'late';
      else if (!state.onTimeFired) {
        timing = 'on-time';
        state.onTimeFired = true;
      } else timing = 'late';
    } else timing = this.currentProcessingTime() < max ? 'early' : 'on-time';
    const isUpdate = state.emitted;
    state.pending = false;
    this.emitter.timestamp = max;
    const { aggregation, firing } = this.spec;
    const emit = (result: R) => {
      state.emitted = true;
      firing.emit(this.currentKey, state.window, result, timing, isUpdate, this, this.emitter);
    };
    if (aggregation.fireEvicting === undefined) emit(aggregation.result(state.acc as ACC));
    // An evictor: what it leaves is the window's contents from now on (Flink's
    // EvictingWindowOperator); a window it empties emits nothing.
    else state.acc = aggregation.fireEvicting(state.acc as ACC, state.window, this, emit);
  }

  private clearWindow(state: WindowState<ACC>): void {
    this.current = state;
    this.spec.trigger.clear(state.window, this);
    const clearFunction = this.spec.firing.clear;
    if (clearFunction !== undefined) {
      this.emitter.timestamp = maxTimestamp(state.window);
      clearFunction(this.currentKey, state.window, this, this.emitter);
    }
    this.functionState?.dropWindow(this.currentKey, state.window);
    const windows = this.windows.get(this.currentKey);
    windows?.delete(state.id);
    if (windows?.size === 0) this.windows.delete(this.currentKey);
  }

  // ---- time -----------------------------------------------------------------------------

  /**
   * Snapshot, per key: every window with its contents (JSON data), flags,
   * trigger state and timers (see the window table); as union state, the
   * watermark.
   */
  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    const windows = this.windows.snapshot(context, () => this.pendingTimers());
    const { functionState } = this;
    return {
      ...(functionState === undefined
        ? windows
        : withFunctionState(windows, functionState.snapshot(context))),
      union: [timeProgressEntry(this.context.subtaskIndex, { watermark: this.watermark, mark: 0 })],
    };
  }

  private *pendingTimers(): IterableIterator<WindowTimer> {
    for (const [t, k, id] of this.eventTimers.entries()) yield [t, k, id, 'e'];
    for (const [t, k, id] of this.processingTimers.entries()) yield [t, k, id, 'p'];
  }

  private restoredProcessingTimers: WindowTimer[] = [];

  override initializeState(state: RestoredState): void {
    const progress = restoredTimeProgress(
      state,
      this.context.subtaskIndex,
      this.context.parallelism,
    );
    if (progress !== undefined) this.watermark = progress.watermark;
    // On the heap, the window function's state is in backend rows beside the windows.
    const split = this.windows.backend === undefined ? splitRestored(state) : undefined;
    for (const timer of this.windows.restore(split?.rest ?? state)) {
      const [time, key, id, domain] = timer;
      if (domain === 'e') this.eventTimers.register(time, key, id);
      else this.restoredProcessingTimers.push(timer);
    }
    const names = functionStateNames(state);
    if (names.length === 0) return;
    const functionState = this.stateOfFunction();
    if (split !== undefined) functionState.backend.restore(split.rows);
    functionState.restored(names);
    // State of windows that were cleaned up before the snapshot's windows were written.
    functionState.dropWindowsWhere((key, id) => this.windows.get(key)?.get(id) === undefined);
    this.windows.flush();
  }

  override notifyCheckpointComplete(checkpointId: number): void {
    this.windows.notifyCheckpointComplete(checkpointId);
  }

  override close(): void {
    this.windows.dispose();
    if (this.functionState?.ownsBackend === true) this.functionState.backend.dispose();
  }

  override processWatermark(time: number): void {
    // After a restore the inputs may repeat older watermarks: only advances count.
    if (time <= this.watermark) return;
    this.watermark = time;
    try {
      this.eventTimers.fireUpTo(time, (t, key, id) => this.onTimer(t, key, id, 'event-time'));
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw userFunctionFailed(
        this.context.operatorId,
        'window function or trigger',
        { watermark: time },
        cause,
      );
    }
    this.current = undefined;
    this.emitter.flush();
    this.output.emitWatermark(time);
  }

  private onProcessingTime(now: number): void {
    this.processingTimeFired = Math.max(this.processingTimeFired, now);
    try {
      this.processingTimers.fireUpTo(now, (t, key, id) =>
        this.onTimer(t, key, id, 'processing-time'),
      );
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw userFunctionFailed(
        this.context.operatorId,
        'window function or trigger',
        { processingTime: now },
        cause,
      );
    }
    this.current = undefined;
    this.emitter.flush();
  }

  private onTimer(time: number, key: Key, id: string, domain: TimeDomain): void {
    const state = this.windows.get(key)?.get(id);
    if (state === undefined) return;
    this.currentKey = key;
    this.current = state;
    state.timers?.delete(`${domain === 'event-time' ? 'e' : 'p'}${time}`);
    const trigger = this.spec.trigger;
    const result =
      domain === 'event-time'
        ? trigger.onEventTime(time, state.window, this)
        : trigger.onProcessingTime(time, state.window, this);
    this.act(result, state, 'timer');
    if (domain === this.timeDomain && time === this.cleanupTime(state.window))
      this.clearWindow(state);
    this.windows.flush();
  }

  /**
   * End of input: windows holding records not emitted yet (global windows,
   * partial count windows, processing-time windows) fire once. A window whose
   * contents were all emitted by its last firing does not repeat it.
   */
  override endInput(): void {
    for (const [key, windows] of [...this.windows]) {
      this.currentKey = key;
      for (const state of [...windows.values()]) {
        this.current = state;
        if (state.acc !== undefined && state.pending) {
          const result = this.spec.trigger.onEndOfInput?.(state.window, this) ?? 'fire';
          this.act(result, state, 'end');
        }
        this.clearWindow(state);
      }
      this.windows.flush();
    }
    this.current = undefined;
    this.emitter.flush();
  }
}
