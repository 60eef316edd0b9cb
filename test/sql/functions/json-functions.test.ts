/**
 * Flink's JSON functions on documents of every shape: lax and strict paths, the ON EMPTY / ON
 * ERROR behaviours, wrappers, RETURNING types, IS JSON kinds, and the constructors' NULL
 * handling and number formatting (Jackson's, as Flink writes JSON).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, writeJson } from '../../../src/sql/expressions/functions/json-text.js';
import { evaluate, typeOf } from './evaluate.js';

const doc = `'{"a": {"b": [1, 2.50, "x", true, null]}, "n": 1.0, "o": {"c": 2}}'`;

describe('JSON_VALUE', () => {
  it('gives scalars as text; NULL for JSON null, a missing member or NULL input', () => {
    expect(evaluate(`JSON_VALUE(${doc}, '$.a.b[0]')`)).toBe('1');
    // Numbers as Java's BigDecimal prints them.
    expect(evaluate(`JSON_VALUE(${doc}, '$.a.b[1]')`)).toBe('2.50');
    expect(evaluate(`JSON_VALUE('[1e2, 0.0000001, -0.5]', '$[0]')`)).toBe('1E+2');
    expect(evaluate(`JSON_VALUE('[1e2, 0.0000001, -0.5]', '$[1]')`)).toBe('1E-7');
    expect(evaluate(`JSON_VALUE('[1e2, 0.0000001, -0.5]', '$[2]')`)).toBe('-0.5');
    expect(evaluate(`JSON_VALUE(${doc}, '$.n')`)).toBe('1.0');
    expect(evaluate(`JSON_VALUE(${doc}, '$.a.b[2]')`)).toBe('x');
    expect(evaluate(`JSON_VALUE(${doc}, '$.a.b[3]')`)).toBe('true');
    expect(evaluate(`JSON_VALUE(${doc}, '$.a.b[4]')`)).toBeNull();
    expect(evaluate(`JSON_VALUE(${doc}, '$.z')`)).toBeNull();
    expect(evaluate(`JSON_VALUE(${doc}, '$["o"].c')`)).toBe('2');
    expect(evaluate("JSON_VALUE(s, '$')")).toBeNull();
    expect(typeOf("JSON_VALUE(s, '$')")).toBe('STRING');
  });

  it('converts with RETURNING, and an impossible conversion is an error', () => {
    expect(evaluate(`JSON_VALUE(${doc}, '$.o.c' RETURNING INT)`)).toBe(2);
    expect(typeOf(`JSON_VALUE(${doc}, '$.o.c' RETURNING INT)`)).toBe('INT');
    expect(evaluate(`JSON_VALUE(${doc}, '$.a.b[1]' RETURNING DECIMAL(5, 2))`)).toBe(250n);
    expect(evaluate(`JSON_VALUE(${doc}, '$.a.b[3]' RETURNING BOOLEAN)`)).toBe(true);
    expect(evaluate(`JSON_VALUE(${doc}, '$.a.b[2]' RETURNING INT DEFAULT -1 ON ERROR)`)).toBe(-1);
    expect(() => evaluate(`JSON_VALUE(${doc}, '$.a.b[2]' RETURNING INT ERROR ON ERROR)`)).toThrow(
      /JSON_VALUE: no scalar value at the path/,
    );
  });

  it('ON ERROR for broken JSON, a non-scalar or a strict miss (a path without lax is strict); ON EMPTY for a lax miss', () => {
    expect(evaluate("JSON_VALUE('{oops', '$.a' DEFAULT 'e' ON ERROR)")).toBe('e');
    expect(evaluate(`JSON_VALUE(${doc}, '$.a' DEFAULT 'e' ON ERROR)`)).toBe('e');
    expect(evaluate(`JSON_VALUE(${doc}, 'strict $.z' DEFAULT 'e' ON ERROR)`)).toBe('e');
    expect(evaluate(`JSON_VALUE(${doc}, 'lax $.z' DEFAULT 'e' ON ERROR)`)).toBeNull();
    // Without `lax` the path is strict: its miss is an error (NULL ON ERROR), not empty.
    expect(evaluate(`JSON_VALUE(${doc}, '$.z' DEFAULT 'd' ON EMPTY)`)).toBeNull();
    expect(evaluate(`JSON_VALUE(${doc}, '$.z' ERROR ON EMPTY)`)).toBeNull();
    expect(evaluate(`JSON_VALUE(${doc}, 'lax $.z' DEFAULT 'd' ON EMPTY)`)).toBe('d');
    expect(() => evaluate(`JSON_VALUE(${doc}, 'lax $.z' ERROR ON EMPTY)`)).toThrow(
      /selects nothing/,
    );
  });

  it('refuses a path that is not a literal or not a path', () => {
    expect(() => evaluate('JSON_VALUE(s, t)')).toThrow(/string literal as its JSON path/);
    expect(() => evaluate("JSON_VALUE(s, 'a.b')")).toThrow(/starts with '\$'/);
  });
});

describe('JSON_QUERY, JSON_EXISTS, IS JSON', () => {
  it('JSON_QUERY gives arrays and objects as compact JSON, scalars only wrapped', () => {
    expect(evaluate(`JSON_QUERY(${doc}, '$.a.b')`)).toBe('[1,2.50,"x",true,null]');
    expect(evaluate(`JSON_QUERY(${doc}, '$.o')`)).toBe('{"c":2}');
    expect(evaluate(`JSON_QUERY(${doc}, '$.o.c')`)).toBeNull();
    expect(evaluate(`JSON_QUERY(${doc}, '$.o.c' WITH WRAPPER)`)).toBe('[2]');
    expect(evaluate(`JSON_QUERY(${doc}, '$.o' WITH CONDITIONAL ARRAY WRAPPER)`)).toBe('[{"c":2}]');
    expect(evaluate(`JSON_QUERY(${doc}, '$.a.b' WITH CONDITIONAL WRAPPER)`)).toBe(
      '[1,2.50,"x",true,null]',
    );
    expect(evaluate(`JSON_QUERY(${doc}, '$.a.b[*]')`)).toBe('[1,2.50,"x",true,null]');
    expect(evaluate(`JSON_QUERY(${doc}, 'lax $.z' EMPTY ARRAY ON EMPTY)`)).toBe('[]');
    expect(evaluate(`JSON_QUERY('[', '$' EMPTY OBJECT ON ERROR)`)).toBe('{}');
    expect(evaluate(`JSON_QUERY(${doc}, '$.a.b' RETURNING ARRAY<STRING>)`)).toEqual([
      '1',
      '2.50',
      'x',
      'true',
      null,
    ]);
    expect(
      evaluate(`JSON_QUERY(${doc}, 'lax $.n' RETURNING ARRAY<STRING> EMPTY ARRAY ON EMPTY)`),
    ).toEqual([]);
  });

  it('JSON_EXISTS: FALSE ON ERROR by default, NULL for NULL', () => {
    expect(evaluate(`JSON_EXISTS(${doc}, '$.a.b[3]')`)).toBe(true);
    // A JSON null does not count.
    expect(evaluate(`JSON_EXISTS(${doc}, '$.a.b[4]')`)).toBe(false);
    expect(evaluate(`JSON_EXISTS(${doc}, '$.a.b[9]')`)).toBe(false);
    expect(evaluate("JSON_EXISTS('{', '$')")).toBe(false);
    expect(evaluate("JSON_EXISTS('{', '$' TRUE ON ERROR)")).toBe(true);
    expect(evaluate("JSON_EXISTS('{', '$' UNKNOWN ON ERROR)")).toBeNull();
    expect(evaluate("JSON_EXISTS(s, '$')")).toBeNull();
  });

  it('IS JSON of each kind; FALSE for NULL', () => {
    expect(evaluate("'3.5' IS JSON SCALAR")).toBe(true);
    expect(evaluate("'[1]' IS JSON ARRAY")).toBe(true);
    expect(evaluate("'[1]' IS JSON OBJECT")).toBe(false);
    expect(evaluate("'abc' IS JSON")).toBe(false);
    expect(evaluate('s IS JSON')).toBe(false);
    expect(evaluate('s IS NOT JSON ARRAY')).toBe(true);
  });
});

describe('JSON constructors', () => {
  it('JSON_STRING writes values as Jackson does', () => {
    expect(evaluate('JSON_STRING(d)', { d: 60 })).toBe('60.0');
    expect(evaluate('JSON_STRING(m)', { m: -68130n })).toBe('-681.30');
    expect(evaluate('JSON_STRING(s)', { s: 'a"b' })).toBe('"a\\"b"');
    expect(evaluate('JSON_STRING(a)', { a: [1, null] })).toBe('[1,null]');
    expect(evaluate('JSON_STRING(n)')).toBeNull();
    expect(evaluate("JSON_STRING(TIMESTAMP '2026-03-28 23:59:00.450')")).toBe(
      '"2026-03-28T23:59:00.45"',
    );
    expect(() => evaluate("JSON_STRING(DATE '2026-03-28')")).toThrow(/does not take a DATE/);
  });

  it('JSON_OBJECT sorts keys, keeps NULLs unless ABSENT ON NULL, nests JSON as JSON', () => {
    expect(evaluate("JSON_OBJECT('s' VALUE s, 'k' VALUE n)", { n: 1 })).toBe('{"k":1,"s":null}');
    expect(evaluate("JSON_OBJECT(KEY 's' VALUE s ABSENT ON NULL)")).toBe('{}');
    expect(
      evaluate("JSON_OBJECT('n' VALUE JSON_OBJECT('x' VALUE 1), 'm' VALUE m)", { m: 150n }),
    ).toBe('{"m":1.50,"n":{"x":1}}');
    expect(evaluate('JSON_OBJECT()')).toBe('{}');
  });

  it('JSON_ARRAY leaves NULLs out unless NULL ON NULL', () => {
    expect(evaluate('JSON_ARRAY(n, s)', { n: 1 })).toBe('[1]');
    expect(evaluate('JSON_ARRAY(n, s NULL ON NULL)', { n: 1 })).toBe('[1,null]');
    expect(evaluate("JSON_ARRAY(JSON_ARRAY(1, 'a'), d)", { d: 2.5 })).toBe('[[1,"a"],2.5]');
    expect(evaluate('JSON_ARRAY()')).toBe('[]');
    // A TIMESTAMP(6) in an ARRAY keeps its digits (its value is epoch nanoseconds).
    expect(
      evaluate(
        "JSON_ARRAY(ARRAY[TIMESTAMP '2020-01-01 00:00:00.123456', TIMESTAMP '1960-01-01 00:00:00.1'])",
      ),
    ).toBe('[["2020-01-01T00:00:00.123456","1960-01-01T00:00:00.1"]]');
  });

  it('JSON_QUOTE and JSON_UNQUOTE', () => {
    expect(evaluate("JSON_QUOTE('ü\"')")).toBe('"\\u00fc\\""');
    expect(evaluate("JSON_UNQUOTE(JSON_QUOTE('ü\"'))")).toBe('ü"');
    expect(evaluate("JSON_UNQUOTE('abc')")).toBe('abc');
  });

  it('parse and write JSON back to the same document (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        // Integers come back as written, fractions as BigDecimal prints them: both reparse equal.
        expect(JSON.parse(writeJson(parseJson(text)))).toEqual(JSON.parse(text));
      }),
    );
  });
});
