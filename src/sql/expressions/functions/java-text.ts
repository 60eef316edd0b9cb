/**
 * Java's text conventions where Flink's functions inherit them: `String.split` (a regular
 * expression; trailing empty pieces dropped unless a limit is given) and `Double.toString`.
 */
import { runtime } from '../runtime.js';

/** Java's `s.split(regex, limit)`: limit 0 drops trailing empty pieces, limit n keeps n at most. */
export function javaSplit(s: string, regex: string, limit = 0): string[] {
  const re = new RegExp(regex, 'gu');
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
