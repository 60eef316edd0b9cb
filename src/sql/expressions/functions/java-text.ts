/**
 * Java's text conventions where Flink's functions inherit them: regular expressions (Java's
 * patterns read by JavaScript's engine, compiled once), `String.split` (trailing empty pieces
 * dropped unless a limit is given), `Double.toString` and `Float.toString`.
 */
import { runtime } from '../runtime.js';

const compiled = new Map<string, RegExp | null>();

/** The pattern as a global RegExp, compiled once; null when it does not compile. */
export function javaPattern(source: string): RegExp | null {
  let re = compiled.get(source);
  if (re === undefined) {
    try {
      re = new RegExp(source, 'gu');
    } catch {
      try {
        re = new RegExp(source, 'g');
      } catch {
        re = null;
      }
    }
    if (compiled.size > 1000) compiled.clear();
    compiled.set(source, re);
  }
  if (re !== null) re.lastIndex = 0;
  return re;
}

/** Java's `s.split(regex, limit)`: limit 0 drops trailing empty pieces, limit n keeps n at most. */
export function javaSplit(s: string, regex: string, limit = 0): string[] {
  const re = javaPattern(regex);
  if (re === null) throw new SyntaxError(`'${regex}' is not a regular expression`);
  const pieces: string[] = [];
  let start = 0;
  for (const m of s.matchAll(re)) {
    if (limit > 0 && pieces.length === limit - 1) break;
    const at = m.index;
    // A zero-width match at the start yields no leading empty piece (Java 8+).
    if (m[0].length === 0 && at === 0) continue;
    if (m[0].length === 0 && at >= s.length) break;
    pieces.push(s.slice(start, at));
    start = at + m[0].length;
  }
  pieces.push(s.slice(start));
  if (limit === 0) while (pieces.length > 1 && pieces[pieces.length - 1] === '') pieces.pop();
  if (limit === 0 && pieces.length === 1 && pieces[0] === '' && s !== '') return [];
  return pieces;
}

/** A double as Java prints it (`1.0`, `1.0E10`). */
export function javaDouble(x: number): string {
  return runtime.formatDouble(x);
}

/** A FLOAT as Java's Float.toString prints it (`3.14159`, `1.0E10`): its shortest digits. */
export function javaFloat(x: number): string {
  return runtime.formatFloat(x);
}
