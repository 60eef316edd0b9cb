import { invalidArgument } from './errors.js';
import type { DeltaFunction } from './evictors.js';
import type { ValueState } from './state.js';
import { maxTimestamp, type Window } from './windows.js';

/**
 * What a trigger decides: `fire` emits the window's current result and keeps
 * its contents; `purge` drops the contents; `fire-and-purge` does both.
 */
export type TriggerResult = 'continue' | 'fire' | 'purge' | 'fire-and-purge';

/** Timers and per-(key, window) state available to triggers. */
export interface TriggerContext {
  currentWatermark(): number;
  currentProcessingTime(): number;
  registerEventTimeTimer(time: number): void;
  deleteEventTimeTimer(time: number): void;
  registerProcessingTimeTimer(time: number): void;
  deleteProcessingTimeTimer(time: number): void;
  /** State scoped to the current key and window; cleared with the window. */
  getState<S>(name: string): ValueState<S>;
  /** When windows merge (sessions): the state of each window being merged into this one. */
  mergedStates<S>(name: string): S[];
}

/**
 * Decides when a window emits. Triggers hold no fields of their own: all their
 * memory lives in `context.getState`, scoped to the key and window, so one
 * trigger object serves every key.
 */
export interface Trigger<T> {
  onElement(value: T, timestamp: number, window: Window, context: TriggerContext): TriggerResult;
  onEventTime(time: number, window: Window, context: TriggerContext): TriggerResult;
  onProcessingTime(time: number, window: Window, context: TriggerContext): TriggerResult;
  /**
   * Present if the trigger works with merging (session) windows. Called on the merged
   * window before `clear` is called on the windows merged into it, so their state is still
   * readable through `context.mergedStates`.
   */
  onMerge?(window: Window, context: TriggerContext): void;
  /**
   * The window is being removed (cleaned up, or merged into another): delete its timers.
   * State is cleared by the runtime.
   */
  clear(window: Window, context: TriggerContext): void;
  /**
   * End of bounded input, with records in the window that no firing has
   * emitted yet. Default `fire`: nothing a window holds is lost silently at
   * end of input.
   */
  onEndOfInput?(window: Window, context: TriggerContext): TriggerResult;
}

/** Fires when the watermark passes the end of the window; again for each late record within the allowed lateness. */
const eventTime: Trigger<unknown> = {
  onElement(_v, _t, window, ctx) {
    const max = maxTimestamp(window);
    if (max <= ctx.currentWatermark()) return 'fire';
    ctx.registerEventTimeTimer(max);
    return 'continue';
  },
  onEventTime(time, window) {
    return time === maxTimestamp(window) ? 'fire' : 'continue';
  },
  onProcessingTime() {
    return 'continue';
  },
  onMerge(window, ctx) {
    const max = maxTimestamp(window);
    if (max > ctx.currentWatermark()) ctx.registerEventTimeTimer(max);
  },
  clear(window, ctx) {
    ctx.deleteEventTimeTimer(maxTimestamp(window));
  },
};

/** Fires when processing time passes the end of the window. */
const processingTime: Trigger<unknown> = {
  onElement(_v, _t, window, ctx) {
    ctx.registerProcessingTimeTimer(maxTimestamp(window));
    return 'continue';
  },
  onEventTime() {
    return 'continue';
  },
  // Any processing-time timer of the window fires it, as Flink's: the only one this trigger
  // sets is at the window's end, and a trigger wrapping it (a timeout) may set others.
  onProcessingTime() {
    return 'fire';
  },
  onMerge(window, ctx) {
    ctx.registerProcessingTimeTimer(maxTimestamp(window));
  },
  clear(window, ctx) {
    ctx.deleteProcessingTimeTimer(maxTimestamp(window));
  },
};

/** Never fires by itself (the default of the global window): only end of input emits. */
const never: Trigger<unknown> = {
  onElement: () => 'continue',
  onEventTime: () => 'continue',
  onProcessingTime: () => 'continue',
  onMerge() {},
  clear() {},
};

