/** An event some partial match holds; stored once however many matches hold it. */
export interface BufferedEvent<T> {
  /** Position of the event in the key's processing order. */
  readonly id: number;
  readonly value: T;
  readonly timestamp: number;
  /** Nodes that point at this event. */
  refs: number;
}

/**
 * One step of a partial match: "event `event` was taken by stage `stage`,
 * after the step `prev`". Matches that share a prefix share its nodes, so a
 * partial match is a pointer to its newest node.
 */
export interface BufferNode<T> {
  readonly event: BufferedEvent<T>;
  readonly stage: number;
  /** The node before, or null for a match's first event. */
  prev: BufferNode<T> | null;
  /** Partial matches, completed matches and later nodes that point at this node. */
  refs: number;
}

export const NO_NODE = null;

/**
 * The shared buffer of one key: events and the nodes that chain them into
 * partial matches, linked by reference rather than looked up by id (no map
 * per key, nothing to look up per step). Reference counts say what is still
 * held, so `size` (events plus nodes) is exact; memory is the garbage
 * collector's. Ids are given only when a snapshot writes the buffer.
 */
export class SharedBuffer<T> {
  /** Events and nodes held. */
  size = 0;

  /** An event not yet held by any node; it counts once a node takes it. */
  static event<T>(id: number, value: T, timestamp: number): BufferedEvent<T> {
    return { id, value, timestamp, refs: 0 };
  }

  /** A new node (holding no reference yet) for `event`, taken by `stage` after `prev`. */
  append(event: BufferedEvent<T>, stage: number, prev: BufferNode<T> | null): BufferNode<T> {
    if (event.refs++ === 0) this.size++;
    if (prev !== null) prev.refs++;
    this.size++;
    return { event, stage, prev, refs: 0 };
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
      if (--n.event.refs === 0) this.size--;
      n = n.prev;
    }
  }

  /** Walks the chain ending at `node`, newest first. */
  forEachBack(
    node: BufferNode<T> | null,
    fn: (eventId: number, stage: number, value: T) => void,
  ): void {
    for (let n = node; n !== null; n = n.prev) fn(n.event.id, n.stage, n.event.value);
  }

  /** Forgets everything (for a state that holds nothing any more). */
  clear(): void {
    this.size = 0;
  }
}
