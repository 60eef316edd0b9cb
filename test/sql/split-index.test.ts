/**
 * SPLIT_INDEX keeps where the last string's delimiters are and scans only as far as a call
 * needs: any sequence of calls, over strings and delimiters that change or repeat from call to
 * call, gives the tokens of a full split (Flink keeps empty tokens; '' has none).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../src/sql/expressions/runtime.js';

const text = fc.string({ unit: fc.constantFrom('a', 'b', '/', ':'), maxLength: 12 });
const delimiter = fc.constantFrom('/', ':', '::', 'a/', 'b', '');
const call = fc.tuple(text, delimiter, fc.integer({ min: -1, max: 8 }));

describe('SPLIT_INDEX', () => {
  it('gives the tokens of a full split, whatever calls came before', () => {
    fc.assert(
      fc.property(
        fc.array(call, { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 8 }), { maxLength: 6 }),
        (calls, repeats) => {
          // Repeat the last string with other indexes, as a row's several calls do.
          const [s, d] = calls.at(-1) as [string, string, number];
          for (const [str, del, index] of [...calls, ...repeats.map((i) => [s, d, i] as const)]) {
            const expected = index < 0 || str === '' ? null : (str.split(del)[index] ?? null);
            expect(runtime.splitIndex(str, del, index)).toBe(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
