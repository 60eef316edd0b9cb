/**
 * An integer column times a DECIMAL literal (Nexmark q1's `0.908 * price`) takes a path through
 * doubles while the product is exact; it must equal exact bigint arithmetic everywhere,
 * including BIGINT values beyond 2^53 and products beyond 2^53,
 * and NULL input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileScalar } from '../../src/sql/expressions/compile.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { T } from '../../src/sql/types/logical-type.js';

const scope = new Scope([
  { name: 'b', type: T.bigint(), qualifier: undefined, rowtime: false },
  { name: 'i', type: T.int(), qualifier: undefined, rowtime: false },
]);

function evaluate(text: string, row: unknown[]): unknown {
  return compileScalar(parseExpression(text), scope).fn(row);
}

/** BIGINT values as rows hold them: a number while safe, a bigint beyond. */
const bigintValue = fc
  .bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
  .map((v) => (v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n ? Number(v) : v));

describe('integer column times a DECIMAL literal', () => {
  it('equals exact bigint arithmetic (DECIMAL(24, 3) for BIGINT * DECIMAL(4, 3))', () => {
    fc.assert(
      fc.property(bigintValue, fc.integer({ min: -9999, max: 9999 }), (b, k) => {
        const literal = `${k < 0 ? '-' : ''}${Math.trunc(Math.abs(k) / 1000)}.${String(Math.abs(k) % 1000).padStart(3, '0')}`;
        const expected = BigInt(b) * BigInt(k);
        expect(evaluate(`${literal} * b`, [b, 0])).toBe(expected);
        expect(evaluate(`b * ${literal}`, [b, 0])).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('is NULL for NULL, and exact at the edges of the double path', () => {
    // INT * DECIMAL(4, 3) is DECIMAL(14, 3): 11 integer digits.
    expect(evaluate('i * 9.999', [0, 2_147_483_647])).toBe(2_147_483_647n * 9999n);
    expect(evaluate('b * 0.908', [null, 0])).toBeNull();
    expect(evaluate('0.908 * b', [2 ** 53 - 1, 0])).toBe((2n ** 53n - 1n) * 908n);
    expect(evaluate('0.908 * b', [2n ** 62n, 0])).toBe(2n ** 62n * 908n);
  });
});
