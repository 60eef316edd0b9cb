/** A node of the shared buffer: a row number; {@link NO_NODE} is "none" (before a match's first event). */
export type NodeRef = number;
/** An event of the shared buffer: a row number. */
export type EventRef = number;

export const NO_NODE: NodeRef = -1;

// A node row: the event it took, the stage that took it, the node before, its reference count.
const N_EVENT = 0;
const N_STAGE = 1;
const N_PREV = 2;
const N_REFS = 3;
const NODE_FIELDS = 4;
// An event row (float64): its id (position in its key's processing order), its timestamp and
// its reference count, side by side so that releasing a node touches one line for its event.
const E_ID = 0;
const E_TS = 1;
const E_REFS = 2;
// Padded to 32 bytes, so that a row never straddles two cache lines.
const EVENT_FIELDS = 4;

const INITIAL_ROWS = 4096;

/**
 * The shared buffer of every key of one operator, in columns: nodes are rows
 * of four integers (event, stage, previous node, references) in one typed
 * array, events are rows of id, timestamp and reference count in another
 * (the record itself in an array beside it). A step of a partial match ("event `e` taken
 * by stage `s` after node `p`") is a node; matches that share a prefix share
 * its nodes, so a partial match is the number of its newest node.
 *
 * Rows are reused through free lists (newest first, so that a new row is
 * usually memory touched a moment ago) instead of objects that would live
 * as long as a key's next record, be promoted and be marked by the
 * collector. Reference counts say what is still held, so `size` (events
 * plus nodes of the key being run; the runner loads and stores it per key)
 * is exact. Ids for nodes are given only when a snapshot writes a key's
 * buffer.
 */
export class SharedBuffer<T> {
  /** Events and nodes held by the key being run. */
  size = 0;
  private nodes = new Int32Array(INITIAL_ROWS * NODE_FIELDS);
  private nodeEnd = 0;
  /** Free node rows, chained through their previous-node field. */
  private freeNode: NodeRef = NO_NODE;
  private events = new Float64Array(INITIAL_ROWS * EVENT_FIELDS);
  private values: (T | undefined)[] = [];
  private eventEnd = 0;
  /** Free event rows, chained through their reference-count field. */
  private freeEvent: EventRef = -1;

  /** An event not yet held by any node; it counts once a node takes it. */
  event(id: number, value: T, timestamp: number, refs = 0): EventRef {
    let e = this.freeEvent;
    if (e >= 0) this.freeEvent = this.events[e * EVENT_FIELDS + E_REFS]!;
    else e = this.newEventRow();
    // Read after `newEventRow`, which may have grown the array.
    const events = this.events;
    const at = e * EVENT_FIELDS;
    events[at + E_ID] = id;
    events[at + E_TS] = timestamp;
    events[at + E_REFS] = refs;
    this.values[e] = value;
    return e;
  }

  /** A new node (holding no reference yet) for `event`, taken by `stage` after `prev`. */
  append(event: EventRef, stage: number, prev: NodeRef): NodeRef {
    if (this.events[event * EVENT_FIELDS + E_REFS]!++ === 0) this.size++;
    if (prev !== NO_NODE) this.nodes[prev * NODE_FIELDS + N_REFS]!++;
    this.size++;
    return this.node(event, stage, prev, 0);
  }

  /** A node row as given (a restore sets references and links itself). */
  node(event: EventRef, stage: number, prev: NodeRef, refs: number): NodeRef {
    let n = this.freeNode;
    if (n !== NO_NODE) this.freeNode = this.nodes[n * NODE_FIELDS + N_PREV]!;
    else n = this.newNodeRow();
    const row = n * NODE_FIELDS;
    const nodes = this.nodes;
    nodes[row + N_EVENT] = event;
    nodes[row + N_STAGE] = stage;
    nodes[row + N_PREV] = prev;
    nodes[row + N_REFS] = refs;
    return n;
  }

  retain(node: NodeRef): void {
    if (node !== NO_NODE) this.nodes[node * NODE_FIELDS + N_REFS]!++;
  }

  /** Drops one reference; nodes and events nobody holds any more leave the buffer, back along the chain. */
  release(node: NodeRef): void {
    const { nodes, events } = this;
    let n = node;
    while (n !== NO_NODE) {
      const row = n * NODE_FIELDS;
      if (--nodes[row + N_REFS]! > 0) return;
      this.size--;
      const event = nodes[row + N_EVENT]!;
      const refsAt = event * EVENT_FIELDS + E_REFS;
      if (--events[refsAt]! === 0) {
        this.size--;
        // The user's record must not outlive the buffer through a free row.
        this.values[event] = undefined;
        events[refsAt] = this.freeEvent;
        this.freeEvent = event;
      }
      const prev = nodes[row + N_PREV]!;
      nodes[row + N_PREV] = this.freeNode;
      this.freeNode = n;
      n = prev;
    }
  }

  eventOf(node: NodeRef): EventRef {
    return this.nodes[node * NODE_FIELDS + N_EVENT]!;
  }

  stageOf(node: NodeRef): number {
    return this.nodes[node * NODE_FIELDS + N_STAGE]!;
  }

  prevOf(node: NodeRef): NodeRef {
    return this.nodes[node * NODE_FIELDS + N_PREV]!;
  }

  refsOf(node: NodeRef): number {
    return this.nodes[node * NODE_FIELDS + N_REFS]!;
  }

  /** Sets a node's previous node (a restore links nodes after creating them). */
  link(node: NodeRef, prev: NodeRef): void {
    this.nodes[node * NODE_FIELDS + N_PREV] = prev;
  }

  eventId(event: EventRef): number {
    return this.events[event * EVENT_FIELDS + E_ID]!;
  }

  eventTimestamp(event: EventRef): number {
    return this.events[event * EVENT_FIELDS + E_TS]!;
  }

  eventRefCount(event: EventRef): number {
    return this.events[event * EVENT_FIELDS + E_REFS]!;
  }

  value(event: EventRef): T {
    return this.values[event] as T;
  }

  /** Walks the chain ending at `node`, newest first. */
  forEachBack(node: NodeRef, fn: (eventId: number, stage: number, value: T) => void): void {
    for (let n = node; n !== NO_NODE; n = this.prevOf(n)) {
      const e = this.eventOf(n);
      fn(this.eventId(e), this.stageOf(n), this.value(e));
    }
  }

  private newNodeRow(): NodeRef {
    const n = this.nodeEnd++;
    if (n * NODE_FIELDS === this.nodes.length) {
      const grown = new Int32Array(this.nodes.length * 2);
      grown.set(this.nodes);
      this.nodes = grown;
    }
    return n;
  }

  private newEventRow(): EventRef {
    const e = this.eventEnd++;
    if (e * EVENT_FIELDS === this.events.length) {
      const events = new Float64Array(this.events.length * 2);
      events.set(this.events);
      this.events = events;
    }
    return e;
  }
}
