/**
 * `value [NOT] SIMILAR TO pattern [ESCAPE 'c']`, as Flink evaluates it (its SqlLikeUtils, a copy
 * of Calcite's Like): the whole value must match; `%`, `_`, `|`, `*`, `+`, `?`, `{m}`, `{m,}`,
 * `{m,n}`, `( )` and `[...]` classes; `.` is a wildcard as in Flink and Calcite ("dot is a
 * wildcard for SIMILAR TO but not LIKE"), `$` and `\` are literal.
 *
 * The table is Calcite's SqlOperatorTest.testSimilarToOperator (every case it runs, its
 * negative tests with the errors Weir gives), run with literal patterns (translated when
 * planned) and with patterns from a column (translated per distinct pattern when run). Then
 * Flink's CalcITCase.testFilterOnString (its SIMILAR TO queries), NULLs, ESCAPE, characters
 * that JavaScript's regular expressions read otherwise, and invalid patterns.
 */
import { describe, expect, it } from 'vitest';
import { StreamEnvironment, TableEnvironment } from '../../src/index.js';
import { similarTo, similarToSource } from '../../src/sql/expressions/functions/similar-to.js';
import { runScenario } from './flink-scenario-runner.js';

/** [value, pattern, expected, escape]: SQL texts (no quote doubling needed in these). */
type Case = readonly [string, string, boolean, string?];

/** Calcite's SqlOperatorTest.testSimilarToOperator (`^^` there is an escaped `^`). */
const CALCITE: readonly Case[] = [
  // like LIKE
  ['', '', true],
  ['a', 'a', true],
  ['a', 'b', false],
  ['a', 'A', false],
  ['a', 'a_', false],
  ['a', '_a', false],
  ['a', '%a', true],
  ['a', '%a%', true],
  ['a', 'a%', true],
  ['ab', 'a_', true],
  ['abc', 'a_', false],
  ['abcd', 'a%', true],
  ['ab', '_b', true],
  ['abcd', '_d', false],
  ['abcd', '%d', true],
  ['ab\ncd', 'ab%', true],
  ['abc\ncd', 'ab%', true],
  ['123\n\n45\n', '%', true],
  ['ab\ncd\nef', '%cd%', true],
  ['ab\ncd\nef', '%cde%', false],
  // simple regular expressions: ab*c+d matches acd, abcd, acccd, abcccd but not abd, aabc
  ['acd', 'ab*c+d', true],
  ['abcd', 'ab*c+d', true],
  ['acccd', 'ab*c+d', true],
  ['abcccd', 'ab*c+d', true],
  ['abd', 'ab*c+d', false],
  ['aabc', 'ab*c+d', false],
  // compound regular expressions: x(ab|c)*y matches xy, xccy, xababcy but not xbcy
  ['xy', 'x(ab|c)*y', true],
  ['xccy', 'x(ab|c)*y', true],
  ['xababcy', 'x(ab|c)*y', true],
  ['xbcy', 'x(ab|c)*y', false],
  // x(ab|c)+y matches xccy, xababcy but not xy, xbcy
  ['xy', 'x(ab|c)+y', false],
  ['xccy', 'x(ab|c)+y', true],
  ['xababcy', 'x(ab|c)+y', true],
  ['xbcy', 'x(ab|c)+y', false],
  ['ab', 'a%', true],
  ['a', 'a%', true],
  ['abcd', 'a_', false],
  ['abcd', 'a%', true],
  ['1a', '_a', true],
  ['123aXYZ', '%a%', true],
  ['123aXYZ', '_%_a%_', true],
  ['xy', '(xy)', true],
  ['abd', '[ab][bcde]d', true],
  ['bdd', '[ab][bcde]d', true],
  ['abd', '[ab]d', false],
  ['cd', '[a-e]d', true],
  ['amy', 'amy|fred', true],
  ['fred', 'amy|fred', true],
  ['mike', 'amy|fred', false],
  ['acd', 'ab*c+d', true],
  ['accccd', 'ab*c+d', true],
  ['abd', 'ab*c+d', false],
  ['aabc', 'ab*c+d', false],
  ['abb', 'a(b{3})', false],
  ['abbb', 'a(b{3})', true],
  ['abbbbb', 'a(b{3})', false],
  ['abbbbb', 'ab{3,6}', true],
  ['abbbbbbbb', 'ab{3,6}', false],
  ['', 'ab?', false],
  ['a', 'ab?', true],
  ['a', 'a(b?)', true],
  ['ab', 'ab?', true],
  ['ab', 'a(b?)', true],
  ['abb', 'ab?', false],
  ['ab', String.raw`a\_`, false, '\\'],
  ['ab', String.raw`a\%`, false, '\\'],
  ['a_', String.raw`a\_`, true, '\\'],
  ['a%', String.raw`a\%`, true, '\\'],
  ['a(b{3})', 'a(b{3})', false],
  ['a(b{3})', String.raw`a\(b\{3\}\)`, true, '\\'],
  ['yd', '[a-ey]d', true],
  ['yd', '[^a-ey]d', false],
  ['yd', '[^a-ex-z]d', false],
  ['yd', '[a-ex-z]d', true],
  ['yd', '[x-za-e]d', true],
  ['yd', '[^a-ey]?d', false],
  ['yyyd', '[a-ey]*d', true],
  // range must be specified in []
  ['yd', 'x-zd', false],
  ['y', 'x-z', false],
  ['cd', '([a-e])d', true],
  ['xy', 'x*?y', true],
  ['y', 'x*?y', true],
  ['y', '(x?)*y', true],
  ['y', 'x+?y', false],
  // possessive quantifiers (Java's)
  ['y', 'x?+y', true],
  ['y', 'x*+y', true],
  // dot is a wildcard for SIMILAR TO but not LIKE
  ['abc', 'a.c', true],
  ['a.c', 'a.c', true],
  ['abcd', 'a.*d', true],
];

