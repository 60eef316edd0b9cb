/**
 * The operator (non-keyed) list state store: snapshots are copies (an element mutated in place
 * afterwards leaves the snapshot as it was), and undefined is refused as an element, as keyed
 * list state refuses it (Flink rejects null elements).
 */
import { describe, expect, it } from 'vitest';
import { HeapOperatorStateStore } from '../../src/state/operator-state.js';

describe('operator list state', () => {
  it('snapshots copies of its elements', () => {
    const store = new HeapOperatorStateStore('op');
    const offsets = store.getListState<{ partition: number; offset: number }>('offsets');
    const element = { partition: 0, offset: 10 };
    offsets.add(element);
    const snapshot = store.snapshot();
    element.offset = 99;
    expect(snapshot.list).toEqual([{ n: 'offsets', v: { partition: 0, offset: 10 } }]);
    expect(offsets.get()).toEqual([{ partition: 0, offset: 99 }]);
  });

  it('refuses undefined elements, in add and in update', () => {
    const store = new HeapOperatorStateStore('op');
    const list = store.getUnionListState<number | undefined>('u');
    expect(() => list.add(undefined)).toThrow(
      "operator state 'u' of 'op': an element is undefined",
    );
    expect(() => list.update([1, undefined])).toThrow(/an element is undefined/);
    list.update([1, 2]);
    expect(list.get()).toEqual([1, 2]);
  });
});
