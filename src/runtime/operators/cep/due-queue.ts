import type { Key } from '../../../core/key-groups.js';

/**
 * A min-heap of (time, key): when a key next has work (a waiting event the
 * watermark may release, or a partial match that may time out). Entries are
 * hints, not promises: a key may appear more than once, or have nothing due
 * when popped; the operator checks the key's state. It lives in memory only
 * and is rebuilt from the keyed state after a restore.
 */
export class DueQueue {
  private times: number[] = [];
  private keys: Key[] = [];
  /**
   * Hints pushed in time order (the common case: timeouts of partial matches
   * started by records released in timestamp order) go to a plain FIFO,
   * which costs no sifting; only out-of-order ones go to the heap.
   */
  private fifoTimes: number[] = [];
  private fifoKeys: Key[] = [];
  private fifoHead = 0;

  get size(): number {
    return this.times.length + this.fifoTimes.length - this.fifoHead;
  }

  push(time: number, key: Key): void {
    const fifo = this.fifoTimes;
    if (fifo.length === this.fifoHead || time >= fifo[fifo.length - 1]!) {
      fifo.push(time);
      this.fifoKeys.push(key);
      return;
    }
    this.pushHeap(time, key);
  }

  /** The earliest time, or +Infinity when empty. */
  peekTime(): number {
    const heap = this.times.length === 0 ? Number.POSITIVE_INFINITY : this.times[0]!;
    const fifo =
      this.fifoHead === this.fifoTimes.length
        ? Number.POSITIVE_INFINITY
        : this.fifoTimes[this.fifoHead]!;
    return Math.min(heap, fifo);
  }

  /** Removes the earliest entry and returns its key. */
  pop(): Key {
    const head = this.fifoHead;
    const fifo = this.fifoTimes;
    if (head < fifo.length && (this.times.length === 0 || fifo[head]! <= this.times[0]!)) {
      const key = this.fifoKeys[head]!;
      this.fifoHead = head + 1;
      if (this.fifoHead === fifo.length) {
        fifo.length = 0;
        this.fifoKeys.length = 0;
        this.fifoHead = 0;
      } else if (this.fifoHead >= 4096 && this.fifoHead * 2 >= fifo.length) {
        // Drop the consumed front now and then, so the arrays stay as long as what is queued.
        this.fifoTimes = fifo.slice(this.fifoHead);
        this.fifoKeys = this.fifoKeys.slice(this.fifoHead);
        this.fifoHead = 0;
      }
      return key;
    }
    return this.popHeap();
  }

  private pushHeap(time: number, key: Key): void {
    const { times, keys } = this;
    let i = times.length;
    times.push(time);
    keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= time) break;
      times[i] = times[parent]!;
      keys[i] = keys[parent]!;
      i = parent;
    }
    times[i] = time;
    keys[i] = key;
  }

  private popHeap(): Key {
    const { times, keys } = this;
    const top = keys[0]!;
    const lastTime = times.pop()!;
    const lastKey = keys.pop()!;
    const n = times.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && times[r]! < times[l]! ? r : l;
        if (times[c]! >= lastTime) break;
        times[i] = times[c]!;
        keys[i] = keys[c]!;
        i = c;
      }
      times[i] = lastTime;
      keys[i] = lastKey;
    }
    return top;
  }
}
