import type {
  MatchEvents,
  PatternProcessContext,
  PatternProcessFunction,
  PatternSpec,
} from '../../../core/cep.js';
import { userFunctionFailed, WeirError } from '../../../core/errors.js';
import type { Key } from '../../../core/key-groups.js';
import { MIN_WATERMARK } from '../../../core/messages.js';
import { Operator, type SnapshotContext } from '../../../core/operator.js';
import type { OutputTag } from '../../../core/output-tag.js';
import { NO_TIMESTAMP, type RecordBatch } from '../../../core/record-batch.js';
import type { OperatorSnapshot, RestoredState } from '../../../core/snapshot.js';
import type { StateSerializer, ValueState } from '../../../core/state.js';
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import { Serializers } from '../../../state/serializers.js';
import {
  keyedSnapshotWithWatermark,
  restoredTimeProgress,
} from '../../windowing/window-snapshot.js';
import { Emitter } from '../basic/emitter.js';
import { operatorKeyedBackend } from '../keyed/disk-keyed-backend.js';
import { missingKeys } from '../keyed/keyed-process.js';
import { DueQueue } from './due-queue.js';
import { compileNfa, type Nfa } from './nfa-compiler.js';
import { emptyKeyNfaState, isIdle, type KeyNfaState, NfaRunner } from './nfa-runner.js';
import { keyNfaStateSerializer } from './nfa-state-serializer.js';

/** Everything the CEP operator needs: the pattern, what to do with matches, and how time works. */
export interface CepOperatorSpec<T, OUT> {
  readonly pattern: PatternSpec<T>;
  readonly fn: PatternProcessFunction<T, OUT>;
  readonly timeDomain: 'event-time' | 'processing-time';
  /** Event time: records at or behind the watermark go here (they are counted either way). */
  readonly lateTag?: OutputTag<T>;
  /** Encodes events in checkpoints; default JSON. */
  readonly eventSerializer?: StateSerializer<T>;
}

/** Keyed state holding each key's NFA: partial matches, shared buffer, waiting events. */
export const NFA_STATE = '__weir.cep.nfa';

/** What one key's NFA state counts for in `weir_cep_buffered`. */
function heldEntries<T>(s: KeyNfaState<T>): number {
  return s.partial.length + s.completed.length + s.buffer.size + s.waitingTimes.length;
}

/**
 * Runs a pattern per key. Each key's NFA state (partial matches, shared
 * buffer, and in event time the records waiting for the watermark) is one
 * value in the keyed state backend, so it is checkpointed, restored and
 * rescaled by key group like any keyed state, on the heap or on disk; a key
 * with nothing pending holds no state.
 *
 * In event time, records wait until the watermark passes their timestamp,
 * then enter the NFA in timestamp order (records of one timestamp in arrival
 * order); then time advances to the watermark, timing out partial matches
 * older than the window. Which keys have work at which time is an in-memory
 * queue of hints, rebuilt from the state after a restore, so nothing but the
 * NFA state is written per record. In processing time, records enter the
 * NFA on arrival and timeouts follow the clock.
 */
export class CepOperator<T, OUT> extends Operator<T, OUT> {
  private watermark = MIN_WATERMARK;
  private emitter!: Emitter<OUT>;
  private state!: KeyedStateBackend;
  private nfaState!: ValueState<KeyNfaState<T>>;
  private runner!: NfaRunner<T>;
  private readonly nfa: Nfa<T>;
  private readonly eventTime: boolean;
  private readonly due = new DueQueue();
  private currentKey: Key = 0;
  private lateRecords = 0;
  /** What `ctx.timestamp` says: the time being processed (records emitted in processing time carry none). */
  private matchTime = 0;
  private buffered = 0;
  private scheduledAt = Number.POSITIVE_INFINITY;
  private restored: RestoredState | undefined;

  constructor(private readonly spec: CepOperatorSpec<T, OUT>) {
    super();
    this.nfa = compileNfa(spec.pattern);
    this.eventTime = spec.timeDomain === 'event-time';
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
    this.nfaState = this.state.getValueState<KeyNfaState<T>>({
      name: NFA_STATE,
      serializer: keyNfaStateSerializer(this.spec.eventSerializer ?? Serializers.json<T>()),
    });
    this.runner = this.createRunner();
    if (this.restored !== undefined) this.rebuildDueQueue();
    this.restored = undefined;
    this.registerMetrics();
  }