/** More: what JavaScript reads otherwise, possessive semantics, classes, ESCAPE, line ends. */
const MORE: readonly Case[] = [
  // `$`, `\`, `/` and `}` are literal; `^` outside a class is Java's anchor (as in Flink).
  ['a$', 'a$', true],
  ['a', 'a$', false],
  [String.raw`a\b`, String.raw`a\b`, true],
  ['ab', String.raw`a\b`, false],
  ['a/b', 'a/b', true],
  ['a}', 'a}', true],
  ['abc', '^abc', true],
  ['^abc', '^abc', false],
  // A possessive quantifier does not give back what it took.
  ['xxy', 'x*+xy', false],
  ['xxy', 'x*xy', true],
  ['aaab', '(a|aa)++b', true],
  ['ab', 'a{1,}b', true],
  ['b', 'a{1,}b', false],
  ['aab', 'a{2}+b', true],
  // `_` and `.` are one character but not a line end (Java's `.`); `%` takes line ends too.
  ['a\nb', 'a_b', false],
  ['a\nb', 'a.b', false],
  ['a\nb', 'a%b', true],
  ['a😀b', 'a_b', true],
  // Classes: `-` and `^` inside, named sets, a literal `.`, a JavaScript-special `\`.
  ['-', '[a-]', true],
  ['^', '[x^]', true],
  ['.', '[.]', true],
  ['x', '[.]', false],
  ['\\', '[\\]', true],
  ['a7', '[[:ALPHA:]][[:DIGIT:]]', true],
  ['7a', '[[:ALPHA:]][[:DIGIT:]]', false],
  ['Ab', '[[:UPPER:]][[:lower:]]', true],
  [' \t', '[[:SPACE:]][[:WHITESPACE:]]', true],
  ['x9', '[[:ALNUM:]]+', true],
  // ESCAPE: a special character made literal, in and outside a class; the escape doubled.
  ['a|b', 'a#|b', true, '#'],
  ['a', 'a#|b', false, '#'],
  ['a*', 'a#*', true, '#'],
  ['a-b', 'a#-b', true, '#'],
  ['x]', 'x[#]]', true, '#'],
  ['x-', 'x[#-a]', true, '#'],
  ['a#b', 'a##b', true, '#'],
  ['100%', '100!%', true, '!'],
  ['1000', '100!%', false, '!'],
  ['a%', 'a_%', true, '_'],
  ['ab', 'a_%', false, '_'],
  // Flink's CalcITCase.testFilterOnString values.
  ['H.llo', 'H.llo', true],
  ['Hello', 'H.llo', true],
];

/** `text` as a SQL string literal. */
const sqlString = (text: string): string =>
  text.includes('\n') || text.includes('\t')
    ? `(${text
        .split(/(\n|\t)/)
        .map((part) =>
          part === '\n' ? 'CHR(10)' : part === '\t' ? 'CHR(9)' : `'${part.replaceAll("'", "''")}'`,
        )
        .join(' || ')})`
    : `'${text.replaceAll("'", "''")}'`;

const escapeClause = (escapeChar: string | undefined): string =>
  escapeChar === undefined ? '' : ` ESCAPE ${sqlString(escapeChar)}`;

