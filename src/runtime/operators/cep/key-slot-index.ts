import type { Key } from '../../../core/key-groups.js';

const INITIAL_CAPACITY = 1024;
const EMPTY = 0;

/** Spreads consecutive keys (user ids, counters) over the table. */
export function home(key: number, mask: number): number {
  const h = Math.imul(key, 0x9e3779b1);
  return (h ^ (h >>> 16)) & mask;
}

/**
 * Key to slot for the CEP working set. Keys that are 32-bit integers (the
 * common case: ids) live in an open-addressing table, each key beside its
 * slot in one `Int32Array`, so a lookup usually reads one cache line where a
 * `Map` reads its bucket and then its entry; with many keys each of those is
 * a miss. Other keys go to a `Map`. Linear probing, at most half full;
 * deletion shifts the following entries back instead of leaving tombstones.
 */
export class KeySlotIndex {
  /** Pairs (key, slot + 1); a slot field of 0 marks an empty place. */
  private table = new Int32Array(2 * INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  private ints = 0;
  private readonly others = new Map<Key, number>();

  get size(): number {
    return this.ints + this.others.size;
  }

  /** The key's slot, or -1. */
  get(key: Key): number {
    if (typeof key !== 'number' || (key | 0) !== key) return this.others.get(key) ?? -1;
    const { table, mask } = this;
    for (let i = home(key, mask); ; i = (i + 1) & mask) {
      const slot = table[2 * i + 1]!;
      if (slot === EMPTY) return -1;
      if (table[2 * i] === key) return slot - 1;
    }
  }

  /** Adds a key that has no slot yet. */
  set(key: Key, slot: number): void {
    if (typeof key !== 'number' || (key | 0) !== key) {
      this.others.set(key, slot);
      return;
    }
    if (2 * (this.ints + 1) > this.mask + 1) this.grow();
    this.place(key, slot);
    this.ints++;
  }

  delete(key: Key): void {
    if (typeof key !== 'number' || (key | 0) !== key) {
      this.others.delete(key);
      return;
    }
    const { table, mask } = this;
    let i = home(key, mask);
    for (;;) {
      if (table[2 * i + 1] === EMPTY) return;
      if (table[2 * i] === key) break;
      i = (i + 1) & mask;
    }
    this.ints--;
    // Entries after the hole that could sit in it move back, so every probe still ends at an empty place.
    for (let j = (i + 1) & mask; table[2 * j + 1] !== EMPTY; j = (j + 1) & mask) {
      const h = home(table[2 * j]!, mask);
      const stays = i <= j ? h > i && h <= j : h > i || h <= j;
      if (stays) continue;
      table[2 * i] = table[2 * j]!;
      table[2 * i + 1] = table[2 * j + 1]!;
      i = j;
    }
    table[2 * i] = 0;
    table[2 * i + 1] = EMPTY;
  }

  private place(key: number, slot: number): void {
    const { table, mask } = this;
    let i = home(key, mask);
    while (table[2 * i + 1] !== EMPTY) i = (i + 1) & mask;
    table[2 * i] = key;
    table[2 * i + 1] = slot + 1;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] !== EMPTY) this.place(old[i]!, old[i + 1]! - 1);
    }
  }
}
