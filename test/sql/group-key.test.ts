/**
 * The keys of GROUP BY, PARTITION BY and deduplication over several columns are in savepoints:
 * whatever builds them, they must stay the strings earlier versions wrote (a restored key that
 * no longer matched its rows' keys would start every group again), and rows whose columns
 * differ must get different keys, whatever their strings hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../src/index.js';
import { groupKey } from '../../src/sql/planner/grouping.js';

/** The format as savepoints hold it: each column tagged by kind and ended by \u0001. */
function savedFormat(values: readonly unknown[]): string {
  let key = '';
  for (const v of values) {
    key += v === null ? '\u0000' : `${typeof v === 'string' ? 's' : 'v'}${String(v)}`;
    key += '\u0001';
  }
  return key;
}

/** What makes two rows the same group: NULL, or the kind (text or not) and the digits. */
const sameGroup = (v: unknown) =>
  v === null ? 'null' : `${typeof v === 'string' ? 'text' : 'value'}:${String(v)}`;

const scalar = fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.bigInt(), fc.boolean());
const value = fc.oneof(scalar, fc.string(), fc.constant(null));
/** Strings of the separators and the tags, where a naive key would let two rows meet. */
const tricky = fc.oneof(
  scalar,
  fc.string({ unit: fc.constantFrom('a', 's', 'v', 'e', '"', '\u0000', '\u0001') }),
  fc.constant(null),
);

describe('multi-column group keys', () => {
  for (const width of [2, 3, 4]) {
    const key = groupKey(Array.from({ length: width }, (_, i) => (row: Row) => row[i]));
    const rows = (v: fc.Arbitrary<unknown>) => fc.array(v, { minLength: width, maxLength: width });

    it(`are the strings savepoints hold (${width} columns)`, () => {
      fc.assert(
        fc.property(rows(value), (row) => {
          expect(key(row)).toBe(savedFormat(row));
        }),
        { numRuns: 500 },
      );
    });

    it(`differ for rows of different groups, separators in their strings too (${width} columns)`, () => {
      fc.assert(
        fc.property(rows(tricky), rows(tricky), (a, b) => {
          expect(key(a) === key(b)).toBe(
            JSON.stringify(a.map(sameGroup)) === JSON.stringify(b.map(sameGroup)),
          );
        }),
        { numRuns: 2000 },
      );
      expect(key(['a\u0001sb', 'c'].slice(0, width))).not.toBe(
        key(['a', 'b\u0001sc'].slice(0, width)),
      );
    });
  }

  it('keep a number and its text apart, and NULL apart from both', () => {
    const key = groupKey([(row: Row) => row[0], (row: Row) => row[1]]);
    const keys = [
      [1, 2],
      ['1', 2],
      [1, '2'],
      [null, 2],
      ['null', 2],
    ].map((row) => key(row));
    expect(new Set(keys).size).toBe(5);
    // A BIGINT is a number or a bigint by its size: the same digits, the same group.
    expect(key([1n, 2])).toBe(keys[0]);
  });
});
