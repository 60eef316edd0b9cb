/** A resettable wake-up: `wait()` resolves at the next `wake()`. */
export class Signal {
  private promise: Promise<void> | undefined;
  private resolve: (() => void) | undefined;

  wait(): Promise<void> {
    if (this.promise === undefined) {
      this.promise = new Promise<void>((r) => {
        this.resolve = r;
      });
    }
    return this.promise;
  }

  wake(): void {
    const r = this.resolve;
    this.promise = undefined;
    this.resolve = undefined;
    r?.();
  }
}

/** A FIFO queue with O(1) shift. */
export class Queue<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head] = undefined as T;
    this.head++;
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
