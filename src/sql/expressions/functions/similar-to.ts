/**
 * `value SIMILAR TO pattern [ESCAPE 'c']`: SQL regular expressions as Flink evaluates them (its
 * `SqlLikeUtils`, a copy of Calcite's `Like`): the pattern is translated to a regular expression
 * that must match the whole value. `%` is any sequence, `_` any one character; `|`, `*`, `+`,
 * `?`, `{m}`, `{m,}`, `{m,n}` (also reluctant `*?` and possessive `*+`), `( )` and `[...]`
 * classes (ranges, `^` negation, `[:ALPHA:]` and the other named sets) keep their meaning; the
 * escape character makes the next special character literal. As in Flink, `.` is a wildcard
 * too (one character), while `$` and `\` are literal.
 *
 * The translation goes to a JavaScript RegExp (with the `u` flag, strict as Java's parser is):
 * `%` becomes `[^]*`, `_` and `.` a character other than a line terminator (Java's `.`), a
 * possessive quantifier an atomic group written with a lookahead and a back reference, and
 * every literal that JavaScript would read otherwise is escaped.
 */

/** The special characters of SIMILAR TO patterns (Calcite's SQL_SIMILAR_SPECIALS). */
const SQL_SPECIALS = '[]()|^-+*_%?{}';

/** What Java's `.` matches: any character but a line terminator. */
const JAVA_DOT = '[^\\n\\r\\u0085\\u2028\\u2029]';

/** The named sets of a class (`[[:DIGIT:]]`), as Java's POSIX classes (US-ASCII) spell them. */
const NAMED_SETS: Readonly<Record<string, string>> = {
  '[:ALPHA:]': 'a-zA-Z',
  '[:alpha:]': 'a-zA-Z',
  '[:UPPER:]': 'A-Z',
  '[:upper:]': 'A-Z',
  '[:LOWER:]': 'a-z',
  '[:lower:]': 'a-z',
  '[:DIGIT:]': '0-9',
  '[:digit:]': '0-9',
  '[:SPACE:]': ' ',
  '[:space:]': ' ',
  '[:WHITESPACE:]': ' \\t\\n\\x0B\\f\\r',
  '[:whitespace:]': ' \\t\\n\\x0B\\f\\r',
  '[:ALNUM:]': 'a-zA-Z0-9',
  '[:alnum:]': 'a-zA-Z0-9',
};

/** A pattern SIMILAR TO (or LIKE) cannot read (its message says why, as Flink's does). */
export class SimilarToPatternError extends Error {}

/**
 * LIKE's escape character as Flink takes it: '' is none, and one of another length or U+0000
 * (Flink's mark for none) is refused.
 */
export function likeEscapeChar(text: string): string | null {
  if (text === '') return null;
  if (text.length !== 1 || text === '\u0000')
    throw new SimilarToPatternError(`Invalid escape character '${text}'`);
  return text;
}

/** LIKE's escapes as Flink checks them: the escape character stands before `_`, `%` or itself. */
export function checkLikeEscapes(pattern: string, escapeChar: string): void {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== escapeChar) continue;
    const next = pattern[i + 1];
    if (next !== '_' && next !== '%' && next !== escapeChar)
      throw invalidEscapeSequence(pattern, i);
    i++;
  }
}

/** `c` as a literal of a JavaScript regular expression (u flag), in a class or not. */
function literal(c: string, inClass: boolean): string {
  if (/[\\^$.*+?()[\]{}|/]/.test(c)) return `\\${c}`;
  if (c === '-' && inClass) return '\\-';
  return c;
}

function invalidEscapeSequence(pattern: string, i: number): SimilarToPatternError {
  return new SimilarToPatternError(`Invalid escape sequence '${pattern}', ${i}`);
}

function invalidRegularExpression(pattern: string, i: number): SimilarToPatternError {
  return new SimilarToPatternError(`Invalid regular expression '${pattern}', index ${i}`);
}

/** SQL 2003 Part 2, 8.6 General Rule 3: where an escape character may stand (Calcite's check). */
function checkEscapes(pattern: string, escapeChar: string): void {
  if (SQL_SPECIALS.includes(escapeChar)) {
    for (let i = 0; i < pattern.length; i++) {
      if (pattern[i] !== escapeChar) continue;
      if (i === pattern.length - 1) throw invalidEscapeSequence(pattern, i);
      const next = pattern[i + 1] as string;
      if (!SQL_SPECIALS.includes(next) && next !== escapeChar)
        throw invalidEscapeSequence(pattern, i);
    }
  }
  if (escapeChar === ':') {
    let position = pattern.indexOf('[:');
    if (position >= 0) position = pattern.indexOf(':]');
    if (position < 0) throw invalidEscapeSequence(pattern, position);
  }
}

/**
 * The source of the JavaScript regular expression (to be used with the `u` flag) that matches
 * what `pattern` matches, whole strings only. Throws {@link SimilarToPatternError} on a pattern
 * Flink refuses by its own rules (the RegExp constructor refuses the rest, as Java's does).
 */
