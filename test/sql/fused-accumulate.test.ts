/**
 * The generated add of a query's aggregates (planner/fused-accumulate.ts) against the closure
 * per call it replaces: over random rows of every numeric width, strings, DECIMALs and NULLs, and
 * random sets of calls with and without FILTERs, both give the same accumulator (as written to
 * a checkpoint) and the same result rows (also from states restored from JSON), past 2^53, past
 * 32-bit wrapping and with NaN and -0.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Scope } from '../../src/sql/expressions/scope.js';
import { parseExpression } from '../../src/sql/parser/parser.js';
import type { AggregateCallAst } from '../../src/sql/planner/aggregate-spec.js';
import { rowAggregate } from '../../src/sql/planner/aggregates.js';
import { T } from '../../src/sql/types/logical-type.js';

const scope = new Scope(
  (
    [
      ['b', T.bigint()],
      ['i', T.int()],
      ['s', T.int('SMALLINT')],
      ['y', T.int('TINYINT')],
      ['f', { kind: 'FLOAT', nullable: true }],
      ['x', T.double()],
      ['v', T.string()],
      ['d', T.decimal(10, 2)],
      ['ts', T.timestamp(3)],
    ] as const
  ).map(([name, type]) => ({ name, type, qualifier: 't', rowtime: false })),
);

const ARGUMENTS = ['b', 'i', 's', 'y', 'f', 'x', 'v', 'd', 'ts', 'b + 1', 'i * 2'];
const FILTERS = [
  '',
  ' FILTER (WHERE i > 0)',
  ' FILTER (WHERE v IS NOT NULL)',
  ' FILTER (WHERE b < 100)',
];

/** Every call the fast paths cover, and some they leave to the call's own add. */
const CALLS: string[] = ['COUNT(*)'];
for (const a of ARGUMENTS) {
  for (const name of ['COUNT', 'MIN', 'MAX']) CALLS.push(`${name}(${a})`);
  if (a !== 'v' && a !== 'ts') for (const name of ['SUM', 'AVG']) CALLS.push(`${name}(${a})`);
}
CALLS.push('COUNT(DISTINCT b)', 'COUNT(DISTINCT v)', 'SUM(DISTINCT i)', 'STDDEV_POP(x)');

const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 5 });
const row = fc.tuple(
  nullable(
    fc.oneof(
      fc.integer({ min: -1000, max: 1000 }),
      fc.constantFrom(2 ** 53 - 2, -(2 ** 53) + 2, 2 ** 52),
      fc.bigInt({ min: 2n ** 53n, max: 2n ** 62n }),
    ),
  ),
  nullable(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(2147483647, -2147483648))),
  nullable(fc.integer({ min: -32768, max: 32767 })),
  nullable(fc.integer({ min: -128, max: 127 })),
  nullable(fc.float({ noDefaultInfinity: true }).map(Math.fround)),
  nullable(fc.oneof(fc.double(), fc.constantFrom(Number.NaN, -0, 0))),
  nullable(fc.string({ maxLength: 3 })),
  nullable(fc.bigInt({ min: -99999n, max: 99999n })),
  nullable(fc.integer({ min: 0, max: 2_000_000_000 })),
);

/** Grouping keys kept in the accumulator as they are (VARCHAR) and as text (BIGINT, DECIMAL). */
const KEYS = [0, 6, 7].map((at) => (r: unknown[]) => r[at] ?? null);
const KEY_TYPES = [T.bigint(), T.string(), T.decimal(10, 2)];

/** Up to 8 calls, each with or without a FILTER. */
const pickedCalls = fc.array(fc.tuple(fc.constantFrom(...CALLS), fc.constantFrom(...FILTERS)), {
  minLength: 1,
  maxLength: 8,
});
/** A window's slices, each a few rows. */
const slicesOfRows = fc.array(fc.array(row, { maxLength: 10 }), { minLength: 1, maxLength: 4 });
type Slice = readonly (readonly unknown[])[];

/** `rows` folded into a new accumulator of `fn`. */
function fold(fn: ReturnType<typeof rowAggregate>['fn'], rows: Slice) {
  return rows.reduce((acc, r) => fn.add([...r], acc), fn.createAccumulator());
}

