import { NO_MATCH, type PartialMatch } from './partial-match-rows.js';

// A slot's fields, side by side in one row of 8 numbers (64 bytes: one or two cache lines).
/** The first of the key's partial-match rows, NO_MATCH if none. */
export const KS_FIRST = 0;
/** How many partial matches the key has. */
export const KS_COUNT = 1;
/** Events and nodes the key holds in the shared buffer. */
export const KS_BUFFER = 2;
/** The id the key's next event gets. */
export const KS_NEXT_ID = 3;
/** The earliest start time of the key's partial matches, +Infinity if none. */
export const KS_EARLIEST = 4;
/** How many completed matches the key holds back (their list is in `completed`). */
export const KS_COMPLETED = 5;
/** Bit flags of the working set (in use, dirty, stored). */
export const KS_FLAGS = 6;
/** Numbers per slot. */
export const KEY_STRIDE = 8;
const STRIDE = KEY_STRIDE;

const INITIAL_SLOTS = 1024;

/** The empty list of completed matches: shared, frozen so that nobody adds to it. */
const NO_COMPLETED = Object.freeze([]) as unknown as PartialMatch[];

/**
 * The per-key NFA state of every key of one operator, as columns indexed by
 * the key's slot: a record of a key reads one row of this array before its
 * partial matches, where a state object per key would cost a pointer to
 * follow and an object to read (each a cache miss among many keys), and
 * objects that live long enough to be promoted. Completed matches held back
 * by a skip strategy, rare and short-lived, stay a list per slot, read only
 * when the slot's count says there are any.
 */
export class KeyStateColumns {
  /** Rows of {@link STRIDE} numbers, one per slot; replaced when it grows (read it per call). */
  data = new Float64Array(INITIAL_SLOTS * STRIDE);
  private readonly completedLists: PartialMatch[][] = [];

  constructor() {
    this.clear(0, INITIAL_SLOTS);
  }

  /** Slots the columns hold now. */
  get capacity(): number {
    return this.data.length / STRIDE;
  }

  get(slot: number, field: number): number {
    return this.data[slot * STRIDE + field]!;
  }

  set(slot: number, field: number, value: number): void {
    this.data[slot * STRIDE + field] = value;
  }

  /** The slot's completed matches held back (empty unless {@link KS_COMPLETED} says otherwise). */
  completed(slot: number): PartialMatch[] {
    return this.data[slot * STRIDE + KS_COMPLETED]! === 0
      ? NO_COMPLETED
      : this.completedLists[slot]!;
  }

  setCompleted(slot: number, list: PartialMatch[]): void {
    this.completedLists[slot] = list.length === 0 ? NO_COMPLETED : list;
    this.data[slot * STRIDE + KS_COMPLETED] = list.length;
  }

  clearCompleted(slot: number): void {
    this.completedLists[slot] = NO_COMPLETED;
    this.data[slot * STRIDE + KS_COMPLETED] = 0;
  }

  /** Whether the slot holds nothing: no partial match, no completed match held back. */
  isIdle(slot: number): boolean {
    const at = slot * STRIDE;
    return this.data[at + KS_COUNT] === 0 && this.data[at + KS_COMPLETED] === 0;
  }

  /** Moves the fields of slot `from` to slot `to` (flags excepted) and empties `from`. */
  move(from: number, to: number): void {
    const d = this.data;
    const f = from * STRIDE;
    const t = to * STRIDE;
    const flags = d[t + KS_FLAGS]!;
    d.copyWithin(t, f, f + STRIDE);
    d[t + KS_FLAGS] = flags;
    if (d[f + KS_COMPLETED] !== 0) this.completedLists[to] = this.completedLists[from]!;
    this.reset(from);
  }

  /** Empties a slot's fields and flags: no partial matches, nothing held, event ids from 0. */
  reset(slot: number): void {
    const d = this.data;
    const at = slot * STRIDE;
    // The list is NO_COMPLETED already unless the count says otherwise (one pointer array less to touch).
    if (d[at + KS_COMPLETED] !== 0) this.completedLists[slot] = NO_COMPLETED;
    d[at + KS_FIRST] = NO_MATCH;
    d[at + KS_COUNT] = 0;
    d[at + KS_BUFFER] = 0;
    d[at + KS_NEXT_ID] = 0;
    d[at + KS_EARLIEST] = Number.POSITIVE_INFINITY;
    d[at + KS_COMPLETED] = 0;
    d[at + KS_FLAGS] = 0;
  }

  /** Makes room for slots up to `slot`. */
  ensure(slot: number): void {
    if (slot < this.capacity) return;
    const old = this.capacity;
    const grown = new Float64Array(Math.max(old * 2, slot + 1) * STRIDE);
    grown.set(this.data);
    this.data = grown;
    this.clear(old, this.capacity);
  }

  private clear(from: number, to: number): void {
    const d = this.data;
    for (let at = from * STRIDE; at < to * STRIDE; at += STRIDE) {
      d.fill(0, at, at + STRIDE);
      d[at + KS_FIRST] = NO_MATCH;
      d[at + KS_EARLIEST] = Number.POSITIVE_INFINITY;
    }
  }
}
