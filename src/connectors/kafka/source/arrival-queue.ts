/**
 * What a Kafka reader's client stream delivered and `poll` has not taken
 * yet, with the wake-up of a runtime waiting in `available()`. Taken items
 * are dropped in chunks, so taking stays O(1) without shifting the array.
 */
export class ArrivalQueue<E> {
  private readonly items: E[] = [];
  private head = 0;
  private waiter: (() => void) | undefined;

  /** Items not taken yet. */
  get size(): number {
    return this.items.length - this.head;
  }

  push(item: E): void {
    this.items.push(item);
    this.wake();
  }

  /** The oldest item not taken, or undefined. */
  take(): E | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head++]!;
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }

  /** The oldest item not taken that satisfies `test`, or undefined. */
  find(test: (item: E) => boolean): E | undefined {
    for (let i = this.head; i < this.items.length; i++)
      if (test(this.items[i]!)) return this.items[i];
    return undefined;
  }

  /** Resolves when an item arrives or `wake` is called; at once if items wait or `ready`. */
  available(ready: boolean): Promise<void> {
    if (ready || this.size > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Wakes a runtime waiting in `available` (a failure to report, an assignment change). */
  wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }
}
