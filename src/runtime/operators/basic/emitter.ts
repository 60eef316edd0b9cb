import type { Collector } from '../../../core/functions.js';
import type { Output } from '../../../core/operator.js';
import type { OutputTag } from '../../../core/output-tag.js';
import { BatchBuilder } from '../../../core/record-batch.js';

/**
 * Collects what user code emits while a batch (or a watermark's timers) is
 * processed, and sends it on as batches: one per input batch, not one per
 * record. `timestamp` is stamped on everything collected until it changes.
 */
export class Emitter<T> implements Collector<T> {
  timestamp = 0;
  private readonly main = new BatchBuilder<T>();
  private readonly sides = new Map<
    string,
    { tag: OutputTag<unknown>; builder: BatchBuilder<unknown> }
  >();

  constructor(private readonly output: Output<T>) {}

  collect(value: T): void {
    this.main.push(value, this.timestamp);
  }

  side<S>(tag: OutputTag<S>, value: S, timestamp = this.timestamp): void {
    let entry = this.sides.get(tag.id);
    if (entry === undefined) {
      entry = { tag: tag as OutputTag<unknown>, builder: new BatchBuilder() };
      this.sides.set(tag.id, entry);
    }
    entry.builder.push(value, timestamp);
  }

  /** Sends everything collected so far. Call before forwarding a watermark. */
  flush(): void {
    const batch = this.main.take();
    if (batch !== undefined) this.output.emit(batch);
    for (const { tag, builder } of this.sides.values()) {
      const b = builder.take();
      if (b !== undefined) this.output.emitSide(tag, b);
    }
  }
}
