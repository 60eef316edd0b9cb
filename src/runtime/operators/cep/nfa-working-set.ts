import type { Key } from '../../../core/key-groups.js';
import type { ValueState } from '../../../core/state.js';
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import { KeySlotIndex } from './key-slot-index.js';
import {
  KeyStateColumns,
  KS_BUFFER,
  KS_COUNT,
  KS_EARLIEST,
  KS_FIRST,
  KS_FLAGS,
  KS_NEXT_ID,
} from './key-state-columns.js';
import { emptyKeyNfaState, type KeyNfaState } from './nfa-runner.js';

/** The slot holds a key's state. */
const IN_USE = 1;
/** A slot's state changed since the last write-back. */
const DIRTY = 2;
/** The backend holds a copy of the slot's key (from a write-back or a restore). */
const STORED = 4;

/**
 * Parked slots (keys that went idle but keep their slot) allowed per slot in
 * use, and in any case, before they are all given back (see {@link settle}).
 * A parked slot costs its row and table entry (under 100 bytes); a key in
 * use holds that and at least a partial match, a buffer node, an event and
 * the user's record, about twice as much: so parked slots cost at most about
 * twice the memory of the state itself.
 */
const PARKED_PER_LIVE = 4;
const PARKED_FLOOR = 16_384;

/**
 * The slot a key without a slot runs on: what the record leaves behind moves
 * to a slot of the key's own only if it is anything (see {@link adopt}).
 */
export const SCRATCH_SLOT = 0;

/**
 * The NFA state of every key that holds any, as the CEP operator's working
 * set: each such key has a dense slot, and its state is a row of the
 * runner's {@link KeyStateColumns} (first partial match, counts, next event
 * id, earliest start, flags side by side), so a record reads the key's
 * table entry and one row before its partial matches, and no object per key.
 *
 * A key that goes idle keeps its slot, parked: its row is emptied (it holds
 * nothing, as a key without a slot), but the key still finds it, so a key
 * that keeps starting and ending partial matches does not leave and re-enter
 * the key table each time. Parked slots are given back in one pass when they
 * outnumber four times the slots in use (plus a floor), so memory stays
 * proportional to the keys holding state.
 *
 * The keyed state backend stays what checkpoints, restores and rescales the
 * state: at each snapshot the slots changed since the previous one are
 * written into it (as {@link KeyNfaState} objects, made then), and the keys
 * that went idle are cleared from it, so a snapshot writes only what changed
 * and is cut by key group as any keyed state is. On restore the backend's
 * keys are loaded into slots.
 */
export class NfaWorkingSet {
  private readonly slots = new KeySlotIndex();
  /** The key of each slot in use or parked; undefined for a free slot. */
  private readonly keys: (Key | undefined)[] = [];
  /** Slots given back, reused last-in first-out (the most recently touched memory). */
  private readonly free: number[] = [];
  /** One past the highest slot ever used (slot 0 is the scratch slot). */
  private end = SCRATCH_SLOT + 1;
  /** Keys that went idle since the last write-back while the backend still holds them. */
  private readonly cleared: Key[] = [];
  /** Slots in use (holding state); the others a key holds are parked. */
  private live = 0;

  constructor(readonly columns: KeyStateColumns = new KeyStateColumns()) {}

  /** Keys holding state. */
  get size(): number {
    return this.live;
  }

  /** Keys holding a slot, in use or parked. */
  get slotted(): number {
    return this.slots.size;
  }

  /** Slots in use or free: what a loop over {@link inUse} must cover. */
  get slotEnd(): number {
    return this.end;
  }

  /** The key's slot (in use or parked), or -1 if it has none. */
  slotOf(key: Key): number {
    return this.slots.get(key);
  }

  /**
   * The slot of `key`, given the one looked up for it earlier (since the last
   * {@link settle}): a key keeps its slot until a settle gives parked slots
   * back, so only a key that had none is looked up again (an earlier record
   * may have given it one).
   */
  recheck(slot: number, key: Key): number {
    return slot >= 0 ? slot : this.slotOf(key);
  }

  /**
   * Between records (never while slots looked up earlier are still used):
   * gives parked slots back once they outnumber {@link PARKED_PER_LIVE} times
   * the slots in use plus a floor, so that a stream of ever new keys does not
   * keep a slot per key.
   */
  settle(): void {
    if (this.slots.size - this.live > PARKED_PER_LIVE * this.live + PARKED_FLOOR) this.unpark();
  }

  /** Gives every parked slot back: its key leaves the table (it holds nothing). */
  private unpark(): void {
    const { columns, keys, slots, free } = this;
    for (let slot = this.end - 1; slot > SCRATCH_SLOT; slot--) {
      const key = keys[slot];
      if (key === undefined || this.inUse(slot)) continue;
      slots.delete(key);
      keys[slot] = undefined;
      columns.reset(slot);
      free.push(slot);
    }
  }

