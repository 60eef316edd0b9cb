import { describeRecord, userFunctionFailed, WeirError } from '../../../core/errors.js';
import type {
  KeyedProcessFunction,
  KeyedTimerService,
  OnTimerContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import { MIN_WATERMARK } from '../../../core/messages.js';
import { Operator, type SnapshotContext } from '../../../core/operator.js';
import type { OutputTag } from '../../../core/output-tag.js';
import {
  type QueryableState,
  type StateQueryAnswer,
  stateAnswer,
} from '../../../core/queryable-state.js';
import { NO_TIMESTAMP, type RecordBatch } from '../../../core/record-batch.js';
import type { OperatorSnapshot, RestoredState } from '../../../core/snapshot.js';
import type { MapState } from '../../../core/state.js';
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import { KeyedTimerQueue } from '../../task/timers.js';
import {
  keyedSnapshotWithWatermark,
  restoredTimeProgress,
} from '../../windowing/window-snapshot.js';
import { Emitter } from '../basic/emitter.js';
import { operatorKeyedBackend } from './disk-keyed-backend.js';

export interface MutableContext<K extends Key> extends OnTimerContext<K> {
  timestamp: number;
  key: K;
  timeDomain: 'event-time' | 'processing-time';
}

/** Internal states that hold each key's timers, so they are checkpointed with the key's state. */
const EVENT_TIMERS = '__weir.event-timers';
const PROCESSING_TIMERS = '__weir.processing-timers';

/**
 * Runs a keyed process function: per-key state and per-key timers. Event-time
 * timers fire when the watermark passes them (all of them at end of input),
 * before the watermark is forwarded; processing-time timers fire from the
 * wall clock. State lives in the configured keyed state backend; timers are
 * queued in memory and mirrored into that backend, so checkpoints hold them.
 */
export class KeyedProcessOperator<K extends Key, IN, OUT>
  extends Operator<IN, OUT>
  implements QueryableState
{
  private watermark = MIN_WATERMARK;
  protected emitter!: Emitter<OUT>;
  protected state!: KeyedStateBackend;
  private eventTimerState!: MapState<number, boolean>;
  private processingTimerState!: MapState<number, boolean>;
  private readonly eventTimers = new KeyedTimerQueue<Key, 0>();
  private readonly processingTimers = new KeyedTimerQueue<Key, 0>();
  private readonly scheduledProcessingTimes = new Set<number>();
  protected readonly fn: KeyedProcessFunction<K, IN, OUT>;
  protected readonly ctx: MutableContext<K>;
  private restored: RestoredState | undefined;

  constructor(fn: KeyedProcessFunction<K, IN, OUT>) {
    super();
    this.fn = Object.create(fn) as KeyedProcessFunction<K, IN, OUT>;
    const timerService: KeyedTimerService = {
      currentWatermark: () => this.watermark,
      currentProcessingTime: () => this.context.processingTime.clock.now(),
      registerEventTimeTimer: (time) => {
        this.eventTimers.register(time, this.ctx.key, 0);
        this.eventTimerState.put(time, true);
      },
      deleteEventTimeTimer: (time) => {
        this.eventTimers.delete(time, this.ctx.key, 0);
        this.eventTimerState.remove(time);
      },
      registerProcessingTimeTimer: (time) => {
        this.registerProcessingTimer(time, this.ctx.key);
        this.processingTimerState.put(time, true);
      },
      deleteProcessingTimeTimer: (time) => {
        this.processingTimers.delete(time, this.ctx.key, 0);
        this.processingTimerState.remove(time);
      },
    };
    this.ctx = {
      timestamp: 0,
      key: undefined as unknown as K,
      timeDomain: 'event-time',
      timerService,
      output: <S>(tag: OutputTag<S>, value: S) => this.emitter.side(tag, value),
    };
  }

  /**
   * The key's values of the value states the function declared `queryable`, by name (the
   * states the key has no value in left out). Between two steps of the task, so never
   * half-way through a record.
   */
  queryState(key: Key): StateQueryAnswer {
    // Undefined until the operator opens.
    const backend = this.state as KeyedStateBackend | undefined;
    const states = backend?.queryableValueStates;
    if (backend === undefined || states === undefined || states.size === 0)
      return { kind: 'not-queryable' };
    const previous = backend.currentKey;
    backend.currentKey = key;
    try {
      const values: Record<string, unknown> = {};
      let found = false;
      for (const [name, state] of states.entries()) {
        const value = state.value();
        if (value === undefined) continue;
        values[name] = value;
        found = true;
      }
      return found ? stateAnswer(values, this.context.operatorId, key) : { kind: 'absent' };
    } finally {
      backend.currentKey = previous;
    }
  }

  override initializeState(state: RestoredState): void {
    this.restored = state;
    const progress = restoredTimeProgress(
      state,
      this.context.subtaskIndex,
      this.context.parallelism,
    );
    if (progress !== undefined) this.watermark = progress.watermark;
  }

  override open(): void {
    this.emitter = new Emitter(this.output);
    this.state = operatorKeyedBackend(this.context);
    if (this.restored !== undefined) this.state.restore(this.restored);
    this.eventTimerState = this.state.getMapState<number, boolean>(EVENT_TIMERS);
    this.processingTimerState = this.state.getMapState<number, boolean>(PROCESSING_TIMERS);
    if (this.restored !== undefined) this.rebuildTimers();
    this.restored = undefined;
    this.context.metrics.gauge('weir_state_entries', 'Keyed state entries held', () =>
      this.state.entryCount(),
    );
    const state = this.state;
    if (state.storedBytes !== undefined) {
      this.context.metrics.gauge(
        'weir_state_bytes',
        'Bytes of keyed state held on disk',
        () => state.storedBytes?.() ?? 0,
      );
    }
    this.context.metrics.gauge(
      'weir_timers_pending',
      'Timers registered and not yet fired',
      () => this.eventTimers.size + this.processingTimers.size,
    );
    this.fn.open?.({
      operatorId: this.context.operatorId,
      subtaskIndex: this.context.subtaskIndex,
      parallelism: this.context.parallelism,
      state: this.state,
      metrics: this.context.metrics,
    });
  }

  /** After a restore, the timer queues are rebuilt from the timers kept in state. */
  private rebuildTimers(): void {
    const keys: Key[] = [];
    this.state.forEachKeyAndNamespace(EVENT_TIMERS, (key) => keys.push(key));
    for (const key of keys) {
      this.state.currentKey = key;
      for (const [time] of this.eventTimerState.entries()) this.eventTimers.register(time, key, 0);
    }
    keys.length = 0;
    this.state.forEachKeyAndNamespace(PROCESSING_TIMERS, (key) => keys.push(key));
    for (const key of keys) {
      this.state.currentKey = key;
      for (const [time] of this.processingTimerState.entries())
        this.registerProcessingTimer(time, key);
    }
    this.state.currentKey = undefined;
  }

  processBatch(batch: RecordBatch<IN>): void {
    const { values, timestamps, keys } = batch;
    if (keys === undefined) throw missingKeys(this.context.operatorId);
    const { emitter, ctx, state } = this;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const key = keys[i] as K;
        state.currentKey = key;
        ctx.key = key;
        ctx.timestamp = emitter.timestamp = timestamps[i]!;
        this.fn.processElement(values[i] as IN, ctx, emitter);
      }
    } catch (cause) {
      if (cause instanceof WeirError && cause.code !== 'USER_FUNCTION_FAILED') throw cause;
      throw userFunctionFailed(this.context.operatorId, 'process function', values[i], cause);
    }
    state.currentKey = undefined;
    emitter.flush();
  }

  override processWatermark(time: number): void {
    // After a restore the inputs may repeat older watermarks: only advances count.
    if (time <= this.watermark) return;
    this.watermark = time;
    this.ctx.timeDomain = 'event-time';
    this.eventTimers.fireUpTo(time, (t, key) => {
      this.state.currentKey = key;
      this.eventTimerState.remove(t);
      this.fireTimer(t, key, t);
    });
    this.state.currentKey = undefined;
    this.emitter.flush();
    this.output.emitWatermark(time);
  }

  private registerProcessingTimer(time: number, key: Key): void {
    this.processingTimers.register(time, key, 0);
    if (this.scheduledProcessingTimes.has(time)) return;
    this.scheduledProcessingTimes.add(time);
    this.context.processingTime.schedule(time, (now) => {
      this.scheduledProcessingTimes.delete(time);
      this.ctx.timeDomain = 'processing-time';
      this.processingTimers.fireUpTo(now, (t, k) => {
        this.state.currentKey = k;
        this.processingTimerState.remove(t);
        this.fireTimer(t, k, NO_TIMESTAMP);
      });
      this.state.currentKey = undefined;
      this.emitter.flush();
    });
  }

  private fireTimer(time: number, key: Key, outputTimestamp: number): void {
    const onTimer = this.fn.onTimer;
    if (onTimer === undefined) return;
    this.state.currentKey = key;
    this.ctx.key = key as K;
    this.ctx.timestamp = time;
    this.emitter.timestamp = outputTimestamp;
    try {
      onTimer.call(this.fn, time, this.ctx, this.emitter);
    } catch (cause) {
      throw userFunctionFailed(this.context.operatorId, `onTimer(${time})`, { key }, cause);
    }
  }

  /** Keyed state (with the timers) from the backend; the watermark as union state. */
  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    return keyedSnapshotWithWatermark(
      this.state,
      context,
      this.context.subtaskIndex,
      this.watermark,
    );
  }

  override notifyCheckpointComplete(checkpointId: number): void {
    this.state.notifyCheckpointComplete(checkpointId);
  }

  override close(): void {
    try {
      this.fn.close?.();
    } finally {
      this.state?.dispose();
    }
  }
}

export function missingKeys(operatorId: string): WeirError {
  return new WeirError(
    'INTERNAL',
    `operator '${operatorId}' received records without keys; keyed operators must follow keyBy`,
    { operatorId, domain: 'internal', record: describeRecord(undefined) },
  );
}
