/**
 * FLOAT as Flink computes it: FLOAT with FLOAT or an exact integer type is a FLOAT, computed
 * in 32-bit precision (`CAST(1.1 AS FLOAT) * 2` is `2.2`, not the double `2.200000047683716`);
 * with a DOUBLE or a DECIMAL it is a DOUBLE (LogicalTypeMerging.findCommonType). Wherever a
 * FLOAT becomes text it has Java's Float.toString digits, and a FLOAT read from text or JSON
 * is the 32-bit float the text names.
 */
import { describe, expect, it } from 'vitest';
import { materialize } from '../../bench/nexmark/weir-job.js';
import {
  fromJson,
  parseText,
  toJsonText,
  toText,
} from '../../src/sql/connectors/formats/field-values.js';
import { compileScalar } from '../../src/sql/expressions/compile.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { commonType, formatType, type LogicalType, T } from '../../src/sql/types/logical-type.js';
import { toDisplayString } from '../../src/sql/types/values.js';
import { queryChanges } from './query-changes.js';

const FLOAT: LogicalType = { kind: 'FLOAT', nullable: true };
const scope = new Scope([
  { name: 'f', type: FLOAT, qualifier: 't', rowtime: false },
  { name: 'g', type: FLOAT, qualifier: 't', rowtime: false },
  { name: 'i', type: T.int(), qualifier: 't', rowtime: false },
  { name: 'p', type: T.bigint(), qualifier: 't', rowtime: false },
  { name: 'x', type: T.double(), qualifier: 't', rowtime: false },
  { name: 'd', type: T.decimal(10, 2), qualifier: 't', rowtime: false },
]);

function evaluate(sql: string, f: number | null = null, g: number | null = null): unknown {
  return compileScalar(parseExpression(sql), scope).fn([f, g, 7, 5, 0.5, 150n]);
}

function typeOf(sql: string): string {
  return formatType(compileScalar(parseExpression(sql), scope).type);
}

describe('the type of FLOAT arithmetic', () => {
  it.each([
    ['f + g', 'FLOAT'],
    ['f * i', 'FLOAT'],
    ['i - f', 'FLOAT'],
    ['f / p', 'FLOAT'],
    ['CAST(1.1 AS FLOAT) * 2', 'FLOAT NOT NULL'],
    ['-f', 'FLOAT'],
    ['f + x', 'DOUBLE'],
    ['x * f', 'DOUBLE'],
    ['f + d', 'DOUBLE'],
    ['f * 1.5', 'DOUBLE'],
    ['f * 1.5E0', 'DOUBLE'],
  ])('%s is %s', (sql, type) => {
    expect(typeOf(sql)).toBe(type);
  });

  it('is a FLOAT in CASE and COALESCE of a FLOAT and an integer', () => {
    expect(typeOf('COALESCE(f, i)')).toBe('FLOAT');
    expect(typeOf('CASE WHEN i > 0 THEN f ELSE p END')).toBe('FLOAT');
    expect(formatType(commonType([FLOAT, T.int()]) as LogicalType)).toBe('FLOAT');
    expect(formatType(commonType([FLOAT, T.double()]) as LogicalType)).toBe('DOUBLE');
    expect(formatType(commonType([T.decimal(10, 2), FLOAT]) as LogicalType)).toBe('DOUBLE');
  });
});

describe('FLOAT arithmetic in 32-bit precision', () => {
  it.each([
    ['CAST(CAST(1.1 AS FLOAT) * 2 AS STRING)', '2.2'],
    ['CAST(CAST(1.1 AS FLOAT) + 2 AS STRING)', '3.1'],
    ['CAST(CAST(1.1 AS FLOAT) * CAST(1.1 AS FLOAT) AS STRING)', '1.21'],
    ['CAST(CAST(0.1 AS FLOAT) + CAST(0.2 AS FLOAT) AS STRING)', '0.3'],
    ['CAST(CAST(1.1 AS FLOAT) / 3 AS STRING)', '0.36666667'],
    ['CAST(CAST(1.1 AS FLOAT) - CAST(0.3 AS FLOAT) AS STRING)', '0.8'],
    ['CAST(CAST(7 AS FLOAT) / 2 AS STRING)', '3.5'],
    // 2^24 + 1 is no float.
    ['CAST(CAST(16777216 AS FLOAT) + 1 AS STRING)', '1.6777216E7'],
    ['CAST(-CAST(1.1 AS FLOAT) AS STRING)', '-1.1'],
    // With a DOUBLE it is a DOUBLE, of the float's double digits.
    ['CAST(CAST(1.1 AS FLOAT) * CAST(2 AS DOUBLE) AS STRING)', '2.200000047683716'],
  ])('%s is %s', (sql, text) => {
    expect(evaluate(sql)).toBe(text);
  });

  it('of FLOAT columns, the value a 32-bit float', () => {
    const f = Math.fround(0.1);
    expect(evaluate('f * 3', f)).toBe(Math.fround(f * 3));
    expect(evaluate('CAST(f * 3 AS STRING)', f)).toBe('0.3');
    expect(evaluate('CAST(f + g AS STRING)', f, Math.fround(0.2))).toBe('0.3');
    // i is 7 and p is 5: 1.1f * 7 is Java's 7.7000003.
    expect(evaluate('CAST(f * i AS STRING)', Math.fround(1.1))).toBe('7.7000003');
    expect(evaluate('CAST(f * p AS STRING)', Math.fround(1.1))).toBe('5.5');
    expect(evaluate('f * i', null)).toBe(null);
  });

  it('has no remainder: `%` and MOD take exact numbers only, as Flink', () => {
    for (const sql of ['f % g', 'f % 2', 'i % f', 'MOD(f, 2)'])
      expect(() => typeOf(sql), sql).toThrow(/exact numeric/);
  });

  it('compares as FLOATs', () => {
    expect(evaluate('CAST(1.1 AS FLOAT) * 2 = CAST(2.2 AS FLOAT)')).toBe(true);
    expect(evaluate('f + g = CAST(0.3 AS FLOAT)', Math.fround(0.1), Math.fround(0.2))).toBe(true);
    expect(evaluate('f * 2 > 2.2', Math.fround(1.1))).toBe(true);
    expect(evaluate('f * 2 < i', Math.fround(1.1))).toBe(true);
  });
});

