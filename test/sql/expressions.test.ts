/**
 * Compiled expressions against hand-computed values and plain oracles: NULL semantics
 * (three-valued logic), exact DECIMAL arithmetic, integer overflow as Java's, CAST rules and
 * the built-in functions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileScalar } from '../../src/sql/expressions/compile.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { SqlError } from '../../src/sql/sql-error.js';
import { formatDecimal } from '../../src/sql/types/decimal.js';
import { formatType, type LogicalType, T } from '../../src/sql/types/logical-type.js';

const scope = new Scope([
  { name: 'a', type: T.int(), qualifier: 't', rowtime: false },
  { name: 'b', type: T.int(), qualifier: 't', rowtime: false },
  { name: 'p', type: T.bigint(), qualifier: 't', rowtime: false },
  { name: 's', type: T.string(), qualifier: 't', rowtime: false },
  { name: 'x', type: T.boolean(), qualifier: 't', rowtime: false },
  { name: 'y', type: T.boolean(), qualifier: 't', rowtime: false },
  { name: 'd', type: T.decimal(10, 2), qualifier: 't', rowtime: false },
  { name: 'ts', type: T.timestamp(3), qualifier: 't', rowtime: false },
]);

type Values = {
  a?: number | null;
  b?: number | null;
  p?: number | null;
  s?: string | null;
  x?: boolean | null;
  y?: boolean | null;
  d?: bigint | null;
  ts?: number | null;
};

function row(v: Values): unknown[] {
  return [
    v.a ?? null,
    v.b ?? null,
    v.p ?? null,
    v.s ?? null,
    v.x ?? null,
    v.y ?? null,
    v.d ?? null,
    v.ts ?? null,
  ];
}

function evaluate(sql: string, v: Values = {}): unknown {
  return compileScalar(parseExpression(sql), scope).fn(row(v));
}

function typeOf(sql: string): string {
  return formatType(compileScalar(parseExpression(sql), scope).type);
}

/** SQL's three-valued AND, OR, NOT as plain tables. */
function and3(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false;
  return a === null || b === null ? null : true;
}
function or3(a: boolean | null, b: boolean | null): boolean | null {
  if (a === true || b === true) return true;
  return a === null || b === null ? null : false;
}

const bool3 = fc.constantFrom<boolean | null>(true, false, null);
const int32 = fc.integer({ min: -2147483648, max: 2147483647 });

describe('three-valued logic', () => {
  it('AND, OR and NOT follow the truth tables', () => {
    fc.assert(
      fc.property(bool3, bool3, (x, y) => {
        expect(evaluate('x AND y', { x, y })).toBe(and3(x, y));
        expect(evaluate('x OR y', { x, y })).toBe(or3(x, y));
        expect(evaluate('NOT x', { x })).toBe(x === null ? null : !x);
        expect(evaluate('x IS NULL', { x })).toBe(x === null);
        expect(evaluate('x IS TRUE', { x })).toBe(x === true);
        expect(evaluate('x IS NOT FALSE', { x })).toBe(x !== false);
      }),
    );
  });

  it('comparisons with NULL are NULL, and NULL makes IN and BETWEEN unknown', () => {
    expect(evaluate('a = 1', { a: null })).toBe(null);
    expect(evaluate('a <> b', { a: 1, b: null })).toBe(null);
    expect(evaluate('a IN (1, 2)', { a: 3 })).toBe(false);
    expect(evaluate('a IN (1, NULL)', { a: 3 })).toBe(null);
    expect(evaluate('a IN (1, NULL)', { a: 1 })).toBe(true);
    expect(evaluate('a NOT IN (1, NULL)', { a: 3 })).toBe(null);
    expect(evaluate('a BETWEEN 1 AND 3', { a: 2 })).toBe(true);
    expect(evaluate('a BETWEEN b AND 3', { a: 0, b: null })).toBe(null);
    expect(evaluate('a BETWEEN b AND 3', { a: 5, b: null })).toBe(false);
    expect(evaluate('a NOT BETWEEN 1 AND 3', { a: 5 })).toBe(true);
  });
});

describe('integer arithmetic', () => {
  it('INT wraps around as Java does, and integer division truncates', () => {
    fc.assert(
      fc.property(int32, int32, (a, b) => {
        expect(evaluate('a + b', { a, b })).toBe((a + b) | 0);
        expect(evaluate('a - b', { a, b })).toBe((a - b) | 0);
        expect(evaluate('a * b', { a, b })).toBe(Math.imul(a, b));
        if (b !== 0) {
          expect(evaluate('a / b', { a, b })).toBe(Math.trunc(a / b) | 0);
          expect(evaluate('MOD(a, b)', { a, b })).toBe((a % b) + 0);
        }
        expect(evaluate('a + b', { a, b: null })).toBe(null);
      }),
    );
  });

  it('a sign before a negative literal folds into it (`- - 3` is 3)', () => {
    expect(evaluate('- - 3')).toBe(3);
    expect(evaluate('MOD(10, - - 3)')).toBe(1);
    expect(evaluate('- - - 2')).toBe(-2);
  });

  it('division by zero fails the row with a clear error', () => {
    expect(() => evaluate('a / b', { a: 1, b: 0 })).toThrow(/division by zero/);
  });
});