function count<T>(maxCount: number): Trigger<T> {
  if (!Number.isInteger(maxCount) || maxCount <= 0) {
    throw invalidArgument(`count trigger needs a positive whole number, got ${maxCount}`);
  }
  return {
    onElement(_v, _t, _w, ctx) {
      const state = ctx.getState<number>('count');
      const n = (state.value() ?? 0) + 1;
      if (n >= maxCount) {
        state.clear();
        return 'fire';
      }
      state.update(n);
      return 'continue';
    },
    onEventTime: () => 'continue',
    onProcessingTime: () => 'continue',
    onMerge(_w, ctx) {
      const total = ctx.mergedStates<number>('count').reduce((a, b) => a + b, 0);
      if (total > 0) ctx.getState<number>('count').update(total);
    },
    clear() {},
  };
}

/**
 * Early firings every `interval` of event time while the window is open,
 * and the final firing at the end of the window.
 */
function continuous<T>(interval: number, domain: 'event' | 'processing'): Trigger<T> {
  if (!Number.isInteger(interval) || interval <= 0) {
    throw invalidArgument(`continuous trigger interval must be a positive whole number of ms`);
  }
  const register = (ctx: TriggerContext, t: number) =>
    domain === 'event' ? ctx.registerEventTimeTimer(t) : ctx.registerProcessingTimeTimer(t);
  const remove = (ctx: TriggerContext, t: number) =>
    domain === 'event' ? ctx.deleteEventTimeTimer(t) : ctx.deleteProcessingTimeTimer(t);
  const now = (ctx: TriggerContext) =>
    domain === 'event' ? ctx.currentWatermark() : ctx.currentProcessingTime();
  /** The first firing time after `basis`, aligned to the interval; undefined past the window. */
  const nextAfter = (basis: number, window: Window): number | undefined => {
    if (!Number.isFinite(basis)) return undefined;
    const t = basis - (((basis % interval) + interval) % interval) + interval;
    const max = maxTimestamp(window);
    // Event time: the firing at the window's end has a timer of its own.
    if (domain === 'event') return t >= max ? undefined : t;
    // Processing time, as Flink: the last firing is at the window's end, capped there, since
    // the window is cleaned up at that time and a later timer would never fire.
    if (basis >= max) return undefined;
    return Math.min(t, max);
  };
  const schedule = (ctx: TriggerContext, basis: number, window: Window) => {
    const next = ctx.getState<number>('next-fire');
    if (next.value() !== undefined) return;
    const t = nextAfter(basis, window);
    if (t === undefined) return;
    next.update(t);
    register(ctx, t);
  };
  const onTimer = (time: number, window: Window, ctx: TriggerContext): TriggerResult => {
    const max = maxTimestamp(window);
    if (domain === 'event' && time === max) return 'fire';
    const next = ctx.getState<number>('next-fire');
    if (next.value() !== time) return 'continue';
    next.clear();
    // The watermark jumped past the end of the window: the firing at the end
    // follows in the same advance, so an early firing now would only repeat it.
    if (domain === 'event' && Number.isFinite(max) && max <= ctx.currentWatermark()) {
      return 'continue';
    }
    // Fire once for however many intervals time jumped over; the next early
    // firing is the first interval boundary after the current time.
    schedule(ctx, Math.max(time, now(ctx)), window);
    return 'fire';
  };
  return {
    onElement(_v, timestamp, window, ctx) {
      if (domain === 'event') {
        if (maxTimestamp(window) <= ctx.currentWatermark()) return 'fire';
        if (Number.isFinite(maxTimestamp(window))) ctx.registerEventTimeTimer(maxTimestamp(window));
        schedule(ctx, timestamp, window);
      } else {
        schedule(ctx, ctx.currentProcessingTime(), window);
      }
      return 'continue';
    },
    onEventTime: (time, window, ctx) =>
      domain === 'event' ? onTimer(time, window, ctx) : 'continue',
    onProcessingTime: (time, window, ctx) =>
      domain === 'processing' ? onTimer(time, window, ctx) : 'continue',
    onMerge(window, ctx) {
      const pending = ctx.mergedStates<number>('next-fire');
      if (pending.length > 0) {
        const earliest = Math.min(...pending);
        ctx.getState<number>('next-fire').update(earliest);
        register(ctx, earliest);
      }
      if (domain === 'event' && maxTimestamp(window) > ctx.currentWatermark()) {
        ctx.registerEventTimeTimer(maxTimestamp(window));
      }
    },
    clear(window, ctx) {
      const next = ctx.getState<number>('next-fire').value();
      if (next !== undefined) remove(ctx, next);
      if (domain === 'event' && Number.isFinite(maxTimestamp(window))) {
        ctx.deleteEventTimeTimer(maxTimestamp(window));
      }
    },
  };
}

