import type { Change, GroupResult } from '../../../core/changelog.js';
import type { KeyedProcessFunction } from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { SnapshotContext } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { OperatorSnapshot } from '../../../core/snapshot.js';
import { KeyedProcessOperator } from '../keyed/keyed-process.js';
import { GroupBundle } from './group-bundle.js';
import { type UpdatingAggregateSpec, updatingAggregateFunction } from './updating-aggregate.js';

type GroupChange = Change<GroupResult<Key, unknown>>;

/**
 * An updating aggregation with Flink's mini-batch: rows fold into state as they arrive, but
 * each group's change is emitted once per bundle, when the bundle holds `size` rows, its
 * first row has waited `allowLatencyMs` of processing time, a watermark passes (before it is
 * forwarded), a checkpoint barrier passes (before the snapshot, so a restored job has emitted
 * every change its state holds) or the input ends.
 */
export class MiniBatchAggregateOperator extends KeyedProcessOperator<Key, unknown, GroupChange> {
  private readonly bundle: GroupBundle<Key, unknown, unknown>;
  private readonly allowLatencyMs: number;
  private cancelTimer: (() => void) | undefined;

  constructor(spec: UpdatingAggregateSpec<unknown, unknown, unknown>) {
    const miniBatch = spec.miniBatch;
    if (miniBatch === undefined) throw new Error('MiniBatchAggregateOperator needs miniBatch');
    const bundle = new GroupBundle<Key, unknown, unknown>(spec.fn, spec.mode, miniBatch.size);
    super(
      updatingAggregateFunction<Key, unknown, unknown, unknown>(
        spec,
        bundle,
      ) as KeyedProcessFunction<Key, unknown, GroupChange>,
    );
    this.bundle = bundle;
    this.allowLatencyMs = miniBatch.allowLatencyMs;
  }

  override processBatch(batch: RecordBatch<unknown>): void {
    const wasEmpty = this.bundle.rowCount === 0;
    super.processBatch(batch);
    if (this.bundle.full) this.flushBundle();
    else if (wasEmpty && this.bundle.rowCount > 0) this.scheduleFlush();
  }

  override processWatermark(time: number): void {
    this.flushBundle();
    super.processWatermark(time);
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

  /** Emits the bundle's changes now. */
  private flushBundle(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.bundle.rowCount === 0) return;
    const emitter = this.emitter;
    this.bundle.flush((change, timestamp) => {
      emitter.timestamp = timestamp;
      emitter.collect(change);
    });
    emitter.flush();
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