describe('DECIMAL', () => {
  it('multiplies exactly with the scale in the type (q1: DECIMAL(4, 3) * BIGINT is DECIMAL(24, 3), as Flink: p1 + p2 + 1)', () => {
    expect(typeOf('0.908 * p')).toBe('DECIMAL(24, 3)');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 53 - 1 }), (p) => {
        const v = evaluate('0.908 * p', { p }) as bigint;
        expect(v).toBe(BigInt(p) * 908n);
      }),
    );
  });

  it('adds and divides as Flink types them, rounding HALF_UP', () => {
    expect(typeOf('d + 1')).toBe('DECIMAL(13, 2)');
    expect(typeOf('1 / 3.0')).toBe('DECIMAL(17, 6)');
    expect(formatDecimal(evaluate('1 / 3.0') as bigint, 6)).toBe('0.333333');
    expect(formatDecimal(evaluate('2 / 3.0') as bigint, 6)).toBe('0.666667');
    expect(formatDecimal(evaluate('d + 0.005', { d: 12345n }) as bigint, 3)).toBe('123.455');
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }),
        fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }),
        (x, y) => {
          // d is DECIMAL(10, 2): x/100 + y/100 at scale 2 is exactly x + y.
          expect(evaluate('d + d', { d: x })).toBe(2n * x);
          expect(evaluate('d - d', { d: y })).toBe(0n);
        },
      ),
    );
  });

  it('CAST to DECIMAL rounds HALF_UP and gives NULL when the value does not fit', () => {
    expect(evaluate("CAST('1.005' AS DECIMAL(5, 2))")).toBe(101n);
    expect(evaluate("CAST('-1.005' AS DECIMAL(5, 2))")).toBe(-101n);
    expect(evaluate('CAST(12345.6 AS DECIMAL(4, 1))')).toBe(null);
    expect(evaluate('CAST(2.5 AS INT)')).toBe(2);
    expect(evaluate('CAST(-2.5 AS INT)')).toBe(-2);
  });
});

describe('CAST', () => {
  it('converts between numbers, strings, booleans and times', () => {
    expect(evaluate("CAST('42' AS INT) + 1")).toBe(43);
    expect(evaluate('CAST(300 AS TINYINT)')).toBe(44);
    expect(evaluate('CAST(1.5E0 AS INT)')).toBe(1);
    expect(evaluate('CAST(a AS STRING)', { a: -7 })).toBe('-7');
    expect(evaluate('CAST(0.5 AS STRING)')).toBe('0.5');
    expect(evaluate('CAST(1E10 AS STRING)')).toBe('1.0E10');
    expect(evaluate('CAST(TRUE AS STRING)')).toBe('TRUE');
    expect(evaluate("CAST(' yes ' AS BOOLEAN)")).toBe(true);
    expect(evaluate("CAST('2020-02-29 10:11:12.5' AS TIMESTAMP(3))")).toBe(
      Date.UTC(2020, 1, 29, 10, 11, 12, 500),
    );
    expect(evaluate('CAST(ts AS DATE)', { ts: Date.UTC(2020, 1, 29, 10) })).toBe(
      Date.UTC(2020, 1, 29) / 86_400_000,
    );
    expect(evaluate("CAST(TIMESTAMP '2020-01-02 03:04:05.006' AS STRING)")).toBe(
      '2020-01-02 03:04:05.006',
    );
    expect(evaluate("CAST('abc' AS VARCHAR(2))")).toBe('ab');
    expect(evaluate('CAST(NULL AS INT)')).toBe(null);
  });

  it('a CAST that cannot convert fails; TRY_CAST gives NULL', () => {
    expect(() => evaluate("CAST('x1' AS INT)")).toThrow(/cannot cast "x1" to INT/);
    expect(evaluate("TRY_CAST('x1' AS INT)")).toBe(null);
    expect(evaluate("TRY_CAST('2020-02-30' AS DATE)")).toBe(null);
    expect(evaluate("TRY_CAST('99999999999' AS INT)")).toBe(null);
  });

  it('refuses casts Flink does not have, at compile time, with the position', () => {
    expect(() => typeOf('CAST(x AS DATE)')).toThrow(SqlError);
    expect(() => typeOf('CAST(x AS DATE)')).toThrow(
      /line 1, column 1: cannot cast BOOLEAN to DATE/,
    );
  });

  it('implicit conversions widen numbers only', () => {
    expect(typeOf('a + p')).toBe('BIGINT');
    expect(typeOf('a + 1.5E0')).toBe('DOUBLE');
    expect(() => typeOf("a = 'x'")).toThrow(/cannot compare INT with CHAR\(1\) NOT NULL/);
  });
});

