import type { OutputTag } from '../api/output-tag.js';
import type { MetricGroup } from '../metrics/registry.js';
import type { StateBackendOptions } from '../state/create-backend.js';
import type { OperatorSnapshot, RestoredState } from '../state/snapshot.js';
import type { Clock } from './clock.js';
import type { RecordBatch } from './record-batch.js';

/**
 * Where an operator sends what it produces. Calls are synchronous: the next
 * operator in the chain runs inside `emit`, and a task's exchange writer
 * enqueues onto bounded channels.
 */
export interface Output<T> {
  emit(batch: RecordBatch<T>): void;
  emitWatermark(time: number): void;
  /** The stream has no data for now; downstream excludes it from watermark merging. */
  emitIdle(): void;
  /** Routes records to a side output, or nowhere if no consumer asked for the tag. */
  emitSide<S>(tag: OutputTag<S>, batch: RecordBatch<S>): void;
  /** No more input will arrive: flush and propagate end-of-input. */
  end(): void;
}

/** Schedules callbacks in processing (wall-clock) time, on the operator's own thread. */
export interface ProcessingTimeService {
  readonly clock: Clock;
  /** Runs `callback(time)` once the clock reaches `time`. Returns a cancel handle. */
  schedule(time: number, callback: (time: number) => void): () => void;
}

/** Passed to {@link Operator.snapshotState}. */
export interface SnapshotContext {
  readonly checkpointId: number;
  /** Savepoints must be self-contained (no incremental references). */
  readonly kind: 'checkpoint' | 'savepoint';
  /** The key group of a key, for grouping keyed state. */
  keyGroupOf(key: import('./key-groups.js').Key): number;
}

/** What an operator learns about where it runs. */
export interface OperatorContext {
  readonly operatorId: string;
  readonly operatorName: string;
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly processingTime: ProcessingTimeService;
  readonly metrics: MetricGroup;
  /** Which keyed state backend stateful operators use (heap when undefined). */
  readonly stateBackend: StateBackendOptions | undefined;
  /** The job resumes from a checkpoint or savepoint (whether or not it held state of this operator). */
  readonly restored: boolean;
}

/**
 * A step of a task's chain. The runtime calls, in order: `setup`, `open`, then
 * any number of `processBatch` / `processWatermark` / `processIdle`, then
 * `endInput` once at end of bounded input (after the final watermark), then
 * `close`. All calls for one operator instance happen on one thread.
 */
export abstract class Operator<IN, OUT> {
  protected output!: Output<OUT>;
  protected context!: OperatorContext;

  setup(context: OperatorContext, output: Output<OUT>): void {
    this.context = context;
    this.output = output;
  }

  /**
   * Called before `open` when the job is restored from a checkpoint, with the
   * state this subtask owns now (key groups of its range, its share of list state).
   */
  initializeState(_state: RestoredState): void {}

  /**
   * Called between batches when a checkpoint barrier passes this operator.
   * Returns a copy of the operator's state as JSON data; the live state may
   * change right after.
   */
  snapshotState(_context: SnapshotContext): OperatorSnapshot | undefined {
    return undefined;
  }

  /** Checkpoint `checkpointId` is complete and durable: side effects tied to it may now be made visible. */
  notifyCheckpointComplete(_checkpointId: number): void | Promise<void> {}

  open(): void {}

  abstract processBatch(batch: RecordBatch<IN>): void;

  /** Records of the second input of a two-input operator. */
  processSecondBatch(_batch: RecordBatch<unknown>): void {
    throw new Error(`operator '${this.context.operatorId}' has a single input`);
  }

  processWatermark(time: number): void {
    this.output.emitWatermark(time);
  }

  processIdle(): void {
    this.output.emitIdle();
  }

  /** All input has arrived. Emit anything still held; `endOutput()` is called afterwards. */
  endInput(): void {}

  /** Propagates end-of-input downstream. */
  endOutput(): void {
    this.output.end();
  }

  /** Releases resources; sinks flush here. */
  close(): void | Promise<void> {}
}

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