/** Each case with a literal pattern, as the columns of one query. */
async function literalResults(cases: readonly Case[]): Promise<string[]> {
  const columns = cases.map(
    ([value, pattern, , escapeChar], i) =>
      `${sqlString(value)} SIMILAR TO '${pattern.replaceAll("'", "''")}'${escapeClause(escapeChar)} AS c${i}`,
  );
  const [result] = await runScenario('', [`SELECT ${columns.join(', ')}`], { parallelism: 1 });
  return (result?.rows[0] ?? '').split(',');
}

/** Each case with its value and pattern from a row (the pattern compiled when the job runs). */
async function columnResults(cases: readonly Case[]): Promise<string[]> {
  // ESCAPE takes a literal: one query per escape character, over the rows that use it.
  const escapes = [...new Set(cases.map(([, , , e]) => e))];
  const queries = escapes.map((escapeChar) => {
    const rows = cases.map(([value, pattern, , e], i) =>
      e === escapeChar
        ? `(${i}, ${sqlString(value)}, '${pattern.replaceAll("'", "''")}')`
        : undefined,
    );
    return `SELECT i, v SIMILAR TO p${escapeClause(escapeChar)}
      FROM (VALUES ${rows.filter((r) => r !== undefined).join(', ')}) AS t(i, v, p)`;
  });
  const results = await runScenario('', queries, { parallelism: 1 });
  const byIndex = new Map<number, string>();
  for (const result of results)
    for (const row of result.rows) {
      const [i, value] = row.split(',');
      byIndex.set(Number(i), value as string);
    }
  return cases.map((_, i) => byIndex.get(i) as string);
}

describe('SIMILAR TO: Calcite SqlOperatorTest.testSimilarToOperator', () => {
  it('with literal patterns', async () => {
    expect(await literalResults(CALCITE)).toEqual(
      CALCITE.map(([, , expected]) => String(expected)),
    );
  });

  it('with patterns from a column', async () => {
    expect(await columnResults(CALCITE)).toEqual(CALCITE.map(([, , expected]) => String(expected)));
  });

  it.each([
    ['x+*y', /Invalid regular expression 'x\+\*y': Nothing to repeat/],
    ['x?*y', /Invalid regular expression 'x\?\*y': Nothing to repeat/],
    // Calcite: "Illegal character range near index 6"
    [
      '[x-ze-a]d',
      /Invalid regular expression '\[x-ze-a\]d': Range out of order in character class/,
    ],
    // Calcite: "Illegal repetition near index 22"
    ['[:LOWER:]{2}[:DIGIT:]{,5}', /Invalid regular expression '.*': Incomplete quantifier/],
    // Calcite: "Invalid regular expression '[(a-e)]d', index 1"
    ['[(a-e)]d', /Invalid regular expression '\[\(a-e\)\]d', index 1/],
  ])('refuses %s when planned, at the pattern', (pattern, message) => {
    const tEnv = TableEnvironment.create(new StreamEnvironment());
    expect(() => tEnv.sqlQuery(`SELECT 'y' SIMILAR TO '${pattern}'`)).toThrow(message);
    expect(() => tEnv.sqlQuery(`SELECT 'y' SIMILAR TO '${pattern}'`)).toThrow(
      /^line 1, column 23: SIMILAR TO: /,
    );
  });
});

describe('SIMILAR TO: more patterns', () => {
  it('with literal patterns', async () => {
    expect(await literalResults(MORE)).toEqual(MORE.map(([, , expected]) => String(expected)));
  });

  it('with patterns from a column', async () => {
    expect(await columnResults(MORE)).toEqual(MORE.map(([, , expected]) => String(expected)));
  });

  it('translates to an anchored JavaScript pattern, special characters escaped', () => {
    expect(similarToSource('a%b_c', null)).toBe('^(?:a[^]*b[^\\n\\r\\u0085\\u2028\\u2029]c)$');
    expect(similarToSource('$\\/', null)).toBe('^(?:\\$\\\\\\/)$');
    expect(similarToSource('(a|b)+', null)).toBe('^(?:(?:a|b)+)$');
    expect(similarToSource('a.#(', '#')).toBe('^(?:a[^\\n\\r\\u0085\\u2028\\u2029]\\()$');
    expect(similarToSource('x*+', null)).toBe('^(?:(?=(?<p0>x*))\\k<p0>)$');
  });

  it('caches the translation of a pattern known only when run', () => {
    expect(similarTo('abc', 'a%', null)).toBe(true);
    expect(similarTo('abc', 'a%', '!')).toBe(true);
    expect(similarTo('xbc', 'a%', null)).toBe(false);
  });
});

