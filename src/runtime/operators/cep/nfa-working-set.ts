import type { Key } from '../../../core/key-groups.js';
import type { ValueState } from '../../../core/state.js';
import type { KeyedStateBackend } from '../../../state/keyed-state-backend.js';
import { KeySlotIndex } from './key-slot-index.js';
import type { KeyNfaState } from './nfa-runner.js';

/** A slot's state changed since the last write-back. */
const DIRTY = 1;
/** The backend holds a copy of the slot's key (from a write-back or a restore). */
const STORED = 2;

const INITIAL_SLOTS = 1024;

/**
 * The NFA state of every key that holds any, as the CEP operator's working
 * set: each such key has a dense slot, and per-slot columns in typed arrays
 * answer the per-record questions (is anything due to time out?) without
 * reading the key's state object. A record costs one map lookup (key to
 * slot) instead of a backend read and write per record.
 *
 * The keyed state backend stays what checkpoints, restores and rescales the
 * state: at each snapshot the slots changed since the previous one are
 * written into it, and the keys that went idle are cleared from it, so a
 * snapshot writes only what changed and is cut by key group as any keyed
 * state is. On restore the backend's keys are loaded into slots.
 */
export class NfaWorkingSet<T> {
  private readonly slots = new KeySlotIndex();
  private keys: Key[] = [];
  private states: (KeyNfaState<T> | undefined)[] = [];
  private flags = new Uint8Array(INITIAL_SLOTS);
  /**
   * Per slot, the earliest start time of its partial matches (+Infinity if it
   * has none): with `within`, a record or a sweep needs the state only when
   * something may have timed out.
   */
  earliestStart = new Float64Array(INITIAL_SLOTS);
  /** Slots freed, reused last-in first-out (the most recently touched memory). */
  private readonly free: number[] = [];
  /** Slots freed since the last {@link settle}: not reused before it (see {@link recheck}). */
  private readonly freed: number[] = [];
  /** One past the highest slot ever used. */
  private end = 0;
  /** Keys that went idle since the last write-back while the backend still holds them. */
  private readonly cleared: Key[] = [];

  /** Keys holding state. */
  get size(): number {
    return this.slots.size;
  }

  /** Slots in use or free: what a loop over {@link stateAt} must cover. */
  get slotEnd(): number {
    return this.end;
  }

  /** The key's slot, or -1 if it holds no state. */
  slotOf(key: Key): number {
    return this.slots.get(key);
  }

  /**
   * The slot of `key`, given the one looked up for it earlier (since the last
   * {@link settle}): freed slots are not reused in between, so a slot still
   * in use is still the key's, and only its state (read already) is checked.
   */
  recheck(slot: number, key: Key): number {
    if (slot >= 0 && this.states[slot] !== undefined) return slot;
    return this.slotOf(key);
  }

  /** Makes the slots freed since the last call reusable. */
  settle(): void {
    const { freed, free } = this;
    while (freed.length > 0) free.push(freed.pop()!);
  }

  /** The state in `slot`, or undefined for a free slot. */
  stateAt(slot: number): KeyNfaState<T> | undefined {
    return this.states[slot];
  }

  keyAt(slot: number): Key {
    return this.keys[slot]!;
  }

  /** Gives `key` (which holds no state yet) a slot holding `state`. */
  add(key: Key, state: KeyNfaState<T>, earliestStart: number): number {
    const slot = this.free.pop() ?? this.grow();
    this.slots.set(key, slot);
    this.keys[slot] = key;
    this.states[slot] = state;
    this.flags[slot] = DIRTY;
    this.earliestStart[slot] = earliestStart;
    return slot;
  }

  /** Records that the slot's state changed (it is written back at the next snapshot). */
  changed(slot: number, earliestStart: number): void {
    this.flags[slot]! |= DIRTY;
    this.earliestStart[slot] = earliestStart;
  }

  /** Frees the slot of a key that went idle; returns its state for reuse. */
  remove(slot: number): KeyNfaState<T> {
    const key = this.keys[slot]!;
    const state = this.states[slot]!;
    if ((this.flags[slot]! & STORED) !== 0) this.cleared.push(key);
    this.slots.delete(key);
    this.states[slot] = undefined;
    this.keys[slot] = 0;
    this.flags[slot] = 0;
    this.earliestStart[slot] = Number.POSITIVE_INFINITY;
    this.freed.push(slot);
    return state;
  }

  /**
   * Makes the backend hold exactly the working set: the states changed since
   * the last write-back are written, the keys that went idle are cleared.
   */
  writeBack(backend: KeyedStateBackend, values: ValueState<KeyNfaState<T>>): void {
    for (const key of this.cleared) {
      // A key that went idle and came back has a slot again: it is written below.
      if (this.slots.get(key) >= 0) continue;
      backend.currentKey = key;
      values.clear();
    }
    this.cleared.length = 0;
    const { flags, states, keys } = this;
    for (let slot = 0; slot < this.end; slot++) {
      if ((flags[slot]! & DIRTY) === 0) continue;
      backend.currentKey = keys[slot]!;
      values.update(states[slot]!);
      flags[slot] = STORED;
    }
    backend.currentKey = undefined;
  }

  /** Loads a restored key, which the backend holds already. */
  load(key: Key, state: KeyNfaState<T>, earliestStart: number): void {
    const slot = this.add(key, state, earliestStart);
    this.flags[slot] = STORED;
  }

  private grow(): number {
    const slot = this.end++;
    if (slot === this.flags.length) {
      const flags = new Uint8Array(slot * 2);
      flags.set(this.flags);
      this.flags = flags;
      const earliest = new Float64Array(slot * 2);
      earliest.set(this.earliestStart);
      this.earliestStart = earliest;
    }
    return slot;
  }
}
