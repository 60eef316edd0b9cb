import { describe, expect, it } from 'vitest';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state.js';
import { keyedStateBackendConformance, ManualClock } from './conformance.js';

keyedStateBackendConformance(
  'heap',
  (o) =>
    new HeapKeyedStateBackend(o.operatorId, {
      clock: o.clock,
      ...(o.ttlCleanupPerAccess === undefined
        ? {}
        : { ttlCleanupPerAccess: o.ttlCleanupPerAccess }),
    }),
);

describe('heap backend', () => {
  it('keeps working with the one-argument constructor the operators use', () => {
    const b = new HeapKeyedStateBackend('op');
    b.currentKey = 'k';
    b.getValueState<number>('v').update(1);
    expect(b.getValueState<number>('v').value()).toBe(1);
  });

  it('reads return the stored objects (no copy on the hot path)', () => {
    const b = new HeapKeyedStateBackend('op', { clock: new ManualClock() });
    const v = b.getValueState<{ n: number }>('v');
    b.currentKey = 'k';
    const obj = { n: 1 };
    v.update(obj);
    expect(v.value()).toBe(obj);
  });
});
