/**
 * Functions over two connected streams (`a.connect(b)`): one method per
 * input, one output type. The runtime creates one instance per subtask
 * (`Object.create(fn)` of the object you pass), so fields set in `open` are
 * per subtask. Which input's record comes first is not determined: records
 * of the two inputs interleave as they arrive.
 */
import type {
  Collector,
  KeyedProcessContext,
  KeyedRuntimeContext,
  OnTimerContext,
  OperatorRuntimeContext,
  ProcessContext,
} from './functions.js';
import type { Key } from './key-groups.js';

/**
 * Maps each record of either input to one output record (Flink's
 * `CoMapFunction`, with `RichCoMapFunction`'s optional `open` and `close`).
 * The output carries the input record's timestamp.
 */
export interface CoMapFunction<IN1, IN2, OUT> {
  /** Called once per subtask before the first record, with its operator state. */
  open?(context: OperatorRuntimeContext): void;
  /** A record of the first input. */
  map1(value: IN1): OUT;
  /** A record of the second input. */
  map2(value: IN2): OUT;
  close?(): void;
}

/**
 * Emits any number of records per record of either input (Flink's
 * `CoFlatMapFunction`, with `RichCoFlatMapFunction`'s optional `open` and
 * `close`). What it emits carries the input record's timestamp.
 */
export interface CoFlatMapFunction<IN1, IN2, OUT> {
  /** Called once per subtask before the first record, with its operator state. */
  open?(context: OperatorRuntimeContext): void;
  /** A record of the first input. */
  flatMap1(value: IN1, out: Collector<OUT>): void;
  /** A record of the second input. */
  flatMap2(value: IN2, out: Collector<OUT>): void;
  close?(): void;
}

/**
 * A process function over two non-keyed inputs (Flink's `CoProcessFunction`):
 * each record with its timestamp, the current watermark (the least of both
 * inputs') and processing time, and side outputs. Timers need keyed inputs
 * (`connect(other).keyBy(key1, key2).process(...)`): as in Flink, registering
 * one here fails the job.
 */
export interface CoProcessFunction<IN1, IN2, OUT> {
  /** Called once per subtask before the first record, with its operator state. */
  open?(context: OperatorRuntimeContext): void;
  /** A record of the first input. */
  processElement1(value: IN1, context: ProcessContext, out: Collector<OUT>): void;
  /** A record of the second input. */
  processElement2(value: IN2, context: ProcessContext, out: Collector<OUT>): void;
  close?(): void;
}

/**
 * A co-map on keyed connected streams (`connect(other).keyBy(key1, key2).map(fn)`):
 * `open` gets keyed state, which both methods read and write for the key of
 * the record at hand, whichever input it came from.
 */
export interface KeyedCoMapFunction<IN1, IN2, OUT> {
  /** Called once per subtask before the first record: declare keyed state here. */
  open?(context: KeyedRuntimeContext): void;
  /** A record of the first input. */
  map1(value: IN1): OUT;
  /** A record of the second input. */
  map2(value: IN2): OUT;
  close?(): void;
}

/**
 * A co-flat-map on keyed connected streams (Flink's `RichCoFlatMapFunction`
 * after `connect(...).keyBy(...)`, as in the control-stream pattern): `open`
 * gets keyed state, shared by both inputs' records of each key.
 */
export interface KeyedCoFlatMapFunction<IN1, IN2, OUT> {
  /** Called once per subtask before the first record: declare keyed state here. */
  open?(context: KeyedRuntimeContext): void;
  /** A record of the first input. */
  flatMap1(value: IN1, out: Collector<OUT>): void;
  /** A record of the second input. */
  flatMap2(value: IN2, out: Collector<OUT>): void;
  close?(): void;
}

/**
 * A process function over two keyed inputs with the same key type (Flink's
 * `KeyedCoProcessFunction`): records of either input with equal keys reach
 * the same subtask and share the key's state and timers. `context.key` is
 * the current key (Flink's `getCurrentKey()`), in `onTimer` the timer's.
 */
export interface KeyedCoProcessFunction<K extends Key, IN1, IN2, OUT> {
  /** Called once per subtask before the first record: declare keyed state here. */
  open?(context: KeyedRuntimeContext): void;
  /** A record of the first input. */
  processElement1(value: IN1, context: KeyedProcessContext<K>, out: Collector<OUT>): void;
  /** A record of the second input. */
  processElement2(value: IN2, context: KeyedProcessContext<K>, out: Collector<OUT>): void;
  /**
   * A timer of the key fired: event-time timers when the watermark (the least
   * of both inputs') reaches them, processing-time ones from the wall clock.
   */
  onTimer?(timestamp: number, context: OnTimerContext<K>, out: Collector<OUT>): void;
  close?(): void;
}
