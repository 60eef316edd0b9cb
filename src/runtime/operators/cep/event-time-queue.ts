import type { Key } from '../../../core/key-groups.js';

/**
 * The records of all keys waiting for the watermark, as one min-heap on
 * (timestamp, arrival number): popping yields timestamp order, records of one
 * timestamp in arrival order. One queue per operator rather than a list per
 * key means a record's arrival touches no keyed state at all; the records are
 * written into each key's state only for a snapshot (see `forEachInArrivalOrder`).
 *
 * Entries live in parallel arrays (no object per record).
 */
export class EventTimeQueue<T> {
  private times: number[] = [];
  private seqs: number[] = [];
  private keys: Key[] = [];
  private values: T[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.times.length;
  }

  push(time: number, key: Key, value: T): void {
    const { times, seqs, keys, values } = this;
    const seq = this.nextSeq++;
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

  /** The earliest timestamp, or +Infinity when empty. */
  peekTime(): number {
    return this.times.length === 0 ? Number.POSITIVE_INFINITY : this.times[0]!;
  }

  /** Key of the earliest record; only when not empty. */
  peekKey(): Key {
    return this.keys[0]!;
  }

  /** The earliest record; only when not empty. */
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

  /** Every waiting record, in arrival order (for snapshots; sorts a copy of the order). */
  forEachInArrivalOrder(fn: (time: number, key: Key, value: T) => void): void {
    const order = Array.from(this.seqs.keys()).sort((a, b) => this.seqs[a]! - this.seqs[b]!);
    for (const i of order) fn(this.times[i]!, this.keys[i]!, this.values[i]!);
  }
}
