/** Row equality and row texts with SQL MAP values (Maps), which plain JSON writes as `{}`. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowText, sameRow } from '../../src/runtime/operators/changelog/same-row.js';

describe('sameRow and rowText with MAP values', () => {
  it('tells rows apart by their maps, also nested in arrays', () => {
    const a = [1, new Map([['k', 1]])];
    const b = [1, new Map([['k', 2]])];
    expect(sameRow(a, b)).toBe(false);
    expect(rowText(a)).not.toBe(rowText(b));
    expect(sameRow([[a]], [[b]])).toBe(false);
    expect(sameRow(a, [1, new Map([['k', 1]])])).toBe(true);
    expect(rowText(a)).toBe(rowText([1, new Map([['k', 1]])]));
  });

  it('keeps the text of rows without maps as before (state written under it stays found)', () => {
    expect(rowText([1, 'x', null])).toBe('j[1,"x",null]');
    expect(rowText([2n, 'x'])).toBe('j[{"bigint":"2"},"x"]');
  });
});

describe('sameRow of plain objects and arrays', () => {
  // Values whose JSON texts collide (NaN and null, -0 and 0, undefined left out) as well as
  // ones that differ; the keys drawn from a few names, so that objects share them.
  const leaf = fc.oneof(
    fc.constantFrom(null, undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, 0, 1, true, false),
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom('', 'a', 'b'),
    fc.date({ min: new Date(0), max: new Date(2000), noInvalidDate: true }),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
    ),
  }));
  const textEqual = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

  it('is JSON equality, whatever the values', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        // Rows are arrays or objects (a top-level -0 and 0, say, are not rows).
        for (const [x, y] of [
          [[a], [b]],
          [{ v: a }, { v: b }],
        ]) {
          expect(sameRow(x, y)).toBe(textEqual(x, y));
          expect(sameRow(x, structuredClone(x))).toBe(true);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('compares aggregate results key by key', () => {
    expect(sameRow({ category: 1, final: 10 }, { category: 1, final: 10 })).toBe(true);
    expect(sameRow({ category: 1, final: 10 }, { category: 1, final: 11 })).toBe(false);
    expect(sameRow({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameRow({ a: Number.NaN }, { a: null })).toBe(true);
    expect(sameRow({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameRow({ at: new Date(5) }, { at: new Date(5) })).toBe(true);
  });
});
