import type { KeyedCoProcessFunction } from '../../../core/co-functions.js';
import type {
  Collector,
  KeyedProcessFunction,
  KeyedRuntimeContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import { MIN_WATERMARK } from '../../../core/messages.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { Counter } from '../../../metrics/registry.js';
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import type { Emitter } from '../basic/emitter.js';
import { KeyedProcessOperator } from './keyed-process.js';

// The public contract of keyed two-input functions; joins implement it internally too.
export type { KeyedCoProcessFunction };

/**
 * A keyed process operator whose (internal) function drops late records and
 * counts them in a counter the operator registers under `lateMetric`.
 */
export class LateCountingKeyedOperator<K extends Key, IN, OUT> extends KeyedProcessOperator<
  K,
  IN,
  OUT
> {
  constructor(
    fn: KeyedProcessFunction<K, IN, OUT>,
    private readonly lateMetric: string | undefined,
  ) {
    super(fn);
  }

  override open(): void {
    if (this.lateMetric !== undefined) {
      (this.fn as CountsLateRecords).lateRecords = this.context.metrics.counter(
        this.lateMetric,
        'Records that arrived behind the watermark: DataStream joins drop them, SQL interval joins still join them (as Flink SQL)',
      );
    }
    super.open();
  }
}

/**
 * Runs a keyed co-process function: input 0 goes to `processElement1`, input 1
 * to `processElement2`. Both inputs arrive through keyed exchanges; state,
 * timers and checkpoints are the keyed process operator's, shared by both.
 */
export class KeyedCoProcessOperator<K extends Key, IN1, IN2, OUT> extends LateCountingKeyedOperator<
  K,
  IN1,
  OUT
> {
  /** Which input the batch being processed came from; read by the adapted function. */
  private readonly route: { second: boolean };
  /** Each input's own watermark, for functions that judge an input's records by it. */
  private readonly inputWatermarks: [number, number] = [MIN_WATERMARK, MIN_WATERMARK];

  constructor(
    fn: KeyedCoProcessFunction<K, IN1, IN2, OUT>,
    /** Metric name of the late-record counter handed to the function, if it drops late records. */
    lateMetric: string | undefined,
  ) {
    // The keyed process operator calls processElement: route it by input.
    const route = { second: false };
    const adapted = Object.create(fn) as KeyedCoProcessFunction<K, IN1, IN2, OUT> &
      KeyedProcessFunction<K, IN1, OUT>;
    adapted.processElement = function (this: typeof adapted, value, ctx, out) {
      if (route.second) this.processElement2(value as unknown as IN2, ctx, out);
      else this.processElement1(value, ctx, out);
    };
    super(adapted, lateMetric);
    this.route = route;
  }

  override open(): void {
    (this.fn as ReadsInputWatermarks).inputWatermark = (input) => this.inputWatermarks[input];
    super.open();
  }

  override processInputWatermark(input: 0 | 1, time: number): void {
    this.inputWatermarks[input] = time;
  }

  override processSecondBatch(batch: RecordBatch<unknown>): void {
    this.route.second = true;
    try {
      this.processBatch(batch as RecordBatch<IN1>);
    } finally {
      this.route.second = false;
    }
  }
}

/** An internal function that may read the watermark of each input alone, which the operator gives it. */
export interface ReadsInputWatermarks {
  inputWatermark?: (input: 0 | 1) => number;
}

/** An internal function that counts the late records it drops, in the counter the operator gives it. */
export interface CountsLateRecords {
  lateRecords?: Counter;
}

/**
 * The runtime hands internal functions its emitter as their collector: this
 * sets the event time stamped on what they emit next.
 */
export function setOutputTimestamp(out: Collector<unknown>, timestamp: number): void {
  (out as Emitter<unknown>).timestamp = timestamp;
}

/** The keyed state backend behind the store passed to `open` (internal functions scope state by namespace). */
export function backendOf(context: KeyedRuntimeContext): KeyedStateBackend {
  return context.state as KeyedStateBackend;
}
