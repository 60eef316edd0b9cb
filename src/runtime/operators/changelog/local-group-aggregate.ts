import type { RetractableAggregateFunction } from '../../../core/changelog.js';
import { userFunctionFailed } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import { Operator } from '../../../core/operator.js';
import { BatchBuilder, type RecordBatch } from '../../../core/record-batch.js';
import type { MiniBatchOptions } from './updating-aggregate.js';

/** What the local half of a two-phase GROUP BY sends across the exchange: one key's bundle, folded. */
export interface LocalGroupPartial<ACC> {
  readonly key: Key;
  readonly accumulator: ACC;
}

/** A group aggregate function whose accumulators can be combined (two-phase aggregation needs it). */
export type MergeableAggregateFunction<IN, ACC, OUT> = RetractableAggregateFunction<
  IN,
  ACC,
  OUT
> & { merge(a: ACC, b: ACC): ACC };

/**
 * The local half of a two-phase GROUP BY (Flink's LocalGroupAggregate), before the keyed
 * exchange: the rows of one bundle are folded per key into a fresh accumulator, and each key's
 * accumulator crosses the exchange once per bundle instead of every row. It keeps no state:
 * the bundle is flushed when it holds `size` rows, `allowLatencyMs` after its first row, before
 * every watermark, idleness and checkpoint barrier, and at the end of input, so a checkpoint
 * finds everything in the global half and the watermark never overtakes a partial.
 */
export class LocalGroupAggregateOperator<IN, ACC> extends Operator<IN, LocalGroupPartial<ACC>> {
  /** Key -> the bundle's accumulator and the timestamp of its last row. */
  private readonly groups = new Map<Key, { acc: ACC; timestamp: number }>();
  private rows = 0;
  private cancelTimer: (() => void) | undefined;
  private readonly out = new BatchBuilder<LocalGroupPartial<ACC>>();

  constructor(
    private readonly selectKey: (value: IN) => Key,
    private readonly fn: RetractableAggregateFunction<IN, ACC, unknown>,
    private readonly miniBatch: MiniBatchOptions,
  ) {
    super();
  }

  processBatch(batch: RecordBatch<IN>): void {
    const { values, timestamps } = batch;
    const { groups, fn, selectKey } = this;
    const wasEmpty = this.rows === 0;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const value = values[i] as IN;
        const key = selectKey(value);
        const group = groups.get(key);
        if (group === undefined)
          groups.set(key, {
            acc: fn.add(value, fn.createAccumulator()),
            timestamp: timestamps[i] as number,
          });
        else {
          group.acc = fn.add(value, group.acc);
          group.timestamp = timestamps[i] as number;
        }
        if (++this.rows >= this.miniBatch.size) this.flush();
      }
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, 'local aggregate', values[i], cause);
    }
    if (wasEmpty && this.rows > 0) this.scheduleFlush();
  }

  override processWatermark(time: number): void {
    this.flush();
    this.output.emitWatermark(time);
  }

  override processIdle(): void {
    this.flush();
    this.output.emitIdle();
  }

  /** Nothing to keep: the bundle goes downstream before the barrier. */
  override snapshotState(): undefined {
    this.flush();
    return undefined;
  }

  override endInput(): void {
    this.flush();
  }

  override close(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  /** Sends each key's accumulator, in the order the keys were first seen, and empties the bundle. */
  private flush(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.rows === 0) return;
    for (const [key, { acc, timestamp }] of this.groups)
      this.out.push({ key, accumulator: acc }, timestamp);
    this.groups.clear();
    this.rows = 0;
    const batch = this.out.take();
    if (batch !== undefined) this.output.emit(batch);
  }

  /** A bundle's first row waits at most `allowLatencyMs` to cross the exchange. */
  private scheduleFlush(): void {
    const at = this.context.processingTime.clock.now() + this.miniBatch.allowLatencyMs;
    this.cancelTimer = this.context.processingTime.schedule(at, () => {
      this.cancelTimer = undefined;
      this.flush();
    });
  }
}

/**
 * The global half's function: it adds partial accumulators instead of rows, by merging them
 * (Flink's GlobalGroupAggregate), and gives the same results as `fn` over the rows.
 */
export function mergingAggregate<IN, ACC, OUT>(
  fn: MergeableAggregateFunction<IN, ACC, OUT>,
): RetractableAggregateFunction<LocalGroupPartial<ACC>, ACC, OUT> {
  return {
    createAccumulator: () => fn.createAccumulator(),
    add: (partial, acc) => fn.merge(acc, partial.accumulator),
    getResult: (acc) => fn.getResult(acc),
    ...(fn.explain === undefined ? {} : { explain: fn.explain }),
  };
}
