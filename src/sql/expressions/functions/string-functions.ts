/**
 * Flink's string functions beyond the SQL standard's (INITCAP, LPAD, LEFT, LOCATE, OVERLAY,
 * SPLIT, STR_TO_MAP, ...). LEFT, RIGHT, LOCATE and INSTR count characters (code points), as
 * Flink's functions over its binary strings do; LPAD and RPAD count UTF-16 code units, as its
 * functions over Java strings do (the differential suite holds both);
 * a NULL argument gives NULL, and so do the arguments Flink rejects with NULL (a negative pad
 * length, an index out of range).
 */
import { randomUUID } from 'node:crypto';
import { sqlError } from '../../sql-error.js';
import {
  commonType,
  formatType,
  isCharacterString,
  T,
  withNullability,
} from '../../types/logical-type.js';
import { castTo } from '../cast.js';
import { type Compiled, nullSafe } from '../code-gen.js';
import {
  anyNullable,
  arity,
  type FunctionCompiler,
  functionFailed,
  helperCall,
  isBinaryString,
  requireInteger,
  requireString,
  strictFunction,
} from './arguments.js';
import { javaSplit } from './java-text.js';
import { printf } from './printf.js';

const STRING = T.string(false);
const NULLABLE_STRING = T.string(true);
const INT = T.int('INTEGER', false);

/** Argument i is a string when `strings` holds i, otherwise an integer. */
function stringsAt(name: string, strings: readonly number[]) {
  return (c: Compiled, i: number, at: Parameters<typeof requireString>[2]) =>
    strings.includes(i) ? requireString(name, c, at) : requireInteger(name, c, at);
}

function allStrings(name: string) {
  return (c: Compiled, _i: number, at: Parameters<typeof requireString>[2]) =>
    requireString(name, c, at);
}

/**
 * Upper case after anything but an ASCII letter or digit, lower case elsewhere. Flink looks
 * at ASCII only: 'ümlaut' becomes 'üMlaut' (ü is left as it is and starts no word).
 */
export function initcap(s: string): string {
  let out = '';
  let capitalize = true;
  for (const ch of s) {
    const ascii = /^[A-Za-z]$/.test(ch);
    out += !ascii ? ch : capitalize ? ch.toUpperCase() : ch.toLowerCase();
    capitalize = !/^[A-Za-z0-9]$/.test(ch);
  }
  return out;
}

/** LPAD / RPAD: cut to `length` when longer; NULL for a negative length or an empty pad. */
function pad(left: boolean) {
  return (s: string, length: number, padding: string): string | null => {
    if (length < 0 || padding === '') return null;
    if (length <= s.length) return s.slice(0, length);
    const fill = padding.repeat(Math.ceil((length - s.length) / padding.length));
    return left ? fill.slice(0, length - s.length) + s : s + fill.slice(0, length - s.length);
  };
}

export const lpad = pad(true);
export const rpad = pad(false);

export function repeat(s: string, n: number): string {
  return n <= 0 ? '' : s.repeat(n);
}

export function reverse(s: string): string {
  return Array.from(s).reverse().join('');
}

export function left(s: string, n: number): string {
  return n <= 0 ? '' : Array.from(s).slice(0, n).join('');
}

export function right(s: string, n: number): string {
  if (n <= 0) return '';
  const chars = Array.from(s);
  return n >= chars.length ? s : chars.slice(chars.length - n).join('');
}

/** LOCATE(needle, haystack[, from]): 1-based in characters, 0 when absent; `from` below 1 is 1. */
export function locate(needle: string, haystack: string, from = 1): number {
  const chars = Array.from(haystack);
  if (from - 1 > chars.length) return 0;
  const start = chars.slice(0, Math.max(from - 1, 0)).join('').length;
  const at = haystack.indexOf(needle, start);
  return at < 0 ? 0 : Array.from(haystack.slice(0, at)).length + 1;
}

export function instr(haystack: string, needle: string): number {
  return locate(needle, haystack);
}

/** The first byte of the string's UTF-8 form, as a signed byte (Flink's ASCII); 0 for ''. */
export function ascii(s: string): number {
  if (s.length === 0) return 0;
  const first = Buffer.from(s.slice(0, 2), 'utf8')[0] as number;
  return first > 127 ? first - 256 : first;
}

