/**
 * The outputs the runtime hands to operators: a direct call into the next
 * operator of a chain, a fan-out to several consumers, and the operator's
 * output with its side outputs.
 */
import type { Operator, Output } from '../../core/operator.js';
import type { OutputTag } from '../../core/output-tag.js';
import type { RecordBatch } from '../../core/record-batch.js';

/** Output that feeds the next operator of a chain directly. */
export class ChainedOutput<T> implements Output<T> {
  constructor(private readonly next: Operator<T, unknown>) {}

  emit(batch: RecordBatch<T>): void {
    if (batch.values.length > 0) this.next.processBatch(batch);
  }
  emitWatermark(time: number): void {
    this.next.processWatermark(time);
  }
  emitIdle(): void {
    this.next.processIdle();
  }
  emitSide(): void {
    throw new Error('side outputs are routed by OperatorOutput, not by a chained input');
  }
  end(): void {
    this.next.endInput();
    this.next.endOutput();
  }
}

/** Sends everything to several consumers of the same stream. Batches are shared, never mutated. */
export class FanOutOutput<T> implements Output<T> {
  constructor(private readonly targets: readonly Output<T>[]) {}
  emit(batch: RecordBatch<T>): void {
    for (const t of this.targets) t.emit(batch);
  }
  emitWatermark(time: number): void {
    for (const t of this.targets) t.emitWatermark(time);
  }
  emitIdle(): void {
    for (const t of this.targets) t.emitIdle();
  }
  emitSide(): void {
    throw new Error('side outputs are routed by OperatorOutput');
  }
  end(): void {
    for (const t of this.targets) t.end();
  }
}

/** A stream nobody consumes (for example a side output without readers): records vanish by request. */
export const DISCARDING_OUTPUT: Output<unknown> = {
  emit() {},
  emitWatermark() {},
  emitIdle() {},
  emitSide() {},
  end() {},
};

/**
 * The output handed to an operator: its main stream plus the side outputs
 * that have consumers. Watermarks, idleness and end-of-input reach all of them,
 * because side-output consumers need event time to advance too.
 */
export class OperatorOutput<T> implements Output<T> {
  constructor(
    private readonly main: Output<T>,
    private readonly sides: ReadonlyMap<string, Output<unknown>>,
  ) {}

  emit(batch: RecordBatch<T>): void {
    this.main.emit(batch);
  }
  emitWatermark(time: number): void {
    this.main.emitWatermark(time);
    for (const side of this.sides.values()) side.emitWatermark(time);
  }
  emitIdle(): void {
    this.main.emitIdle();
    for (const side of this.sides.values()) side.emitIdle();
  }
  emitSide<S>(tag: OutputTag<S>, batch: RecordBatch<S>): void {
    const side = this.sides.get(tag.id);
    if (side !== undefined && batch.values.length > 0) side.emit(batch);
  }
  end(): void {
    this.main.end();
    for (const side of this.sides.values()) side.end();
  }
}
