/**
 * Evaluates one SQL expression over one row of a fixed scope, for the built-in function tests:
 * `s`, `t` STRING, `n` INT, `l` BIGINT, `d` DOUBLE, `m` DECIMAL(10, 2), `a` ARRAY<INT>.
 */
import { compileScalar } from '../../../src/sql/expressions/compile.js';
import { Scope } from '../../../src/sql/expressions/scope.js';
import { parseExpression } from '../../../src/sql/parser/parser.js';
import { formatType, T } from '../../../src/sql/types/logical-type.js';

const scope = new Scope([
  { name: 's', type: T.string(), qualifier: 'r', rowtime: false },
  { name: 't', type: T.string(), qualifier: 'r', rowtime: false },
  { name: 'n', type: T.int(), qualifier: 'r', rowtime: false },
  { name: 'l', type: T.bigint(), qualifier: 'r', rowtime: false },
  { name: 'd', type: T.double(), qualifier: 'r', rowtime: false },
  { name: 'm', type: T.decimal(10, 2), qualifier: 'r', rowtime: false },
  {
    name: 'a',
    type: { kind: 'ARRAY', nullable: true, element: T.int() },
    qualifier: 'r',
    rowtime: false,
  },
]);

export interface Row {
  s?: string | null;
  t?: string | null;
  n?: number | null;
  l?: number | bigint | null;
  d?: number | null;
  /** A DECIMAL(10, 2) as its unscaled value. */
  m?: bigint | null;
  a?: (number | null)[] | null;
}

export function evaluate(sql: string, r: Row = {}): unknown {
  const values = [r.s, r.t, r.n, r.l, r.d, r.m, r.a].map((v) => v ?? null);
  return compileScalar(parseExpression(sql), scope).fn(values);
}

export function typeOf(sql: string): string {
  return formatType(compileScalar(parseExpression(sql), scope).type);
}

/** A BYTES value's bytes as hex, for assertions. */
export function hexOf(v: unknown): string {
  return Buffer.from(v as Uint8Array).toString('hex');
}
