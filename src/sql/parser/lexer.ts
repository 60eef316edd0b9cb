/** Splits a SQL script into tokens, each with its line and column. */
import { type SourcePosition, sqlError } from '../sql-error.js';

export type TokenKind =
  | 'word' // an unquoted identifier or keyword
  | 'quoted' // a `back-quoted` identifier
  | 'string' // 'text'
  | 'number'
  | 'symbol'
  | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** The identifier, string contents, number text or symbol; keywords keep their spelling. */
  readonly text: string;
  readonly position: SourcePosition;
  /** Offset of the token's first character in the script. */
  readonly offset: number;
  /** A hint comment (`/*+ ... *\/`) right before this token: its text and where that starts. */
  readonly hint?: { readonly text: string; readonly position: SourcePosition };
}

const SYMBOLS = [
  '<>',
  '<=',
  '>=',
  '!=',
  '||',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '(',
  ')',
  ',',
  '.',
  ';',
  // ARRAY[...] and MAP[...] constructors.
  '[',
  ']',
  // Row pattern syntax of MATCH_RECOGNIZE: quantifiers {n,m}, reluctance, alternation.
  '{',
  '}',
  '?',
  '|',
];

function isWordStart(c: string): boolean {
  return /[A-Za-z_$\u0080-\uffff]/.test(c);
}

function isWordPart(c: string): boolean {
  return /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
}

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  const hints: { text: string; position: SourcePosition; before: number }[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (at: number): SourcePosition => ({ line, column: at - lineStart + 1 });
  const advanceOver = (from: number, to: number): void => {
    for (let k = from; k < to; k++) {
      if (sql.charCodeAt(k) === 10) {
        line++;
        lineStart = k + 1;
      }
    }
  };
  while (i < sql.length) {
    const c = sql.charAt(i);
    if (c === '\n' || c === ' ' || c === '\t' || c === '\r') {
      advanceOver(i, i + 1);
      i++;
      continue;
    }
    if (c === '-' && sql.charAt(i + 1) === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      continue;
    }
    if (c === '/' && sql.charAt(i + 1) === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) sqlError('comment /* is never closed', pos(i));
      // A hint goes with the token after it: the parser reads those it knows where they may stand.
      if (sql.charAt(i + 2) === '+')
        hints.push({ text: sql.slice(i + 3, end), position: pos(i + 3), before: tokens.length });
      advanceOver(i, end + 2);
      i = end + 2;
      continue;
    }
    const start = pos(i);
    const offset = i;
    if (c === "'") {
      let text = '';
      let k = i + 1;
      for (;;) {
        if (k >= sql.length) sqlError('string literal is never closed', start);
        const ch = sql.charAt(k);
        if (ch === "'") {
          if (sql.charAt(k + 1) === "'") {
            text += "'";
            k += 2;
            continue;
          }
          break;
        }
        text += ch;
        k++;
      }
      advanceOver(i, k + 1);
      i = k + 1;
      tokens.push({ kind: 'string', text, position: start, offset });
      continue;
    }
    if (c === '`') {
      let text = '';
      let k = i + 1;
      for (;;) {
        if (k >= sql.length) sqlError('quoted identifier is never closed', start);
        const ch = sql.charAt(k);
        if (ch === '`') {
          if (sql.charAt(k + 1) === '`') {
            text += '`';
            k += 2;
            continue;
          }
          break;
        }
        text += ch;
        k++;
      }
      if (text === '') sqlError('empty quoted identifier', start);
      advanceOver(i, k + 1);
      i = k + 1;
      tokens.push({ kind: 'quoted', text, position: start, offset });
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql.charAt(i + 1)))) {
      const m = /^(\d*\.?\d*)([eE][+-]?\d+)?/.exec(sql.slice(i)) as RegExpExecArray;
      const text = m[0];
      i += text.length;
      if (isWordPart(sql.charAt(i))) sqlError(`malformed number '${text}${sql.charAt(i)}'`, start);
      tokens.push({ kind: 'number', text, position: start, offset });
      continue;
    }
    if (isWordStart(c)) {
      let k = i + 1;
      while (k < sql.length && isWordPart(sql.charAt(k))) k++;
      tokens.push({ kind: 'word', text: sql.slice(i, k), position: start, offset });
      i = k;
      continue;
    }
    const symbol = SYMBOLS.find((s) => sql.startsWith(s, i));
    if (symbol === undefined) sqlError(`unexpected character '${c}'`, start);
    tokens.push({ kind: 'symbol', text: symbol, position: start, offset });
    i += symbol.length;
  }
  tokens.push({ kind: 'end', text: '', position: pos(i), offset: i });
  for (const { text, position, before } of hints) {
    const token = tokens[before] as Token;
    tokens[before] = { ...token, hint: { text, position } };
  }
  return tokens;
}