  private createRunner(): NfaRunner<T> {
    const { fn } = this.spec;
    const emitter = this.emitter;
    const clock = this.context.processingTime.clock;
    const self = this;
    const ctx: PatternProcessContext = {
      get timestamp() {
        return self.matchTime;
      },
      currentProcessingTime: () => clock.now(),
      output: <S>(tag: OutputTag<S>, value: S) => emitter.side(tag, value),
    };
    const within = this.nfa.withinMs;
    return new NfaRunner(this.nfa, this.spec.pattern.skip, {
      match: (events: MatchEvents<T>) => fn.processMatch(events, ctx, emitter),
      timedOut: (events: MatchEvents<T>, timeoutTimestamp: number) => {
        if (fn.processTimedOutMatch === undefined) return;
        const saved = [emitter.timestamp, this.matchTime] as const;
        emitter.timestamp = this.eventTime ? timeoutTimestamp : NO_TIMESTAMP;
        this.matchTime = timeoutTimestamp;
        fn.processTimedOutMatch(events, ctx);
        [emitter.timestamp, this.matchTime] = saved;
      },
      started: (startTs: number) => {
        if (within > 0) this.schedule(startTs + within, this.currentKey);
      },
    });
  }

  private registerMetrics(): void {
    const metrics = this.context.metrics;
    metrics.gauge('weir_state_entries', 'Keyed state entries held', () => this.state.entryCount());
    const state = this.state;
    if (state.storedBytes !== undefined) {
      metrics.gauge(
        'weir_state_bytes',
        'Bytes of keyed state held on disk',
        () => state.storedBytes?.() ?? 0,
      );
    }
    metrics.counterFrom(
      'weir_cep_late_records_total',
      'Records at or behind the watermark, not matched',
      () => this.lateRecords,
    );
    metrics.gauge(
      'weir_cep_buffered',
      'Partial and held matches, shared-buffer events and nodes, and records waiting for the watermark, over all keys',
      () => this.buffered,
    );
  }

  /** After a restore: every key with state gets its next due time, and the gauge its total. */
  private rebuildDueQueue(): void {
    const keys: Key[] = [];
    this.state.forEachKeyAndNamespace(NFA_STATE, (key) => keys.push(key));
    for (const key of keys) {
      this.state.currentKey = key;
      const s = this.nfaState.value();
      if (s === undefined) continue;
      this.buffered += heldEntries(s);
      this.schedule(this.nextDue(s), key);
    }
    this.state.currentKey = undefined;
  }

  /** The earliest time the key has work: a waiting record, or a partial match's timeout. */
  private nextDue(s: KeyNfaState<T>): number {
    let next = Number.POSITIVE_INFINITY;
    for (const ts of s.waitingTimes) if (ts < next) next = ts;
    const within = this.nfa.withinMs;
    if (within > 0) {
      for (const pm of s.partial) if (pm.startTs + within < next) next = pm.startTs + within;
    }
    return next;
  }

  private schedule(time: number, key: Key): void {
    if (time === Number.POSITIVE_INFINITY) return;
    this.due.push(time, key);
    if (!this.eventTime) this.scheduleClock(time);
  }