export function similarToSource(pattern: string, escapeChar: string | null): string {
  if (escapeChar !== null) {
    if (escapeChar.length !== 1)
      throw new SimilarToPatternError(`Invalid escape character '${escapeChar}'`);
    checkEscapes(pattern, escapeChar);
  }
  let out = '';
  // Where the last atom (what a quantifier repeats) starts in `out`, and the open groups'.
  let atom: number | undefined;
  const groups: number[] = [];
  let possessive = 0;
  const len = pattern.length;
  for (let i = 0; i < len; i++) {
    const c = pattern[i] as string;
    if (c === escapeChar) {
      if (i === len - 1) throw invalidEscapeSequence(pattern, i);
      const next = pattern[i + 1] as string;
      if (!SQL_SPECIALS.includes(next) && next !== escapeChar)
        throw invalidEscapeSequence(pattern, i);
      atom = out.length;
      out += literal(next, false);
      i++;
      continue;
    }
    switch (c) {
      case '_':
      case '.':
        atom = out.length;
        out += JAVA_DOT;
        break;
      case '%':
        atom = out.length;
        out += '[^]*';
        break;
      case '[': {
        atom = out.length;
        const end = characterClass(pattern, i, escapeChar);
        out += end.source;
        i = end.last;
        break;
      }
      case ']':
        throw invalidRegularExpression(pattern, i);
      case '}':
        // A `}` that closes no bound is a literal to Java.
        atom = out.length;
        out += '\\}';
        break;
      case '(':
        groups.push(out.length);
        out += '(?:';
        atom = undefined;
        break;
      case ')': {
        out += ')';
        atom = groups.pop();
        break;
      }
      case '|':
        out += '|';
        atom = undefined;
        break;
      case '*':
      case '+':
      case '?':
      case '{': {
        let q: string = c;
        if (c === '{') {
          const close = pattern.indexOf('}', i);
          // An unclosed or malformed bound is left to the RegExp constructor to refuse.
          q = close < 0 ? pattern.slice(i) : pattern.slice(i, close + 1);
        }
        i += q.length - 1;
        const next = pattern[i + 1];
        if (next === '+' && atom !== undefined) {
          // Possessive, as Java's: an atomic group, `(?=(?<pN>X))\k<pN>`.
          const name = `p${possessive++}`;
          out = `${out.slice(0, atom)}(?=(?<${name}>${out.slice(atom)}${q}))\\k<${name}>`;
          i++;
        } else if (next === '?') {
          out += `${q}?`;
          i++;
        } else out += q;
        atom = undefined;
        break;
      }
      case '\\':
      case '$':
      case '/':
        atom = out.length;
        out += `\\${c}`;
        break;
      default:
        atom = out.length;
        out += c;
    }
  }
  return `^(?:${out})$`;
}

/**
 * The class `[...]` starting at `start` as a JavaScript class, and the index of its `]`. As in
 * Calcite: `^` and `-` keep their meaning, the escape character makes a special one literal,
 * `[:NAME:]` is a named set, and any other special character (`(`, `[`, `%`, ...) is refused.
 */
function characterClass(
  pattern: string,
  start: number,
  escapeChar: string | null,
): { source: string; last: number } {
  let source = '[';
  for (let i = start + 1; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === ']') return { source: `${source}]`, last: i };
    if (c === escapeChar) {
      i++;
      const next = pattern[i];
      if (next === undefined || (!SQL_SPECIALS.includes(next) && next !== escapeChar))
        throw invalidRegularExpression(pattern, i);
      source += literal(next, true);
    } else if (c === '-' || c === '^') source += c;
    else if (pattern.startsWith('[:', i)) {
      const name = Object.keys(NAMED_SETS).find((n) => pattern.startsWith(n, i));
      if (name === undefined) throw invalidRegularExpression(pattern, i);
      source += NAMED_SETS[name];
      i += name.length - 1;
    } else if (SQL_SPECIALS.includes(c)) throw invalidRegularExpression(pattern, i);
    else source += c === '\\' ? '\\\\' : literal(c, true);
  }
  // No `]`: the class never ends.
  throw invalidRegularExpression(pattern, pattern.length);
}

/** `pattern` (with `escapeChar`) as a RegExp matching whole strings; throws on an invalid one. */
export function similarToRegExp(pattern: string, escapeChar: string | null): RegExp {
  const source = similarToSource(pattern, escapeChar);
  try {
    return new RegExp(source, 'u');
  } catch (cause) {
    // V8 says `Invalid regular expression: /source/u: reason`; the source is not the user's.
    const message = cause instanceof Error ? cause.message : String(cause);
    const reason = message.slice(message.lastIndexOf(': ') + 2);
    throw new SimilarToPatternError(`Invalid regular expression '${pattern}': ${reason}`);
  }
}

const cache = new Map<string, RegExp>();

/** `value SIMILAR TO pattern [ESCAPE escapeChar]` for a pattern known only per row (cached). */
export function similarTo(value: string, pattern: string, escapeChar: string | null): boolean {
  const key = escapeChar === null ? pattern : `${escapeChar}\u0000${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = similarToRegExp(pattern, escapeChar);
    if (cache.size > 1000) cache.clear();
    cache.set(key, re);
  }
  return re.test(value);
}
