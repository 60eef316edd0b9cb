import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Contiguity, InnerContiguity, StageSpec } from '../../src/core/cep.js';
import { cepHarness, type Ev, resultOf, sorted } from './cep-harness.js';
import { type OracleStage, oracleMatches, QUANTIFIERS, toSpec } from './oracle.js';

const TYPES = ['a', 'b', 'c', 'd'] as const;

const typeSet = fc.subarray(['a', 'b', 'c'], { minLength: 1, maxLength: 2 });

interface RealStage {
  readonly types: string[];
  readonly contiguity: 'strict' | 'relaxed' | 'any';
  readonly quantifier: keyof typeof QUANTIFIERS;
  readonly inner: InnerContiguity;
  readonly until: string[] | null;
  /** A negation after this stage, if any. */
  readonly negation: { kind: 'not-next' | 'not-followed-by'; types: string[] } | null;
  /** A per-stage window (`within(ms, 'previousAndCurrent')`), where the oracle defines one. */
  readonly previous: number | null;
}

const realStage: fc.Arbitrary<RealStage> = fc.record({
  types: typeSet,
  contiguity: fc.constantFrom('strict' as const, 'relaxed' as const, 'any' as const),
  quantifier: fc.constantFrom(...(Object.keys(QUANTIFIERS) as (keyof typeof QUANTIFIERS)[])),
  inner: fc.constantFrom('strict' as const, 'relaxed' as const, 'any' as const),
  until: fc.option(fc.subarray(['c', 'd'], { minLength: 1, maxLength: 1 }), { nil: null }),
  negation: fc.option(
    fc.record({
      kind: fc.constantFrom('not-next' as const, 'not-followed-by' as const),
      types: fc.subarray(['a', 'b', 'c', 'd'], { minLength: 1, maxLength: 1 }),
    }),
    { nil: null },
  ),
  previous: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
});

/** Builds a pattern the oracle can read: negations only where its rules define them. */
function buildStages(real: readonly RealStage[], within?: number): OracleStage[] {
  const out: OracleStage[] = [];
  real.forEach((r, i) => {
    const quantifier = QUANTIFIERS[r.quantifier]!;
    const afterNegation = i > 0 && real[i - 1]!.negation !== null && allowedNegation(real, i - 1);
    const q =
      afterNegation && (quantifier.optional || quantifier.min === 0)
        ? QUANTIFIERS.one!
        : { ...quantifier, inner: r.inner };
    const looping = q.max === Number.POSITIVE_INFINITY;
    // A per-stage window on a stage that takes one event, right after another such stage (as
    // Flink, the NFA checks it only while the partial match waits in the stage's own state: after
    // a loop or an optional stage it waits in that stage's state, and after a notNext in the
    // negation's), and no longer than the whole window.
    const single = (x: RealStage | undefined) => {
      const xq = x === undefined ? undefined : QUANTIFIERS[x.quantifier]!;
      return xq !== undefined && xq.min === 1 && xq.max === 1 && !xq.optional;
    };
    const previous =
      r.previous !== null &&
      i > 0 &&
      single(r) &&
      single(real[i - 1]) &&
      real[i - 1]!.negation?.kind !== 'not-next' &&
      (within === undefined || r.previous <= within)
        ? r.previous
        : undefined;
    const spec: StageSpec<Ev> = {
      name: `s${i}`,
      contiguity: (i === 0 ? 'strict' : r.contiguity) as Contiguity,
      quantifier: q,
      condition: { kind: 'where', fn: (e) => r.types.includes(e.type) },
      ...(looping && r.until !== null
        ? { until: { kind: 'where' as const, fn: (e: Ev) => r.until!.includes(e.type) } }
        : {}),
      ...(previous === undefined ? {} : { withinPreviousMs: previous }),
    };
    out.push({
      spec,
      types: r.types,
      ...(looping && r.until !== null ? { untilTypes: r.until } : {}),
    });
    if (r.negation !== null && allowedNegation(real, i)) {
      const types = r.negation.types;
      out.push({
        spec: {
          name: `n${i}`,
          contiguity: r.negation.kind,
          quantifier: QUANTIFIERS.one!,
          condition: { kind: 'where', fn: (e) => types.includes(e.type) },
        },
        types,
      });
    }
  });
  return out;
}

function allowedNegation(real: readonly RealStage[], i: number): boolean {
  const r = real[i]!;
  if (r.negation === null) return false;
  const q = QUANTIFIERS[r.quantifier]!;
  const last = i === real.length - 1;
  if (r.negation.kind === 'not-next') return r.quantifier === 'one';
  return !last && !q.optional && q.min > 0;
}

interface Arrival {
  readonly event: Ev;
}

const streamArb = fc
  .array(
    fc.record({
      type: fc.constantFrom(...TYPES),
      key: fc.constantFrom('x', 'y'),
      ts: fc.integer({ min: 1, max: 12 }),
    }),
    { minLength: 0, maxLength: 9 },
  )
  .map((raw) =>
    raw.map(
      (r, i): Arrival => ({
        event: { id: `${r.type}${i}`, type: r.type, ts: r.ts, key: r.key, v: 0 },
      }),
    ),
  );

