import type { Key } from './key-groups.js';
import type { MetricGroup } from './metrics.js';
import type { OutputTag } from './output-tag.js';
import type { KeyedStateStore, OperatorStateStore } from './state.js';

/** Receives the records a function emits. */
export interface Collector<T> {
  collect(value: T): void;
}

/** Event-time and processing-time services available to process functions. */
export interface TimerService {
  /** The operator's current event time (watermark); -Infinity before the first one. */
  currentWatermark(): number;
  currentProcessingTime(): number;
}

/** Keyed timers: each is scoped to the current key and fires once, even if registered twice. */
export interface KeyedTimerService extends TimerService {
  registerEventTimeTimer(time: number): void;
  deleteEventTimeTimer(time: number): void;
  registerProcessingTimeTimer(time: number): void;
  deleteProcessingTimeTimer(time: number): void;
}

/** Passed to `open`: who and where the function instance is. */
export interface RuntimeContext {
  readonly operatorId: string;
  readonly subtaskIndex: number;
  readonly parallelism: number;
  /**
   * The operator subtask's metrics (Flink's `getMetricGroup()`): counters, gauges and
   * histograms registered here are exported with the job's, labelled with the operator.
   */
  readonly metrics: MetricGroup;
}

/** Passed to `open` of non-keyed process functions: adds operator (list and union) state. */
export interface OperatorRuntimeContext extends RuntimeContext {
  readonly operatorState: OperatorStateStore;
}

/** Passed to `open` of keyed functions: adds keyed state. */
export interface KeyedRuntimeContext extends RuntimeContext {
  readonly state: KeyedStateStore;
}

export interface ProcessContext {
  /** Event time of the current record; -Infinity if it has none. */
  readonly timestamp: number;
  readonly timerService: TimerService;
  /** Emits to a side output. */
  output<S>(tag: OutputTag<S>, value: S): void;
}

/** A function over every record with access to time and side outputs. One instance per subtask. */
export interface ProcessFunction<IN, OUT> {
  open?(context: OperatorRuntimeContext): void;
  processElement(value: IN, context: ProcessContext, out: Collector<OUT>): void;
  close?(): void;
}

export interface KeyedProcessContext<K extends Key> {
  /** Event time of the current record, or of the timer that is firing. */
  readonly timestamp: number;
  readonly key: K;
  readonly timerService: KeyedTimerService;
  output<S>(tag: OutputTag<S>, value: S): void;
}

export interface OnTimerContext<K extends Key> extends KeyedProcessContext<K> {
  readonly timeDomain: 'event-time' | 'processing-time';
}

/**
 * A keyed function with state and timers. The runtime creates one instance per
 * subtask (as `Object.create(fn)` of the object you pass, so fields set in
 * `open` are per subtask); state and timers are scoped to the current key.
 */
export interface KeyedProcessFunction<K extends Key, IN, OUT> {
  open?(context: KeyedRuntimeContext): void;
  processElement(value: IN, context: KeyedProcessContext<K>, out: Collector<OUT>): void;
  onTimer?(timestamp: number, context: OnTimerContext<K>, out: Collector<OUT>): void;
  close?(): void;
}

/**
 * An incremental aggregation: records fold into an accumulator, so a window
 * holds one small value per key instead of its records. `merge` combines two
 * accumulators; it is needed for sliding windows (partial aggregates per slice)
 * and for merging session windows. It may update `a` in place and return it (Weir
 * passes as `a` an accumulator it owns: a fresh one, or one the merge replaces),
 * but must not change `b`, which a sliding window's slice shares with later windows.
 */
export interface AggregateFunction<IN, ACC, OUT> {
  createAccumulator(): ACC;
  add(value: IN, accumulator: ACC): ACC;
  getResult(accumulator: ACC): OUT;
  merge?(a: ACC, b: ACC): ACC;
}

export type ReduceFunction<T> = (a: T, b: T) => T;

/** Broadcast state as a keyed function reads it: every subtask holds the same copy. */
export interface ReadOnlyBroadcastState<BK extends Key, BV> {
  get(key: BK): BV | undefined;
  has(key: BK): boolean;
  entries(): IterableIterator<[BK, BV]>;
  readonly size: number;
}

/** Broadcast state as broadcast elements update it (identically in every subtask). */
export interface BroadcastState<BK extends Key, BV> extends ReadOnlyBroadcastState<BK, BV> {
  put(key: BK, value: BV): void;
  remove(key: BK): void;
  clear(): void;
}

export interface KeyedBroadcastContext<K extends Key, BK extends Key, BV>
  extends KeyedProcessContext<K> {
  /** Read-only: keyed records must not change what every subtask shares. */
  readonly broadcastState: ReadOnlyBroadcastState<BK, BV>;
}

/** What `onTimer` of a keyed broadcast function sees: the timer's key, and the broadcast state (read-only), as in Flink. */
export interface KeyedBroadcastOnTimerContext<K extends Key, BK extends Key, BV>
  extends OnTimerContext<K> {
  readonly broadcastState: ReadOnlyBroadcastState<BK, BV>;
}

export interface BroadcastElementContext<BK extends Key, BV> {
  /** Event time of the broadcast record. */
  readonly timestamp: number;
  readonly broadcastState: BroadcastState<BK, BV>;
  output<S>(tag: OutputTag<S>, value: S): void;
  /** The step's watermark (the least of both inputs'). */
  currentWatermark(): number;
  currentProcessingTime(): number;
}

/** What a record of the non-broadcast input of a {@link BroadcastProcessFunction} sees. */
export interface BroadcastProcessContext<BK extends Key, BV> extends ProcessContext {
  /** Read-only: records of one subtask must not change what every subtask shares. */
  readonly broadcastState: ReadOnlyBroadcastState<BK, BV>;
}

/**
 * The broadcast state pattern on a stream that is not keyed (Flink's
 * `BroadcastProcessFunction`): broadcast records update the broadcast state in
 * every subtask, the other input's records read it. No keyed state or timers;
 * operator state through `open`. The broadcast function must update the state
 * the same way in every subtask (each sees the same records in the same order).
 */
export interface BroadcastProcessFunction<IN, BC, OUT, BK extends Key, BV> {
  open?(context: OperatorRuntimeContext): void;
  processElement(value: IN, context: BroadcastProcessContext<BK, BV>, out: Collector<OUT>): void;
  processBroadcastElement(
    value: BC,
    context: BroadcastElementContext<BK, BV>,
    out: Collector<OUT>,
  ): void;
  close?(): void;
}

/**
 * Joins a keyed stream with a broadcast stream (for example rules pushed to
 * every subtask): broadcast records update the broadcast state, which keyed
 * records read. The broadcast function must update the state the same way in
 * every subtask (it sees the same records in the same order), so all copies
 * stay equal.
 */
export interface KeyedBroadcastProcessFunction<K extends Key, IN, BC, OUT, BK extends Key, BV> {
  open?(context: KeyedRuntimeContext): void;
  processElement(value: IN, context: KeyedBroadcastContext<K, BK, BV>, out: Collector<OUT>): void;
  processBroadcastElement(
    value: BC,
    context: BroadcastElementContext<BK, BV>,
    out: Collector<OUT>,
  ): void;
  onTimer?(
    timestamp: number,
    context: KeyedBroadcastOnTimerContext<K, BK, BV>,
    out: Collector<OUT>,
  ): void;
  close?(): void;
}
