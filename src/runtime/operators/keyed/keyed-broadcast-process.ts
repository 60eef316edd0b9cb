import type {
  KeyedBroadcastProcessFunction,
  KeyedProcessFunction,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { SnapshotContext } from '../../../core/operator.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { OperatorSnapshot, RestoredState } from '../../../core/snapshot.js';
import type { Emitter } from '../basic/emitter.js';
import { BroadcastInput } from '../broadcast-state.js';
import { KeyedProcessOperator } from './keyed-process.js';

/**
 * The broadcast state pattern: input 1 (broadcast to every subtask) updates
 * the broadcast state; input 0 (keyed) is processed like a keyed process
 * function that can read it. Keyed state, timers and their checkpoints are
 * the keyed process operator's; the broadcast state is checkpointed as union
 * state and every subtask restores the copy of one old subtask.
 */
export class KeyedBroadcastProcessOperator<
  K extends Key,
  IN,
  BC,
  OUT,
  BK extends Key,
  BV,
> extends KeyedProcessOperator<K, IN, OUT> {
  private readonly broadcast: BroadcastInput<BC, BK, BV>;

  constructor(fn: KeyedBroadcastProcessFunction<K, IN, BC, OUT, BK, BV>) {
    super(fn as unknown as KeyedProcessFunction<K, IN, OUT>);
    const broadcastFn = this.fn as unknown as KeyedBroadcastProcessFunction<K, IN, BC, OUT, BK, BV>;
    this.broadcast = BroadcastInput.attachedTo<BC, BK, BV>(
      this.ctx,
      (value, ctx, out) => broadcastFn.processBroadcastElement(value, ctx, out as never),
      () => this.emitter as Emitter<unknown>,
    );
  }

  override processSecondBatch(batch: RecordBatch<unknown>): void {
    this.broadcast.process(batch, this.context.operatorId);
  }

  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    return this.broadcast.state.snapshotInto(
      super.snapshotState(context),
      this.context.subtaskIndex,
    );
  }

  override initializeState(state: RestoredState): void {
    super.initializeState(this.broadcast.state.restoreFrom(state, this.context.subtaskIndex));
  }
}
