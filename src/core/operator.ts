import type { Clock } from './clock.js';
import type { Key } from './key-groups.js';
import type { MetricGroup } from './metrics.js';
import type { OutputTag } from './output-tag.js';
import type { RecordBatch } from './record-batch.js';
import type { OperatorSnapshot, RestoredState } from './snapshot.js';
import type { StateBackendOptions } from './state-backend.js';

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

/**
 * Something that can hold up its task for reasons of its own, such as a sink
 * still flushing: the task takes no input while `blocked()` returns a promise.
 */
export interface Blocking {
  /** A promise while blocked, undefined when free to proceed. */
  blocked(): Promise<void> | undefined;
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
  keyGroupOf(key: Key): number;
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

  /**
   * Two-input operators: the watermark of input `input` alone (the least over its channels)
   * advanced to `time` (right after the combined `processWatermark` this may have led to). An
   * operator that judges one input's records by that input's own event time reads it here.
   */
  processInputWatermark(_input: 0 | 1, _time: number): void {}

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
