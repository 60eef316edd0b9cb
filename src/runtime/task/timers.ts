import type { Clock } from '../../core/clock.js';
import type { ProcessingTimeService } from '../../core/operator.js';

/** A min-heap of numbers (timer times). Duplicates are allowed; callers skip stale ones. */
export class TimeHeap {
  private readonly heap: number[] = [];

  get size(): number {
    return this.heap.length;
  }

  peek(): number | undefined {
    return this.heap[0];
  }

  push(time: number): void {
    const h = this.heap;
    h.push(time);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]! <= time) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = time;
  }

  pop(): number | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const c = r < h.length && h[r]! < h[l]! ? r : l;
        if (h[c]! >= last) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

/**
 * Timers keyed by (time, key, namespace), deduplicated: registering the same
 * timer twice fires it once. Timers due at the same time fire in the order
 * they were first registered, which keeps firing deterministic.
 */
export class KeyedTimerQueue<K, N> {
  private readonly byTime = new Map<number, Map<K, Set<N>>>();
  private readonly times = new TimeHeap();
  private count = 0;

  get size(): number {
    return this.count;
  }

  register(time: number, key: K, namespace: N): void {
    let keys = this.byTime.get(time);
    if (keys === undefined) {
      keys = new Map();
      this.byTime.set(time, keys);
      this.times.push(time);
    }
    let namespaces = keys.get(key);
    if (namespaces === undefined) {
      namespaces = new Set();
      keys.set(key, namespaces);
    }
    if (!namespaces.has(namespace)) {
      namespaces.add(namespace);
      this.count++;
    }
  }

  delete(time: number, key: K, namespace: N): void {
    const keys = this.byTime.get(time);
    const namespaces = keys?.get(key);
    if (namespaces?.delete(namespace)) {
      this.count--;
      if (namespaces.size === 0) keys!.delete(key);
      if (keys!.size === 0) this.byTime.delete(time);
    }
  }

  /** The earliest time with a pending timer. */
  nextTime(): number | undefined {
    for (;;) {
      const t = this.times.peek();
      if (t === undefined) return undefined;
      if (this.byTime.has(t)) return t;
      this.times.pop();
    }
  }

  /**
   * Fires, in time order, every timer at or before `upTo`. A timer registered
   * by a callback for a time still `<= upTo` fires in the same call.
   *
   * `upTo = +Infinity` (end of input) fires every pending timer, and the timers
   * callbacks register up to the latest time pending when the call began; later
   * ones stay pending. Otherwise a timer that registers a later one each time it
   * fires (a periodic timer) would keep the end of input from ever finishing.
   */
  fireUpTo(upTo: number, fire: (time: number, key: K, namespace: N) => void): void {
    let limit = upTo;
    if (upTo === Number.POSITIVE_INFINITY) {
      limit = Number.NEGATIVE_INFINITY;
      for (const t of this.byTime.keys()) if (t > limit) limit = t;
    }
    for (;;) {
      const t = this.nextTime();
      if (t === undefined || t > limit) return;
      const keys = this.byTime.get(t)!;
      // Take the first entry; callbacks may add or remove timers at this time.
      const first = keys.entries().next();
      if (first.done) {
        this.byTime.delete(t);
        continue;
      }
      const [key, namespaces] = first.value;
      const ns = namespaces.values().next().value as N;
      namespaces.delete(ns);
      this.count--;
      if (namespaces.size === 0) keys.delete(key);
      if (keys.size === 0) this.byTime.delete(t);
      fire(t, key, ns);
    }
  }

  /** Every pending timer, for snapshots and tests. */
  *entries(): IterableIterator<[number, K, N]> {
    for (const [t, keys] of this.byTime)
      for (const [k, nss] of keys) for (const n of nss) yield [t, k, n];
  }
}

/** Whoever a callback was scheduled for (a task); its callbacks wait while it is halted. */
export interface TimerOwner {
  readonly halted: boolean;
}

interface Scheduled {
  readonly callback: (time: number) => void;
  readonly owner: TimerOwner | undefined;
}

/**
 * Processing-time callbacks for all operators run by one executor, fired on
 * the executor's thread between batches.
 */
export class ProcessingTimeScheduler implements ProcessingTimeService {
  private readonly callbacks = new Map<number, Scheduled[]>();
  private readonly times = new TimeHeap();
  /**
   * The task running now (set by the executor around its steps): callbacks
   * scheduled meanwhile belong to it, and so do those they schedule in turn.
   */
  owner: TimerOwner | undefined;

  constructor(readonly clock: Clock) {}

  schedule(time: number, callback: (time: number) => void): () => void {
    const entry: Scheduled = { callback, owner: this.owner };
    this.add(time, entry);
    return () => {
      const l = this.callbacks.get(time);
      if (l === undefined) return;
      const i = l.indexOf(entry);
      if (i >= 0) l.splice(i, 1);
    };
  }

  private add(time: number, entry: Scheduled): void {
    let list = this.callbacks.get(time);
    if (list === undefined) {
      list = [];
      this.callbacks.set(time, list);
      this.times.push(time);
    }
    list.push(entry);
  }

  /** Earliest scheduled time, if any. */
  nextTime(): number | undefined {
    for (;;) {
      const t = this.times.peek();
      if (t === undefined) return undefined;
      const l = this.callbacks.get(t);
      if (l !== undefined && l.length > 0) return t;
      this.callbacks.delete(t);
      this.times.pop();
    }
  }

  /**
   * Runs every callback due at the current time. Returns whether any ran.
   * Callbacks of a halted task stay pending, and so do those of no task when
   * `holdUnowned` (some task is halted): nothing may emit past a stop's savepoint.
   */
  fireDue(holdUnowned = false): boolean {
    const now = this.clock.now();
    let fired = false;
    let held: [number, Scheduled][] | undefined;
    try {
      for (;;) {
        const t = this.nextTime();
        if (t === undefined || t > now) return fired;
        const list = this.callbacks.get(t)!;
        this.callbacks.delete(t);
        this.times.pop();
        for (const entry of list) {
          if (entry.owner === undefined ? holdUnowned : entry.owner.halted) {
            held ??= [];
            held.push([t, entry]);
            continue;
          }
          fired = true;
          this.owner = entry.owner;
          try {
            entry.callback(t);
          } finally {
            this.owner = undefined;
          }
        }
      }
    } finally {
      if (held !== undefined) for (const [t, entry] of held) this.add(t, entry);
    }
  }
}