/** Turns every `fire` of the inner trigger into `fire-and-purge`: each firing emits only what arrived since the last. */
function purging<T>(inner: Trigger<T>): Trigger<T> {
  const purge = (r: TriggerResult): TriggerResult => (r === 'fire' ? 'fire-and-purge' : r);
  const wrapped: Trigger<T> = {
    onElement: (v, t, w, c) => purge(inner.onElement(v, t, w, c)),
    onEventTime: (t, w, c) => purge(inner.onEventTime(t, w, c)),
    onProcessingTime: (t, w, c) => purge(inner.onProcessingTime(t, w, c)),
    clear: (w, c) => inner.clear(w, c),
  };
  if (inner.onMerge !== undefined) wrapped.onMerge = inner.onMerge.bind(inner);
  if (inner.onEndOfInput !== undefined) {
    const end = inner.onEndOfInput.bind(inner);
    wrapped.onEndOfInput = (w, c) => purge(end(w, c));
  }
  return wrapped;
}

/**
 * Fires when `deltaFunction(last, record)` exceeds `threshold`, where `last` is the
 * record of the last firing (the first record of the window to begin with), as Flink's
 * `DeltaTrigger`. It keeps that record in the trigger state, so it must be JSON.
 */
function delta<T>(threshold: number, deltaFunction: DeltaFunction<T>): Trigger<T> {
  if (Number.isNaN(threshold)) throw invalidArgument('delta trigger needs a threshold, got NaN');
  if (typeof deltaFunction !== 'function') {
    throw invalidArgument('delta trigger needs a function (oldValue, newValue) => number');
  }
  return {
    onElement(value, _t, _w, ctx) {
      const last = ctx.getState<{ v: T }>('delta-last');
      const held = last.value();
      // Boxed, so a record that is itself null or undefined still counts as held.
      if (held === undefined) {
        last.update({ v: value });
        return 'continue';
      }
      if (deltaFunction(held.v, value) > threshold) {
        last.update({ v: value });
        return 'fire';
      }
      return 'continue';
    },
    onEventTime: () => 'continue',
    onProcessingTime: () => 'continue',
    clear() {},
  };
}

/** How {@link Triggers.processingTimeout} treats its timer and the wrapped trigger. */
export interface ProcessingTimeoutOptions {
  /** Restart the timeout with each record (a timeout of inactivity). Default false: from the first record. */
  readonly resetTimerOnNewRecord?: boolean;
  /** At the timeout, clear the wrapped trigger (its timers and state), as after a firing. Default true. */
  readonly clearOnTimeout?: boolean;
}

const TIMEOUT_STATE = 'processing-timeout';
const NESTED_PREFIX = 'processing-timeout/';

/**
 * The wrapped trigger's view of the context: its state under names of its own, and the
 * names it used remembered (the same for every key), so a timeout can clear them all as
 * Flink's wrapped trigger clears its state.
 */
class NestedContext implements TriggerContext {
  constructor(
    private readonly outer: TriggerContext,
    private readonly names: Set<string>,
  ) {}
  currentWatermark(): number {
    return this.outer.currentWatermark();
  }
  currentProcessingTime(): number {
    return this.outer.currentProcessingTime();
  }
  registerEventTimeTimer(time: number): void {
    this.outer.registerEventTimeTimer(time);
  }
  deleteEventTimeTimer(time: number): void {
    this.outer.deleteEventTimeTimer(time);
  }
  registerProcessingTimeTimer(time: number): void {
    this.outer.registerProcessingTimeTimer(time);
  }
  deleteProcessingTimeTimer(time: number): void {
    this.outer.deleteProcessingTimeTimer(time);
  }
  getState<S>(name: string): ValueState<S> {
    this.names.add(name);
    return this.outer.getState<S>(NESTED_PREFIX + name);
  }
  mergedStates<S>(name: string): S[] {
    return this.outer.mergedStates<S>(NESTED_PREFIX + name);
  }
}

