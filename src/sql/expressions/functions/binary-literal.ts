/** `X'0AFF'`: a BINARY(n) literal of n bytes, checked at plan time. */
import { sqlError } from '../../sql-error.js';
import type { FunctionCompiler } from './arguments.js';

export const BINARY_LITERAL: Readonly<Record<string, FunctionCompiler>> = {
  "X''": (_args, g, at, raw) => {
    const digits = raw[0]?.kind === 'string' ? raw[0].value : '';
    if (!/^([0-9a-fA-F]{2})*$/.test(digits))
      sqlError(
        `X'${digits}' is not a binary literal: it needs an even number of hexadecimal digits`,
        at,
      );
    return {
      code: g.constant(Buffer.from(digits, 'hex')),
      type: { kind: 'BINARY', nullable: false, length: Math.max(digits.length / 2, 1) },
    };
  },
};