describe('functions', () => {
  const cases: [string, Values, unknown][] = [
    ["UPPER(s) || LOWER('AbC')", { s: 'xY' }, 'XYabc'],
    ['CHAR_LENGTH(s)', { s: 'héllo' }, 5],
    ['SUBSTRING(s FROM 2 FOR 3)', { s: 'abcdef' }, 'bcd'],
    ['SUBSTRING(s, 3)', { s: 'abcdef' }, 'cdef'],
    ["CONCAT(s, '-', s)", { s: 'a' }, 'a-a'],
    ["CONCAT(s, '-')", { s: null }, null],
    ["TRIM(BOTH 'x' FROM s)", { s: 'xxaxx' }, 'a'],
    ['TRIM(LEADING FROM s)', { s: '  a  ' }, 'a  '],
    ['TRIM(s)', { s: '  a  ' }, 'a'],
    ["s LIKE 'a%c'", { s: 'abbc' }, true],
    ["s LIKE 'a_c'", { s: 'abbc' }, false],
    ["s NOT LIKE '%.%'", { s: 'a.b' }, false],
    ["s LIKE 'a!%' ESCAPE '!'", { s: 'a%' }, true],
    ['ABS(a)', { a: -3 }, 3],
    ['MOD(p, 123)', { p: 246 }, 0],
    ['ROUND(2.5E0)', {}, 3],
    ['FLOOR(-1.5E0)', {}, -2],
    ['CEIL(1.2E0)', {}, 2],
    ['FLOOR(d)', { d: -150n }, -2n],
    ['CEIL(d)', { d: 150n }, 2n],
    ["COALESCE(s, 'd')", { s: null }, 'd'],
    ['COALESCE(a, b, 7)', { a: null, b: 5 }, 5],
    ['NULLIF(a, 1)', { a: 1 }, null],
    ["IF(a > 1, 'big', 'small')", { a: 2 }, 'big'],
    ["CASE WHEN a > 10 THEN 'x' WHEN a > 5 THEN 'y' END", { a: 1 }, null],
    ['CASE a WHEN 1 THEN 10 WHEN 2 THEN 20 ELSE 0 END', { a: 2 }, 20],
    ['HOUR(ts)', { ts: Date.UTC(2015, 6, 15, 13, 5) }, 13],
    ['EXTRACT(YEAR FROM ts)', { ts: Date.UTC(2015, 6, 15) }, 2015],
    ["DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm')", { ts: Date.UTC(2015, 6, 5, 3, 4) }, '2015-07-05 03:04'],
    ["ts + INTERVAL '4' SECOND", { ts: 1000 }, 5000],
    ["SPLIT_INDEX(s, '/', 1)", { s: 'a/b/c' }, 'b'],
    ["SPLIT_INDEX(s, ' ', 0)", { s: ' a ' }, ''],
    [
      'FLOOR(ts TO MINUTE)',
      { ts: Date.UTC(2026, 2, 29, 10, 7, 30, 5) },
      Date.UTC(2026, 2, 29, 10, 7),
    ],
    ['CEIL(ts TO HOUR)', { ts: Date.UTC(2026, 2, 29, 10, 7) }, Date.UTC(2026, 2, 29, 11)],
    ['CEIL(ts TO HOUR)', { ts: Date.UTC(2026, 2, 29, 10) }, Date.UTC(2026, 2, 29, 10)],
    ['FLOOR(ts TO DAY)', { ts: Date.UTC(1969, 11, 31, 23) }, Date.UTC(1969, 11, 31)],
    ['FLOOR(ts TO QUARTER)', { ts: Date.UTC(2026, 4, 20) }, Date.UTC(2026, 3, 1)],
    ['CEILING(ts TO MONTH)', { ts: Date.UTC(2026, 11, 2) }, Date.UTC(2027, 0, 1)],
    ['CEIL(ts TO YEAR)', { ts: Date.UTC(2026, 0, 1) }, Date.UTC(2026, 0, 1)],
    ['FLOOR(ts TO HOUR)', { ts: null }, null],
    ["SPLIT_INDEX(s, ' ', 0)", { s: '' }, null],
    ['TRY_CAST(s AS INT)', { s: ' -3.9 ' }, -3],
    ['TRY_CAST(s AS BIGINT)', { s: '1e2' }, null],
    ['TRY_CAST(s AS DATE)', { s: '42' }, -704187],
    ['TRY_CAST(s AS DATE)', { s: '2024-3' }, 19783],
    ['TRY_CAST(s AS DATE)', { s: '2024-01-05 10:00:00' }, 19727],
    ['TRY_CAST(s AS DATE)', { s: '2023-02-29' }, null],
    ['TRY_CAST(s AS DATE)', { s: '-7' }, null],
    // Flink's form; the needle is not an `x IN (list)` predicate.
    ["POSITION('c' IN s)", { s: 'abcabc' }, 3],
    ["POSITION(s IN 'abc') + 1", { s: 'z' }, 1],
    ["POSITION('a' IN s)", { s: null }, null],
    ["REGEXP_EXTRACT(s, '([a-z]+)=([0-9]+)', 2)", { s: 'k=42' }, '42'],
  ];
  for (const [sql, values, expected] of cases) {
    it(`${sql} = ${String(expected)}`, () => {
      expect(evaluate(sql, values)).toEqual(expected);
    });
  }

  it('unknown functions and wrong argument types are compile errors with positions', () => {
    expect(() => typeOf('FOO(a)')).toThrow(
      /line 1, column 1: unknown function FOO: not supported by Weir SQL yet/,
    );
    expect(() => typeOf('UPPER(a)')).toThrow(/UPPER needs a string argument, got INT/);
    expect(() => typeOf('a + s')).toThrow(/cannot apply \+ to INT and STRING/);
    expect(() => typeOf('MAX(a)')).toThrow(/aggregate MAX is not allowed here/);
    expect(() => typeOf('FLOOR(a TO DAY)')).toThrow(
      /FLOOR\(\.\.\. TO DAY\) expects a DATE or TIMESTAMP, got INT/,
    );
    expect(() => typeOf('CEIL(ts TO ISOYEAR)')).toThrow(
      /line 1, column 1: CEIL\(\.\.\. TO ISOYEAR\) is not supported by Weir SQL yet/,
    );
    expect(() => typeOf('FLOOR(ts TO)')).toThrow(/line 1, column 12: expected a time unit/);
  });
});

