/**
 * The key of a multi-column GROUP BY (or PARTITION BY) is interned: a group that comes again
 * gets the same string object. Whatever the table holds, a key equals the text of its values
 * (the form keyed state and savepoints have always had), two rows share a key exactly when
 * their values are equal (1 and '1' apart, NULL apart), and past the table's bound the keys stay
 * the same texts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../src/sql/connectors/connector.js';
import { groupKey } from '../../src/sql/planner/grouping.js';

const value = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom('1', '', 'a', 'a\u0001', '\u0000'),
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(Number.NaN, -0, 1.5),
);

const twoColumns = () => groupKey([(r: Row) => r[0], (r: Row) => r[1]]);

describe('interned GROUP BY keys', () => {
  it('are equal exactly when the rows values are, and are their text', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value, value), { maxLength: 60 }), (rows) => {
        const interned = groupKey([(r: Row) => r[0], (r: Row) => r[1], (r: Row) => r[2]]);
        const seen = new Map<string, unknown[]>();
        for (const row of rows) {
          const key = interned(row) as string;
          // The same key as a fresh function gives (nothing interned yet): the text itself.
          const fresh = groupKey([(r: Row) => r[0], (r: Row) => r[1], (r: Row) => r[2]])(row);
          expect(key).toBe(fresh);
          const before = seen.get(key);
          if (before !== undefined) expect(row.map(String)).toEqual(before.map(String));
          seen.set(key, row);
        }
        // Distinct values, distinct keys (SameValueZero: -0 is 0, NaN is NaN).
        const distinct = new Set(
          rows.map((r) => JSON.stringify(r.map((v) => [typeof v, String(v)]))),
        );
        expect(new Set(rows.map((r) => interned(r))).size).toBe(distinct.size);
      }),
    );
  });

  it('keep an ARRAY or ROW column apart by its contents', () => {
    const key = twoColumns();
    expect(key([1, [1, 2]])).toBe(key([1, [1, 2]]));
    expect(key([1, [1, 2]])).not.toBe(key([1, ['1,2']]));
  });

  it('stay the same texts past the bound of the table, whether groups repeat or not', () => {
    const key = twoColumns();
    const reference = twoColumns();
    // 70,000 groups seen once each, then again: the table fills, starts again, stops interning.
    for (const round of [0, 1])
      for (let i = 0; i < 70_000; i++) {
        const row = [i, `d${i % 3}`];
        const k = key(row);
        if (i % 7_001 === 0 || (round === 1 && i % 101 === 0)) expect(k).toBe(reference(row));
      }
    // Groups that do repeat: one table, every key interned.
    const repeating = twoColumns();
    const keys = new Set<unknown>();
    for (let i = 0; i < 100_000; i++) keys.add(repeating([i % 1000, 'x']));
    expect(keys.size).toBe(1000);
    expect(repeating([999, 'x'])).toBe('v999\u0001sx\u0001');
  });
});
