import type { Change, GroupResult } from '../../../core/changelog.js';
import { userFunctionFailed, WeirError } from '../../../core/errors.js';
import type { KeyedProcessFunction } from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import { MAX_WATERMARK } from '../../../core/messages.js';
import type { SnapshotContext } from '../../../core/operator.js';
import { batchOf, type RecordBatch } from '../../../core/record-batch.js';
import type { OperatorSnapshot } from '../../../core/snapshot.js';
import { KeyedProcessOperator } from '../keyed/keyed-process.js';
import { GroupBundle } from './group-bundle.js';
import {
  type UpdatingAggregateProcess,
  type UpdatingAggregateSpec,
  updatingAggregateFunction,
} from './updating-aggregate.js';

type GroupChange = Change<GroupResult<Key, unknown>>;

/**
 * An updating aggregation with Flink's mini-batch: rows fold into their group's accumulator as
 * they arrive, but each group is read from state once per bundle, and written back and its change
 * emitted once per bundle, when the bundle holds `size` rows, its
 * first row has waited `allowLatencyMs` of processing time, a checkpoint barrier passes
 * (before the snapshot, so a restored job has emitted every change its state holds) or the
 * input ends. Watermarks wait for the bundle.
 */
export class MiniBatchAggregateOperator extends KeyedProcessOperator<Key, unknown, GroupChange> {
  private readonly bundle: GroupBundle<Key, unknown, unknown>;
  /** The process function (the operator's own instance of it), which writes a group's state. */
  private readonly process: UpdatingAggregateProcess<Key, unknown, unknown, unknown>;
  private readonly allowLatencyMs: number;
  /** Rows per bundle. */
  private readonly size: number;
  /** The input holds inserts only (not `Change` records). */
  private readonly insertOnly: boolean;
  private cancelTimer: (() => void) | undefined;
  /** The newest watermark that arrived while the bundle was open. */
  private heldWatermark: number | undefined;

  constructor(spec: UpdatingAggregateSpec<unknown, unknown, unknown>) {
    const miniBatch = spec.miniBatch;
    if (miniBatch === undefined) throw new Error('MiniBatchAggregateOperator needs miniBatch');
    const bundle = new GroupBundle<Key, unknown, unknown>(
      spec.fn,
      spec.mode,
      miniBatch.size,
      spec.ttl !== undefined,
    );
    super(
      updatingAggregateFunction<Key, unknown, unknown, unknown>(
        spec,
        bundle,
      ) as KeyedProcessFunction<Key, unknown, GroupChange>,
    );
    this.process = this.fn as UpdatingAggregateProcess<Key, unknown, unknown, unknown>;
    this.bundle = bundle;
    this.allowLatencyMs = miniBatch.allowLatencyMs;
    this.size = miniBatch.size;
    this.insertOnly = !spec.changelogInput;
  }

  override processBatch(batch: RecordBatch<unknown>): void {
    // A bundle ends at its `size`-th row, as Flink's count trigger ends it, even within a batch:
    // the rows after it start the next bundle, whose changes follow.
    const { values, timestamps, keys } = batch;
    for (let from = 0; from < values.length; ) {
      const to = Math.min(values.length, from + Math.max(1, this.size - this.bundle.rowCount));
      const part =
        from === 0 && to === values.length
          ? batch
          : batchOf(values.slice(from, to), timestamps.slice(from, to), keys?.slice(from, to));
      const wasEmpty = this.bundle.rowCount === 0;
      if (this.insertOnly) this.foldInserts(part);
      else super.processBatch(part);
      if (this.bundle.full) this.flushBundle();
      else if (wasEmpty && this.bundle.rowCount > 0) this.scheduleFlush();
      from = to;
    }
  }

  /**
   * Inserts fold straight into the bundle: the process function's per-row path (its context, a
   * bundle lookup and a note per row) is for changelog rows, which may also retract.
   */
  private foldInserts(batch: RecordBatch<unknown>): void {
    const { values, timestamps, keys } = batch;
    if (keys === undefined) {
      super.processBatch(batch);
      return;
    }
    const { bundle, readGroup } = this;
    let i = 0;
    try {
      for (; i < values.length; i++)
        bundle.add(keys[i] as Key, values[i], timestamps[i] as number, readGroup);
    } catch (cause) {
      if (cause instanceof WeirError && cause.code !== 'USER_FUNCTION_FAILED') throw cause;
      throw userFunctionFailed(this.context.operatorId, 'process function', values[i], cause);
    } finally {
      this.state.currentKey = undefined;
    }
  }

  /** A group's state, read at its first row of a bundle. */
  private readonly readGroup = (key: Key): { acc: unknown; n: number } | undefined => {
    this.state.currentKey = key;
    return this.process.readGroup();
  };

  /**
   * A watermark waits with the open bundle (as Flink's mini-batch holds watermarks back to
   * its bundle boundaries), so that the bundle's changes still come before it; flushing at
   * every watermark would emit nearly a change per row again. The end of input's passes.
   */
  override processWatermark(time: number): void {
    if (this.bundle.rowCount === 0 || time === MAX_WATERMARK) {
      this.flushBundle();
      super.processWatermark(time);
    } else this.heldWatermark = time;
  }

  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    this.flushBundle();
    return super.snapshotState(context);
  }

  override endInput(): void {
    this.flushBundle();
    super.endInput();
  }

  override close(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    super.close();
  }

  /** Emits the bundle's changes now, then the watermark held back with them. */
  private flushBundle(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.bundle.rowCount === 0) return;
    const { emitter, state, process } = this;
    this.bundle.flush(
      (change, timestamp) => {
        emitter.timestamp = timestamp;
        emitter.collect(change);
      },
      (key, acc, n) => {
        state.currentKey = key;
        process.storeGroup(acc, n);
      },
    );
    state.currentKey = undefined;
    emitter.flush();
    const held = this.heldWatermark;
    this.heldWatermark = undefined;
    if (held !== undefined) super.processWatermark(held);
  }

  /** A bundle's first row waits at most `allowLatencyMs` for its change. */
  private scheduleFlush(): void {
    const at = this.context.processingTime.clock.now() + this.allowLatencyMs;
    this.cancelTimer = this.context.processingTime.schedule(at, () => {
      this.cancelTimer = undefined;
      this.flushBundle();
    });
  }
}
