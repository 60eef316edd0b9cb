/**
 * COUNT(DISTINCT)'s values seen live in a Map and, where integer keys are dense, an array; but
 * they are JSON wherever state is copied. Against a plain Map as the oracle: any sequence of
 * keys (dense runs, stragglers below the range, keys far beyond it, texts) gives the same
 * masks, and a state written as JSON (a checkpoint) or structured-cloned (a partial crossing
 * threads) and adopted again holds the same values, so counting goes on without counting a
 * value twice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  maskOf,
  newSeen,
  ownSeen,
  type SeenKey,
  seenCount,
  seenEntries,
  setMask,
} from '../../src/sql/planner/distinct-seen.js';
import { copyJson } from '../../src/util/copy-json.js';

const key: fc.Arbitrary<SeenKey> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1000, max: 1400 }) },
  { weight: 1, arbitrary: fc.nat({ max: 4_294_967_294 }) },
  { weight: 1, arbitrary: fc.string().map((s) => `string:${s}`) },
  { weight: 1, arbitrary: fc.double().map((d) => `number:${d}`) },
);
/** Runs of consecutive ids (which make the array) among single keys. */
const keys = fc
  .array(
    fc.oneof(
      key.map((k) => [k]),
      fc
        .tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 300 }))
        .map(([from, n]) => Array.from({ length: n }, (_, i) => from + i)),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.flat());

const sorted = (entries: Iterable<[SeenKey, number]>) =>
  [...entries].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));

describe('the values a COUNT(DISTINCT) has seen', () => {
  it('hold the masks a Map would, and go on from JSON and from a structured clone', () => {
    fc.assert(
      fc.property(keys, keys, fc.integer({ min: 1, max: 7 }), (first, then, bits) => {
        const oracle = new Map<SeenKey, number>();
        const s = newSeen<number[]>([0]);
        const put = (state: typeof s, k: SeenKey, i: number) => {
          const mask = 1 << (i % bits);
          expect(maskOf(state, k)).toBe(oracle.get(k) ?? 0);
          setMask(state, k, maskOf(state, k) | mask);
          oracle.set(k, (oracle.get(k) ?? 0) | mask);
        };
        for (const [i, k] of first.entries()) put(s, k, i);
        expect(sorted(seenEntries(s))).toEqual(sorted(oracle));
        expect(seenCount(s)).toBe(oracle.size);
        const snapshot = new Map(oracle);
        for (const copy of [JSON.parse(JSON.stringify(s)), copyJson(s), structuredClone(s)]) {
          expect(sorted(seenEntries(copy))).toEqual(sorted(snapshot));
          const own = ownSeen<number[]>(copy);
          expect(ownSeen(own)).toBe(own);
          expect(JSON.parse(JSON.stringify(own))).toEqual(JSON.parse(JSON.stringify(s)));
          oracle.clear();
          for (const [k, m] of snapshot) oracle.set(k, m);
          for (const [i, k] of then.entries()) put(own, k, i);
          expect(sorted(seenEntries(own))).toEqual(sorted(oracle));
          expect(seenCount(own)).toBe(oracle.size);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('are written as an object of their keys, with only the count and the values enumerable', () => {
    const s = newSeen<number[]>([3]);
    for (const [k, m] of [
      [7, 1],
      ['string:a', 2],
      ['number:-1.5', 3],
    ] as const)
      setMask(s, k, m);
    const json = { n: [3], seen: { '7': 1, 'string:a': 2, 'number:-1.5': 3 } };
    expect(JSON.parse(JSON.stringify(s))).toEqual(json);
    expect(copyJson(s)).toEqual(json);
    expect(Object.keys(s)).toEqual(['n', 'seen', 'dense', 'base']);
  });

  it('keep dense integer keys in an array, and move them all to the Map when one lies far off', () => {
    const s = newSeen<number[]>([0]);
    for (let id = 5000; id < 5200; id++) setMask(s, id, 1);
    expect(s.dense).not.toBeNull();
    expect(s.seen.size).toBe(0);
    setMask(s, 10_000_000, 1);
    expect(s.dense).toBeNull();
    expect(s.seen.size).toBe(201);
    expect(maskOf(s, 5100)).toBe(1);
  });
});
