import type { Key } from '../../core/key-groups.js';
import type { WindowAggregation } from './window-aggregation.js';

/**
 * A key's slices inside the current window, oldest first, kept as two stacks
 * so that the window's merge costs O(1) amortized merges per firing with an
 * associative `merge` alone (no inverse). Entry i is the slice ending at
 * `ends[i]`, its accumulator `accs[i]` (the slice's own: read, never
 * modified here) and `seqs[i]`, its queueing order, which with the end gives
 * the key's place among the window's keys (parallel arrays: no object per
 * entry). Entries [head, split) are the front stack, each with the merge of
 * itself and every newer front entry (`suffix`); [split, length) are the
 * back stack, whose merge is `back`. Evicting pops the front; when the front
 * is empty the back is moved over and its suffix merges computed once.
 */
class KeySlices<ACC> {
  ends: number[] = [];
  accs: ACC[] = [];
  seqs: number[] = [];
  suffix: (ACC | undefined)[] = [];
  head = 0;
  split = 0;
  back: ACC | undefined;
  /** A queued accumulator changed (a late record): recompute before the next read. */
  stale = false;

  constructor(readonly key: Key) {}

  get size(): number {
    return this.ends.length - this.head;
  }

  push(end: number, acc: ACC, seq: number): void {
    this.ends.push(end);
    this.accs.push(acc);
    this.seqs.push(seq);
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
  queueSlice(end: number, slice: Iterable<readonly [Key, ACC]>): void {
    const merge = this.aggregation.merge!;
    for (const [key, acc] of slice) {
      let queue = this.byKey.get(key);
      if (queue === undefined) {
        queue = new KeySlices(key);
        this.byKey.set(key, queue);
        // Its first slice is newer than every other key's first: the order holds.
        this.keys.push(queue);
      }
      queue.push(end, acc, this.seq++);
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
      if (queue.ends[queue.head]! <= bound) {
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
    const { ends } = queue;
    let i = ends.length - 1;
    while (i >= queue.head && ends[i]! > sliceEnd) i--;
    if (i >= queue.head && ends[i] === sliceEnd) queue.accs[i] = acc;
    else {
      // New to that slice: last in it, as in the slice's own map.
      ends.splice(i + 1, 0, sliceEnd);
      queue.accs.splice(i + 1, 0, acc);
      queue.seqs.splice(i + 1, 0, this.seq++);
    }
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
    const { accs, suffix, head } = queue;
    let newer: ACC | undefined;
    for (let i = accs.length - 1; i >= head; i--) {
      // Fresh accumulators: the slices' own are shared by other windows.
      const own = merge(create(), accs[i]!);
      newer = newer === undefined ? own : merge(own, newer);
      suffix[i] = newer;
    }
    suffix.length = accs.length;
    queue.split = accs.length;
    queue.back = undefined;
    queue.stale = false;
  }
}

/** Drops a key's slices ending at or before `bound`. */
function evict<ACC>(queue: KeySlices<ACC>, bound: number): void {
  const { ends, suffix } = queue;
  let head = queue.head;
  while (head < ends.length && ends[head]! <= bound) suffix[head++] = undefined;
  // Into the back stack: its merge no longer applies, the next read flips.
  if (head > queue.split) queue.stale = true;
  // Compact once more are dropped than kept: amortized O(1), and dropped
  // accumulators are released rather than held until the queue empties.
  if (head * 2 > ends.length) {
    queue.ends = ends.slice(head);
    queue.accs = queue.accs.slice(head);
    queue.seqs = queue.seqs.slice(head);
    queue.suffix = suffix.slice(head);
    queue.split = Math.max(0, queue.split - head);
    head = 0;
  }
  queue.head = head;
}

function byFirstSlice<ACC>(a: KeySlices<ACC>, b: KeySlices<ACC>): number {
  return a.ends[a.head]! - b.ends[b.head]! || a.seqs[a.head]! - b.seqs[b.head]!;
}
