/**
 * Flink's regular-expression functions: REGEXP, REGEXP_REPLACE, REGEXP_EXTRACT_ALL,
 * REGEXP_COUNT, REGEXP_INSTR and REGEXP_SUBSTR. Patterns are Java's, read as JavaScript ones
 * (the common syntax is the same); a pattern that does not compile gives NULL, as in Flink.
 * REGEXP_REPLACE inserts its replacement as it is written (`$1` is not a group reference).
 */
import { T } from '../../types/logical-type.js';
import type { Compiled } from '../code-gen.js';
import {
  type FunctionCompiler,
  requireInteger,
  requireString,
  strictFunction,
} from './arguments.js';
import { javaPattern as pattern } from './java-text.js';

export function regexp(s: string, source: string): boolean | null {
  const re = pattern(source);
  return re === null ? null : re.test(s);
}

export function regexpReplace(s: string, source: string, replacement: string): string | null {
  const re = pattern(source);
  return re === null ? null : s.replace(re, () => replacement);
}

const groupCounts = new WeakMap<RegExp, number>();

/** The number of capturing groups of a compiled pattern (an empty alternative matches them all). */
function groupCount(re: RegExp): number {
  let n = groupCounts.get(re);
  if (n === undefined) {
    n = (new RegExp(`${re.source}|`, re.flags).exec('') as RegExpExecArray).length - 1;
    groupCounts.set(re, n);
  }
  return n;
}

/** REGEXP_EXTRACT_ALL: NULL for a group the pattern does not have, as in Flink. */
export function regexpExtractAll(s: string, source: string, group = 1): (string | null)[] | null {
  const re = pattern(source);
  if (re === null || group < 0 || group > groupCount(re)) return null;
  return Array.from(s.matchAll(re), (m) => m[group] ?? null);
}

export function regexpCount(s: string, source: string): number | null {
  const re = pattern(source);
  return re === null ? null : Array.from(s.matchAll(re)).length;
}

export function regexpInstr(s: string, source: string): number | null {
  const re = pattern(source);
  if (re === null) return null;
  const m = re.exec(s);
  return m === null ? 0 : m.index + 1;
}

export function regexpSubstr(s: string, source: string): string | null {
  const re = pattern(source);
  if (re === null) return null;
  return re.exec(s)?.[0] ?? null;
}

function checks(name: string) {
  return (c: Compiled, i: number, at: Parameters<typeof requireString>[2]) =>
    i < 2 || name !== 'REGEXP_EXTRACT_ALL'
      ? requireString(name, c, at)
      : requireInteger(name, c, at);
}

export const REGEXP_FUNCTIONS: Readonly<Record<string, FunctionCompiler>> = {
  REGEXP: strictFunction('REGEXP', 2, 2, checks('REGEXP'), T.boolean(true), regexp),
  REGEXP_REPLACE: strictFunction(
    'REGEXP_REPLACE',
    3,
    3,
    checks('REGEXP_REPLACE'),
    T.string(true),
    regexpReplace,
  ),
  REGEXP_EXTRACT_ALL: strictFunction(
    'REGEXP_EXTRACT_ALL',
    2,
    3,
    checks('REGEXP_EXTRACT_ALL'),
    { kind: 'ARRAY', nullable: true, element: T.string(true) },
    regexpExtractAll,
  ),
  REGEXP_COUNT: strictFunction(
    'REGEXP_COUNT',
    2,
    2,
    checks('REGEXP_COUNT'),
    T.int('INTEGER', true),
    regexpCount,
  ),
  REGEXP_INSTR: strictFunction(
    'REGEXP_INSTR',
    2,
    2,
    checks('REGEXP_INSTR'),
    T.int('INTEGER', true),
    regexpInstr,
  ),
  REGEXP_SUBSTR: strictFunction(
    'REGEXP_SUBSTR',
    2,
    2,
    checks('REGEXP_SUBSTR'),
    T.string(true),
    regexpSubstr,
  ),
};
