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

  get size(): number {
    return this.times.length;
  }

  push(time: number, key: Key): void {
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

  /** The earliest time, or +Infinity when empty. */
  peekTime(): number {
    return this.times.length === 0 ? Number.POSITIVE_INFINITY : this.times[0]!;
  }

  /** Removes the earliest entry and returns its key. */
  pop(): Key {
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