function callsOf(texts: readonly string[]): AggregateCallAst[] {
  return texts.map((t) => parseExpression(t) as unknown as AggregateCallAst);
}

/**
 * `rows` folded by the generated add and by the closures, both restored from a checkpoint's
 * JSON before row `restoreAt` (states come back in that form); `check` runs after the restore
 * (`restored`) and after each row.
 */
function foldBoth(
  calls: readonly AggregateCallAst[],
  rows: readonly (readonly unknown[])[],
  restoreAt: number,
  check: (
    fused: AggregateOf,
    closures: AggregateOf,
    a: AccumulatorOf,
    b: AccumulatorOf,
    restored: boolean,
  ) => void = () => {},
) {
  const fused = rowAggregate(KEYS, KEY_TYPES, calls, scope).fn;
  const closures = rowAggregate(KEYS, KEY_TYPES, calls, scope, false, false).fn;
  let a = fused.createAccumulator();
  let b = closures.createAccumulator();
  rows.forEach((r, i) => {
    if (i === restoreAt) {
      a = JSON.parse(JSON.stringify(a));
      b = JSON.parse(JSON.stringify(b));
      check(fused, closures, a, b, true);
    }
    a = fused.add([...r], a);
    b = closures.add([...r], b);
    check(fused, closures, a, b, false);
  });
  return { fused, closures, a, b };
}
type AggregateOf = ReturnType<typeof rowAggregate>['fn'];
type AccumulatorOf = ReturnType<AggregateOf['createAccumulator']>;