/**
 * Fires when `inner` fires, or `timeoutMs` of processing time after the window's first
 * record (or its latest, with `resetTimerOnNewRecord`), as Flink's `ProcessingTimeoutTrigger`:
 * a window that fills slowly still emits in time. A firing of `inner` on a record clears
 * the timeout and `inner`, so the next record starts both afresh.
 */
function processingTimeout<T>(
  inner: Trigger<T>,
  timeoutMs: number,
  options: ProcessingTimeoutOptions = {},
): Trigger<T> {
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw invalidArgument(
      `processing timeout must be a positive whole number of ms, got ${timeoutMs}`,
    );
  }
  const reset = options.resetTimerOnNewRecord ?? false;
  const clearOnTimeout = options.clearOnTimeout ?? true;
  const names = new Set<string>();
  const contexts = new WeakMap<TriggerContext, NestedContext>();
  const nested = (ctx: TriggerContext): NestedContext => {
    let c = contexts.get(ctx);
    if (c === undefined) {
      c = new NestedContext(ctx, names);
      contexts.set(ctx, c);
    }
    return c;
  };
  const clear = (window: Window, ctx: TriggerContext): void => {
    const timeout = ctx.getState<number>(TIMEOUT_STATE);
    const at = timeout.value();
    if (at !== undefined) {
      ctx.deleteProcessingTimeTimer(at);
      timeout.clear();
    }
    inner.clear(window, nested(ctx));
    for (const name of names) ctx.getState(NESTED_PREFIX + name).clear();
  };
  const onTimer = (result: TriggerResult, window: Window, ctx: TriggerContext): TriggerResult => {
    if (clearOnTimeout) clear(window, ctx);
    return result === 'purge' || result === 'fire-and-purge' ? 'fire-and-purge' : 'fire';
  };
  const wrapped: Trigger<T> = {
    onElement(value, timestamp, window, ctx) {
      const result = inner.onElement(value, timestamp, window, nested(ctx));
      if (result === 'fire' || result === 'fire-and-purge') {
        clear(window, ctx);
        return result;
      }
      const timeout = ctx.getState<number>(TIMEOUT_STATE);
      let at = timeout.value();
      if (at !== undefined && reset) {
        ctx.deleteProcessingTimeTimer(at);
        at = undefined;
      }
      if (at === undefined) {
        at = ctx.currentProcessingTime() + timeoutMs;
        timeout.update(at);
        ctx.registerProcessingTimeTimer(at);
      }
      return result;
    },
    onEventTime: (time, window, ctx) =>
      onTimer(inner.onEventTime(time, window, nested(ctx)), window, ctx),
    onProcessingTime: (time, window, ctx) =>
      onTimer(inner.onProcessingTime(time, window, nested(ctx)), window, ctx),
    clear,
  };
  if (inner.onEndOfInput !== undefined) {
    const end = inner.onEndOfInput.bind(inner);
    wrapped.onEndOfInput = (w, c) => end(w, nested(c));
  }
  return wrapped;
}

/** Built-in triggers. */
export const Triggers = {
  eventTime: <T>(): Trigger<T> => eventTime,
  processingTime: <T>(): Trigger<T> => processingTime,
  never: <T>(): Trigger<T> => never,
  /** Fires every `n` records per key and window. */
  count,
  /** Fires every `interval` ms of event time (early results), and at the window's end. */
  continuousEventTime: <T>(interval: number): Trigger<T> => continuous<T>(interval, 'event'),
  /** Fires every `interval` ms of wall-clock time while the window holds records. */
  continuousProcessingTime: <T>(interval: number): Trigger<T> =>
    continuous<T>(interval, 'processing'),
  purging,
  /** Fires when the distance from the record of the last firing exceeds `threshold` (Flink's `DeltaTrigger`). */
  delta,
  /** Fires when `inner` does or a processing-time timeout passes (Flink's `ProcessingTimeoutTrigger`). */
  processingTimeout,
} as const;
