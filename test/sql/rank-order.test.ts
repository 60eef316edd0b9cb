/**
 * The generated comparator of a ranking's ORDER BY (rank-planner.ts) against the comparison it
 * replaced, `compareNullsLow` per column with the direction applied: over random rows of
 * numbers (NaN, -0, a BIGINT as a number or a bigint), strings, booleans, BINARY values and
 * NULLs, in both directions, both order every pair alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNullsLow } from '../../src/sql/expressions/functions/value-order.js';
import type { OverWindow } from '../../src/sql/parser/ast.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import { rankOrder } from '../../src/sql/planner/rank-planner.js';
import { type LogicalType, T } from '../../src/sql/types/logical-type.js';

const COLUMNS: readonly [LogicalType, fc.Arbitrary<unknown>][] = [
  [
    T.bigint(),
    fc.oneof(
      fc.integer({ min: -3, max: 3 }),
      fc.bigInt({ min: -3n, max: 3n }),
      fc.constant(2 ** 53),
      fc.constant(2n ** 60n),
    ),
  ],
  [T.double(), fc.oneof(fc.double(), fc.constantFrom(Number.NaN, -0, 0, 1))],
  [T.string(), fc.string({ maxLength: 2 })],
  [T.boolean(), fc.boolean()],
  [
    { kind: 'VARBINARY', nullable: true, length: 10 },
    fc.uint8Array({ maxLength: 3 }).map((b) => new Uint8Array(b)),
  ],
];

const sign = (n: number) => Math.sign(n) + 0;

describe("a ranking's generated ORDER BY comparator", () => {
  it('orders every pair of rows as compareNullsLow per column does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(COLUMNS.length - 1), fc.boolean()), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.nat(2),
        fc.infiniteStream(fc.nat(1000)),
        (order, orderAt, seeds) => {
          const window: OverWindow = {
            partitionBy: [],
            orderBy: order.map(([, descending]) => ({
              expr: parseExpression('x'),
              descending,
            })),
            frame: undefined,
          };
          const types = order.map(([c]) => (COLUMNS[c] as (typeof COLUMNS)[number])[0]);
          const { compare } = rankOrder(window, orderAt, types);
          // Rows with `orderAt` leading columns, then the order values (NULL one time in four).
          const seed = seeds[Symbol.iterator]();
          const rowOf = (): unknown[] => [
            ...new Array(orderAt).fill('x'),
            ...order.map(([c]) => {
              const s = seed.next().value as number;
              if (s % 4 === 0) return null;
              return fc.sample((COLUMNS[c] as (typeof COLUMNS)[number])[1], {
                seed: s,
                numRuns: 1,
              })[0];
            }),
          ];
          const rows = Array.from({ length: 6 }, rowOf);
          for (const a of rows)
            for (const b of rows) {
              let expected = 0;
              for (let i = 0; i < order.length && expected === 0; i++) {
                const c = compareNullsLow(a[orderAt + i], b[orderAt + i]);
                expected = c * ((order[i] as [number, boolean])[1] ? -1 : 1);
              }
              expect(sign(compare(a, b))).toBe(sign(expected));
            }
        },
      ),
      { numRuns: 200 },
    );
  });
});
