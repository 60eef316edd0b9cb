import type {
  CoFlatMapFunction,
  CoMapFunction,
  CoProcessFunction,
  KeyedCoFlatMapFunction,
  KeyedCoMapFunction,
  KeyedCoProcessFunction,
} from '../core/co-functions.js';
import type { BroadcastProcessFunction, KeyedBroadcastProcessFunction } from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import { MAX_WATERMARK } from '../core/messages.js';
import type { Operator } from '../core/operator.js';
import type { OperatorSnapshot } from '../core/snapshot.js';
import { BroadcastProcessOperator } from '../runtime/operators/basic/broadcast-process.js';
import {
  CoProcessOperator,
  coFunctionRunner,
  type KeyedCoFunctionSpec,
} from '../runtime/operators/basic/co-process.js';
import { KeyedBroadcastProcessOperator } from '../runtime/operators/keyed/keyed-broadcast-process.js';
import { KeyedCoProcessOperator } from '../runtime/operators/keyed/keyed-co-process.js';
import { WatermarkValve } from '../runtime/task/watermark-valve.js';
import type { HarnessOptions } from './harness-options.js';
import { batchOf, OperatorHarness, type Timestamps } from './operator-harness.js';

/** Settings of a two-input harness: those of every harness, plus keys for keyed operators. */
export interface TwoInputHarnessOptions<IN1, IN2> extends HarnessOptions {
  /** Keys of the first input's records (keyed two-input operators). */
  readonly keySelector1?: (value: IN1) => Key;
  /** Keys of the second input's records (keyed two-input operators). */
  readonly keySelector2?: (value: IN2) => Key;
}

/**
 * Drives an operator with two inputs (joins, connected streams). Event time
 * reaches the operator as a task merges it: the minimum of both inputs'
 * watermarks, leaving out an idle input, and only when it advances.
 *
 * @example
 * ```ts
 * const h = new TwoInputHarness(joinOperator, { keySelector1: (o) => o.id, keySelector2: (p) => p.orderId });
 * h.processElement1(order, 10);
 * h.processElement2(payment, 12);
 * h.processWatermark1(20);
 * h.processWatermark2(15); // the operator sees 15
 * ```
 */
export class TwoInputHarness<IN1, IN2, OUT> extends OperatorHarness<IN1, OUT> {
  private readonly valve: WatermarkValve;
  private readonly keyOf1: ((value: IN1) => Key) | undefined;
  private readonly keyOf2: ((value: IN2) => Key) | undefined;
  private readonly ended = [false, false];

  /** Sets up, restores (with `options.restoreFrom`) and opens `operator`, an operator of the engine. */
  constructor(operator: Operator<IN1, OUT>, options: TwoInputHarnessOptions<IN1, IN2> = {}) {
    super(operator, options);
    this.keyOf1 = options.keySelector1;
    this.keyOf2 = options.keySelector2;
    this.valve = new WatermarkValve(
      2,
      (t) => operator.processWatermark(t),
      () => operator.processIdle(),
    );
  }

  /**
   * A harness around a user's function over connected streams, as
   * `a.connect(b).process(fn)` runs it (`map` and `flatMap` functions too).
   */
  static forCoProcessFunction<IN1, IN2, OUT>(
    fn:
      | CoProcessFunction<IN1, IN2, OUT>
      | CoMapFunction<IN1, IN2, OUT>
      | CoFlatMapFunction<IN1, IN2, OUT>,
    options: HarnessOptions = {},
  ): TwoInputHarness<IN1, IN2, OUT> {
    const runner = coFunctionRunner(coFunctionSpec(fn));
    return new TwoInputHarness(
      new CoProcessOperator(runner) as unknown as Operator<IN1, OUT>,
      options,
    );
  }

  /**
   * A harness around a user's function over keyed connected streams, as
   * `a.connect(b).keyBy(key1, key2).process(fn)` runs it (`map` and `flatMap`
   * functions too): keyed state and timers per key, shared by both inputs.
   */
  static forKeyedCoProcessFunction<K extends Key, IN1, IN2, OUT>(
    fn:
      | KeyedCoProcessFunction<K, IN1, IN2, OUT>
      | KeyedCoMapFunction<IN1, IN2, OUT>
      | KeyedCoFlatMapFunction<IN1, IN2, OUT>,
    key1: (value: IN1) => K,
    key2: (value: IN2) => K,
    options: HarnessOptions = {},
  ): TwoInputHarness<IN1, IN2, OUT> {
    const runner = coFunctionRunner(coFunctionSpec(fn));
    return new TwoInputHarness(
      new KeyedCoProcessOperator(runner, undefined) as unknown as Operator<IN1, OUT>,
      { ...options, keySelector1: key1, keySelector2: key2 },
    );
  }

