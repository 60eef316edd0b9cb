/** q14's `count_char` for Weir SQL, as the peer's Java `weir.nexmark.CountChar` computes it. */
import { defineScalarFunction } from '../../src/index.js';

/** How many times the first character of `c` occurs in `s`; 0 for a NULL string. */
export const countChar = defineScalarFunction({
  arguments: ['STRING', 'STRING'],
  result: 'BIGINT',
  eval: (s: string | null, c: string | null): number => {
    if (s === null || c === null || c === '') return 0;
    const target = c.charAt(0);
    let count = 0;
    for (let i = 0; i < s.length; i++) if (s.charAt(i) === target) count++;
    return count;
  },
});