describe('SIMILAR TO: Flink CalcITCase.testFilterOnString', () => {
  it('filters with SIMILAR TO and NOT SIMILAR TO', async () => {
    const [like, similar, notSimilar] = await runScenario(
      `CREATE VIEW MyTable AS SELECT * FROM (VALUES (3, 'H.llo'), (3, 'Hello')) AS t(a, c);`,
      [
        "SELECT c FROM MyTable WHERE c LIKE 'H.llo'",
        "SELECT c FROM MyTable WHERE c SIMILAR TO 'H.llo'",
        "SELECT c FROM MyTable WHERE c NOT SIMILAR TO 'H.llo'",
      ],
      { parallelism: 1 },
    );
    expect(like?.rows).toEqual(['H.llo']);
    expect(similar?.rows).toEqual(['H.llo', 'Hello']);
    expect(notSimilar?.rows).toEqual([]);
  });
});

describe('SIMILAR TO: NULL, NOT, precedence', () => {
  it('NULL in gives NULL out; NOT negates, NULL stays NULL', async () => {
    const [result] = await runScenario(
      '',
      [
        `SELECT
           v SIMILAR TO 'a%',
           v NOT SIMILAR TO 'a%',
           'abc' SIMILAR TO p,
           'abc' NOT SIMILAR TO p,
           CAST(NULL AS STRING) SIMILAR TO 'a',
           'a' SIMILAR TO CAST(NULL AS STRING),
           NOT (v SIMILAR TO 'x%')
         FROM (VALUES ('abc', 'a%'), (CAST(NULL AS STRING), CAST(NULL AS STRING)),
                      ('xyz', 'x%')) AS t(v, p)`,
      ],
      { parallelism: 1 },
    );
    expect(result?.rows).toEqual([
      'false,true,false,true,null,null,false',
      'null,null,null,null,null,null,null',
      'true,false,true,false,null,null,true',
    ]);
  });

  it('binds looser than || and tighter than AND', async () => {
    const [result] = await runScenario(
      '',
      [
        `SELECT 'a' || 'b' SIMILAR TO 'ab', 'x' SIMILAR TO 'x' AND 'y' SIMILAR TO 'z',
                NOT 'x' SIMILAR TO 'y'`,
      ],
      { parallelism: 1 },
    );
    expect(result?.rows).toEqual(['true,false,true']);
  });
});

describe('SIMILAR TO: errors', () => {
  const tEnv = (): TableEnvironment => TableEnvironment.create(new StreamEnvironment());

  it.each([
    [
      "'a' SIMILAR TO 'a' ESCAPE '##'",
      'line 1, column 34: ESCAPE must be a string of one character',
    ],
    [
      "'a' SIMILAR TO 'a#' ESCAPE '#'",
      "line 1, column 23: SIMILAR TO: Invalid escape sequence 'a#', 1",
    ],
    // An escape character that is not special escapes only special characters and itself.
    ["'ab' SIMILAR TO 'a#b' ESCAPE '#'", "SIMILAR TO: Invalid escape sequence 'a#b', 1"],
    // A special one must be followed by a special character or itself everywhere (SQL 2003).
    ["'a' SIMILAR TO '%%a' ESCAPE '%'", "SIMILAR TO: Invalid escape sequence '%%a', 1"],
    // Checked at each occurrence, as Calcite does: the second `_` of `__` escapes `b`.
    ["'a_b' SIMILAR TO 'a__b' ESCAPE '_'", "SIMILAR TO: Invalid escape sequence 'a__b', 2"],
    ["'a' SIMILAR TO 'a]'", "SIMILAR TO: Invalid regular expression 'a]', index 1"],
    ["'a' SIMILAR TO '[a'", "SIMILAR TO: Invalid regular expression '[a', index 2"],
    ["'a' SIMILAR TO '[[:FOO:]]'", "SIMILAR TO: Invalid regular expression '[[:FOO:]]', index 1"],
    ["'a' SIMILAR TO '(a'", "SIMILAR TO: Invalid regular expression '(a': Unterminated group"],
    ["1 SIMILAR TO '1'", 'SIMILAR TO operand must be a string, got INT'],
    ["'1' SIMILAR TO 1", 'SIMILAR TO pattern must be a string, got INT'],
    ["'a' SIMILAR 'a'", 'line 1, column 20'],
  ])('%s', (expression, message) => {
    expect(() => tEnv().sqlQuery(`SELECT ${expression}`)).toThrow(message);
  });

  it('a pattern from a row that is invalid fails the job when that row comes', async () => {
    await expect(
      runScenario('', ["SELECT v SIMILAR TO p FROM (VALUES ('a', 'a'), ('b', '(b')) AS t(v, p)"], {
        parallelism: 1,
      }),
    ).rejects.toThrow("Invalid regular expression '(b': Unterminated group");
  });
});