  /** Processing time: one clock callback at the earliest due time. */
  private scheduleClock(time: number): void {
    if (time >= this.scheduledAt) return;
    this.scheduledAt = time;
    this.context.processingTime.schedule(time, (now) => {
      if (this.scheduledAt <= now) this.scheduledAt = Number.POSITIVE_INFINITY;
      this.fireDue(now);
      this.emitter.flush();
      const next = this.due.peekTime();
      if (next !== Number.POSITIVE_INFINITY) this.scheduleClock(next);
    });
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, timestamps, keys } = batch;
    if (keys === undefined) throw missingKeys(this.context.operatorId);
    const { state, emitter } = this;
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const key = keys[i] as Key;
        state.currentKey = key;
        this.currentKey = key;
        if (this.eventTime) this.buffer(values[i] as T, timestamps[i]!, key);
        else this.processNow(values[i] as T);
      }
    } catch (cause) {
      throw this.failure(cause, values[i]);
    }
    state.currentKey = undefined;
    emitter.flush();
  }

  /** Event time: the record waits in the key's state for the watermark (or is late). */
  private buffer(value: T, ts: number, key: Key): void {
    if (ts <= this.watermark) {
      this.lateRecords++;
      if (this.spec.lateTag !== undefined) this.emitter.side(this.spec.lateTag, value, ts);
      return;
    }
    const s = this.nfaState.value() ?? emptyKeyNfaState<T>();
    // A hint is needed only if the key had nothing due as early.
    if (ts < this.nextDue(s)) this.schedule(ts, key);
    s.waitingTimes.push(ts);
    s.waitingRecords.push(value);
    this.buffered++;
    this.nfaState.update(s);
  }

  /** Processing time: the record enters the NFA now. */
  private processNow(value: T): void {
    const now = this.context.processingTime.clock.now();
    const s = this.nfaState.value() ?? emptyKeyNfaState<T>();
    const before = heldEntries(s);
    this.emitter.timestamp = NO_TIMESTAMP;
    this.matchTime = now;
    this.runner.advanceTime(s, now);
    this.runner.process(s, value, now);
    this.save(s, before);
  }

  override processWatermark(time: number): void {
    // After a restore the inputs may repeat older watermarks: only advances count.
    if (time <= this.watermark) return;
    this.watermark = time;
    try {
      this.fireDue(time);
    } catch (cause) {
      throw this.failure(cause, { key: this.currentKey });
    }
    this.state.currentKey = undefined;
    this.emitter.flush();
    this.output.emitWatermark(time);
  }

  /** Runs every key with work due at or before `limit` (the watermark, or the clock). */
  private fireDue(limit: number): void {
    const { due, state, runner, emitter } = this;
    while (due.size > 0 && due.peekTime() <= limit) {
      const key = due.pop();
      state.currentKey = key;
      this.currentKey = key;
      const s = this.nfaState.value();
      if (s === undefined || this.nextDue(s) > limit) continue;
      const before = heldEntries(s);
      if (this.eventTime) {
        this.release(s, limit);
        emitter.timestamp = limit;
      } else {
        emitter.timestamp = NO_TIMESTAMP;
      }
      this.matchTime = limit;
      runner.advanceTime(s, limit);
      this.save(s, before);
      this.schedule(this.nextDue(s), key);
    }
  }

  /**
   * Feeds the waiting records at or before `limit` to the NFA in timestamp
   * order (a stable sort keeps arrival order within a timestamp), advancing
   * time to each timestamp first.
   */
  private release(s: KeyNfaState<T>, limit: number): void {
    const times = s.waitingTimes;
    const records = s.waitingRecords;
    let order: number[] = [];
    const keptTimes: number[] = [];
    const keptRecords: T[] = [];
    for (let i = 0; i < times.length; i++) {
      if (times[i]! <= limit) order.push(i);
      else {
        keptTimes.push(times[i]!);
        keptRecords.push(records[i]!);
      }
    }
    if (order.length === 0) return;
    if (order.length > 1) order = order.sort((a, b) => times[a]! - times[b]! || a - b);
    s.waitingTimes = keptTimes;
    s.waitingRecords = keptRecords;
    const { runner, emitter } = this;
    let current = Number.NaN;
    for (const i of order) {
      const ts = times[i]!;
      if (ts !== current) {
        current = ts;
        emitter.timestamp = this.matchTime = ts;
        runner.advanceTime(s, ts);
      }
      runner.process(s, records[i]!, ts);
    }
  }

  /** Idle keys hold no state at all, so keys that stopped matching cost nothing. */
  private save(s: KeyNfaState<T>, before: number): void {
    if (isIdle(s)) {
      this.nfaState.clear();
      this.buffered -= before;
      return;
    }
    this.nfaState.update(s);
    this.buffered += heldEntries(s) - before;
  }

  private failure(cause: unknown, record: unknown): unknown {
    if (cause instanceof WeirError && cause.code !== 'USER_FUNCTION_FAILED') return cause;
    return userFunctionFailed(this.context.operatorId, 'pattern', record, cause);
  }

  /** Keyed state from the backend; the watermark as union state. */
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
    this.state?.dispose();
  }

  /** Partial matches, buffer entries and waiting records over all keys (the `weir_cep_buffered` gauge). */
  bufferedTotal(): number {
    return this.buffered;
  }
}
