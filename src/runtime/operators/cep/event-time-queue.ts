import type { Key } from '../../../core/key-groups.js';
import { ArrivalHeap } from './arrival-heap.js';

const NO_ENTRY = -1;
/** `front`: the earliest record is the overflow heap's (a ring entry is its row number, >= 0). */
const FRONT_HEAP = -2;
/** `front`: not worked out since the last push or pop. */
const FRONT_UNKNOWN = -3;

const INITIAL_BUCKETS = 4096;
/** The ring grows to span records this far apart (ms); farther ones go to the heap. */
const MAX_BUCKETS = 1 << 16;
const INITIAL_ENTRIES = 1024;

/**
 * The records of all keys waiting for the watermark: popping yields timestamp
 * order, records of one timestamp in arrival order. One queue per operator
 * rather than a list per key means a record's arrival touches no keyed state;
 * the records are written into each key's state only for a snapshot (see
 * {@link forEachInArrivalOrder}).
 *
 * Records wait at most the watermark's lag plus their own lateness, so they
 * span a short, moving range of timestamps: the queue is a ring of one
 * bucket per millisecond over that range, each bucket a list in arrival
 * order. A push appends to its bucket and a pop takes the head of the first
 * non-empty one (found through a bitmap of occupied buckets), so neither
 * sifts through a heap. Records the ring cannot place (before its window,
 * farther ahead than it can grow, or not at a whole millisecond) go to an
 * {@link ArrivalHeap}; the two are merged on (timestamp, arrival number).
 *
 * Entries are rows of typed columns plus two arrays (key, record), reused
 * through a free list: no object per record.
 */
export class EventTimeQueue<T> {
  private nextSeq = 0;
  // Entry rows: timestamp, arrival number, next entry in the bucket; key and record.
  private entryTime = new Float64Array(INITIAL_ENTRIES);
  private entrySeq = new Float64Array(INITIAL_ENTRIES);
  private entryNext = new Int32Array(INITIAL_ENTRIES);
  private entryKeys: (Key | undefined)[] = [];
  private entryValues: (T | undefined)[] = [];
  private entryEnd = 0;
  /** Free entry rows, chained through `entryNext`. */
  private freeEntry = NO_ENTRY;
  // Buckets: bucket `t & mask` holds the records of millisecond t, for t in [base, base + buckets).
  private mask = INITIAL_BUCKETS - 1;
  private heads = new Int32Array(INITIAL_BUCKETS).fill(NO_ENTRY);
  private tails = new Int32Array(INITIAL_BUCKETS);
  private occupied = new Uint32Array(INITIAL_BUCKETS / 32);
  /** The earliest millisecond the ring may hold: no ring record is earlier. */
  private base = 0;
  private ringSize = 0;
  /** The ring's earliest entry, kept between pushes and pops; NO_ENTRY when not known or empty. */
  private first = NO_ENTRY;
  /** The earliest record overall: a ring entry, FRONT_HEAP, NO_ENTRY (empty) or FRONT_UNKNOWN. */
  private front = FRONT_UNKNOWN;
  private readonly overflow = new ArrivalHeap<T>();

  get size(): number {
    return this.ringSize + this.overflow.size;
  }

  push(time: number, key: Key, value: T): void {
    const seq = this.nextSeq++;
    this.front = FRONT_UNKNOWN;
    if (Number.isSafeInteger(time)) {
      // An empty ring starts its window a little before the record, for records behind it.
      if (this.ringSize === 0) this.base = time - ((this.mask + 1) >> 2);
      const offset = time - this.base;
      if (offset >= 0 && (offset <= this.mask || this.grow(offset))) {
        this.pushRing(time, seq, key, value);
        return;
      }
    }
    this.overflow.push(time, seq, key, value);
  }

  /** The earliest timestamp, or +Infinity when empty. */
  peekTime(): number {
    const f = this.resolveFront();
    if (f >= 0) return this.entryTime[f]!;
    return f === FRONT_HEAP ? this.overflow.peekTime() : Number.POSITIVE_INFINITY;
  }

  /** Key of the earliest record; only when not empty. */
  peekKey(): Key {
    const f = this.resolveFront();
    return f >= 0 ? this.entryKeys[f]! : this.overflow.peekKey();
  }

  /** The earliest record; only when not empty. */
  peekValue(): T {
    const f = this.resolveFront();
    return f >= 0 ? (this.entryValues[f] as T) : this.overflow.peekValue();
  }

