import { invalidArgument } from './errors.js';
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
  onProcessingTime(time, window) {
    return time === maxTimestamp(window) ? 'fire' : 'continue';
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
} as const;
