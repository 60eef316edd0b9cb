import type { ProcessFunction } from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import type { Operator } from '../core/operator.js';
import type { OperatorSnapshot } from '../core/snapshot.js';
import { ProcessOperator } from '../runtime/operators/basic/process.js';
import type { HarnessOptions } from './harness-options.js';
import { batchOf, OperatorHarness, type Timestamps } from './operator-harness.js';

/** Feeding an operator with one input: records, watermarks, idleness, end of input. */
export abstract class SingleInputHarness<IN, OUT> extends OperatorHarness<IN, OUT> {
  /** The key of each record, as the keyed exchange computes it; none for non-keyed operators. */
  protected abstract readonly keyOf: ((value: IN) => Key) | undefined;

  /** Processes one record (a batch of one), with event time `timestamp` if given. */
  processElement(value: IN, timestamp?: number): void {
    this.operator.processBatch(
      batchOf([value], timestamp === undefined ? undefined : () => timestamp, this.keyOf),
    );
  }

  /** Processes `values` as one batch, with event times (per record, or a function of it) if given. */
  processElements(values: readonly IN[], timestamps?: Timestamps<IN>): void {
    this.operator.processBatch(batchOf(values, timestamps, this.keyOf));
  }

  /** Event time reaches `time`. Handed to the operator as is (the runtime passes only increases). */
  processWatermark(time: number): void {
    this.operator.processWatermark(time);
  }

  /** The input has no data for now. */
  processIdle(): void {
    this.operator.processIdle();
  }

  /**
   * All input has arrived: `endInput`, then `endOutput`, as a task does. A
   * bounded job's input ends with the watermark +Infinity first; send it
   * with {@link processWatermark} to fire what event time still holds.
   */
  endInput(): void {
    this.endAll();
  }
}

/**
 * Drives a non-keyed operator with one input.
 *
 * @example
 * ```ts
 * const h = OneInputHarness.forProcessFunction<number, number>({
 *   processElement: (n, ctx, out) => out.collect(n * 2),
 * });
 * h.processElement(21, 1_000);
 * h.output(); // [{ value: 42, timestamp: 1000 }]
 * ```
 */
export class OneInputHarness<IN, OUT> extends SingleInputHarness<IN, OUT> {
  protected readonly keyOf = undefined;

  /** Sets up, restores (with `options.restoreFrom`) and opens `operator`, an operator of the engine. */
  constructor(operator: Operator<IN, OUT>, options: HarnessOptions = {}) {
    super(operator, options);
  }

  /** A harness around a user's process function, as `DataStream.process` runs it. */
  static forProcessFunction<IN, OUT>(
    fn: ProcessFunction<IN, OUT>,
    options: HarnessOptions = {},
  ): OneInputHarness<IN, OUT> {
    return new OneInputHarness(new ProcessOperator(fn), options);
  }

  /** A fresh operator from `create`, restored from `snapshot` (one subtask's, or all of a run's). */
  static restored<IN, OUT>(
    create: () => Operator<IN, OUT>,
    snapshot: OperatorSnapshot | readonly OperatorSnapshot[],
    options: HarnessOptions = {},
  ): OneInputHarness<IN, OUT> {
    return new OneInputHarness(create(), { ...options, restoreFrom: snapshot });
  }
}
