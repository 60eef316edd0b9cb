/**
 * Subexpressions repeated in one filter-and-projection (Nexmark q21's `LOWER(channel)` five
 * times, its `REGEXP_EXTRACT(url, ...)` twice, q14's `0.908 * price` three times) are computed
 * once per row: the shared function gives, row for row, what each expression gives compiled on
 * its own (NULLs, CASE branches and short-circuits included), a failing subexpression in a
 * branch not taken fails no row, and a repeated call runs once per row.
 * SPLIT_INDEX keeps the last string it split: interleaved strings and delimiters still give
 * each call's own token.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CodeGen } from '../../src/sql/expressions/code-gen.js';
import { shareRepeatedSubexpressions } from '../../src/sql/expressions/common-subexpressions.js';
import { compile, compileScalar } from '../../src/sql/expressions/compile.js';
import { runtime } from '../../src/sql/expressions/runtime.js';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { T } from '../../src/sql/types/logical-type.js';

const scope = new Scope([
  { name: 'channel', type: T.string(), qualifier: 'b', rowtime: false },
  { name: 'url', type: T.string(), qualifier: 'b', rowtime: false },
  { name: 'price', type: T.bigint(), qualifier: 'b', rowtime: false },
  { name: 'n', type: T.int(), qualifier: 'b', rowtime: false },
]);

const Q21_ID = `CASE
    WHEN LOWER(channel) = 'apple' THEN '0'
    WHEN LOWER(channel) = 'google' THEN '1'
    WHEN LOWER(channel) = 'facebook' THEN '2'
    WHEN LOWER(channel) = 'baidu' THEN '3'
    ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
  END`;
const Q21_WHERE = `REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL
  OR LOWER(channel) IN ('apple', 'google', 'facebook', 'baidu')`;

/** Expressions compiled into one function; repeated subexpressions among them are shared. */
const EXPRESSIONS = [
  Q21_WHERE,
  Q21_ID,
  '0.908 * price > 1000000 AND 0.908 * price < 50000000',
  '0.908 * price',
  "SPLIT_INDEX(url, '/', 3)",
  "SPLIT_INDEX(url, '/', 4)",
  "SPLIT_INDEX(channel, '/', 0)",
  "SPLIT_INDEX(url, '=', 1)",
  "SPLIT_INDEX(url, '/', 5)",
  // Only evaluated where n > 0: CAST('x' AS INT) fails, so sharing must not evaluate it early.
  'CASE WHEN n > 0 THEN CAST(channel AS INT) ELSE -1 END',
  'CASE WHEN n > 0 THEN CAST(channel AS INT) + 1 ELSE -2 END',
  'MOD(n, 7) BETWEEN 2 AND 5',
  'CASE MOD(n, 3) WHEN 0 THEN UPPER(channel) WHEN 1 THEN LOWER(channel) ELSE UPPER(channel) END',
];

function shared(): (row: unknown[]) => unknown[] {
  const g = new CodeGen();
  const exprs = EXPRESSIONS.map(parseExpression);
  shareRepeatedSubexpressions(g, scope, exprs);
  const codes = exprs.map((e) => compile(e, { scope, g }).code);
  return g.function(`return [${codes.join(', ')}];`);
}

function alone(): (row: unknown[]) => unknown[] {
  const fns = EXPRESSIONS.map((sql) => compileScalar(parseExpression(sql), scope).fn);
  return (row) => fns.map((fn) => fn(row));
}

const channel = fc.oneof(
  fc.constantFrom('Apple', 'GOOGLE', 'facebook', 'Baidu', 'channel-7', 'a/b/c', '12', ''),
  fc.string({ maxLength: 8 }),
);
const url = fc.oneof(
  fc.constantFrom(
    'https://www.nexmark.com/abc/de_f/ghi/item.htm?query=1&channel_id=1234',
    'https://www.nexmark.com/abc/def/ghi/item.htm?query=1',
    'channel_id=9&x=1',
    '/',
    '',
  ),
  fc.string({ maxLength: 12 }),
);
const row = fc.tuple(
  fc.option(channel, { freq: 5 }),
  fc.option(url, { freq: 5 }),
  fc.option(fc.integer({ min: 0, max: 100_000_000 }), { freq: 5 }),
  fc.option(fc.integer({ min: -3, max: 20 }), { freq: 5 }),
);

/** The row's result, or the error it fails with. */
function outcome(fn: (row: unknown[]) => unknown[], r: unknown[]): unknown {
  try {
    return fn(r);
  } catch (e) {
    return { error: (e as Error).message };
  }
}

describe('common subexpressions of a generated function', () => {
  it('give each expression compiled on its own, row for row', () => {
    const one = shared();
    const each = alone();
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), (rows) => {
        for (const r of rows) expect(outcome(one, [...r])).toEqual(outcome(each, [...r]));
      }),
      { seed: 29, numRuns: 300 },
    );
  });

  it('do not evaluate a failing subexpression in a branch not taken', () => {
    // n = 0: the CAST of 'Apple' is in the branch not taken by either CASE.
    const result = shared()(['Apple', 'u', 1, 0]);
    expect(result.slice(9, 11)).toEqual([-1, -2]);
    expect(() => shared()(['Apple', 'u', 1, 1])).toThrow(/cannot cast/);
  });

  it('are called once per row', () => {
    const g = new CodeGen();
    const exprs = [Q21_WHERE, Q21_ID].map(parseExpression);
    shareRepeatedSubexpressions(g, scope, exprs);
    const codes = exprs.map((e) => compile(e, { scope, g }).code);
    const fn = g.function<(row: unknown[]) => unknown[]>(`return [${codes.join(', ')}];`);
    const url = 'https://www.nexmark.com/abc/def/ghi/item.htm?query=1&channel_id=42';
    const extract = vi.spyOn(runtime, 'regexpExtractWith');
    const lower = vi.spyOn(String.prototype, 'toLowerCase');
    let result: unknown[];
    let calls: number[];
    try {
      // Not a hot channel: the WHERE and the CASE's ELSE both need the url's channel_id.
      result = fn(['Channel-9', url, 1, 1]);
      calls = [extract.mock.calls.length, lower.mock.calls.length];
    } finally {
      lower.mockRestore();
      extract.mockRestore();
    }
    expect(result).toEqual([true, '42']);
    expect(calls).toEqual([1, 1]);
  });

  it('split each string at its own delimiter when SPLIT_INDEX calls interleave', () => {
    const fn = compileScalar(
      parseExpression(
        "CONCAT_WS('|', SPLIT_INDEX(url, '/', 1), SPLIT_INDEX(channel, '/', 1), SPLIT_INDEX(url, '-', 1), SPLIT_INDEX(url, '/', 2))",
      ),
      scope,
    ).fn;
    const token = (s: string, d: string, i: number) => (s === '' ? null : (s.split(d)[i] ?? null));
    fc.assert(
      fc.property(fc.array(fc.tuple(url, channel), { minLength: 1, maxLength: 30 }), (rows) => {
        for (const [u, c] of rows) {
          const parts = [token(u, '/', 1), token(c, '/', 1), token(u, '-', 1), token(u, '/', 2)];
          expect(fn([c, u, 0, 0])).toBe(parts.filter((p) => p !== null).join('|'));
        }
      }),
      { seed: 7, numRuns: 200 },
    );
  });
});
