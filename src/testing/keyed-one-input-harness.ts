import type { KeyedProcessFunction } from '../core/functions.js';
import type { Key } from '../core/key-groups.js';
import type { Operator } from '../core/operator.js';
import type { OperatorSnapshot } from '../core/snapshot.js';
import { KeyedProcessOperator } from '../runtime/operators/keyed/keyed-process.js';
import type { HarnessOptions } from './harness-options.js';
import { SingleInputHarness } from './one-input-harness.js';

/**
 * Drives a keyed operator with one input: each batch carries the keys
 * `keySelector` gives, as after `keyBy`, so keyed state and timers work.
 *
 * @example
 * ```ts
 * const h = KeyedOneInputHarness.forProcessFunction<string, Click, string>(
 *   {
 *     processElement(click, ctx) { ctx.timerService.registerEventTimeTimer(ctx.timestamp + 10); },
 *     onTimer(time, ctx, out) { out.collect(`${ctx.key}@${time}`); },
 *   },
 *   (click) => click.user,
 * );
 * h.processElement({ user: 'a' }, 5);
 * h.processWatermark(15);
 * h.outputValues(); // ['a@15']
 * const restored = KeyedOneInputHarness.forProcessFunction(fn, (c) => c.user, {
 *   restoreFrom: h.snapshot(),
 * });
 * ```
 */
export class KeyedOneInputHarness<K extends Key, IN, OUT> extends SingleInputHarness<IN, OUT> {
  protected readonly keyOf: (value: IN) => Key;

  /** Sets up, restores (with `options.restoreFrom`) and opens `operator`, an operator of the engine. */
  constructor(
    operator: Operator<IN, OUT>,
    keySelector: (value: IN) => K,
    options: HarnessOptions = {},
  ) {
    super(operator, options);
    this.keyOf = keySelector;
  }

  /** A harness around a user's keyed process function, as `KeyedStream.process` runs it. */
  static forProcessFunction<K extends Key, IN, OUT>(
    fn: KeyedProcessFunction<K, IN, OUT>,
    keySelector: (value: IN) => K,
    options: HarnessOptions = {},
  ): KeyedOneInputHarness<K, IN, OUT> {
    return new KeyedOneInputHarness(new KeyedProcessOperator(fn), keySelector, options);
  }

  /** A fresh operator from `create`, restored from `snapshot` (one subtask's, or all of a run's). */
  static restored<K extends Key, IN, OUT>(
    create: () => Operator<IN, OUT>,
    keySelector: (value: IN) => K,
    snapshot: OperatorSnapshot | readonly OperatorSnapshot[],
    options: HarnessOptions = {},
  ): KeyedOneInputHarness<K, IN, OUT> {
    return new KeyedOneInputHarness(create(), keySelector, { ...options, restoreFrom: snapshot });
  }
}