/** The character of code `n` modulo 256 (Flink's CHR), the empty string for a negative one. */
export function chr(n: number): string {
  if (n < 0) return '';
  return String.fromCharCode(n % 256);
}

/**
 * OVERLAY(s PLACING r FROM start [FOR length]): `length` characters from `start` replaced; a
 * start past the end leaves the string as it is (Flink's answer).
 */
export function overlay(s: string, r: string, start: number, length: number = r.length): string {
  if (start > s.length) return s;
  const from = Math.min(Math.max(start - 1, 0), s.length);
  const to = Math.min(Math.max(from + length, from), s.length);
  return s.slice(0, from) + r + s.slice(to);
}

/** SPLIT: every delimited piece (empty ones too); an empty delimiter splits every character. */
export function split(s: string, delimiter: string): string[] {
  if (s === '') return [];
  // Flink splits UTF-16 code units: each half of a surrogate pair comes out as '?'.
  if (delimiter === '')
    return Array.from({ length: s.length }, (_, i) =>
      /[\ud800-\udfff]/.test(s[i] as string) ? '?' : (s[i] as string),
    );
  return s.split(delimiter);
}

/** STR_TO_MAP: entries split by a regular expression, keys from values by another. */
export function strToMap(
  text: string,
  listDelimiter = ',',
  keyValueDelimiter = '=',
): Map<string, string | null> {
  const map = new Map<string, string | null>();
  if (text === '') return map;
  try {
    for (const entry of javaSplit(text, listDelimiter)) {
      const [key, value] = javaSplit(entry, keyValueDelimiter, 2);
      map.set(key as string, value ?? null);
    }
  } catch (e) {
    return functionFailed('STR_TO_MAP', (e as Error).message);
  }
  return map;
}

/**
 * TRANSLATE: each character (code point) of `from` becomes the one at its place in `to`, or
 * goes; the first place of a repeated character counts. A NULL `from` translates nothing and a
 * NULL `to` is empty, as in Flink (only a NULL string gives NULL).
 */
export function translate(s: string, from: string | null, to: string | null): string {
  if (from === null || from === '') return s;
  const targets = Array.from(to ?? '');
  const dict = new Map<string, string>();
  for (const [i, ch] of Array.from(from).entries())
    if (!dict.has(ch)) dict.set(ch, targets[i] ?? '');
  let out = '';
  for (const ch of s) out += dict.get(ch) ?? ch;
  return out;
}

export function btrim(s: string, chars = ' '): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start] as string)) start++;
  while (end > start && chars.includes(s[end - 1] as string)) end--;
  return s.slice(start, end);
}

function bytesStartWith(s: Uint8Array, p: Uint8Array, offset: number): boolean {
  if (offset < 0) return false;
  for (let i = 0; i < p.length; i++) if (s[offset + i] !== p[i]) return false;
  return true;
}

export function startsWith(s: string | Uint8Array, p: string | Uint8Array): boolean {
  return typeof s === 'string' ? s.startsWith(p as string) : bytesStartWith(s, p as Uint8Array, 0);
}

export function endsWith(s: string | Uint8Array, p: string | Uint8Array): boolean {
  return typeof s === 'string'
    ? s.endsWith(p as string)
    : bytesStartWith(s, p as Uint8Array, s.length - p.length);
}

function elt(index: number, ...values: unknown[]): unknown {
  return index >= 1 && index <= values.length ? values[index - 1] : null;
}

/** STARTSWITH / ENDSWITH: of two strings or of two BYTES values. */
function affix(name: string, helper: typeof startsWith): FunctionCompiler {
  return (args, g, at) => {
    arity(name, args, 2, 2, at);
    const [s, p] = args as [Compiled, Compiled];
    const binary = isBinaryString(s.type) || isBinaryString(p.type);
    for (const a of args)
      if (binary ? !isBinaryString(a.type) : !isCharacterString(a.type) && a.type.kind !== 'NULL')
        sqlError(`${name} needs two strings or two BYTES values, got ${formatType(a.type)}`, at);
    return {
      code: nullSafe(g, args, (vars) => helperCall(g, helper, vars)),
      type: T.boolean(anyNullable(args)),
    };
  };
}

