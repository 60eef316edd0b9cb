import type {
  MatchEvents,
  PatternProcessContext,
  PatternProcessFunction,
  PatternSpec,
} from '../../../core/cep.js';
import type {
  Collector,
  KeyedProcessContext,
  KeyedProcessFunction,
  KeyedRuntimeContext,
  OnTimerContext,
} from '../../../core/functions.js';
import type { Key } from '../../../core/key-groups.js';
import type { OutputTag } from '../../../core/output-tag.js';
import type { StateSerializer, ValueState } from '../../../core/state.js';
import { Serializers } from '../../../state/serializers.js';
import { KeyedProcessOperator } from '../keyed/keyed-process.js';
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

/**
 * Runs a pattern per key. In event time, records wait in the key's state
 * until the watermark passes their timestamp (a timer per timestamp), then
 * enter the NFA in timestamp order, records of one timestamp in arrival
 * order. Timeouts are timers at the first event's time plus the window.
 */
class CepProcessFunction<T, OUT> implements KeyedProcessFunction<Key, T, OUT> {
  lateRecords = 0;
  nfaState!: ValueState<KeyNfaState<T>>;
  private runner!: NfaRunner<T>;
  private out!: Collector<OUT>;
  private keyCtx!: KeyedProcessContext<Key>;
  private matchCtx!: PatternProcessContext & { timestamp: number };
  private readonly eventTime: boolean;
  private readonly withinMs: number;

  constructor(
    private readonly spec: CepOperatorSpec<T, OUT>,
    private readonly nfa: Nfa<T>,
  ) {
    this.eventTime = spec.timeDomain === 'event-time';
    this.withinMs = nfa.withinMs;
  }

  /** Runs on the subtask's own instance (`Object.create` of this one): per-subtask fields are set here. */
  open(context: KeyedRuntimeContext): void {
    this.matchCtx = {
      timestamp: 0,
      currentProcessingTime: () => this.keyCtx.timerService.currentProcessingTime(),
      output: <S>(tag: OutputTag<S>, value: S) => this.keyCtx.output(tag, value),
    };
    this.nfaState = context.state.getValueState<KeyNfaState<T>>({
      name: NFA_STATE,
      serializer: keyNfaStateSerializer(this.spec.eventSerializer ?? Serializers.json<T>()),
    });
    const fn = this.spec.fn;
    this.runner = new NfaRunner(this.nfa, this.spec.pattern.skip, {
      match: (events: MatchEvents<T>) => {
        this.matchCtx.timestamp = this.keyCtx.timestamp;
        fn.processMatch(events, this.matchCtx, this.out);
      },
      timedOut: (events: MatchEvents<T>, timeoutTimestamp: number) => {
        if (fn.processTimedOutMatch === undefined) return;
        this.matchCtx.timestamp = timeoutTimestamp;
        fn.processTimedOutMatch(events, this.matchCtx);
      },
      started: (startTs: number) => {
        if (this.withinMs <= 0) return;
        const timers = this.keyCtx.timerService;
        const at = startTs + this.withinMs;
        if (!this.eventTime) timers.registerProcessingTimeTimer(at);
        // Catching up behind the watermark, the timer would be due already: the
        // advance to the watermark that ends `onTimer` times the match out instead.
        else if (at > timers.currentWatermark()) timers.registerEventTimeTimer(at);
      },
    });
  }

  processElement(value: T, ctx: KeyedProcessContext<Key>, out: Collector<OUT>): void {
    this.keyCtx = ctx;
    this.out = out;
    const timers = ctx.timerService;
    if (this.eventTime) {
      const ts = ctx.timestamp;
      if (ts <= timers.currentWatermark()) {
        this.lateRecords++;
        if (this.spec.lateTag !== undefined) ctx.output(this.spec.lateTag, value);
        return;
      }
      const state = this.load();
      const waiting = state.queue.get(ts);
      if (waiting === undefined) {
        state.queue.set(ts, [value]);
        timers.registerEventTimeTimer(ts);
      } else {
        waiting.push(value);
      }
      this.nfaState.update(state);
      return;
    }
    const now = timers.currentProcessingTime();
    const state = this.load();
    this.runner.advanceTime(state, now);
    this.runner.process(state, value, now);
    this.save(state);
  }

  onTimer(timestamp: number, ctx: OnTimerContext<Key>, out: Collector<OUT>): void {
    const state = this.nfaState.value();
    if (state === undefined) return;
    this.keyCtx = ctx;
    this.out = out;
    if (ctx.timeDomain === 'event-time') {
      this.runner.advanceTime(state, timestamp);
      const events = state.queue.get(timestamp);
      if (events !== undefined) {
        state.queue.delete(timestamp);
        for (const e of events) this.runner.process(state, e, timestamp);
      }
      // Timers fire in time order, so later waiting timestamps have timers of their own.
      // Once none is left behind the watermark, time moves to the watermark itself, so
      // a timeout registered while catching up is not missed.
      const watermark = ctx.timerService.currentWatermark();
      let behind = false;
      for (const ts of state.queue.keys()) {
        if (ts <= watermark) {
          behind = true;
          break;
        }
      }
      if (!behind && watermark > timestamp) this.runner.advanceTime(state, watermark);
    } else {
      this.runner.advanceTime(state, timestamp);
    }
    this.save(state);
  }

  private load(): KeyNfaState<T> {
    return this.nfaState.value() ?? emptyKeyNfaState<T>();
  }

  /** Idle keys hold no state at all, so keys that stopped matching cost nothing. */
  private save(state: KeyNfaState<T>): void {
    if (isIdle(state)) this.nfaState.clear();
    else this.nfaState.update(state);
  }
}

/**
 * The CEP operator: a keyed process operator (state on either backend,
 * checkpointed and rescaled by key group, timers kept in state) running the
 * pattern's NFA, with metrics for late records and the state it holds.
 */
export class CepOperator<T, OUT> extends KeyedProcessOperator<Key, T, OUT> {
  constructor(spec: CepOperatorSpec<T, OUT>) {
    super(new CepProcessFunction(spec, compileNfa(spec.pattern)));
  }

  override open(): void {
    super.open();
    const fn = this.fn as CepProcessFunction<T, OUT>;
    this.context.metrics.counterFrom(
      'weir_cep_late_records',
      'Records at or behind the watermark, not matched',
      () => fn.lateRecords,
    );
    this.context.metrics.gauge(
      'weir_cep_buffered',
      'Partial matches, shared-buffer events and nodes, and waiting events held over all keys',
      () => this.bufferedTotal(),
    );
  }

  /** Walks every key's NFA state; for monitoring and tests, not the hot path. */
  bufferedTotal(): number {
    const keys: Key[] = [];
    this.state.forEachKeyAndNamespace(NFA_STATE, (key) => keys.push(key));
    const nfaState = (this.fn as CepProcessFunction<T, OUT>).nfaState;
    const saved = this.state.currentKey;
    let total = 0;
    for (const key of keys) {
      this.state.currentKey = key;
      const s = nfaState.value();
      if (s === undefined) continue;
      let waiting = 0;
      for (const q of s.queue.values()) waiting += q.length;
      total += s.partial.length + s.completed.length + s.buffer.size + waiting;
    }
    this.state.currentKey = saved;
    return total;
  }
}
