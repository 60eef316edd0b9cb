/** Row equality and row texts with SQL MAP values (Maps), which plain JSON writes as `{}`. */
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
