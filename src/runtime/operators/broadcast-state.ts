import { userFunctionFailed } from '../../core/errors.js';
import type {
  BroadcastElementContext,
  BroadcastState,
  Collector,
  TimerService,
} from '../../core/functions.js';
import type { Key } from '../../core/key-groups.js';
import type { OutputTag } from '../../core/output-tag.js';
import type { RecordBatch } from '../../core/record-batch.js';
import {
  decodeKey,
  encodeKey,
  type Json,
  type OperatorSnapshot,
  type RestoredState,
} from '../../core/snapshot.js';
import type { Emitter } from './basic/emitter.js';

/** A `Map` behind the broadcast-state interfaces: every subtask of the step holds the same copy. */
export class MapBroadcastState<BK extends Key, BV> implements BroadcastState<BK, BV> {
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

  /** `base` (the step's other state) with this copy added as union state, tagged by subtask. */
  snapshotInto(base: OperatorSnapshot | undefined, subtaskIndex: number): OperatorSnapshot {
    const entries: Json[] = [];
    for (const [k, v] of this.map) entries.push([encodeKey(k), v as Json]);
    return {
      ...base,
      union: [...(base?.union ?? []), { subtask: subtaskIndex, broadcast: entries }],
    };
  }

  /**
   * Takes this copy from `state` and returns the rest of it, for the step's other state.
   * Every old subtask held the same copy: that of the old subtask with this index, or the first.
   */
  restoreFrom(state: RestoredState, subtaskIndex: number): RestoredState {
    const copies = state.union.filter(
      (e): e is { subtask: number; broadcast: Json[] } =>
        typeof e === 'object' && e !== null && 'broadcast' in e,
    );
    const pick = copies.find((b) => b.subtask === subtaskIndex) ?? copies[0];
    for (const entry of pick?.broadcast ?? []) {
      const [k, v] = entry as [Json, Json];
      this.map.set(decodeKey(k) as BK, v as BV);
    }
    return { ...state, union: state.union.filter((e) => !copies.includes(e as never)) };
  }
}

/** The user's method for the broadcast input, as both broadcast operators call it. */
type BroadcastMethod<BC, BK extends Key, BV> = (
  value: BC,
  ctx: BroadcastElementContext<BK, BV>,
  out: Collector<unknown>,
) => void;

/**
 * The broadcast input of a broadcast process operator: the state every subtask holds a copy
 * of, and the context its records see. `emitter` and `timerService` are read per call, since
 * the operator creates its emitter when it opens.
 */
export class BroadcastInput<BC, BK extends Key, BV> {
  readonly state = new MapBroadcastState<BK, BV>();
  private readonly ctx: BroadcastElementContext<BK, BV> & { timestamp: number };

  constructor(
    private readonly method: BroadcastMethod<BC, BK, BV>,
    private readonly emitter: () => Emitter<unknown>,
    timerService: () => TimerService,
  ) {
    this.ctx = {
      timestamp: 0,
      broadcastState: this.state,
      output: <S>(tag: OutputTag<S>, value: S) => this.emitter().side(tag, value),
      currentWatermark: () => timerService().currentWatermark(),
      currentProcessingTime: () => timerService().currentProcessingTime(),
    };
  }

  /**
   * The broadcast input of an operator whose other input's context is `ctx`: that context
   * gains a read-only view of the broadcast state (`ctx.broadcastState`).
   */
  static attachedTo<BC, BK extends Key, BV>(
    ctx: { readonly timerService: TimerService },
    method: BroadcastMethod<BC, BK, BV>,
    emitter: () => Emitter<unknown>,
  ): BroadcastInput<BC, BK, BV> {
    const input = new BroadcastInput(method, emitter, () => ctx.timerService);
    Object.assign(ctx, { broadcastState: input.state });
    return input;
  }

  /** Runs a batch of the broadcast input through the user's method, each record with its timestamp. */
  process(batch: RecordBatch<unknown>, operatorId: string): void {
    const { values, timestamps } = batch;
    const { ctx, method } = this;
    const emitter = this.emitter();
    let i = 0;
    try {
      for (; i < values.length; i++) {
        ctx.timestamp = emitter.timestamp = timestamps[i]!;
        method(values[i] as BC, ctx, emitter);
      }
    } catch (cause) {
      throw userFunctionFailed(operatorId, 'processBroadcastElement', values[i], cause);
    }
    emitter.flush();
  }
}