  /** Removes the earliest record. */
  pop(): void {
    const f = this.resolveFront();
    this.front = FRONT_UNKNOWN;
    if (f === FRONT_HEAP) {
      this.overflow.pop();
      return;
    }
    if (f < 0) return;
    const time = this.entryTime[f]!;
    const b = time & this.mask;
    const next = this.entryNext[f]!;
    this.heads[b] = next;
    if (next === NO_ENTRY) this.occupied[b >>> 5]! &= ~(1 << (b & 31));
    this.base = time;
    this.ringSize--;
    // The bucket's next record is the ring's next (same millisecond, later arrival); else scan.
    this.first = next;
    this.entryKeys[f] = undefined;
    this.entryValues[f] = undefined;
    this.entryNext[f] = this.freeEntry;
    this.freeEntry = f;
  }

  /** Every waiting record, in arrival order (for snapshots; sorts a copy of the order). */
  forEachInArrivalOrder(fn: (time: number, key: Key, value: T) => void): void {
    const all: { time: number; seq: number; key: Key; value: T }[] = [];
    const { heads, entryNext } = this;
    for (let b = 0; b < heads.length; b++) {
      for (let e = heads[b]!; e !== NO_ENTRY; e = entryNext[e]!) {
        all.push({
          time: this.entryTime[e]!,
          seq: this.entrySeq[e]!,
          key: this.entryKeys[e]!,
          value: this.entryValues[e] as T,
        });
      }
    }
    this.overflow.forEach((time, seq, key, value) => {
      all.push({ time, seq, key, value });
    });
    all.sort((a, b) => a.seq - b.seq);
    for (const r of all) fn(r.time, r.key, r.value);
  }

  private pushRing(time: number, seq: number, key: Key, value: T): void {
    let e = this.freeEntry;
    if (e !== NO_ENTRY) this.freeEntry = this.entryNext[e]!;
    else e = this.newEntryRow();
    this.entryTime[e] = time;
    this.entrySeq[e] = seq;
    this.entryNext[e] = NO_ENTRY;
    this.entryKeys[e] = key;
    this.entryValues[e] = value;
    const b = time & this.mask;
    if (this.heads[b] === NO_ENTRY) {
      this.heads[b] = e;
      this.occupied[b >>> 5]! |= 1 << (b & 31);
    } else {
      this.entryNext[this.tails[b]!] = e;
    }
    this.tails[b] = e;
    this.ringSize++;
    // A record of the earliest millisecond or later leaves the ring's front where it was.
    const first = this.first;
    if (first !== NO_ENTRY && time < this.entryTime[first]!) this.first = NO_ENTRY;
  }

  private resolveFront(): number {
    if (this.front !== FRONT_UNKNOWN) return this.front;
    const r = this.ringFront();
    const heap = this.overflow;
    let f = r;
    if (heap.size > 0) {
      if (r === NO_ENTRY) f = FRONT_HEAP;
      else {
        const ht = heap.peekTime();
        const rt = this.entryTime[r]!;
        if (ht < rt || (ht === rt && heap.peekSeq() < this.entrySeq[r]!)) f = FRONT_HEAP;
      }
    }
    this.front = f;
    return f;
  }

  /** The ring's earliest entry: the head of the first occupied bucket from `base`, 32 buckets a step. */
  private ringFront(): number {
    if (this.first !== NO_ENTRY || this.ringSize === 0) return this.first;
    const { mask, occupied } = this;
    let t = this.base;
    for (;;) {
      const b = t & mask;
      const bits = occupied[b >>> 5]! >>> (b & 31);
      if (bits !== 0) {
        t += 31 - Math.clz32(bits & -bits);
        break;
      }
      t += 32 - (b & 31);
    }
    this.first = this.heads[t & mask]!;
    return this.first;
  }

  /** Widens the ring to hold a record `offset` ms after `base`; false if that would be too wide. */
  private grow(offset: number): boolean {
    let buckets = this.mask + 1;
    while (buckets <= offset) buckets *= 2;
    if (buckets > MAX_BUCKETS) return false;
    const mask = buckets - 1;
    const heads = new Int32Array(buckets).fill(NO_ENTRY);
    const tails = new Int32Array(buckets);
    const occupied = new Uint32Array(buckets / 32);
    for (let t = this.base; t <= this.base + this.mask; t++) {
      const old = t & this.mask;
      if (this.heads[old] === NO_ENTRY) continue;
      const b = t & mask;
      heads[b] = this.heads[old]!;
      tails[b] = this.tails[old]!;
      occupied[b >>> 5]! |= 1 << (b & 31);
    }
    this.mask = mask;
    this.heads = heads;
    this.tails = tails;
    this.occupied = occupied;
    return true;
  }

  private newEntryRow(): number {
    const e = this.entryEnd++;
    if (e === this.entryNext.length) {
      const n = e * 2;
      const time = new Float64Array(n);
      time.set(this.entryTime);
      this.entryTime = time;
      const seq = new Float64Array(n);
      seq.set(this.entrySeq);
      this.entrySeq = seq;
      const next = new Int32Array(n);
      next.set(this.entryNext);
      this.entryNext = next;
    }
    return e;
  }
}
