import type { BroadcastProcessFunction, ProcessFunction } from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import type { OperatorSnapshot, RestoredState } from '../../../core/snapshot.js';
import { BroadcastInput } from '../broadcast-state.js';
import type { Emitter } from './emitter.js';
import { ProcessOperator } from './process.js';

/**
 * The broadcast state pattern without keys: input 1 (broadcast to every
 * subtask) updates the broadcast state; input 0 is processed like a process
 * function that can read it. Operator state, side outputs and the watermark
 * are the process operator's; the broadcast state is checkpointed as union
 * state and every subtask restores the copy of one old subtask.
 */
export class BroadcastProcessOperator<IN, BC, OUT, BK extends Key, BV> extends ProcessOperator<
  IN,
  OUT
> {
  private readonly broadcast: BroadcastInput<BC, BK, BV>;

  constructor(fn: BroadcastProcessFunction<IN, BC, OUT, BK, BV>) {
    super(fn as unknown as ProcessFunction<IN, OUT>);
    const broadcastFn = this.fn as unknown as BroadcastProcessFunction<IN, BC, OUT, BK, BV>;
    this.broadcast = BroadcastInput.attachedTo<BC, BK, BV>(
      this.ctx,
      (value, ctx, out) => broadcastFn.processBroadcastElement(value, ctx, out as never),
      () => this.emitter as Emitter<unknown>,
    );
  }

  override processSecondBatch(batch: RecordBatch<unknown>): void {
    this.broadcast.process(batch, this.context.operatorId);
  }

  override snapshotState(): OperatorSnapshot {
    return this.broadcast.state.snapshotInto(super.snapshotState(), this.context.subtaskIndex);
  }

  override initializeState(state: RestoredState): void {
    super.initializeState(this.broadcast.state.restoreFrom(state, this.context.subtaskIndex));
  }
}
