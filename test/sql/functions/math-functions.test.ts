/**
 * Flink's arithmetic functions: DECIMAL stays exact (SIGN, TRUNCATE on the unscaled value),
 * the real functions agree with Math, and seeded RAND / RAND_INTEGER give java.util.Random's
 * sequence (the differential suite checks it equal to Flink's over a table).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JavaRandom } from '../../../src/sql/expressions/functions/java-random.js';
import { truncateDouble } from '../../../src/sql/expressions/functions/math-functions.js';
import { evaluate, typeOf } from './evaluate.js';

describe('SIGN and TRUNCATE', () => {
  it('keep the argument type; DECIMAL exact', () => {
    expect(evaluate('SIGN(m)', { m: -68130n })).toBe(-100n);
    expect(typeOf('SIGN(m)')).toBe('DECIMAL(10, 2)');
    expect(evaluate('SIGN(l)', { l: -(2n ** 60n) })).toBe(-1);
    expect(evaluate('SIGN(d)', { d: -0 })).toBe(0);
    expect(evaluate('TRUNCATE(m, 1)', { m: -68139n })).toBe(-6813n);
    // Typed as Flink types ROUND: one digit more for a carry (DECIMAL(1 + 10 - 2 + 1, 1)).
    expect(typeOf('TRUNCATE(m, 1)')).toBe('DECIMAL(10, 1)');
    expect(evaluate('TRUNCATE(m, -1)', { m: 83403n })).toBe(830n);
    expect(evaluate('TRUNCATE(m)', { m: -22052n })).toBe(-220n);
    expect(evaluate('TRUNCATE(n, -1)', { n: -47 })).toBe(-40);
    expect(evaluate('TRUNCATE(d, 1)', { d: 66.75 })).toBe(66.7);
    expect(evaluate('TRUNCATE(d, 2)', { d: 0.29 })).toBe(0.29);
    expect(evaluate('TRUNCATE(m, 1)', { m: null })).toBeNull();
  });

  it('TRUNCATE of a double cuts its decimal digits toward zero (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.integer({ min: 0, max: 4 }),
        (cents, digits) => {
          const x = cents / 1000;
          const expected = Math.trunc(Number((x * 10 ** digits).toPrecision(15))) / 10 ** digits;
          expect(truncateDouble(x, digits)).toBe(expected);
        },
      ),
    );
  });
});

describe('real functions', () => {
  it('take any number as DOUBLE and follow Math', () => {
    expect(evaluate('PI()')).toBe(Math.PI);
    expect(evaluate('E()')).toBe(Math.E);
    expect(evaluate('LOG(m)', { m: 100n })).toBe(0);
    expect(evaluate('LOG(2, 8)')).toBe(3);
    expect(() => evaluate('LOG(1, 8)')).toThrow(/LOG: the base must be greater than 1/);
    expect(evaluate('LOG2(8)')).toBe(3);
    expect(evaluate('ATAN2(1, 1)')).toBe(Math.PI / 4);
    expect(evaluate('DEGREES(PI())')).toBe(180);
    expect(evaluate('RADIANS(180)')).toBe(Math.PI);
    expect(evaluate('COT(d)', { d: 1 })).toBe(1 / Math.tan(1));
    expect(evaluate('SINH(d)', { d: null })).toBeNull();
    expect(typeOf('SIN(n)')).toBe('DOUBLE');
  });
});

describe('RAND and RAND_INTEGER', () => {
  it('seeded: java.util.Random from the seed', () => {
    // new java.util.Random(42).nextDouble() and new Random(42).nextInt(10) in Java.
    expect(new JavaRandom(42n).nextDouble()).toBe(0.7275636800328681);
    expect(new JavaRandom(42n).nextInt(10)).toBe(0);
    const r = new JavaRandom(7n);
    expect(evaluate('RAND(7)')).toBe(r.nextDouble());
  });

  it('unseeded: within range', () => {
    for (let i = 0; i < 100; i++) {
      const x = evaluate('RAND()') as number;
      expect(x >= 0 && x < 1).toBe(true);
      const n = evaluate('RAND_INTEGER(5)') as number;
      expect(Number.isInteger(n) && n >= 0 && n < 5).toBe(true);
    }
    expect(() => evaluate('RAND_INTEGER(0)')).toThrow(/bound must be positive/);
  });

  it('nextInt is below its bound and uniform enough over powers of two and others (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.integer({ min: 1, max: 1 << 30 }),
        (seed, bound) => {
          const n = new JavaRandom(seed).nextInt(bound);
          expect(n >= 0 && n < bound).toBe(true);
        },
      ),
    );
  });
});
