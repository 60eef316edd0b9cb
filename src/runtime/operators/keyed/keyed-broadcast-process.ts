import { userFunctionFailed } from '../../../core/errors.js';
import type {
  BroadcastElementContext,
  BroadcastState,
  KeyedBroadcastProcessFunction,
  KeyedProcessFunction,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { SnapshotContext } from '../../../core/operator.js';
import type { OutputTag } from '../../../core/output-tag.js';
import type { RecordBatch } from '../../../core/record-batch.js';
import {
  decodeKey,
  encodeKey,
  type Json,
  type OperatorSnapshot,
  type RestoredState,
} from '../../../core/snapshot.js';
import { KeyedProcessOperator } from './keyed-process.js';

/** A `Map` behind the broadcast-state interfaces. */
class MapBroadcastState<BK extends Key, BV> implements BroadcastState<BK, BV> {
  readonly map = new Map<BK, BV>();
  get(key: BK): BV | undefined {
    return this.map.get(key);
  }
  has(key: BK): boolean {
    return this.map.has(key);
  }
  entries(): IterableIterator<[BK, BV]> {
    return this.map.entries();
  }
  get size(): number {
    return this.map.size;
  }
  put(key: BK, value: BV): void {
    this.map.set(key, value);
  }
  remove(key: BK): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
}

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
  private readonly broadcast = new MapBroadcastState<BK, BV>();
  private readonly broadcastFn: KeyedBroadcastProcessFunction<K, IN, BC, OUT, BK, BV>;
  private readonly broadcastCtx: BroadcastElementContext<BK, BV> & { timestamp: number };

  constructor(fn: KeyedBroadcastProcessFunction<K, IN, BC, OUT, BK, BV>) {
    super(fn as unknown as KeyedProcessFunction<K, IN, OUT>);
    // The keyed context gains a read-only view of the broadcast state.
    Object.assign(this.ctx, { broadcastState: this.broadcast });
    this.broadcastFn = this.fn as unknown as KeyedBroadcastProcessFunction<K, IN, BC, OUT, BK, BV>;
    this.broadcastCtx = {
      timestamp: 0,
      broadcastState: this.broadcast,
      output: <S>(tag: OutputTag<S>, value: S) => this.emitter.side(tag, value),
    };
  }

  override processSecondBatch(batch: RecordBatch<unknown>): void {
    const { values, timestamps } = batch;
    const emitter = this.emitter;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        this.broadcastCtx.timestamp = emitter.timestamp = timestamps[i]!;
        this.broadcastFn.processBroadcastElement(values[i] as BC, this.broadcastCtx, emitter);
      }
    } catch (cause) {
      throw userFunctionFailed(
        this.context.operatorId,
        'processBroadcastElement',
        values[i],
        cause,
      );
    }
    emitter.flush();
  }

  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    const base = super.snapshotState(context);
    const entries: Json[] = [];
    for (const [k, v] of this.broadcast.map) entries.push([encodeKey(k), v as Json]);
    return {
      ...base,
      union: [...(base.union ?? []), { subtask: this.context.subtaskIndex, broadcast: entries }],
    };
  }

  override initializeState(state: RestoredState): void {
    const broadcasts = state.union.filter(
      (e): e is { subtask: number; broadcast: Json[] } =>
        typeof e === 'object' && e !== null && 'broadcast' in e,
    );
    super.initializeState({
      ...state,
      union: state.union.filter((e) => !broadcasts.includes(e as never)),
    });
    // Every old subtask held the same copy; take the one of the old subtask with our index, or the first.
    const pick = broadcasts.find((b) => b.subtask === this.context.subtaskIndex) ?? broadcasts[0];
    for (const entry of pick?.broadcast ?? []) {
      const [k, v] = entry as [Json, Json];
      this.broadcast.map.set(decodeKey(k) as BK, v as BV);
    }
  }
}