describe('the generated add of a query aggregates', () => {
  it('keeps the accumulator and the results of the closure per call', () => {
    fc.assert(
      fc.property(
        pickedCalls,
        fc.array(row, { maxLength: 40 }),
        fc.nat(40),
        (picked, rows, restoreAt) => {
          const calls = callsOf(picked.map(([c, f]) => c + f));
          const { fused, closures, a, b } = foldBoth(
            calls,
            rows,
            restoreAt,
            (fusedFn, closuresFn, x, y, restored) => {
              if (restored) expect(fusedFn.getResult(x)).toEqual(closuresFn.getResult(y));
              else expect(JSON.stringify(x)).toBe(JSON.stringify(y));
            },
          );
          expect(fused.getResult(a)).toEqual(closures.getResult(b));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('creates and merges accumulators as the closures do (window slices)', () => {
    fc.assert(
      fc.property(pickedCalls, slicesOfRows, (picked, slices) => {
        const calls = callsOf(picked.map(([c, f]) => c + f));
        const fused = rowAggregate(KEYS, KEY_TYPES, calls, scope).fn;
        const closures = rowAggregate(KEYS, KEY_TYPES, calls, scope, false, false).fn;
        expect(JSON.stringify(fused.createAccumulator())).toBe(
          JSON.stringify(closures.createAccumulator()),
        );
        // The window's merge of its slices, oldest first.
        const mergeFused = fused.merge as NonNullable<typeof fused.merge>;
        const mergeClosures = closures.merge as NonNullable<typeof closures.merge>;
        const a = slices.map((rows) => fold(fused, rows)).reduce((x, y) => mergeFused(x, y));
        const b = slices.map((rows) => fold(closures, rows)).reduce((x, y) => mergeClosures(x, y));
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
        expect(fused.getResult(a)).toEqual(closures.getResult(b));
      }),
      { numRuns: 200 },
    );
  });

  it('merges into the accumulator it is given as the closures merge, leaving the other as it was', () => {
    fc.assert(
      fc.property(pickedCalls, slicesOfRows, fc.boolean(), (picked, slices, restored) => {
        const calls = callsOf(picked.map(([c, f]) => c + f));
        const fused = rowAggregate(KEYS, KEY_TYPES, calls, scope);
        const closures = rowAggregate(KEYS, KEY_TYPES, calls, scope, false, false).fn;
        // As a sliding window fires: each slice merged into one fresh accumulator; the
        // slices (shared with the next windows) stay as they were, also when they came
        // back from a checkpoint.
        const checkpointed = <A>(acc: A): A =>
          restored ? (JSON.parse(JSON.stringify(acc)) as A) : acc;
        const parts = slices.map((rows) => checkpointed(fold(fused.fn, rows)));
        const before = parts.map((p) => JSON.stringify(p));
        const into = fused.fn.createAccumulator();
        for (const p of parts) expect(fused.mergeInto(into, p)).toBe(into);
        expect(parts.map((p) => JSON.stringify(p))).toEqual(before);
        const mergeClosures = closures.merge as NonNullable<typeof closures.merge>;
        const b = slices
          .map((rows) => checkpointed(fold(closures, rows)))
          .reduce((x, y) => mergeClosures(x, y), closures.createAccumulator());
        expect(JSON.stringify(into)).toBe(JSON.stringify(b));
        expect(fused.fn.getResult(into)).toEqual(closures.getResult(b));
      }),
      { numRuns: 200 },
    );
  });

  it('counts shared COUNT(DISTINCT) calls as the closures do, in the dense array of ids and out of it', () => {
    // Ids from a small range (the state moves them into its dense array once 64 are seen),
    // some far off, negative or past 2^53 (the Map), and NULLs; restored from a checkpoint
    // part-way, when the state is not live until its own add adopts it.
    const dense = fc.integer({ min: 0, max: 150 });
    const anyId = fc.oneof(
      { weight: 8, arbitrary: dense },
      {
        weight: 1,
        arbitrary: fc.constantFrom<number | bigint>(-3, 10_000_000, 2 ** 40, 2n ** 60n),
      },
    );
    const rowsOf = (id: fc.Arbitrary<number | bigint>) =>
      fc.array(
        fc.tuple(
          nullable(id),
          nullable(fc.integer({ min: -5, max: 5 })),
          nullable(fc.string({ maxLength: 2 })),
        ),
        { minLength: 50, maxLength: 300 },
      );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('b', 'v', 'b + 1'), fc.constantFrom(...FILTERS)), {
          minLength: 2,
          maxLength: 6,
        }),
        fc.oneof(rowsOf(dense), rowsOf(anyId)),
        fc.nat(300),
        (picked, idRows, restoreAt) => {
          const calls = callsOf(picked.map(([arg, f]) => `COUNT(DISTINCT ${arg})${f}`));
          const rows = idRows.map(([bv, iv, vv]) => [
            bv,
            iv,
            null,
            null,
            null,
            null,
            vv,
            null,
            null,
          ]);
          const { fused, closures, a, b } = foldBoth(calls, rows, restoreAt);
          expect(fused.getResult(a)).toEqual(closures.getResult(b));
          expect(JSON.stringify(a)).toBe(JSON.stringify(b));
        },
      ),
      { numRuns: 150 },
    );
    // And always once: 200 ids over 0..99, counted in the dense array after the first 64.
    const calls = callsOf(['COUNT(DISTINCT b)', 'COUNT(DISTINCT b) FILTER (WHERE i > 0)']);
    const rows = Array.from({ length: 200 }, (_, j) => [(j * 37) % 100, (j % 3) - 1]);
    const { fused, closures, a, b } = foldBoth(calls, rows, 300);
    expect((a.s[0] as { dense: unknown }).dense).not.toBeNull();
    expect(fused.getResult(a)).toEqual(closures.getResult(b));
    expect(fused.getResult(a)).toEqual([0, null, null, 100, 66]);
  });

  it('is generated for the calls it covers, and folds like the closures over Nexmark q17', () => {
    const calls = callsOf([
      'COUNT(*)',
      'COUNT(*) FILTER (WHERE b < 10000)',
      'COUNT(*) FILTER (WHERE b >= 10000 AND b < 1000000)',
      'MIN(b)',
      'MAX(b)',
      'AVG(b)',
      'SUM(b)',
    ]);
    const fused = rowAggregate([], [], calls, scope).fn;
    expect(fused.add.name).toBe('compiled');
    expect(fused.getResult.name).toBe('compiled');
    expect(fused.createAccumulator.name).toBe('compiled');
    expect(fused.merge?.name).toBe('compiled');
    expect(rowAggregate([], [], calls, scope).mergeInto.name).toBe('compiled');
    let acc = fused.createAccumulator();
    for (const price of [5, 20000, 3_000_000, 7]) acc = fused.add([price], acc);
    expect(fused.getResult(acc)).toEqual([4, 2, 1, 5, 3_000_000, 755003, 3_020_012]);
  });
});