describe('types', () => {
  it('literals have Flink types', () => {
    const types: [string, string][] = [
      ['1', 'INT NOT NULL'],
      ['3000000000', 'BIGINT NOT NULL'],
      ['0.908', 'DECIMAL(4, 3) NOT NULL'],
      ['1E3', 'DOUBLE NOT NULL'],
      ["'abc'", 'CHAR(3) NOT NULL'],
      ['TRUE', 'BOOLEAN NOT NULL'],
      ["TIMESTAMP '2020-01-01 00:00:00.123'", 'TIMESTAMP(3) NOT NULL'],
      ["DATE '2020-01-01'", 'DATE NOT NULL'],
    ];
    for (const [sql, type] of types) expect(typeOf(sql)).toBe(type);
  });

  it('a nullable input makes the result nullable', () => {
    const t: LogicalType = compileScalar(parseExpression('a + 1'), scope).type;
    expect(t.nullable).toBe(true);
    expect(compileScalar(parseExpression('a IS NULL'), scope).type.nullable).toBe(false);
  });
});

describe('CAST of ARRAY, MAP and ROW to text, as Flink writes them', () => {
  it('casts each element to STRING, NULL as NULL', () => {
    expect(evaluate('CAST(ARRAY[1, 2, 3] AS STRING)')).toBe('[1, 2, 3]');
    expect(evaluate("CAST(ARRAY['a', NULL] AS STRING)")).toBe('[a, NULL]');
    expect(evaluate("CAST(MAP['a', 1, 'b', 2] AS STRING)")).toBe('{a=1, b=2}');
    expect(evaluate("CAST(ROW(1, 'x', TRUE) AS STRING)")).toBe('(1, x, TRUE)');
    expect(evaluate('CAST(ARRAY[ARRAY[1.5, 2.25]] AS STRING)')).toBe('[[1.50, 2.25]]');
    expect(evaluate("CAST(ARRAY[TIMESTAMP '2024-01-02 03:04:05'] AS STRING)")).toBe(
      '[2024-01-02 03:04:05]',
    );
  });

  it('fits the text to CHAR and VARCHAR lengths, and types it as the target', () => {
    expect(evaluate('CAST(ARRAY[1, 2, 3] AS VARCHAR(4))')).toBe('[1, ');
    expect(typeOf('CAST(ARRAY[1] AS STRING)')).toBe('STRING NOT NULL');
  });
});
