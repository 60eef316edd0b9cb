import type {
  KeyedProcessFunction,
  KeyedTimerService,
  OnTimerContext,
} from '../../api/functions.js';
import type { OutputTag } from '../../api/output-tag.js';
import { describeRecord, userFunctionFailed, WeirError } from '../../errors.js';
import { HeapKeyedStateBackend } from '../../state/heap-keyed-state.js';
import type { Key } from '../key-groups.js';
import { MIN_WATERMARK } from '../messages.js';
import { Operator } from '../operator.js';
import { NO_TIMESTAMP, type RecordBatch } from '../record-batch.js';
import { KeyedTimerQueue } from '../timers.js';
import { Emitter } from './emitter.js';

interface MutableContext<K extends Key> extends OnTimerContext<K> {
  timestamp: number;
  key: K;
  timeDomain: 'event-time' | 'processing-time';
}

/**
 * Runs a keyed process function: per-key state and per-key timers. Event-time
 * timers fire when the watermark passes them (all of them at end of input),
 * before the watermark is forwarded; processing-time timers fire from the
 * wall clock.
 */
export class KeyedProcessOperator<K extends Key, IN, OUT> extends Operator<IN, OUT> {
  private watermark = MIN_WATERMARK;
  private emitter!: Emitter<OUT>;
  private state!: HeapKeyedStateBackend;
  private readonly eventTimers = new KeyedTimerQueue<Key, 0>();
  private readonly processingTimers = new KeyedTimerQueue<Key, 0>();
  private readonly scheduledProcessingTimes = new Set<number>();
  private readonly fn: KeyedProcessFunction<K, IN, OUT>;
  private readonly ctx: MutableContext<K>;

  constructor(fn: KeyedProcessFunction<K, IN, OUT>) {
    super();
    this.fn = Object.create(fn) as KeyedProcessFunction<K, IN, OUT>;
    const timerService: KeyedTimerService = {
      currentWatermark: () => this.watermark,
      currentProcessingTime: () => this.context.processingTime.clock.now(),
      registerEventTimeTimer: (time) => this.eventTimers.register(time, this.ctx.key, 0),
      deleteEventTimeTimer: (time) => this.eventTimers.delete(time, this.ctx.key, 0),
      registerProcessingTimeTimer: (time) => this.registerProcessingTimer(time),
      deleteProcessingTimeTimer: (time) => this.processingTimers.delete(time, this.ctx.key, 0),
    };
    this.ctx = {
      timestamp: 0,
      key: undefined as unknown as K,
      timeDomain: 'event-time',
      timerService,
      output: <S>(tag: OutputTag<S>, value: S) => this.emitter.side(tag, value),
    };
  }

  override open(): void {
    this.emitter = new Emitter(this.output);
    this.state = new HeapKeyedStateBackend(this.context.operatorId);
    this.context.metrics.gauge('weir_state_entries', 'Keyed state entries held', () =>
      this.state.entryCount(),
    );
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
    });
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
      throw userFunctionFailed(this.context.operatorId, 'process function', values[i], cause);
    }
    state.currentKey = undefined;
    emitter.flush();
  }

  override processWatermark(time: number): void {
    this.watermark = time;
    this.ctx.timeDomain = 'event-time';
    this.eventTimers.fireUpTo(time, (t, key) => this.fireTimer(t, key, t));
    this.state.currentKey = undefined;
    this.emitter.flush();
    this.output.emitWatermark(time);
  }

  private registerProcessingTimer(time: number): void {
    this.processingTimers.register(time, this.ctx.key, 0);
    if (this.scheduledProcessingTimes.has(time)) return;
    this.scheduledProcessingTimes.add(time);
    this.context.processingTime.schedule(time, (now) => {
      this.scheduledProcessingTimes.delete(time);
      this.ctx.timeDomain = 'processing-time';
      this.processingTimers.fireUpTo(now, (t, key) => this.fireTimer(t, key, NO_TIMESTAMP));
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

  override close(): void {
    this.fn.close?.();
  }
}

export function missingKeys(operatorId: string): WeirError {
  return new WeirError(
    'INTERNAL',
    `operator '${operatorId}' received records without keys; keyed operators must follow keyBy`,
    { operatorId, domain: 'internal', record: describeRecord(undefined) },
  );
}
