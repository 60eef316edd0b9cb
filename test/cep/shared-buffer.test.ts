/**
 * The shared buffer's rows: chains share prefixes, reference counts free
 * exactly what nothing holds (and drop the records), freed rows are reused,
 * and the columns grow past their first size without losing a row.
 */
import { describe, expect, it } from 'vitest';
import {
  NO_NODE,
  type NodeRef,
  SharedBuffer,
} from '../../src/runtime/operators/cep/shared-buffer.js';

/** A chain of `n` events (stages 0, 1, 0, 1...) held by one partial match; its newest node. */
function chain(buffer: SharedBuffer<string>, n: number, from: NodeRef = NO_NODE): NodeRef {
  let node = from;
  for (let i = 0; i < n; i++) {
    const next = buffer.append(buffer.event(i, `e${i}`, 100 + i), i % 2, node);
    buffer.retain(next);
    // The partial match moved on: it holds the new node, not the old one.
    buffer.release(node);
    node = next;
  }
  return node;
}

const walk = (buffer: SharedBuffer<string>, node: NodeRef) => {
  const seen: string[] = [];
  buffer.forEachBack(node, (id, stage, value) => seen.push(`${id}:${stage}:${value}`));
  return seen.reverse();
};

describe('SharedBuffer', () => {
  it('grows past its first rows and keeps every chain intact', () => {
    const buffer = new SharedBuffer<string>();
    const ends = Array.from({ length: 30 }, () => chain(buffer, 500));
    // 15,000 nodes and 15,000 events: several times the first columns.
    expect(buffer.size).toBe(30_000);
    for (const end of ends) {
      const events = walk(buffer, end);
      expect(events).toHaveLength(500);
      expect(events[0]).toBe('0:0:e0');
      expect(events[499]).toBe('499:1:e499');
      expect(buffer.eventTimestamp(buffer.eventOf(end))).toBe(599);
    }
    for (const end of ends) buffer.release(end);
    expect(buffer.size).toBe(0);
  });

  it('frees a shared prefix only when the last branch lets go, and drops the records', () => {
    const buffer = new SharedBuffer<string>();
    const prefix = chain(buffer, 3);
    // Two branches after the prefix share its three nodes and events.
    const event = buffer.event(3, 'x', 103);
    const a = buffer.append(event, 1, prefix);
    const b = buffer.append(event, 2, prefix);
    buffer.retain(a);
    buffer.retain(b);
    buffer.release(prefix);
    expect(buffer.size).toBe(3 + 3 + 2 + 1);
    const first = buffer.eventOf(prefix);
    buffer.release(a);
    expect(walk(buffer, b)).toEqual(['0:0:e0', '1:1:e1', '2:0:e2', '3:2:x']);
    expect(buffer.size).toBe(3 + 3 + 1 + 1);
    buffer.release(b);
    expect(buffer.size).toBe(0);
    // A freed event row keeps no record alive.
    expect(buffer.value(first)).toBeUndefined();
  });

  it('reuses freed rows before growing', () => {
    const buffer = new SharedBuffer<string>();
    const end = chain(buffer, 100);
    const rows = new Set<NodeRef>();
    for (let n = end; n !== NO_NODE; n = buffer.prevOf(n)) rows.add(n);
    buffer.release(end);
    const again = chain(buffer, 100);
    for (let n = again; n !== NO_NODE; n = buffer.prevOf(n)) expect(rows.has(n)).toBe(true);
    buffer.release(again);
    expect(buffer.size).toBe(0);
  });
});