  /** Whether a key holds the slot. */
  inUse(slot: number): boolean {
    return (this.columns.get(slot, KS_FLAGS) & IN_USE) !== 0;
  }

  /** The earliest start time of the slot's partial matches (+Infinity if none or free). */
  earliestStart(slot: number): number {
    return this.columns.get(slot, KS_EARLIEST);
  }

  keyAt(slot: number): Key {
    return this.keys[slot]!;
  }

  /**
   * Gives `key` (which holds no state yet) a slot, and moves into it what the
   * scratch slot holds (the scratch slot is left empty).
   */
  adopt(key: Key, earliestStart: number): number {
    const slot = this.take(key);
    const columns = this.columns;
    columns.move(SCRATCH_SLOT, slot);
    columns.set(slot, KS_FLAGS, IN_USE | DIRTY);
    columns.set(slot, KS_EARLIEST, earliestStart);
    this.live++;
    return slot;
  }

  /** Sets the slot's earliest start without marking it changed (a restored key). */
  setEarliestStart(slot: number, earliestStart: number): void {
    this.columns.set(slot, KS_EARLIEST, earliestStart);
  }

  /**
   * Records that the slot's state changed (it is written back at the next
   * snapshot); a parked slot is in use again.
   */
  changed(slot: number, earliestStart: number): void {
    const columns = this.columns;
    const flags = columns.get(slot, KS_FLAGS);
    if ((flags & IN_USE) === 0) this.live++;
    columns.set(slot, KS_FLAGS, flags | IN_USE | DIRTY);
    columns.set(slot, KS_EARLIEST, earliestStart);
  }

  /**
   * The slot's key went idle (or ran a record on its parked slot and stayed
   * idle): its row is emptied, and the key keeps the slot, parked.
   */
  park(slot: number): void {
    const columns = this.columns;
    const flags = columns.get(slot, KS_FLAGS);
    if ((flags & STORED) !== 0) this.cleared.push(this.keys[slot]!);
    if ((flags & IN_USE) !== 0) this.live--;
    columns.reset(slot);
  }

  /** The slot's state as an object (snapshots only): the fields the backend stores. */
  stateOf<T>(slot: number): KeyNfaState<T> {
    const columns = this.columns;
    const s = emptyKeyNfaState<T>();
    s.firstMatch = columns.get(slot, KS_FIRST);
    s.matchCount = columns.get(slot, KS_COUNT);
    s.bufferSize = columns.get(slot, KS_BUFFER);
    s.nextEventId = columns.get(slot, KS_NEXT_ID);
    // A copy: the runner adds to the slot's list in place.
    s.completed = columns.completed(slot).slice();
    return s;
  }

  /**
   * Makes the backend hold exactly the working set: the states changed since
   * the last write-back are written, the keys that went idle are cleared.
   */
  writeBack<T>(backend: KeyedStateBackend, values: ValueState<KeyNfaState<T>>): void {
    for (const key of this.cleared) {
      // A key that went idle and came back holds state again: it is written below.
      const slot = this.slots.get(key);
      if (slot >= 0 && this.inUse(slot)) continue;
      backend.currentKey = key;
      values.clear();
    }
    this.cleared.length = 0;
    const { columns, keys } = this;
    for (let slot = SCRATCH_SLOT + 1; slot < this.end; slot++) {
      const flags = columns.get(slot, KS_FLAGS);
      if ((flags & DIRTY) === 0) continue;
      backend.currentKey = keys[slot]!;
      values.update(this.stateOf<T>(slot));
      columns.set(slot, KS_FLAGS, IN_USE | STORED);
    }
    backend.currentKey = undefined;
  }

  /**
   * Loads a restored key (which the backend holds already) into a slot;
   * its earliest start is set by the caller, who can read its partial matches.
   */
  load<T>(key: Key, s: KeyNfaState<T>): number {
    const slot = this.take(key);
    const columns = this.columns;
    columns.set(slot, KS_FIRST, s.firstMatch);
    columns.set(slot, KS_COUNT, s.matchCount);
    columns.set(slot, KS_BUFFER, s.bufferSize);
    columns.set(slot, KS_NEXT_ID, s.nextEventId);
    columns.setCompleted(slot, s.completed.slice());
    columns.set(slot, KS_FLAGS, IN_USE | STORED);
    this.live++;
    return slot;
  }

  private take(key: Key): number {
    const slot = this.free.pop() ?? this.grow();
    this.slots.set(key, slot);
    this.keys[slot] = key;
    return slot;
  }

  private grow(): number {
    const slot = this.end++;
    this.columns.ensure(slot);
    return slot;
  }
}