export const STRING_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  INITCAP: strictFunction('INITCAP', 1, 1, allStrings('INITCAP'), STRING, initcap),
  LPAD: strictFunction('LPAD', 3, 3, stringsAt('LPAD', [0, 2]), NULLABLE_STRING, lpad),
  RPAD: strictFunction('RPAD', 3, 3, stringsAt('RPAD', [0, 2]), NULLABLE_STRING, rpad),
  REPEAT: strictFunction('REPEAT', 2, 2, stringsAt('REPEAT', [0]), STRING, repeat),
  REVERSE: strictFunction('REVERSE', 1, 1, allStrings('REVERSE'), STRING, reverse),
  LEFT: strictFunction('LEFT', 2, 2, stringsAt('LEFT', [0]), STRING, left),
  RIGHT: strictFunction('RIGHT', 2, 2, stringsAt('RIGHT', [0]), STRING, right),
  LOCATE: strictFunction('LOCATE', 2, 3, stringsAt('LOCATE', [0, 1]), INT, locate),
  INSTR: strictFunction('INSTR', 2, 2, allStrings('INSTR'), INT, instr),
  ASCII: strictFunction('ASCII', 1, 1, allStrings('ASCII'), INT, ascii),
  CHR: strictFunction('CHR', 1, 1, stringsAt('CHR', []), STRING, chr),
  OVERLAY: strictFunction('OVERLAY', 3, 4, stringsAt('OVERLAY', [0, 1]), STRING, overlay),
  SPLIT: strictFunction(
    'SPLIT',
    2,
    2,
    allStrings('SPLIT'),
    { kind: 'ARRAY', nullable: false, element: NULLABLE_STRING },
    split,
  ),
  STR_TO_MAP: strictFunction(
    'STR_TO_MAP',
    1,
    3,
    allStrings('STR_TO_MAP'),
    { kind: 'MAP', nullable: false, key: NULLABLE_STRING, value: NULLABLE_STRING },
    strToMap,
  ),
  TRANSLATE: (args, g, at) => {
    arity('TRANSLATE', args, 3, 3, at);
    for (const a of args) requireString('TRANSLATE', a, at);
    const [s, from, to] = args as [Compiled, Compiled, Compiled];
    return {
      // Only the string itself makes the result NULL.
      code: nullSafe(g, [s], ([v]) => helperCall(g, translate, [v as string, from.code, to.code])),
      type: T.string(s.type.nullable),
    };
  },
  BTRIM: strictFunction('BTRIM', 1, 2, allStrings('BTRIM'), STRING, btrim),
  STARTSWITH: affix('STARTSWITH', startsWith),
  ENDSWITH: affix('ENDSWITH', endsWith),
  // ELT(index, v1, v2, ...): NULL for an index out of range; the values may be NULL themselves.
  ELT: (args, g, at) => {
    arity('ELT', args, 2, Infinity, at);
    const [index, ...values] = args as [Compiled, ...Compiled[]];
    requireInteger('ELT', index, at);
    const type = commonType(values.map((v) => v.type));
    if (type === undefined || !(isCharacterString(type) || isBinaryString(type)))
      return sqlError(
        `ELT needs strings or BYTES values, got ${values.map((v) => formatType(v.type)).join(', ')}`,
        at,
      );
    const codes = values.map(
      (v) => castTo(g, v, withNullability(type, v.type.nullable), false, at).code,
    );
    return {
      code: nullSafe(g, [index], ([i]) => helperCall(g, elt, [i as string, ...codes])),
      type: withNullability(type, true),
    };
  },
  PRINTF: (args, g, at) => {
    arity('PRINTF', args, 1, Infinity, at);
    requireString('PRINTF', args[0] as Compiled, at);
    const types = args.slice(1).map((a) => a.type);
    const format = args[0] as Compiled;
    return {
      code: nullSafe(g, [format], ([f]) =>
        helperCall(g, printf, [
          f as string,
          g.constant(types),
          `[${args
            .slice(1)
            .map((a) => a.code)
            .join(', ')}]`,
        ]),
      ),
      type: T.string(format.type.nullable),
    };
  },
  // Non-deterministic: a random (version 4) UUID per call.
  UUID: (args, g, at) => {
    arity('UUID', args, 0, 0, at);
    return { code: helperCall(g, randomUUID, []), type: STRING };
  },
};
