/**
 * Cases for per-stage windows (`within(ms, 'previousAndCurrent')`) and for ordering events of
 * one timestamp with a comparator, by hand and seeded random. Their Flink answers are in
 * test/cep/fixtures/flink/stage-windows.json (`npm run golden:cep -- stage-windows`).
 *
 * Flink registers no timer for a per-stage window: a partial match past one times out when its
 * key next has a record, or when a whole-pattern window's timer fires. Weir times it out when
 * the watermark passes (so that state stays bounded); the two agree whenever Flink looks at
 * the key again, so the hand cases end each key with records that do, and the random ones
 * all have a whole-pattern window (which Flink requires to be at least every per-stage one).
 */
import fc from 'fast-check';
import type { CaseJson, PatternJson, StageJson } from './case.js';
import {
  begin,
  followedBy,
  group,
  kase,
  next,
  notFollowedBy,
  notNext,
  pattern,
  quantifier,
} from './dsl.js';
import { caseArb } from './random-cases.js';

export const STAGE_WINDOW_SEED = 20_261_203;

const byValue = (c: CaseJson, descending: boolean): CaseJson => ({
  ...c,
  comparator: { descending },
});

const stageWindows: CaseJson[] = [
  kase(
    "Flink's example: s m(10) t(20) e, each window from the event before",
    pattern([
      begin('s'),
      followedBy('m', { previous: 10 }),
      followedBy('t', { previous: 20 }),
      followedBy('e'),
    ]),
    's1 m5 t30 e31 s50 m61 j:s40 j:m49 j:t68 j:e100',
  ),
  kase(
    'per-stage and whole windows: a per-stage timeout is stamped with its own end',
    pattern([begin('a'), followedBy('b', { previous: 4 }), followedBy('c', { previous: 8 })], {
      within: 10,
    }),
    'a1 b4 c13 j:a1 j:b4 j:c10 j:a20 j:b25',
  ),
  kase(
    "trailing notFollowedBy with a per-stage window (Flink's NFA test)",
    pattern([begin('a'), notFollowedBy('b', { previous: 3 })]),
    'a1 b2 a4 c5 b10 a11 b13',
  ),
  kase(
    'notNext with a per-stage window',
    pattern([begin('a'), notNext('b', { previous: 3 }), followedBy('c')]),
    'a1 d2 c5 a10 d14 c15',
  ),
  kase(
    'an optional relaxed stage: the window holds until it skips an event',
    pattern([
      begin('a'),
      followedBy('b', { previous: 3, q: quantifier(1, 1, { optional: true }) }),
      followedBy('c'),
    ]),
    'a1 b5 c6 j:a1 j:x2 j:b5 j:c6',
  ),
  kase(
    'strict stages with per-stage windows, out of order, late events',
    pattern([begin('a'), next('b', { previous: 2 }), next('c', { previous: 2 })]),
    'b3 a1 W1 c5 a0 b7 a6 c8 W8 a9 b10 c13 a14',
  ),
  kase(
    'a window inside a repeated group',
    pattern([
      begin('s'),
      group('relaxed', 'g', [begin('a'), followedBy('b', { previous: 2 })], quantifier(2, 2)),
      followedBy('e'),
    ]),
    's1 a2 b3 a5 b6 e9 s10 a11 b12 a13 b16 e17 s30',
  ),
];

const ties: CaseJson[] = [
  ...[undefined, false, true].map((descending) => {
    const c = kase(
      `ties: a next b at one timestamp, comparator ${descending === undefined ? 'none' : descending ? 'descending' : 'ascending'}`,
      pattern([begin('a'), next('b')]),
      'b5=0 a5=1 c6 j:a7=0 j:b7=1 j:c8 W8 b9=3 a9=4 a9.1=2 b9.1=1',
    );
    return descending === undefined ? c : byValue(c, descending);
  }),
  byValue(
    kase(
      'ties: keyed event time with a comparator, out of order and late',
      pattern([begin('a'), followedBy('b'), followedBy('c')], { within: 6 }),
      'a2=3 b2=1 j:b2=2 j:a2=5 c3=0 W1 a1=9 b4=2 c4=1 a4=0 j:c4=1 W4 j:c3=4 b5=1 c5=0',
    ),
    true,
  ),
];

/** Gives eligible stages of a random pattern per-stage windows, under a whole window. */
function withStageWindows(p: PatternJson, windows: readonly number[]): PatternJson {
  let i = 0;
  const last = p.stages[p.stages.length - 1];
  const visit = (stages: readonly StageJson[], top: boolean): StageJson[] =>
    stages.map((s, at): StageJson => {
      if (s.group !== undefined) return { ...s, group: { stages: visit(s.group.stages, false) } };
      const q = s.quantifier;
      const single = q === undefined || (q.min === 1 && q.max === 1);
      const trailing = top && s === last;
      const eligible = at > 0 && single && (s.contiguity !== 'not-followed-by' || trailing);
      const w = windows[i++ % windows.length]!;
      return eligible && w > 0 ? { ...s, withinPreviousMs: w } : s;
    });
  const stages = visit(p.stages, true);
  const most = Math.max(0, ...windows);
  return { ...p, stages, withinMs: Math.max(p.withinMs ?? 0, most, 2) };
}

const windowsArb = fc.array(fc.constantFrom(0, 1, 2, 3, 5), { minLength: 4, maxLength: 4 });

function randomStageWindowCases(): CaseJson[] {
  const arb = fc.record({ c: caseArb, windows: windowsArb, order: fc.nat(3) });
  return fc
    .sample(arb, { seed: STAGE_WINDOW_SEED, numRuns: 48 })
    .map(({ c, windows, order }, i) => {
      const base: CaseJson = {
        name: `stage windows random ${i}`,
        time: 'event',
        pattern: withStageWindows(c.pattern, windows),
        input: c.input,
      };
      // A quarter without a comparator, the rest ordering ties by value one way or the other.
      return order === 0 ? base : byValue(base, order === 1);
    });
}

export function stageWindowCases(): CaseJson[] {
  return [...stageWindows, ...ties, ...randomStageWindowCases()];
}
