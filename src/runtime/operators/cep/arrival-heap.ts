import type { Key } from '../../../core/key-groups.js';

/**
 * Records as a min-heap on (timestamp, arrival number), in parallel arrays
 * (no object per record). The event-time queue keeps here what its ring of
 * millisecond buckets cannot hold: records too far from the ring's window,
 * and timestamps that are not whole milliseconds.
 */
export class ArrivalHeap<T> {
  private times: number[] = [];
  private seqs: number[] = [];
  private keys: Key[] = [];
  private values: T[] = [];

  get size(): number {
    return this.times.length;
  }

  push(time: number, seq: number, key: Key, value: T): void {
    const { times, seqs, keys, values } = this;
    let i = times.length;
    times.push(time);
    seqs.push(seq);
    keys.push(key);
    values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent]!;
      if (pt < time || (pt === time && seqs[parent]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[parent]!;
      keys[i] = keys[parent]!;
      values[i] = values[parent]!;
      i = parent;
    }
    times[i] = time;
    seqs[i] = seq;
    keys[i] = key;
    values[i] = value;
  }

  /** The earliest timestamp; only when not empty. */
  peekTime(): number {
    return this.times[0]!;
  }

  peekSeq(): number {
    return this.seqs[0]!;
  }

  peekKey(): Key {
    return this.keys[0]!;
  }

  peekValue(): T {
    return this.values[0]!;
  }

  /** Removes the earliest record. */
  pop(): void {
    const { times, seqs, keys, values } = this;
    const lastTime = times.pop()!;
    const lastSeq = seqs.pop()!;
    const lastKey = keys.pop()!;
    const lastValue = values.pop()!;
    const n = times.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n) {
        const tr = times[r]!;
        const tl = times[l]!;
        if (tr < tl || (tr === tl && seqs[r]! < seqs[l]!)) c = r;
      }
      const tc = times[c]!;
      if (tc > lastTime || (tc === lastTime && seqs[c]! > lastSeq)) break;
      times[i] = tc;
      seqs[i] = seqs[c]!;
      keys[i] = keys[c]!;
      values[i] = values[c]!;
      i = c;
    }
    times[i] = lastTime;
    seqs[i] = lastSeq;
    keys[i] = lastKey;
    values[i] = lastValue;
  }

  /** Every record, in no particular order. */
  forEach(fn: (time: number, seq: number, key: Key, value: T) => void): void {
    for (let i = 0; i < this.times.length; i++) {
      fn(this.times[i]!, this.seqs[i]!, this.keys[i]!, this.values[i]!);
    }
  }
}
