import type { Key } from '../key-groups.js';
import type { WindowAggregation } from './window-aggregation.js';

/** One key's accumulator of one slice, as queued for that key. */
interface QueuedSlice<ACC> {
  readonly end: number;
  /** The slice's own accumulator: read, never modified here. */
  acc: ACC;
  /** Queueing order; with `end` it gives the key's place among the window's keys. */
  readonly seq: number;
}

/**
 * A key's slices inside the current window, oldest first, kept as two stacks
 * so that the window's merge costs O(1) amortized merges per firing with an
 * associative `merge` alone (no inverse). `slices[head, split)` is the front
 * stack, each with the merge of itself and every newer front slice
 * (`suffix`); `slices[split, length)` is the back stack, whose merge is
 * `back`. Evicting pops the front; when the front is empty the back is moved
 * over and its suffix merges computed once.
 */
class KeySlices<ACC> {
  slices: QueuedSlice<ACC>[] = [];
  suffix: (ACC | undefined)[] = [];
  head = 0;
  split = 0;
  back: ACC | undefined;
  /** A queued accumulator changed (a late record): recompute before the next read. */
  stale = false;

  constructor(readonly key: Key) {}

  get size(): number {
    return this.slices.length - this.head;
  }

  front(): QueuedSlice<ACC> {
    return this.slices[this.head]!;
  }
}

/**
 * The state behind firing sliding windows incrementally: per key, a FIFO of
 * its slices in the window that fired last, as two stacks. Derived from the
 * slices alone, so it is never snapshotted: after a restore (or a
 * {@link clear}) the next firing queues what its window needs.
 *
 * Windows are served in increasing order of end. Before serving the window
 * ending at `end`, every slice in (max(queuedUpTo, end - size), end] must be
 * queued with {@link queueSlice}, in increasing order of end. Keys come out in
 * the order a direct merge of the slices yields: by the first slice of the
 * window holding the key, then by the key's place in that slice.
 */
export class SlidingWindowAccumulators<ACC> {
  private readonly byKey = new Map<Key, KeySlices<ACC>>();
  /** Keys with slices queued, in emission order unless `unordered`. */
  private keys: KeySlices<ACC>[] = [];
  private unordered = false;
  private seq = 0;
  private lastEnd = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly aggregation: WindowAggregation<unknown, ACC, unknown>,
    private readonly size: number,
  ) {}

  /** Every slice ending at or before this is queued (or not needed any more). */
  get queuedUpTo(): number {
    return this.lastEnd;
  }

  /** Queues each key's accumulator of the slice ending at `end`. */
  queueSlice(end: number, slice: ReadonlyMap<Key, ACC>): void {
    const merge = this.aggregation.merge!;
    for (const [key, acc] of slice) {
      let queue = this.byKey.get(key);
      if (queue === undefined) {
        queue = new KeySlices(key);
        this.byKey.set(key, queue);
        // Its first slice is newer than every other key's first: the order holds.
        this.keys.push(queue);
      }
      queue.slices.push({ end, acc, seq: this.seq++ });
      queue.back = merge(queue.back === undefined ? this.aggregation.create() : queue.back, acc);
    }
  }

  /**
   * Calls `emit` with each key's merge of its slices in the window ending at
   * `end`: a fresh accumulator the caller may keep.
   */
  fire(end: number, emit: (key: Key, acc: ACC) => void): void {
    this.lastEnd = end;
    const bound = end - this.size;
    const keys = this.keys;
    let kept = 0;
    for (const queue of keys) {
      if (queue.front().end <= bound) {
        evict(queue, bound);
        if (queue.size === 0) {
          this.byKey.delete(queue.key);
          continue;
        }
        this.unordered = true;
      }
      keys[kept++] = queue;
    }
    keys.length = kept;
    if (this.unordered) {
      keys.sort(byFirstSlice);
      this.unordered = false;
    }
    for (const queue of keys) emit(queue.key, this.windowOf(queue));
  }

  /**
   * A late record changed `key`'s accumulator of the slice ending at
   * `sliceEnd` (or created it): queue the new one if that slice is in a
   * window still to fire and already queued.
   */
  updated(key: Key, sliceEnd: number, acc: ACC): void {
    if (sliceEnd > this.lastEnd || sliceEnd <= this.lastEnd - this.size) return;
    let queue = this.byKey.get(key);
    if (queue === undefined) {
      queue = new KeySlices(key);
      this.byKey.set(key, queue);
      this.keys.push(queue);
    }
    const { slices } = queue;
    let i = slices.length - 1;
    while (i >= queue.head && slices[i]!.end > sliceEnd) i--;
    if (i >= queue.head && slices[i]!.end === sliceEnd) slices[i]!.acc = acc;
    // New to that slice: last in it, as in the slice's own map.
    else slices.splice(i + 1, 0, { end: sliceEnd, acc, seq: this.seq++ });
    queue.stale = true;
    this.unordered = true;
  }

  /** Forgets everything queued; the next firing queues its whole window again. */
  clear(): void {
    this.byKey.clear();
    this.keys = [];
    this.unordered = false;
    this.lastEnd = Number.NEGATIVE_INFINITY;
  }

  private windowOf(queue: KeySlices<ACC>): ACC {
    if (queue.stale || queue.head === queue.split) this.flip(queue);
    const { create, merge } = this.aggregation;
    const acc = merge!(create(), queue.suffix[queue.head]!);
    return queue.back === undefined ? acc : merge!(acc, queue.back);
  }

  /** Makes every queued slice part of the front stack, computing the suffix merges. */
  private flip(queue: KeySlices<ACC>): void {
    const { create } = this.aggregation;
    const merge = this.aggregation.merge!;
    const { slices, suffix, head } = queue;
    let newer: ACC | undefined;
    for (let i = slices.length - 1; i >= head; i--) {
      // Fresh accumulators: the slices' own are shared by other windows.
      const own = merge(create(), slices[i]!.acc);
      newer = newer === undefined ? own : merge(own, newer);
      suffix[i] = newer;
    }
    suffix.length = slices.length;
    queue.split = slices.length;
    queue.back = undefined;
    queue.stale = false;
  }
}

/** Drops a key's slices ending at or before `bound`. */
function evict<ACC>(queue: KeySlices<ACC>, bound: number): void {
  const { slices, suffix } = queue;
  let head = queue.head;
  while (head < slices.length && slices[head]!.end <= bound) suffix[head++] = undefined;
  // Into the back stack: its merge no longer applies, the next read flips.
  if (head > queue.split) queue.stale = true;
  if (head > 32 && head * 2 > slices.length) {
    queue.slices = slices.slice(head);
    queue.suffix = suffix.slice(head);
    queue.split = Math.max(0, queue.split - head);
    head = 0;
  }
  queue.head = head;
}

function byFirstSlice<ACC>(a: KeySlices<ACC>, b: KeySlices<ACC>): number {
  const x = a.front();
  const y = b.front();
  return x.end - y.end || x.seq - y.seq;
}
