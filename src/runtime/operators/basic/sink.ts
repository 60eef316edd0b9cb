import { WeirError } from '../../../core/errors.js';
import { type Blocking, Operator, type SnapshotContext } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import {
  isTwoPhaseCommit,
  type Sink,
  type SinkWriter,
  type TwoPhaseCommitWriter,
} from '../../../core/sink.js';
import type { Json, OperatorSnapshot, RestoredState } from '../../../core/snapshot.js';

/**
 * Hands batches to a sink's writer; holds the task while the writer is
 * flushing. For two-phase-commit writers it drives the protocol: pre-commit
 * at each barrier, commit when the checkpoint completes, recover on restore.
 * Committables not yet committed are kept in the operator's state, so a
 * restore commits exactly what the restored checkpoint covered.
 */
export class SinkOperator<T> extends Operator<T, never> implements Blocking {
  private writer!: SinkWriter<T>;
  private transactional: TwoPhaseCommitWriter<T> | undefined;
  /** Committables by checkpoint id, oldest first, not yet committed. */
  private readonly pending: { id: number; committable: Json }[] = [];
  private toRecover: readonly Json[] = [];
  private recovery: Promise<void> | undefined;

  constructor(readonly sink: Sink<T>) {
    super();
  }

  override initializeState(state: RestoredState): void {
    this.toRecover = state.union;
  }

  override open(): void {
    this.writer = this.sink.createWriter({
      subtaskIndex: this.context.subtaskIndex,
      parallelism: this.context.parallelism,
      operatorId: this.context.operatorId,
      metrics: this.context.metrics,
    });
    if (isTwoPhaseCommit(this.writer)) {
      this.transactional = this.writer;
      // The restored checkpoint completed, so what it holds must become
      // visible (again, if it already was); leftovers of later attempts go.
      this.recovery = Promise.resolve(this.writer.recover(this.toRecover)).finally(() => {
        this.recovery = undefined;
      });
    }
  }

  processBatch(batch: RecordBatch<T>): void {
    try {
      this.writer.write(batch);
    } catch (cause) {
      if (cause instanceof WeirError) throw cause;
      throw new WeirError(
        'SINK_FAILED',
        `sink '${this.context.operatorId}' failed to write: ${cause instanceof Error ? cause.message : String(cause)}`,
        { operatorId: this.context.operatorId, cause, domain: 'external' },
      );
    }
  }

  // Watermarks end here, unless the writer carries them on to another process.
  override processWatermark(time: number): void {
    this.writer.writeWatermark?.(time);
  }
  override processIdle(): void {
    this.writer.writeIdle?.();
  }

  override snapshotState(context: SnapshotContext): OperatorSnapshot | undefined {
    const writer = this.transactional;
    if (writer === undefined) return undefined;
    this.pending.push({
      id: context.checkpointId,
      committable: writer.preCommit(context.checkpointId),
    });
    // Union state: on restore every subtask sees every committable and the
    // writer decides which it owns, so rescaling never splits a transaction.
    return { union: this.pending.map((p) => p.committable) };
  }

  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    const writer = this.transactional;
    if (writer === undefined) return;
    let n = 0;
    while (n < this.pending.length && this.pending[n]!.id <= checkpointId) n++;
    if (n === 0) return;
    const ready = this.pending.slice(0, n).map((p) => p.committable);
    await writer.commit(ready);
    this.pending.splice(0, n);
  }

  blocked(): Promise<void> | undefined {
    return this.recovery ?? this.writer?.blocked?.();
  }

  override async close(): Promise<void> {
    await this.recovery;
    await this.writer?.close();
  }
}
