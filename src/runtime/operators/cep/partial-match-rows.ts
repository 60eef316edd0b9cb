import type { NodeRef } from './shared-buffer.js';

/** A completed match held back (skip strategies): where it stands and its newest buffer node. */
export interface PartialMatch {
  state: number;
  /** Its newest node in the runner's shared buffer, or NO_NODE. */
  node: NodeRef;
  /** Time and id of its first event; ids grow with processing order. */
  startTs: number;
  startId: number;
}

/** "No partial match": the end of a key's list. */
export const NO_MATCH = -1;

// A row: NFA state, newest buffer node, next row in the key's list, start time and id.
const M_STATE = 0;
const M_NODE = 1;
const M_NEXT = 2;
const M_START_TS = 3;
const M_START_ID = 4;
const FIELDS = 5;

const INITIAL_ROWS = 4096;

/**
 * The partial matches of every key of one operator, as rows of one typed
 * array: a row is five numbers side by side (state, node, next, start time,
 * start id), so reading a partial match touches one or two cache lines and
 * no object. A key's partial matches are a list linked through `next`, in
 * the order the NFA made them (which decides the order of ties). Rows of
 * matches that end go to a free list and are reused newest first, so no
 * object per partial match lives long enough to be promoted and marked by
 * the garbage collector.
 */
export class PartialMatchRows {
  private rows = new Float64Array(INITIAL_ROWS * FIELDS);
  private end = 0;
  /** Free rows, chained through their `next` field. */
  private free = NO_MATCH;
  /** Rows in use. */
  live = 0;

  /** A new row, not linked to any other. */
  add(state: number, node: NodeRef, startTs: number, startId: number): number {
    let r = this.free;
    if (r !== NO_MATCH) this.free = this.rows[r * FIELDS + M_NEXT]!;
    else r = this.newRow();
    const at = r * FIELDS;
    const rows = this.rows;
    rows[at + M_STATE] = state;
    rows[at + M_NODE] = node;
    rows[at + M_NEXT] = NO_MATCH;
    rows[at + M_START_TS] = startTs;
    rows[at + M_START_ID] = startId;
    this.live++;
    return r;
  }

  /** Frees a row (its node is the caller's to release). */
  recycle(r: number): void {
    this.rows[r * FIELDS + M_NEXT] = this.free;
    this.free = r;
    this.live--;
  }

  stateOf(r: number): number {
    return this.rows[r * FIELDS + M_STATE]!;
  }

  nodeOf(r: number): NodeRef {
    return this.rows[r * FIELDS + M_NODE]!;
  }

  nextOf(r: number): number {
    return this.rows[r * FIELDS + M_NEXT]!;
  }

  startTsOf(r: number): number {
    return this.rows[r * FIELDS + M_START_TS]!;
  }

  startIdOf(r: number): number {
    return this.rows[r * FIELDS + M_START_ID]!;
  }

  /** Moves a partial match on: a new state and newest node (its start stays). */
  moveTo(r: number, state: number, node: NodeRef): void {
    this.rows[r * FIELDS + M_STATE] = state;
    this.rows[r * FIELDS + M_NODE] = node;
  }

  setNext(r: number, next: number): void {
    this.rows[r * FIELDS + M_NEXT] = next;
  }

  private newRow(): number {
    const r = this.end++;
    if (r * FIELDS === this.rows.length) {
      const grown = new Float64Array(this.rows.length * 2);
      grown.set(this.rows);
      this.rows = grown;
    }
    return r;
  }
}