describe('a FLOAT as text', () => {
  it('in PRINTF is Float.toString', () => {
    expect(evaluate("PRINTF('%s', CAST(1.1 AS FLOAT))")).toBe('1.1');
    expect(evaluate("PRINTF('%s|%s', f, CAST(1.1 AS DOUBLE))", Math.fround(2.71))).toBe('2.71|1.1');
  });

  it('in JSON is Float.toString', () => {
    expect(evaluate("JSON_OBJECT('a' VALUE CAST(1.1 AS FLOAT))")).toBe('{"a":1.1}');
    expect(evaluate("JSON_OBJECT('a' VALUE f)", Math.fround(0.3))).toBe('{"a":0.3}');
  });

  it('from JSON_VALUE RETURNING FLOAT is a 32-bit float', () => {
    expect(evaluate(`JSON_VALUE('{"a":1.1}', '$.a' RETURNING FLOAT)`)).toBe(Math.fround(1.1));
    expect(evaluate(`JSON_VALUE('{"a":1.1}', '$.a' RETURNING DOUBLE)`)).toBe(1.1);
  });

  it("as Flink's print connector shows it", () => {
    expect(toDisplayString(Math.fround(1.1), FLOAT)).toBe('1.1');
    expect(toDisplayString(Math.fround(2.5), FLOAT)).toBe('2.5');
    expect(toDisplayString(1, FLOAT)).toBe('1.0');
    expect(toDisplayString(Math.fround(1e10), FLOAT)).toBe('1.0E10');
    // A DOUBLE as Double.toString.
    expect(toDisplayString(1, T.double())).toBe('1.0');
    expect(toDisplayString(Math.fround(1.1), T.double())).toBe('1.100000023841858');
    expect(toDisplayString(1e10, T.double())).toBe('1.0E10');
  });

  it('as a CSV or JSON field', () => {
    expect(toJsonText(Math.fround(1.1), FLOAT)).toBe('1.1');
    expect(toText(Math.fround(1.1), FLOAT)).toBe('1.1');
    expect(JSON.parse(toJsonText(Math.fround(1e10), FLOAT))).toBe(1e10);
    expect(toJsonText(Number.NaN, FLOAT)).toBe('"NaN"');
    expect(toJsonText(1.1, T.double())).toBe('1.1');
  });
});

describe('a FLOAT field read from text or JSON', () => {
  it('is the 32-bit float', () => {
    expect(parseText('1.1', FLOAT, 'f')).toBe(Math.fround(1.1));
    expect(fromJson(1.1, FLOAT, 'f')).toBe(Math.fround(1.1));
    expect(fromJson('1.1', FLOAT, 'f')).toBe(Math.fround(1.1));
    expect(parseText('1.1', T.double(), 'x')).toBe(1.1);
    expect(fromJson(1.1, T.double(), 'x')).toBe(1.1);
  });
});

describe('SUM and AVG of a FLOAT column', () => {
  it('SUM adds in 32 bits and AVG is a FLOAT, as Flink computes them', async () => {
    const values = [0.1, 0.2, 0.7, 16777216, 1];
    const [changes] = await queryChanges(
      {
        name: 'f',
        rows: values.map((v, i) => ['a', v, 1_000 + i]),
        columns: [
          { name: 'k', type: 'STRING' },
          { name: 'v', type: 'FLOAT' },
          { name: 'ts', type: 'TIMESTAMP(3)' },
        ],
        watermark: { column: 'ts', expression: 'ts' },
      },
      ['SELECT SUM(v), AVG(v) FROM f GROUP BY k'],
      { parallelism: 1, batchSize: 16 },
    );
    const rows = materialize(changes ?? [], (row) => JSON.stringify(row));
    // Java: float sum 0.1f + 0.2f + 0.7f + 16777216f + 1f, each step rounded to float; AVG
    // sums in double and casts the quotient to float.
    const floats = values.map(Math.fround);
    const sum = floats.reduce((a, b) => Math.fround(a + b), 0);
    const avg = Math.fround(floats.reduce((a, b) => a + b, 0) / floats.length);
    expect(rows).toEqual([JSON.stringify([sum, avg])]);
    expect(sum).not.toBe(floats.reduce((a, b) => a + b, 0));
  });
});
