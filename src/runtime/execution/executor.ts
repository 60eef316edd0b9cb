import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { WeirError } from '../../core/errors.js';
import type { Task } from '../task/task.js';
import type { ProcessingTimeScheduler } from '../task/timers.js';

/** How long the executor runs tasks before letting I/O callbacks and timers run. */
const SLICE_MS = 8;
/** Upper bound on a wait with nothing to wait for (guards against a missed wake-up). */
const MAX_IDLE_WAIT_MS = 50;

/**
 * What the executor drives between task steps: the checkpoint coordinator
 * of a job on one thread, or a worker's link to the coordinator on the main
 * thread (which also exchanges data with the other workers).
 */
export interface ExecutorDriver {
  /** Set when the job must fail. */
  readonly failure: unknown;
  /** Called every round; returns whether it did anything. */
  tick(): boolean;
  /** Waits for checkpoints being written and their commits (after a stop or failure). */
  drain(): Promise<void>;
  /** After all local tasks finished: the final checkpoint. */
  finalCheckpoint(): Promise<void>;
  /** Resolves when something outside the tasks may let them progress (messages from other threads). */
  wakeUp?(): Promise<void>;
}

/**
 * Runs the tasks of a job cooperatively on the current thread. Each round
 * gives every task a step, downstream first so queues drain before producers
 * refill them; processing-time timers fire between steps. When nothing can
 * progress, it sleeps until a source has data, a sink has flushed, or a timer
 * is due.
 */
export class LocalExecutor {
  private stopRequested = false;

  constructor(
    /** In topological order: producers before consumers. */
    private readonly tasks: readonly Task[],
    private readonly timers: ProcessingTimeScheduler,
    private readonly checkpoints?: ExecutorDriver,
  ) {}

  /** Asks the loop to stop at the next step boundary. */
  stop(): void {
    this.stopRequested = true;
  }

  async run(): Promise<'finished' | 'stopped'> {
    let outcome: 'finished' | 'stopped';
    try {
      for (const task of this.tasks) {
        this.timers.owner = task;
        await task.open();
      }
      this.timers.owner = undefined;
      outcome = await this.loop();
      if (outcome === 'finished') await this.checkpoints?.finalCheckpoint();
      else await this.checkpoints?.drain();
    } catch (failure) {
      // Let a checkpoint being written finish, so no half-written files linger.
      await this.checkpoints?.drain().catch(() => {});
      await this.closeAll();
      throw failure;
    }
    const closeErrors = await this.closeAll();
    if (closeErrors.length > 0) throw closeErrors[0];
    return outcome;
  }

  /** Closes every task, collecting (not throwing) errors so all get the chance to clean up. */
  private async closeAll(): Promise<unknown[]> {
    const errors: unknown[] = [];
    for (const task of this.tasks) {
      try {
        await task.close();
      } catch (e) {
        errors.push(e);
      }
    }
    return errors;
  }

  private async loop(): Promise<'finished' | 'stopped'> {
    const tasks = [...this.tasks].reverse();
    let sliceStart = performance.now();
    for (;;) {
      if (this.stopRequested) return 'stopped';
      let progressed = false;
      let unfinished = 0;
      let halted = false;
      // Instrumented tasks time their steps: one clock read per step, chained from task to task.
      let mark = performance.now();
      for (const task of tasks) {
        if (task.finished) continue;
        if (task.halted) {
          // Past a stop's savepoint: waits, unfinished, until the job is stopped.
          halted = true;
          unfinished++;
          continue;
        }
        this.timers.owner = task;
        const stepped = task.step();
        this.timers.owner = undefined;
        if (stepped) progressed = true;
        if (!task.finished) unfinished++;
        const timer = task.stepTimer;
        if (timer !== undefined) {
          mark = timer.record(mark, stepped, !task.finished && task.isBackpressured());
          if (task.finished) timer.finish(mark);
        }
      }
      if (this.timers.fireDue(halted)) progressed = true;
      const checkpoints = this.checkpoints;
      if (checkpoints !== undefined) {
        if (checkpoints.failure !== undefined) throw checkpoints.failure;
        if (checkpoints.tick()) progressed = true;
      }
      if (unfinished === 0) return 'finished';
      if (progressed) {
        if (performance.now() - sliceStart > SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
        continue;
      }
      await this.waitForWork(tasks, halted);
      sliceStart = performance.now();
    }
  }

  private async waitForWork(tasks: readonly Task[], halted: boolean): Promise<void> {
    const waits: Promise<unknown>[] = [];
    for (const task of tasks) {
      if (task.finished || task.halted) continue;
      const w = task.waitFor();
      if (w !== undefined) waits.push(w);
    }
    const wake = this.checkpoints?.wakeUp?.();
    if (wake !== undefined) waits.push(wake);
    const next = this.timers.nextTime();
    const now = this.timers.clock.now();
    let delay = MAX_IDLE_WAIT_MS;
    // A timer due now that did not fire is held for a halted task: do not spin on it.
    if (next !== undefined && !(halted && next <= now))
      delay = Math.max(0, Math.min(delay, next - now));
    let handle: NodeJS.Timeout | undefined;
    waits.push(
      new Promise<void>((resolve) => {
        handle = setTimeout(resolve, delay);
      }),
    );
    try {
      await Promise.race(waits);
    } finally {
      clearTimeout(handle);
    }
  }
}

export function jobCancelled(): WeirError {
  return new WeirError('JOB_CANCELLED', 'the job was cancelled');
}
