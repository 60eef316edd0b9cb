/** An event some partial match holds; stored once however many matches hold it. */
export interface BufferedEvent<T> {
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
export interface BufferNode {
  readonly event: number;
  readonly stage: number;
  /** The node before, or -1 for a match's first event. */
  readonly prev: number;
  /** Partial matches, completed matches and later nodes that point at this node. */
  refs: number;
}

export const NO_NODE = -1;

/**
 * The shared buffer of one key: events by id and the nodes that chain them
 * into partial matches, both reference counted, so an event leaves the buffer
 * as soon as no partial match holds it.
 */
export class SharedBuffer<T> {
  readonly events = new Map<number, BufferedEvent<T>>();
  readonly nodes = new Map<number, BufferNode>();
  nextNode = 0;

  /** A new node (holding no reference yet) for `event`, taken by `stage` after `prev`. */
  append(eventId: number, value: T, timestamp: number, stage: number, prev: number): number {
    let entry = this.events.get(eventId);
    if (entry === undefined) {
      entry = { value, timestamp, refs: 0 };
      this.events.set(eventId, entry);
    }
    entry.refs++;
    if (prev !== NO_NODE) this.nodes.get(prev)!.refs++;
    const id = this.nextNode++;
    this.nodes.set(id, { event: eventId, stage, prev, refs: 0 });
    return id;
  }

  retain(node: number): void {
    if (node !== NO_NODE) this.nodes.get(node)!.refs++;
  }

  /** Drops one reference; nodes and events nobody holds any more are removed, back along the chain. */
  release(node: number): void {
    let id = node;
    while (id !== NO_NODE) {
      const n = this.nodes.get(id)!;
      if (--n.refs > 0) return;
      this.nodes.delete(id);
      const e = this.events.get(n.event)!;
      if (--e.refs === 0) this.events.delete(n.event);
      id = n.prev;
    }
  }

  /** Walks the chain ending at `node`, newest first. */
  forEachBack(node: number, fn: (eventId: number, stage: number, value: T) => void): void {
    let id = node;
    while (id !== NO_NODE) {
      const n = this.nodes.get(id)!;
      fn(n.event, n.stage, this.events.get(n.event)!.value);
      id = n.prev;
    }
  }

  /** Empties the buffer and restarts node ids. */
  clear(): void {
    if (this.events.size > 0) this.events.clear();
    if (this.nodes.size > 0) this.nodes.clear();
    this.nextNode = 0;
  }

  get size(): number {
    return this.events.size + this.nodes.size;
  }
}
