/**
 * BIGINT exact over Java's 64-bit range: a number while it is a safe integer, a bigint beyond
 * (src/sql/types/long.ts). Arithmetic against BigInt with 64-bit wrap-around, aggregation and
 * grouping against a BigInt computation, and the json and csv formats reading and writing
 * longs beyond 2^53. The differential suite compares the same with Flink (`long-*` queries).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvRowFormat, jsonRowFormat } from '../../src/sql/connectors/formats/row-formats.js';
import { T } from '../../src/sql/types/logical-type.js';
import {
  type Long,
  longAdd,
  longDivide,
  longMultiply,
  longNegate,
  longOf,
  longOfDouble,
  longRemainder,
  longSubtract,
  parseLong,
} from '../../src/sql/types/long.js';
import { parseJsonExact } from '../helpers/exact-json.js';
import { queryChanges } from './query-changes.js';

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

/** Mostly values near 2^53 and 2^63, where the two forms meet and where they wrap. */
const longArb: fc.Arbitrary<Long> = fc
  .oneof(
    fc.bigInt({ min: MIN, max: MAX }),
    fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }),
    fc.bigInt({ min: -1000n, max: 1000n }),
    fc.constantFrom(MIN, MAX, 2n ** 53n, -(2n ** 53n), 2n ** 53n - 1n, 0n, -1n),
  )
  .map(longOf);

const canonical = (v: Long): boolean =>
  typeof v === 'number' ? Number.isSafeInteger(v) : v > 2n ** 53n - 1n || v < -(2n ** 53n - 1n);

describe('BIGINT values', () => {
  it('wrap around as Java longs and stay in the canonical form', () => {
    fc.assert(
      fc.property(longArb, longArb, (a, b) => {
        const x = BigInt(a);
        const y = BigInt(b);
        const java = (v: bigint): Long => longOf(BigInt.asIntN(64, v));
        for (const [got, want] of [
          [longAdd(a, b), java(x + y)],
          [longSubtract(a, b), java(x - y)],
          [longMultiply(a, b), java(x * y)],
          [longNegate(a), java(-x)],
          ...(y === 0n
            ? []
            : [
                [longDivide(a, b), java(x / y)],
                [longRemainder(a, b), java(x % y)],
              ]),
        ] as [Long, Long][]) {
          expect(got).toBe(want);
          expect(canonical(got)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('convert from text and doubles as Java does', () => {
    expect(parseLong('9223372036854775807')).toBe(MAX);
    expect(parseLong('-9223372036854775808')).toBe(MIN);
    expect(parseLong('9223372036854775808')).toBe(null);
    expect(parseLong('9007199254740993')).toBe(9007199254740993n);
    expect(parseLong('42')).toBe(42);
    expect(longOfDouble(1e30)).toBe(MAX);
    expect(longOfDouble(-1e30)).toBe(MIN);
    expect(longOfDouble(Number.NaN)).toBe(0);
    expect(longOfDouble(2 ** 60)).toBe(2n ** 60n);
  });

  it('SQL sums, groups and compares them exactly, as a BigInt computation', async () => {
    const rowArb = fc.record({
      k: fc.constantFrom('a', 'b', 'c'),
      n: longArb,
      ts: fc.integer({ min: 0, max: 20_000 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 30 }),
        fc.constantFrom(1, 2),
        async (rows, parallelism) => {
          const [sums, keys, filtered] = await queryChanges(
            {
              name: 'v',
              rows: rows.map((r) => [r.k, r.n, r.ts]),
              columns: [
                { name: 'k', type: 'STRING' },
                { name: 'n', type: 'BIGINT' },
                { name: 'ts', type: 'TIMESTAMP(3)' },
              ],
              watermark: { column: 'ts', expression: 'ts' },
            },
            [
              'SELECT k, SUM(n), MAX(n), MIN(n) FROM v GROUP BY k',
              'SELECT n, COUNT(*) FROM v GROUP BY n',
              'SELECT n * 2 + 1 FROM v WHERE n > 9007199254740993',
            ],
            { parallelism, batchSize: 4 },
          );
          const last = new Map<string, unknown[]>();
          for (const c of sums ?? []) if (c.kind !== '-U') last.set(c.value[0] as string, c.value);
          const byKey = new Map<string, bigint[]>();
          for (const r of rows) byKey.set(r.k, [...(byKey.get(r.k) ?? []), BigInt(r.n)]);
          for (const [k, ns] of byKey) {
            const wrap = (v: bigint) => longOf(BigInt.asIntN(64, v));
            // Math.min and Math.max take no bigints.
            const ordered = [...ns].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
            const min = ordered[0] as bigint;
            const max = ordered[ordered.length - 1] as bigint;
            expect(last.get(k)).toEqual([
              k,
              wrap(ns.reduce((a, b) => a + b)),
              longOf(max),
              longOf(min),
            ]);
          }
          const counts = new Map<Long, number>();
          for (const c of keys ?? [])
            if (c.kind !== '-U') counts.set(c.value[0] as Long, c.value[1] as number);
          const want = new Map<Long, number>();
          for (const r of rows) want.set(r.n, (want.get(r.n) ?? 0) + 1);
          expect(counts).toEqual(want);
          expect((filtered ?? []).map((c) => c.value[0])).toEqual(
            rows
              .filter((r) => BigInt(r.n) > 9007199254740993n)
              .map((r) => longOf(BigInt.asIntN(64, BigInt(r.n) * 2n + 1n))),
          );
        },
      ),
      { seed: 53, numRuns: 10 },
    );
  }, 120_000);

  it('json and csv read and write longs beyond 2^53 exactly, and refuse more than 64 bits', () => {
    const columns = [
      { name: 'n', type: T.bigint() },
      { name: 's', type: T.string() },
    ];
    const json = jsonRowFormat(columns);
    const big = Buffer.from('{"n": 9223372036854775807, "s": "12345678901234567890"}');
    expect(json.decode(big)).toEqual([MAX, '12345678901234567890']);
    expect(json.encode([MAX, 'x']).toString()).toBe('{"n":9223372036854775807,"s":"x"}');
    expect(() => json.decode(Buffer.from('{"n": 9223372036854775808}'))).toThrow(
      'field \'n\' expects BIGINT, got "9223372036854775808"',
    );
    const csv = csvRowFormat(columns);
    expect(csv.decode(Buffer.from('-9223372036854775808,a'))).toEqual([MIN, 'a']);
    expect(csv.encode([9007199254740993n, 'a']).toString()).toBe('9007199254740993,a');
    expect(parseJsonExact('{"a": [12345678901234567, 1.5e300, "99999999999999999"]}')).toEqual({
      a: ['12345678901234567', 1.5e300, '99999999999999999'],
    });
  });
});
