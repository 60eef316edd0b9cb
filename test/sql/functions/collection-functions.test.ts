/**
 * ARRAY, MAP and ROW functions and the comparison functions (GREATEST, LEAST, IFNULL, IS
 * DISTINCT FROM) against plain computations over the same values; NULL collections give
 * NULL, NULL elements are values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate, typeOf } from './evaluate.js';

const intArray = fc.array(fc.option(fc.integer({ min: -5, max: 5 }), { nil: null }), {
  maxLength: 8,
});

describe('array functions', () => {
  it('give NULL for a NULL array', () => {
    for (const sql of [
      'ARRAY_CONTAINS(a, 1)',
      'ARRAY_DISTINCT(a)',
      'ARRAY_POSITION(a, 1)',
      'ARRAY_REMOVE(a, 1)',
      'ARRAY_REVERSE(a)',
      'ARRAY_SLICE(a, 1, 2)',
      'ARRAY_MAX(a)',
      'ARRAY_SORT(a)',
      'ARRAY_CONCAT(a, ARRAY[1])',
      'ELEMENT(a)',
    ])
      expect(evaluate(sql, { a: null }), sql).toBeNull();
  });

  it('ARRAY_CONTAINS finds NULL; ARRAY_POSITION of NULL is NULL', () => {
    expect(evaluate('ARRAY_CONTAINS(a, n)', { a: [1, null], n: null })).toBe(true);
    expect(evaluate('ARRAY_CONTAINS(a, n)', { a: [1], n: null })).toBe(false);
    expect(evaluate('ARRAY_POSITION(a, n)', { a: [1, null], n: null })).toBeNull();
    expect(evaluate('ARRAY_POSITION(a, 2)', { a: [1, 2, 2] })).toBe(2);
    expect(evaluate('ARRAY_POSITION(a, 9)', { a: [1] })).toBe(0);
  });

  it('equal plain computations (property)', () => {
    fc.assert(
      fc.property(intArray, fc.integer({ min: -5, max: 5 }), (a, v) => {
        const distinct = [...new Set(a)];
        expect(evaluate('ARRAY_DISTINCT(a)', { a })).toEqual(distinct);
        expect(evaluate('ARRAY_REMOVE(a, n)', { a, n: v })).toEqual(a.filter((x) => x !== v));
        expect(evaluate('ARRAY_REVERSE(a)', { a })).toEqual([...a].reverse());
        expect(evaluate('ARRAY_CONCAT(a, a)', { a })).toEqual([...a, ...a]);
        expect(evaluate('ARRAY_CONTAINS(a, n)', { a, n: v })).toBe(a.includes(v));
        const values = a.filter((x): x is number => x !== null);
        expect(evaluate('ARRAY_MAX(a)', { a })).toBe(
          values.length === 0 ? null : Math.max(...values),
        );
        const nulls = a.filter((x) => x === null);
        const sorted = [...values].sort((x, y) => x - y);
        expect(evaluate('ARRAY_SORT(a)', { a })).toEqual([...nulls, ...sorted]);
        expect(evaluate('ARRAY_SORT(a, FALSE)', { a })).toEqual([
          ...[...sorted].reverse(),
          ...nulls,
        ]);
        expect(evaluate('ARRAY_INTERSECT(a, ARRAY_CONCAT(a, ARRAY[n]))', { a, n: v })).toEqual(
          distinct,
        );
        expect(evaluate('ARRAY_UNION(a, a)', { a })).toEqual(distinct);
      }),
    );
  });

  it('ARRAY_SLICE counts from 1, from the end when negative, 0 as the start', () => {
    const a = [1, 2, 3, 4, 5];
    expect(evaluate('ARRAY_SLICE(a, 2, 4)', { a })).toEqual([2, 3, 4]);
    expect(evaluate('ARRAY_SLICE(a, -2)', { a })).toEqual([4, 5]);
    expect(evaluate('ARRAY_SLICE(a, 0, 1)', { a })).toEqual([1]);
    expect(evaluate('ARRAY_SLICE(a, 3, 1)', { a })).toEqual([]);
    expect(evaluate('ARRAY_SLICE(a, 7, 9)', { a })).toEqual([]);
  });

  it('ARRAY_JOIN, ELEMENT, ARRAY_APPEND, ARRAY_PREPEND, ARRAY_EXCEPT', () => {
    expect(evaluate("ARRAY_JOIN(ARRAY['a', s, 'b'], '-')")).toBe('a-b');
    expect(evaluate("ARRAY_JOIN(ARRAY['a', s], ',', 'NULL')")).toBe('a,NULL');
    expect(evaluate('ELEMENT(a)', { a: [] })).toBeNull();
    expect(evaluate('ELEMENT(a)', { a: [7] })).toBe(7);
    expect(() => evaluate('ELEMENT(a)', { a: [1, 2] })).toThrow(
      /ELEMENT: the array has 2 elements/,
    );
    expect(evaluate('ARRAY_APPEND(a, n)', { a: [1], n: null })).toEqual([1, null]);
    expect(evaluate('ARRAY_PREPEND(a, 0)', { a: [1] })).toEqual([0, 1]);
    expect(evaluate('ARRAY_EXCEPT(a, ARRAY[2])', { a: [1, 2, 2, 1, 3] })).toEqual([1, 3]);
    expect(typeOf('ARRAY_CONCAT(ARRAY[1], a)')).toBe('ARRAY<INT>');
    expect(typeOf('ARRAY_CONCAT(ARRAY[1], ARRAY[n])')).toBe('ARRAY<INT> NOT NULL');
  });
});

describe('map functions', () => {
  it('MAP_KEYS, MAP_VALUES, MAP_ENTRIES, MAP_FROM_ARRAYS, MAP_UNION', () => {
    expect(evaluate("MAP_KEYS(MAP['a', 1, 'b', 2])")).toEqual(['a', 'b']);
    expect(evaluate("MAP_VALUES(MAP['a', n])", { n: null })).toEqual([null]);
    expect(evaluate("MAP_ENTRIES(MAP['a', 1])")).toEqual([['a', 1]]);
    expect(evaluate("MAP_ENTRIES(MAP['a', 1])[1].`value`")).toBe(1);
    expect(evaluate("MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[1, 2])['b']")).toBe(2);
    expect(() => evaluate("MAP_FROM_ARRAYS(ARRAY['a'], ARRAY[1, 2])")).toThrow(
      /1 keys and 2 values/,
    );
    expect(evaluate("MAP_UNION(MAP['a', 1], MAP['a', 3, 'b', 2])")).toEqual(
      new Map([
        ['a', 3],
        ['b', 2],
      ]),
    );
  });
});

describe('ROW constructors', () => {
  it('ROW(...) and (a, b) build a row, named EXPR$0, ...', () => {
    expect(evaluate('ROW(n, s)', { n: 1, s: 'x' })).toEqual([1, 'x']);
    expect(typeOf('ROW(n, s)')).toBe('ROW<`EXPR$0` INT, `EXPR$1` STRING> NOT NULL');
    expect(evaluate('(n, s).EXPR$1', { n: 1, s: 'x' })).toBe('x');
    expect(evaluate('CAST((n, m) AS ROW<a BIGINT, b DECIMAL(12, 3)>).b', { n: 1, m: 150n })).toBe(
      1500n,
    );
  });
});

describe('GREATEST, LEAST, IFNULL, IS DISTINCT FROM', () => {
  it('widen to the common type; NULL when one argument is NULL', () => {
    expect(evaluate('GREATEST(n, 0)', { n: -3 })).toBe(0);
    expect(evaluate('GREATEST(m, 1.5)', { m: 100n })).toBe(150n);
    expect(typeOf('GREATEST(m, 1.5)')).toBe('DECIMAL(10, 2)');
    expect(evaluate('LEAST(d, n, 0)', { d: 2.5, n: null })).toBeNull();
    expect(evaluate("GREATEST(s, 'b')", { s: 'c' })).toBe('c');
    expect(evaluate('LEAST(l, 3)', { l: 2n ** 60n })).toBe(3);
  });

  it('IFNULL is nullable only when its fallback is', () => {
    expect(evaluate('IFNULL(n, -1)', { n: null })).toBe(-1);
    expect(typeOf('IFNULL(n, -1)')).toBe('INT NOT NULL');
    expect(evaluate('IFNULL(m, n)', { m: null, n: 7 })).toBe(700n);
  });

  it('IS [NOT] DISTINCT FROM treats NULL as a value', () => {
    expect(evaluate('n IS DISTINCT FROM l', { n: null, l: null })).toBe(false);
    expect(evaluate('n IS DISTINCT FROM l', { n: 1, l: null })).toBe(true);
    expect(evaluate('n IS NOT DISTINCT FROM l', { n: 5, l: 5 })).toBe(true);
    expect(evaluate('m IS DISTINCT FROM n', { m: 500n, n: 5 })).toBe(false);
    expect(typeOf('n IS DISTINCT FROM l')).toBe('BOOLEAN NOT NULL');
  });

  it('IS_ALPHA, IS_DIGIT, IS_DECIMAL are FALSE for NULL', () => {
    expect(evaluate('IS_ALPHA(s)', { s: 'ümlaut' })).toBe(true);
    expect(evaluate('IS_DIGIT(s)', { s: '' })).toBe(false);
    expect(evaluate('IS_DECIMAL(s)', { s: '-3.5e2' })).toBe(true);
    expect(evaluate('IS_ALPHA(s)')).toBe(false);
  });
});
