/**
 * DATE_FORMAT reuses the text of the last day (hour, minute, ...) a pattern formatted: over
 * times in any order and patterns of every unit, the result equals formatting each time anew.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runtime } from '../../src/sql/expressions/runtime.js';

const PATTERNS = [
  'yyyy-MM-dd',
  'HH:mm',
  'yyyy-MM-dd HH:mm:ss',
  'yyyy-MM-dd HH:mm:ss.SSS',
  "yyyy-MM-dd'T'HH",
  'hh a',
  'yy/M/d',
];

describe('DATE_FORMAT text reuse', () => {
  it('equals formatting every time anew', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: -5_000_000_000_000, max: 5_000_000_000_000 }),
            fc.constantFrom(...PATTERNS),
            fc.integer({ min: 0, max: 3 }),
          ),
          { maxLength: 200 },
        ),
        (calls) => {
          let prev = 0;
          for (const [t, pattern, near] of calls) {
            // Mostly times close to the last one, as a stream's are, sometimes far away.
            const ms = near === 0 ? t : prev + (t % 100_000_000);
            prev = ms;
            expect(runtime.formatTimestamp(ms, pattern)).toBe(
              runtime.formatTimestampText(ms, pattern),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
