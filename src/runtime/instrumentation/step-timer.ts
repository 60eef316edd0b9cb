/**
 * Where a task's time goes. The executor runs every task of a job on one
 * thread, one step at a time; around each step it reads the clock once and
 * hands the time to the task's timer, which splits the wall-clock time into:
 *
 * - busy: running a step that did work;
 * - backpressured: since its last step, the task could not proceed because an
 *   output channel was full or a sink was flushing;
 * - idle: everything else: no input, or waiting for its turn on the thread
 *   while other tasks run.
 *
 * The three add up to the wall-clock time, so on one thread the busy shares of
 * all tasks add up to at most 1. Cost: one `performance.now()` per step and a
 * few additions; no allocation.
 */

/** Ratios are computed over windows of about this length. */
const WINDOW_MS = 1000;

/** The busy / idle / backpressured shares of a recent window of time; they add up to 1. */
export interface TimeShares {
  readonly busy: number;
  readonly idle: number;
  readonly backpressured: number;
}

export class StepTimer {
  /** Cumulative milliseconds in each state since the timer started. */
  busyMs = 0;
  idleMs = 0;
  backpressuredMs = 0;
  private lastMark: number;
  private blocked = false;
  // The current window starts at windowStart with the cumulative values below.
  private windowStart: number;
  private windowBusy = 0;
  private windowBackpressured = 0;
  // The previous complete window, as deltas.
  private prevDuration = 0;
  private prevBusy = 0;
  private prevBackpressured = 0;

  constructor(
    /** Monotonic milliseconds; injectable for tests. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastMark = this.now();
    this.windowStart = this.lastMark;
  }

  /**
   * Records one step that started at `start` (a time read by the caller) and
   * ends now. `blocked`: the task cannot proceed because its output is full.
   * Returns the end time, which the caller uses as the start of the next step.
   */
  record(start: number, progressed: boolean, blocked: boolean): number {
    const end = this.now();
    const waited = start - this.lastMark;
    if (this.blocked) this.backpressuredMs += waited;
    else this.idleMs += waited;
    const ran = end - start;
    if (progressed) this.busyMs += ran;
    else if (blocked) this.backpressuredMs += ran;
    else this.idleMs += ran;
    this.blocked = blocked;
    this.lastMark = end;
    if (end - this.windowStart >= WINDOW_MS) this.roll(end);
    return end;
  }

  /** The task finished: from now on its time is idle. */
  finish(at: number = this.now()): void {
    const pending = Math.max(0, at - this.lastMark);
    if (this.blocked) this.backpressuredMs += pending;
    else this.idleMs += pending;
    this.lastMark = at;
    this.blocked = false;
  }

  /** Busy, idle and backpressured shares over the last second or so, up to now. */
  shares(at: number = this.now()): TimeShares {
    const pending = Math.max(0, at - this.lastMark);
    const bp = this.backpressuredMs + (this.blocked ? pending : 0);
    let busy = this.busyMs - this.windowBusy;
    let backpressured = bp - this.windowBackpressured;
    let duration = at - this.windowStart;
    if (duration < WINDOW_MS / 2 && this.prevDuration > 0) {
      // A young window says little: include the previous one.
      busy += this.prevBusy;
      backpressured += this.prevBackpressured;
      duration += this.prevDuration;
    }
    if (duration <= 0) return { busy: 0, idle: 1, backpressured: 0 };
    const b = clamp01(busy / duration);
    const p = clamp01(backpressured / duration);
    return { busy: b, backpressured: p, idle: clamp01(1 - b - p) };
  }

  /** Cumulative seconds in each state, including the time since the last step. */
  totals(at: number = this.now()): { busy: number; idle: number; backpressured: number } {
    const pending = Math.max(0, at - this.lastMark);
    return {
      busy: this.busyMs / 1000,
      idle: (this.idleMs + (this.blocked ? 0 : pending)) / 1000,
      backpressured: (this.backpressuredMs + (this.blocked ? pending : 0)) / 1000,
    };
  }

  private roll(end: number): void {
    this.prevDuration = end - this.windowStart;
    this.prevBusy = this.busyMs - this.windowBusy;
    this.prevBackpressured = this.backpressuredMs - this.windowBackpressured;
    this.windowStart = end;
    this.windowBusy = this.busyMs;
    this.windowBackpressured = this.backpressuredMs;
  }
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
