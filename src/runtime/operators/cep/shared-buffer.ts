/** An event some partial match holds; stored once however many matches hold it. */
export interface BufferedEvent<T> {
  /** Position of the event in the key's processing order. */
  id: number;
  value: T;
  timestamp: number;
  /** Nodes that point at this event. */
  refs: number;
}

/**
 * One step of a partial match: "event `event` was taken by stage `stage`,
 * after the step `prev`". Matches that share a prefix share its nodes, so a
 * partial match is a pointer to its newest node.
 */
export interface BufferNode<T> {
  event: BufferedEvent<T>;
  stage: number;
  /** The node before, or null for a match's first event. */
  prev: BufferNode<T> | null;
  /** Partial matches, completed matches and later nodes that point at this node. */
  refs: number;
}

export const NO_NODE = null;

/**
 * Events and nodes that left every buffer, kept for reuse. They would
 * otherwise die old: with many keys a key's next record comes many records
 * later, so buffer entries outlive young-generation collections, are
 * promoted, and cost old-generation marking. One thread runs one operator
 * at a time, so the pools are shared by all buffers of the thread.
 */
const freeEvents: BufferedEvent<unknown>[] = [];
const freeNodes: BufferNode<unknown>[] = [];
/** Enough for the churn of many keys between two collections; more is left to the collector. */
const POOL_LIMIT = 65_536;

/**
 * The shared buffer: events and the nodes that chain them into partial
 * matches, linked by reference rather than looked up by id (no map per key,
 * nothing to look up per step). Reference counts say what is still held, so
 * `size` (events plus nodes) is exact; memory is the garbage collector's. The
 * nodes of a key are reached only from its matches, so one buffer object
 * serves every key: the runner loads a key's count into `size` before a step
 * and stores it back after. Ids are given only when a snapshot writes the
 * buffer.
 */
export class SharedBuffer<T> {
  /** Events and nodes held by the key being run. */
  size = 0;

  /** An event not yet held by any node; it counts once a node takes it. */
  static event<T>(id: number, value: T, timestamp: number): BufferedEvent<T> {
    const e = freeEvents.pop() as BufferedEvent<T> | undefined;
    if (e === undefined) return { id, value, timestamp, refs: 0 };
    e.id = id;
    e.value = value;
    e.timestamp = timestamp;
    e.refs = 0;
    return e;
  }

  /** A new node (holding no reference yet) for `event`, taken by `stage` after `prev`. */
  append(event: BufferedEvent<T>, stage: number, prev: BufferNode<T> | null): BufferNode<T> {
    if (event.refs++ === 0) this.size++;
    if (prev !== null) prev.refs++;
    this.size++;
    const n = freeNodes.pop() as BufferNode<T> | undefined;
    if (n === undefined) return { event, stage, prev, refs: 0 };
    n.event = event;
    n.stage = stage;
    n.prev = prev;
    n.refs = 0;
    return n;
  }

  retain(node: BufferNode<T> | null): void {
    if (node !== null) node.refs++;
  }

  /** Drops one reference; nodes and events nobody holds any more leave the buffer, back along the chain. */
  release(node: BufferNode<T> | null): void {
    let n = node;
    while (n !== null) {
      if (--n.refs > 0) return;
      this.size--;
      const event = n.event;
      if (--event.refs === 0) {
        this.size--;
        if (freeEvents.length < POOL_LIMIT) {
          // The user's record must not outlive the buffer through the pool.
          event.value = undefined as T;
          freeEvents.push(event as BufferedEvent<unknown>);
        }
      }
      const prev = n.prev;
      if (freeNodes.length < POOL_LIMIT) {
        n.prev = null;
        freeNodes.push(n as BufferNode<unknown>);
      }
      n = prev;
    }
  }

  /** Walks the chain ending at `node`, newest first. */
  forEachBack(
    node: BufferNode<T> | null,
    fn: (eventId: number, stage: number, value: T) => void,
  ): void {
    for (let n = node; n !== null; n = n.prev) fn(n.event.id, n.stage, n.event.value);
  }
}
