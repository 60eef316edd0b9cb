/**
 * Wakes a thread's executor when a message from another thread arrives
 * (data, credits, commands), so it waits on events rather than polling.
 */
export class Wakeup {
  private waiting: (() => void) | undefined;
  private pending = false;

  /** Something arrived: wakes the waiting executor, or the next one to wait. */
  notify(): void {
    this.pending = true;
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  /** Resolves at the next `notify` (at once if one came since the last wait). */
  wait(): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting = () => {
        this.pending = false;
        resolve();
      };
    });
  }
}