/** Runs `real` through the CEP operator and the oracle; true if the oracle found any match. */
function agree(
  real: readonly RealStage[],
  within: number | undefined,
  arrivals: readonly Arrival[],
  bound: number,
): boolean {
  const stages = buildStages(real, within);
  const spec = toSpec(stages, within);
  const h = cepHarness(spec);
  // Watermarks trail the largest timestamp seen by `bound`; events at or behind them are late.
  let maxTs = Number.NEGATIVE_INFINITY;
  let watermark = Number.NEGATIVE_INFINITY;
  const onTime: Ev[] = [];
  const late: string[] = [];
  for (const { event } of arrivals) {
    h.processElement(event, event.ts);
    if (event.ts <= watermark) late.push(event.id);
    else onTime.push(event);
    maxTs = Math.max(maxTs, event.ts);
    if (maxTs - bound > watermark) {
      watermark = maxTs - bound;
      h.processWatermark(watermark);
    }
  }
  h.processWatermark(Number.POSITIVE_INFINITY);
  const got = resultOf(h);
  expect(got.late).toEqual(late);
  expect(h.metric('weir_cep_late_records_total')).toBe(late.length);
  const expected: string[] = [];
  for (const key of ['x', 'y']) {
    // Timestamp order; ties keep arrival order (a stable sort).
    const events = onTime.filter((e) => e.key === key).sort((p, q) => p.ts - q.ts);
    expected.push(...oracleMatches(stages, within, events));
  }
  expect(sorted(got.matches)).toEqual(sorted(expected));
  return expected.length > 0;
}

const withinArb = fc.option(fc.integer({ min: 2, max: 8 }), { nil: undefined });

describe('the NFA agrees with a brute-force reading of the pattern', () => {
  it("on patterns of single-event stages with per-stage windows (within(ms, 'previousAndCurrent'))", () => {
    let runsWithMatches = 0;
    const windowed = realStage.map(
      (r): RealStage => ({ ...r, quantifier: 'one', previous: (r.previous ?? 4) + 1 }),
    );
    fc.assert(
      fc.property(
        fc.array(windowed, { minLength: 2, maxLength: 3 }),
        withinArb,
        streamArb,
        fc.integer({ min: 0, max: 4 }),
        (real, within, arrivals, bound) => {
          if (agree(real, within, arrivals, bound)) runsWithMatches++;
        },
      ),
      { numRuns: 500, seed: 15 },
    );
    // The property must not hold vacuously.
    expect(runsWithMatches).toBeGreaterThan(10);
  });

  it('a loop after relaxed contiguity: an event meeting both its condition and until, before its first event, ends the partial match', () => {
    // Found by the property below: the NFA matches only `c1 b2`; `b0` cannot skip `c1` (it
    // meets the loop's condition) nor take it (it meets until).
    const stage = (over: Partial<RealStage>): RealStage => ({
      types: ['b', 'c'],
      contiguity: 'strict',
      quantifier: 'one',
      inner: 'strict',
      until: null,
      negation: null,
      previous: null,
      ...over,
    });
    const event = (id: string, type: string) => ({ event: { id, type, ts: 1, key: 'y', v: 0 } });
    const real = [
      stage({}),
      stage({ contiguity: 'relaxed', quantifier: 'oneOrMore', until: ['c'] }),
    ];
    expect(agree(real, undefined, [event('b0', 'b'), event('c1', 'c'), event('b2', 'b')], 1)).toBe(
      true,
    );
  });

  it('on random patterns and random out-of-order streams with late events', () => {
    let runsWithMatches = 0;
    fc.assert(
      fc.property(
        fc.array(realStage, { minLength: 1, maxLength: 3 }),
        withinArb,
        streamArb,
        fc.integer({ min: 0, max: 4 }),
        (real, within, arrivals, bound) => {
          if (agree(real, within, arrivals, bound)) runsWithMatches++;
        },
      ),
      { numRuns: 1000 },
    );
    // The property must not hold vacuously.
    expect(runsWithMatches).toBeGreaterThan(150);
  });

  it('on patterns with a negation between or after stages', () => {
    let runsWithMatches = 0;
    fc.assert(
      fc.property(
        fc.array(realStage, { minLength: 1, maxLength: 2 }),
        fc.constantFrom('not-next' as const, 'not-followed-by' as const),
        fc.constantFrom('a', 'b', 'c', 'd'),
        withinArb,
        streamArb,
        fc.integer({ min: 0, max: 4 }),
        (stages, kind, negated, within, arrivals, bound) => {
          const real = stages.map((r, i) =>
            i === 0
              ? {
                  ...r,
                  quantifier: kind === 'not-next' ? ('one' as const) : r.quantifier,
                  negation: { kind, types: [negated] },
                }
              : { ...r, negation: null },
          );
          if (agree(real, within, arrivals, bound)) runsWithMatches++;
        },
      ),
      { numRuns: 1000 },
    );
    expect(runsWithMatches).toBeGreaterThan(100);
  });
});