  /**
   * A harness around a broadcast process function, as
   * `stream.connectBroadcast(broadcast, fn)` runs it: input 1 is the stream,
   * input 2 the broadcast input. With `keySelector`, a keyed one (`keyBy(...).connectBroadcast`),
   * with keyed state and timers.
   */
  static forBroadcastProcessFunction<IN, BC, OUT, BK extends Key, BV>(
    fn: BroadcastProcessFunction<IN, BC, OUT, BK, BV>,
    options?: HarnessOptions,
  ): TwoInputHarness<IN, BC, OUT>;
  static forBroadcastProcessFunction<K extends Key, IN, BC, OUT, BK extends Key, BV>(
    fn: KeyedBroadcastProcessFunction<K, IN, BC, OUT, BK, BV>,
    options: HarnessOptions & { readonly keySelector: (value: IN) => K },
  ): TwoInputHarness<IN, BC, OUT>;
  static forBroadcastProcessFunction<IN, BC, OUT>(
    fn:
      | BroadcastProcessFunction<IN, BC, OUT, Key, unknown>
      | KeyedBroadcastProcessFunction<Key, IN, BC, OUT, Key, unknown>,
    options: HarnessOptions & { readonly keySelector?: (value: IN) => Key } = {},
  ): TwoInputHarness<IN, BC, OUT> {
    const { keySelector, ...rest } = options;
    if (keySelector === undefined) {
      const op = new BroadcastProcessOperator(
        fn as BroadcastProcessFunction<IN, BC, OUT, Key, unknown>,
      );
      return new TwoInputHarness(op, rest);
    }
    const op = new KeyedBroadcastProcessOperator(
      fn as KeyedBroadcastProcessFunction<Key, IN, BC, OUT, Key, unknown>,
    );
    // Broadcast records go to every key: the second input has no key.
    return new TwoInputHarness(op, { ...rest, keySelector1: keySelector });
  }

  /** A fresh operator from `create`, restored from `snapshot` (one subtask's, or all of a run's). */
  static restored<IN1, IN2, OUT>(
    create: () => Operator<IN1, OUT>,
    snapshot: OperatorSnapshot | readonly OperatorSnapshot[],
    options: TwoInputHarnessOptions<IN1, IN2> = {},
  ): TwoInputHarness<IN1, IN2, OUT> {
    return new TwoInputHarness(create(), { ...options, restoreFrom: snapshot });
  }

  /** Processes one record of the first input, with event time `timestamp` if given. */
  processElement1(value: IN1, timestamp?: number): void {
    this.processElements1([value], timestamp === undefined ? undefined : () => timestamp);
  }

  /** Processes one record of the second input, with event time `timestamp` if given. */
  processElement2(value: IN2, timestamp?: number): void {
    this.processElements2([value], timestamp === undefined ? undefined : () => timestamp);
  }

  /** Processes `values` as one batch of the first input. */
  processElements1(values: readonly IN1[], timestamps?: Timestamps<IN1>): void {
    this.valve.activate(0);
    this.operator.processBatch(batchOf(values, timestamps, this.keyOf1));
  }

  /** Processes `values` as one batch of the second input. */
  processElements2(values: readonly IN2[], timestamps?: Timestamps<IN2>): void {
    this.valve.activate(1);
    this.operator.processSecondBatch(batchOf(values, timestamps, this.keyOf2));
  }

  /** The first input's watermark reaches `time`. */
  processWatermark1(time: number): void {
    this.inputWatermark(0, time);
  }

  /** The second input's watermark reaches `time`. */
  processWatermark2(time: number): void {
    this.inputWatermark(1, time);
  }

  private inputWatermark(input: 0 | 1, time: number): void {
    const before = this.valve.leastOf([input]);
    this.valve.watermark(input, time);
    if (time > before) this.operator.processInputWatermark(input, time);
  }

  /** The first input has no data for now: event time follows the second alone. */
  processIdle1(): void {
    this.valve.markIdle(0);
  }

  /** The second input has no data for now: event time follows the first alone. */
  processIdle2(): void {
    this.valve.markIdle(1);
  }

  /** The first input ended (its watermark counts as +Infinity); the operator's input ends with both. */
  endInput1(): void {
    this.endInput(0);
  }

  /** The second input ended (its watermark counts as +Infinity); the operator's input ends with both. */
  endInput2(): void {
    this.endInput(1);
  }

  private endInput(input: number): void {
    if (this.ended[input]) return;
    this.ended[input] = true;
    this.valve.end(input);
    this.operator.processInputWatermark(input === 1 ? 1 : 0, MAX_WATERMARK);
    if (this.ended[0] && this.ended[1]) this.endAll();
  }
}

/** Which kind of co-function `fn` is, by its methods. */
function coFunctionSpec(fn: object): KeyedCoFunctionSpec {
  if ('processElement1' in fn) return { kind: 'process', fn } as KeyedCoFunctionSpec;
  if ('flatMap1' in fn) return { kind: 'flat-map', fn } as KeyedCoFunctionSpec;
  return { kind: 'map', fn } as KeyedCoFunctionSpec;
}
