/**
 * A FLOAT as text is Java's Float.toString (what Flink's CAST of a FLOAT to STRING gives): the
 * shortest decimal that reads back as the same 32-bit float, in Double.toString's form
 * (`3.14159`, `1.0E10`, `1.4E-45`), not the digits of the double holding it
 * (`3.141590118408203`). A DOUBLE keeps Double.toString's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileScalar } from '../../src/sql/expressions/compile.js';
import { javaFloat } from '../../src/sql/expressions/functions/java-text.js';
import { runtime } from '../../src/sql/expressions/runtime.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import type { LogicalType } from '../../src/sql/types/logical-type.js';

const FLOAT: LogicalType = { kind: 'FLOAT', nullable: true };
const scope = new Scope([{ name: 'f', type: FLOAT, qualifier: 't', rowtime: false }]);

function evaluate(sql: string, f: number | null = null): unknown {
  return compileScalar(parseExpression(sql), scope).fn([f]);
}

/** The float a Java-style decimal text reads back as. */
const readBack = (text: string): number => Math.fround(Number(text));

/** Significant digits of a Java-style decimal text (`1.25E-3` has 3). */
function significantDigits(text: string): number {
  const mantissa = (text.split('E')[0] as string).replace('-', '').replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length || 1;
}

describe('CAST of a FLOAT to STRING', () => {
  it.each([
    ['CAST(CAST(3.14159 AS FLOAT) AS STRING)', '3.14159'],
    ['CAST(CAST(1.1 AS FLOAT) AS STRING)', '1.1'],
    ['CAST(CAST(0.1 AS FLOAT) AS STRING)', '0.1'],
    ['CAST(CAST(100 AS FLOAT) AS STRING)', '100.0'],
    ['CAST(CAST(-2.5 AS FLOAT) AS STRING)', '-2.5'],
    ['CAST(CAST(1e10 AS FLOAT) AS STRING)', '1.0E10'],
    ['CAST(CAST(1e-5 AS FLOAT) AS STRING)', '1.0E-5'],
    ['CAST(CAST(0.001 AS FLOAT) AS STRING)', '0.001'],
    ['CAST(CAST(1e7 AS FLOAT) AS STRING)', '1.0E7'],
    ['CAST(CAST(9999999 AS FLOAT) AS STRING)', '9999999.0'],
    ['CAST(CAST(123456.789 AS FLOAT) AS STRING)', '123456.79'],
    ['CAST(CAST(16777216 AS FLOAT) AS STRING)', '1.6777216E7'],
    ["CAST(CAST('3.4028235E38' AS FLOAT) AS STRING)", '3.4028235E38'],
    ["CAST(CAST('1.17549435E-38' AS FLOAT) AS STRING)", '1.1754944E-38'],
    ["CAST(CAST('NaN' AS FLOAT) AS STRING)", 'NaN'],
    ["CAST(CAST('-Infinity' AS FLOAT) AS STRING)", '-Infinity'],
    ['CAST(CAST(0 AS FLOAT) AS STRING)', '0.0'],
    // The double the float widens to keeps Double.toString's digits, as in Java.
    ['CAST(CAST(CAST(3.14159 AS FLOAT) AS DOUBLE) AS STRING)', '3.141590118408203'],
    ['CAST(CAST(3.14159 AS DOUBLE) AS STRING)', '3.14159'],
    ['CAST(CAST(1e10 AS DOUBLE) AS STRING)', '1.0E10'],
  ])('%s is %s', (sql, text) => {
    expect(evaluate(sql)).toBe(text);
  });

  it('of a FLOAT column, NULL staying NULL', () => {
    expect(evaluate('CAST(f AS STRING)', Math.fround(2.71))).toBe('2.71');
    expect(evaluate('CAST(f AS VARCHAR(20))', Math.fround(-0.3))).toBe('-0.3');
    expect(evaluate('CAST(f AS STRING)', null)).toBe(null);
  });
});

describe("Java's Float.toString", () => {
  it.each([
    [-0, '-0.0'],
    // Float.MIN_VALUE and MAX_VALUE; one digit would do, the nearer of two is taken (JDK 19+).
    [2 ** -149, '1.4E-45'],
    [4 * 2 ** -149, '5.6E-45'],
    [Math.fround(3.4028235e38), '3.4028235E38'],
    // Midway between two shortest decimals: the even last digit.
    [2345374.25, '2345374.2'],
    [456174.125, '456174.12'],
    // A power of two, whose interval below is half the one above.
    [2 ** 87, '1.5474251E26'],
    // A double that is no float is rounded to one first.
    [1.23456, '1.23456'],
  ])('%s is %s', (x, text) => {
    expect(runtime.formatFloat(x)).toBe(text);
    expect(javaFloat(x)).toBe(text);
  });

  it('is the shortest decimal that reads back as the float, and reads back as it', () => {
    const floats = fc
      .oneof(
        fc.float({ noDefaultInfinity: true, noNaN: true }),
        fc.integer({ min: 1, max: 0x7f7fffff }).map((bits) => {
          const b = new Float32Array(new Uint32Array([bits]).buffer);
          return b[0] as number;
        }),
      )
      .filter((x) => x !== 0);
    fc.assert(
      fc.property(floats, (x) => {
        const text = runtime.formatFloat(x);
        expect(readBack(text)).toBe(x);
        expect(text).toMatch(/^-?\d+\.\d+(E-?\d+)?$/);
        const abs = Math.abs(x);
        expect(text.includes('E')).toBe(abs < 1e-3 || abs >= 1e7);
        // No fewer digits read back (the nearest decimal of each length, as toPrecision gives).
        const digits = significantDigits(text);
        for (let p = 1; p < digits; p++) {
          if (p === 1 && digits === 2) continue; // one digit would do: two, if nearer, are shown
          expect(readBack(x.toPrecision(p))).not.toBe(x);
        }
      }),
      { seed: 19, numRuns: 3000 },
    );
  });
});
