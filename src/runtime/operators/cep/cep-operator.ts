import type {
  EventComparator,
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
import { EventTimeQueue } from './event-time-queue.js';
import {
  type KeyStateColumns,
  KS_BUFFER,
  KS_COMPLETED,
  KS_COUNT,
  KS_FIRST,
} from './key-state-columns.js';
import { compileNfa, type Nfa } from './nfa-compiler.js';
import {
  dropWaiting,
  emptyKeyNfaState,
  isIdle,
  type KeyNfaState,
  NfaRunner,
} from './nfa-runner.js';
import { keyNfaStateSerializer } from './nfa-state-serializer.js';
import { NfaWorkingSet, SCRATCH_SLOT } from './nfa-working-set.js';
import { NO_MATCH } from './partial-match-rows.js';
import { NO_NODE } from './shared-buffer.js';

/** Everything the CEP operator needs: the pattern, what to do with matches, and how time works. */
export interface CepOperatorSpec<T, OUT> {
  readonly pattern: PatternSpec<T>;
  readonly fn: PatternProcessFunction<T, OUT>;
  readonly timeDomain: 'event-time' | 'processing-time';
  /** Event time: records at or behind the watermark go here (they are counted either way). */
  readonly lateTag?: OutputTag<T>;
  /** Orders records of one timestamp before they enter the NFA; default: arrival order. */
  readonly comparator?: EventComparator<T>;
  /** Encodes events in checkpoints; default JSON. */
  readonly eventSerializer?: StateSerializer<T>;
}

/** Keyed state holding each key's NFA: partial matches, shared buffer, waiting events. */
export const NFA_STATE = '__weir.cep.nfa';

/** Records released and warmed together. */
const CHUNK = 64;

/** What one key's NFA state counts for in `weir_cep_buffered` (waiting records are counted apart). */
function heldEntries(columns: KeyStateColumns, slot: number): number {
  return (
    columns.get(slot, KS_COUNT) + columns.get(slot, KS_COMPLETED) + columns.get(slot, KS_BUFFER)
  );
}

/**
 * Runs a pattern per key. Each key's NFA state (partial matches, shared
 * buffer) lives in the operator's working set, a dense slot per key that
 * holds any (see {@link NfaWorkingSet}); at each snapshot the states that
 * changed are written into the keyed state backend (with, in event time,
 * the records waiting for the watermark), so they are checkpointed, restored
 * and rescaled by key group like any keyed state, on the heap or on disk. A
 * key with nothing pending holds no state.
 *
 * In event time, records wait in one operator-wide queue until the
 * watermark passes their timestamp, then enter their key's NFA in timestamp
 * order (records of one timestamp in arrival order, so each key sees exactly
 * the sequence Flink's per-key buffer gives it); then time advances to the
 * watermark, timing out partial matches older than the window. A record's
 * arrival touches no keyed state; the waiting records are written into their
 * keys' state only while a snapshot is taken, and taken back out of it on
 * restore. Which keys have timeouts due when is an in-memory queue of hints,
 * rebuilt from the state after a restore. A key whose records start nothing
 * holds no state and costs no allocation. In processing time, records enter
 * the NFA on arrival and timeouts follow the clock.
 */
export class CepOperator<T, OUT> extends Operator<T, OUT> {
  private watermark = MIN_WATERMARK;
  private emitter!: Emitter<OUT>;
  private state!: KeyedStateBackend;
  private nfaState!: ValueState<KeyNfaState<T>>;
  private work!: NfaWorkingSet;
  private runner!: NfaRunner<T>;
  private readonly nfa: Nfa<T>;
  private readonly eventTime: boolean;
  private readonly due = new DueQueue();
  /** Event time: records waiting for the watermark, all keys. */
  private readonly waiting = new EventTimeQueue<T>();
  // Records released together, and their keys' states while they are warmed (see `warm`).
  private readonly chunkKeys: Key[] = [];
  private readonly chunkValues: T[] = [];
  private readonly chunkTimes: number[] = [];
  private readonly chunkSlots = new Int32Array(CHUNK);
  private readonly chunkMatches = new Int32Array(CHUNK);
  private readonly chunkEvents = new Int32Array(CHUNK);
  /** Keeps the warming reads from being optimized away. */
  warmth = 0;
  private currentKey: Key = 0;
  private lateRecords = 0;
  /** What `ctx.timestamp` says: the time being processed (records emitted in processing time carry none). */
  private matchTime = 0;
  /** Partial and held matches and shared-buffer entries over all keys. */
  private held = 0;
  private scheduledAt = Number.POSITIVE_INFINITY;
  private restored: RestoredState | undefined;
  /**
   * Event time, when a timeout has no visible effect (no timed-out handler, no
   * trailing notFollowedBy, no skip strategy holding matches back): partial
   * matches past `within` are dropped when their key next sees a record, or
   * by a sweep over the keys with state once per `within` of watermark
   * progress, instead of one timeout hint per partial match. State stays
   * bounded (by two windows instead of one) and every key's output is the same.
   */
  private readonly lazyTimeouts: boolean;
  /** Watermark at the last sweep (lazy timeouts). */
  private sweptAt = MIN_WATERMARK;
  /** Processing time with a comparator: whether a clock callback will release the waiting records. */
  private releaseScheduled = false;

  constructor(private readonly spec: CepOperatorSpec<T, OUT>) {
    super();
    this.nfa = compileNfa(spec.pattern);
    this.eventTime = spec.timeDomain === 'event-time';
    this.lazyTimeouts =
      this.eventTime &&
      this.nfa.withinMs > 0 &&
      !this.nfa.stateWindows &&
      spec.fn.processTimedOutMatch === undefined &&
      spec.pattern.skip.kind === 'no-skip' &&
      !this.nfa.states.some((s) => s.kind === 'pending');
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
    // First: decoding restored state puts its buffer rows into the runner's buffer.
    this.runner = this.createRunner();
    this.work = new NfaWorkingSet(this.runner.keys);
    this.state = operatorKeyedBackend(this.context);
    if (this.restored !== undefined) this.state.restore(this.restored);
    this.nfaState = this.state.getValueState<KeyNfaState<T>>({
      name: NFA_STATE,
      serializer: keyNfaStateSerializer(
        this.spec.eventSerializer ?? Serializers.json<T>(),
        this.runner.buffer,
        this.runner.rows,
      ),
    });
    if (this.restored !== undefined) this.loadRestored();
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
    const onTimeout = fn.processTimedOutMatch;
    // Without a timeout handler the runner does not even gather a timed-out match's events.
    const timedOut =
      onTimeout === undefined
        ? undefined
        : (events: MatchEvents<T>, timeoutTimestamp: number) => {
            const savedTimestamp = emitter.timestamp;
            const savedMatchTime = this.matchTime;
            emitter.timestamp = this.eventTime ? timeoutTimestamp : NO_TIMESTAMP;
            this.matchTime = timeoutTimestamp;
            onTimeout.call(fn, events, ctx);
            emitter.timestamp = savedTimestamp;
            this.matchTime = savedMatchTime;
          };
    // Lazy timeouts (or none) schedule nothing: the runner is then not even told that a match began.
    const started =
      within > 0 && !this.lazyTimeouts
        ? (startTs: number) => this.schedule(startTs + within, this.currentKey)
        : undefined;
    return new NfaRunner(this.nfa, this.spec.pattern.skip, {
      match: (events: MatchEvents<T>) => fn.processMatch(events, ctx, emitter),
      ...(timedOut === undefined ? {} : { timedOut }),
      ...(started === undefined ? {} : { started }),
    });
  }

  private registerMetrics(): void {
    const metrics = this.context.metrics;
    // Between snapshots the NFA states are in the working set, one entry per key holding any.
    metrics.gauge('weir_state_entries', 'Keyed state entries held', () => this.work.size);
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
      () => this.bufferedTotal(),
    );
  }

  /**
   * After a restore: the keys' states enter the working set, waiting records
   * move to the operator's queue (each key's in its arrival order), every key
   * with partial matches gets its next timeout, and the gauge its total.
   */
  private loadRestored(): void {
    const keys: Key[] = [];
    this.state.forEachKeyAndNamespace(NFA_STATE, (key) => keys.push(key));
    for (const key of keys) {
      this.state.currentKey = key;
      const s = this.nfaState.value();
      if (s === undefined) continue;
      if (s.waitingTimes.length > 0) {
        for (let i = 0; i < s.waitingTimes.length; i++) {
          this.waiting.push(s.waitingTimes[i]!, key, s.waitingRecords[i]!);
        }
        dropWaiting(s);
        if (isIdle(s)) {
          this.nfaState.clear();
          continue;
        }
        // The backend must not keep the waiting records: the next snapshot writes them again.
        this.nfaState.update(s);
      }
      const slot = this.work.load(key, s);
      this.work.setEarliestStart(slot, this.runner.earliestStart(slot));
      this.held += heldEntries(this.runner.keys, slot);
      if (!this.lazyTimeouts) this.schedule(this.nextDue(slot), key);
    }
    this.state.currentKey = undefined;
    this.sweptAt = this.watermark;
    if (!this.eventTime && this.waiting.size > 0)
      this.scheduleRelease(this.context.processingTime.clock.now());
  }

  /** The earliest time the key has work: a partial match's timeout. */
  private nextDue(slot: number): number {
    // A per-stage window ends at a time each partial match's own last event sets.
    if (this.nfa.stateWindows) return this.runner.nextTimeout(slot);
    const within = this.nfa.withinMs;
    return within > 0 ? this.work.earliestStart(slot) + within : Number.POSITIVE_INFINITY;
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
      this.work.settle();
      this.emitter.flush();
      const next = this.due.peekTime();
      if (next !== Number.POSITIVE_INFINITY) this.scheduleClock(next);
    });
  }

  processBatch(batch: RecordBatch<T>): void {
    const { values, timestamps, keys } = batch;
    if (keys === undefined) throw missingKeys(this.context.operatorId);
    let i = 0;
    try {
      for (; i < values.length; i++) {
        const key = keys[i] as Key;
        this.currentKey = key;
        if (this.eventTime) this.buffer(values[i] as T, timestamps[i]!, key);
        else if (this.spec.comparator !== undefined) this.bufferNow(values[i] as T, key);
        else this.processNow(values[i] as T, key);
      }
    } catch (cause) {
      throw this.failure(cause, values[i]);
    }
    this.work.settle();
    this.emitter.flush();
  }

  /** Event time: the record waits in the operator's queue for the watermark (or is late). */
  private buffer(value: T, ts: number, key: Key): void {
    if (ts <= this.watermark) {
      this.lateRecords++;
      if (this.spec.lateTag !== undefined) this.emitter.side(this.spec.lateTag, value, ts);
      return;
    }
    this.waiting.push(ts, key, value);
  }

  /**
   * Processing time with a comparator: as in Flink, the record waits until the
   * clock has moved past its millisecond, so that the records of one
   * millisecond enter the NFA together, sorted.
   */
  private bufferNow(value: T, key: Key): void {
    const now = this.context.processingTime.clock.now();
    this.waiting.push(now, key, value);
    this.scheduleRelease(now);
  }

  private scheduleRelease(now: number): void {
    if (this.releaseScheduled) return;
    this.releaseScheduled = true;
    this.context.processingTime.schedule(now + 1, () => {
      this.releaseScheduled = false;
      try {
        this.releaseSorted(Number.POSITIVE_INFINITY);
      } catch (cause) {
        throw this.failure(cause, { key: this.currentKey });
      }
      this.work.settle();
      this.emitter.flush();
    });
  }

  /** Processing time: the record enters the NFA now. */
  private processNow(value: T, key: Key): void {
    const now = this.context.processingTime.clock.now();
    this.emitter.timestamp = NO_TIMESTAMP;
    this.matchTime = now;
    this.step(value, now, key, this.work.slotOf(key));
  }

  /**
   * Feeds one record to the NFA of `key` (in `slot`, in use or parked, or -1
   * if it has none) after advancing its time. A key without a slot runs on
   * the scratch state, which gets a slot (and is replaced) only if the record
   * left something behind.
   */
  private step(value: T, ts: number, key: Key, slot: number): void {
    const { work, runner } = this;
    const columns = runner.keys;
    if (slot < 0) {
      runner.process(SCRATCH_SLOT, value, ts);
      if (columns.isIdle(SCRATCH_SLOT)) {
        columns.reset(SCRATCH_SLOT);
        return;
      }
      const adopted = work.adopt(key, runner.earliestStart(SCRATCH_SLOT));
      this.held += heldEntries(columns, adopted);
      if (this.nfa.stateWindows) this.schedule(this.nextDue(adopted), key);
      return;
    }
    const before = heldEntries(columns, slot);
    // Whether anything may time out is read from the slot's row, not from the partial matches
    // (per-stage windows depend on each partial match's last event: those are always checked).
    if (
      ts - work.earliestStart(slot) >= this.nfa.withinMs ||
      columns.get(slot, KS_COMPLETED) > 0 ||
      this.nfa.stateWindows
    ) {
      runner.advanceTime(slot, ts);
    }
    runner.process(slot, value, ts);
    // Each step may move a partial match into a state with a per-stage window: its end is due.
    if (this.save(slot, before) && this.nfa.stateWindows) {
      this.schedule(this.nextDue(slot), key);
    }
  }

  override processWatermark(time: number): void {
    // After a restore the inputs may repeat older watermarks: only advances count.
    if (time <= this.watermark) return;
    this.watermark = time;
    try {
      this.release(time);
      if (this.lazyTimeouts) this.sweep(time);
      else this.fireDue(time);
    } catch (cause) {
      throw this.failure(cause, { key: this.currentKey });
    }
    this.work.settle();
    this.emitter.flush();
    this.output.emitWatermark(time);
  }

  /**
   * Feeds the waiting records at or before `limit` to their keys' NFAs in
   * timestamp order (arrival order within a timestamp).
   */
  private release(limit: number): void {
    if (this.spec.comparator !== undefined) {
      this.releaseSorted(limit);
      return;
    }
    const { waiting, emitter, chunkKeys, chunkValues, chunkTimes, chunkSlots } = this;
    while (waiting.size > 0 && waiting.peekTime() <= limit) {
      let n = 0;
      while (n < CHUNK && waiting.size > 0 && waiting.peekTime() <= limit) {
        chunkTimes[n] = waiting.peekTime();
        chunkKeys[n] = waiting.peekKey();
        chunkValues[n] = waiting.peekValue();
        waiting.pop();
        n++;
      }
      this.warm(n);
      for (let i = 0; i < n; i++) {
        const key = chunkKeys[i]!;
        const ts = chunkTimes[i]!;
        this.currentKey = key;
        emitter.timestamp = this.matchTime = ts;
        // A record earlier in the chunk may have given its key a slot.
        const slot = this.work.recheck(chunkSlots[i]!, key);
        this.step(chunkValues[i] as T, ts, key, slot);
      }
      this.work.settle();
    }
  }

  /**
   * With a comparator: the waiting records of each timestamp up to `limit`,
   * all keys together, sorted by it (a stable sort, so each key's records are
   * in the comparator's order and its ties in arrival order), then fed to
   * their keys' NFAs. Flink sorts each key's records of a timestamp the same way.
   */
  private releaseSorted(limit: number): void {
    const { waiting, emitter, chunkKeys, chunkValues } = this;
    const compare = this.spec.comparator!;
    while (waiting.size > 0 && waiting.peekTime() <= limit) {
      const ts = waiting.peekTime();
      chunkKeys.length = 0;
      chunkValues.length = 0;
      while (waiting.size > 0 && waiting.peekTime() === ts) {
        chunkKeys.push(waiting.peekKey());
        chunkValues.push(waiting.peekValue());
        waiting.pop();
      }
      const order = Array.from(chunkValues.keys());
      order.sort((x, y) => compare(chunkValues[x] as T, chunkValues[y] as T) || 0);
      for (const i of order) {
        const key = chunkKeys[i]!;
        this.currentKey = key;
        emitter.timestamp = this.eventTime ? ts : NO_TIMESTAMP;
        this.matchTime = ts;
        this.step(chunkValues[i] as T, ts, key, this.work.slotOf(key));
      }
      this.work.settle();
    }
    chunkValues.length = 0;
  }

  /**
   * Reads the state the next `n` records will touch, one level at a time over
   * all of them: with many keys each read misses the cache, and reads that do
   * not depend on each other overlap in the processor, where the same reads
   * made record by record would wait one after another.
   */
  private warm(n: number): void {
    const { work, chunkKeys, chunkSlots, chunkMatches, chunkEvents } = this;
    let sum = 0;
    for (let i = 0; i < n; i++) chunkSlots[i] = work.slotOf(chunkKeys[i]!);
    // The key's row, its first partial match's row, its newest node's row, then that node's event's row.
    const { buffer, rows, keys } = this.runner;
    for (let i = 0; i < n; i++) {
      const slot = chunkSlots[i]!;
      chunkMatches[i] = slot < 0 ? NO_MATCH : keys.get(slot, KS_FIRST);
    }
    for (let i = 0; i < n; i++) {
      const r = chunkMatches[i]!;
      const node = r === NO_MATCH ? NO_NODE : rows.nodeOf(r);
      chunkEvents[i] = node === NO_NODE ? -1 : buffer.eventOf(node);
    }
    for (let i = 0; i < n; i++) {
      const event = chunkEvents[i]!;
      if (event >= 0) sum += buffer.eventId(event);
    }
    this.warmth = sum;
  }

  /** Times out the partial matches of every key with a timeout due at or before `limit` (the watermark, or the clock). */
  private fireDue(limit: number): void {
    const { due, work, runner, emitter } = this;
    while (due.size > 0 && due.peekTime() <= limit) {
      const key = due.pop();
      this.currentKey = key;
      const slot = work.slotOf(key);
      if (slot < 0) continue;
      if (this.nextDue(slot) > limit) continue;
      const before = heldEntries(runner.keys, slot);
      emitter.timestamp = this.eventTime ? limit : NO_TIMESTAMP;
      this.matchTime = limit;
      runner.advanceTime(slot, limit);
      // A key that went idle has no slot any more, and nothing due.
      if (this.save(slot, before)) this.schedule(this.nextDue(slot), key);
    }
  }

  /**
   * Lazy timeouts: once per `within` of watermark progress, drops every key's
   * timed-out partial matches. The slots' earliest start times say which keys
   * have any, so the others' states are not even read.
   */
  private sweep(watermark: number): void {
    const within = this.nfa.withinMs;
    if (watermark - this.sweptAt < within) return;
    this.sweptAt = watermark;
    const { work, runner } = this;
    const end = work.slotEnd;
    for (let slot = 0; slot < end; slot++) {
      if (watermark - work.earliestStart(slot) < within || !work.inUse(slot)) continue;
      const before = heldEntries(runner.keys, slot);
      if (runner.advanceTime(slot, watermark)) this.save(slot, before);
    }
  }

  /**
   * Idle keys hold no state at all, so keys that stopped matching cost
   * nothing; false if the key is idle (its slot is parked, emptied).
   */
  private save(slot: number, before: number): boolean {
    const columns = this.runner.keys;
    if (columns.isIdle(slot)) {
      this.work.park(slot);
      this.held -= before;
      return false;
    }
    this.work.changed(slot, this.runner.earliestStart(slot));
    this.held += heldEntries(columns, slot) - before;
    return true;
  }

  private failure(cause: unknown, record: unknown): unknown {
    if (cause instanceof WeirError && cause.code !== 'USER_FUNCTION_FAILED') return cause;
    return userFunctionFailed(this.context.operatorId, 'pattern', record, cause);
  }

  /**
   * Keyed state from the backend, with each key's waiting records written
   * into its NFA state for the time of the snapshot (so they are restored and
   * rescaled with the key); the watermark as union state.
   */
  override snapshotState(context: SnapshotContext): OperatorSnapshot {
    this.work.writeBack(this.state, this.nfaState);
    const touched = this.writeWaitingToState();
    try {
      return keyedSnapshotWithWatermark(
        this.state,
        context,
        this.context.subtaskIndex,
        this.watermark,
      );
    } finally {
      this.takeWaitingFromState(touched);
    }
  }

  /**
   * Writes each key's waiting records into its state in the backend. The
   * working set's own state objects are written (the backend holds them
   * after the write-back): reading the backend would decode a copy on disk.
   */
  private writeWaitingToState(): Iterable<Key> {
    const byKey = new Map<Key, { times: number[]; records: T[] }>();
    this.waiting.forEachInArrivalOrder((ts, key, value) => {
      let w = byKey.get(key);
      if (w === undefined) {
        w = { times: [], records: [] };
        byKey.set(key, w);
      }
      w.times.push(ts);
      w.records.push(value);
    });
    const { state, nfaState, work } = this;
    for (const [key, w] of byKey) {
      state.currentKey = key;
      const slot = work.slotOf(key);
      const s = slot < 0 || !work.inUse(slot) ? emptyKeyNfaState<T>() : work.stateOf<T>(slot);
      s.waitingTimes = w.times;
      s.waitingRecords = w.records;
      nfaState.update(s);
    }
    state.currentKey = undefined;
    return byKey.keys();
  }

  private takeWaitingFromState(touched: Iterable<Key>): void {
    const { state, nfaState, work } = this;
    for (const key of touched) {
      state.currentKey = key;
      const slot = work.slotOf(key);
      if (slot < 0 || !work.inUse(slot)) {
        nfaState.clear();
        continue;
      }
      nfaState.update(work.stateOf<T>(slot));
    }
    state.currentKey = undefined;
  }

  override notifyCheckpointComplete(checkpointId: number): void {
    this.state.notifyCheckpointComplete(checkpointId);
  }

  override close(): void {
    this.state?.dispose();
  }

  /** Partial matches, buffer entries and waiting records over all keys (the `weir_cep_buffered` gauge). */
  bufferedTotal(): number {
    return this.held + this.waiting.size;
  }
}
